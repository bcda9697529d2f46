"""Chinchón's packs: card codes, values, run order, parsing, and hands as bit masks.

A card's index is ``suit * 16 + position``, its position the place of its rank in run order
(French A..K; spanish40 1..7, 10, 11, 12; spanish48 1..12). A suit's cards in a hand are then
a mask of bits 0..P-1 of the hand mask shifted by 16·suit; jokers are counted apart.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from bot.games.base import NotACard

JOKER = "JK"
HAND_SIZE = 7
MAX_CARDS = 10  # the evaluation API's limit (a hand holds 8 at most)
JOKER_VALUE = 50  # an unmatched joker's cost


class Pack:
    """One kind of pack: card codes, values and run order (read-only, shared)."""

    def __init__(self, name: str, suits: str, labels: Sequence[str], values: Sequence[int]) -> None:
        self.name = name
        self.suits = suits
        self.labels = tuple(labels)
        self.size = len(labels)  # P: positions in a suit
        self.index: dict[str, int] = {}
        self.code: dict[int, str] = {}
        self.value = [0] * 64
        cards = []
        for si, s in enumerate(suits):
            for p, label in enumerate(labels):
                code = label + s
                idx = si * 16 + p
                self.index[code] = idx
                self.code[idx] = code
                self.value[idx] = values[p]
                cards.append(code)
        self.pos_value = tuple(values)
        self.cards: tuple[str, ...] = tuple(cards)  # canonical order: suit by suit, in run order

    def __deepcopy__(self, memo) -> "Pack":
        return self  # one shared, read-only object per kind of pack

    def pack(self, players: int) -> tuple[str, ...]:
        return self.cards + ((JOKER, JOKER) if players >= 3 else ())

    def parse(self, text: str) -> str:
        code = str(text).strip().upper()
        if self.name == "french" and code.startswith("10") and len(code) == 3:
            code = "T" + code[2]
        if code in self.index or code == JOKER:
            return code
        raise NotACard(str(text).strip(), f"{str(text).strip()!r} is not a card of the {self.name} pack")

    def sort_key(self, card: str) -> tuple[int, int]:
        """Rank (run order) first, then suit; jokers last."""
        idx = self.index.get(card)
        if idx is None:
            return (99, 99)
        return (idx & 15, idx >> 4)

    def sorted(self, cards: Iterable[str]) -> list[str]:
        return sorted(cards, key=self.sort_key)

    def card_value(self, card: str) -> int:
        """What ``card`` costs unmatched (a joker 50)."""
        return JOKER_VALUE if card == JOKER else self.value[self.index[card]]


FRENCH_PACK = Pack("french", "SHDC", "A23456789TJQK", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10))
SPANISH40_PACK = Pack("spanish40", "OCEB", [str(r) for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)],
                      (1, 2, 3, 4, 5, 6, 7, 10, 11, 12))
SPANISH48_PACK = Pack("spanish48", "OCEB", [str(r) for r in range(1, 13)], tuple(range(1, 13)))
PACKS: dict[str, Pack] = {p.name: p for p in (FRENCH_PACK, SPANISH40_PACK, SPANISH48_PACK)}


def get_pack(deck: str | Pack) -> Pack:
    if isinstance(deck, Pack):
        return deck
    try:
        return PACKS[str(deck).lower()]
    except KeyError:
        raise ValueError(f"unknown deck {deck!r}: use {', '.join(PACKS)}") from None


def split_cards(cards: str | Iterable[str]) -> Iterable[str]:
    """``"3H 4H, 5H"`` -> the codes as written; a list is returned as it is."""
    return cards.replace(",", " ").split() if isinstance(cards, str) else cards


def hand_mask(pk: Pack, cards: Iterable[str]) -> tuple[int, int, int]:
    """(index mask, jokers, value of the real cards) of card codes; ValueError if invalid."""
    H = 0
    jokers = 0
    value = 0
    count = 0
    index = pk.index
    for c in cards:
        count += 1
        idx = index.get(c)
        if idx is None:
            c = pk.parse(c)
            if c == JOKER:
                jokers += 1
                continue
            idx = index[c]
        bit = 1 << idx
        if H & bit:
            raise ValueError(f"{pk.code[idx]} is listed twice")
        H |= bit
        value += pk.value[idx]
    if jokers > 2:
        raise ValueError("a hand holds at most two jokers")
    if count > MAX_CARDS:
        raise ValueError(f"at most {MAX_CARDS} cards")
    return H, jokers, value


#: by suit, by the mask of a suit's positions (at most 13): the card indices, lowest first
_INDICES = [[tuple(16 * suit + p for p in range(13) if m >> p & 1) for m in range(1 << 13)] for suit in range(4)]


def indices(mask: int) -> list[int]:
    """The card indices of ``mask``, lowest first."""
    s0, s1, s2, s3 = _INDICES
    return [*s0[mask & 0x1FFF], *s1[mask >> 16 & 0x1FFF], *s2[mask >> 32 & 0x1FFF], *s3[mask >> 48]]


def mask_value(pk: Pack, mask: int) -> int:
    """The value of the real cards of ``mask``."""
    return sum(pk.value[i] for i in indices(mask))
