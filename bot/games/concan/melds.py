"""Concan melds: card values, joker tokens, what a meld is and what it is worth.

Rules in docs/rules/concan.md ("Cards", "Melds", "Scoring"). Pure functions and frozen
values shared by the solver (:mod:`.solver`), the table melds (:mod:`.table`),
the state (:mod:`.game`), its scoring (:mod:`.scoring`) and the AI (:mod:`.ai`).

- Values: ``RANK_VALUE`` (a rank in a set or a hand), ``card_penalty(card, announced=)``,
  ``hand_penalty(cards, opened=, announced_jokers=)``; runs by position: ``RUN_CODES[suit][q]``
  is the card at position ``q`` (1 the ace low … 14 the ace high), ``RUN_PREFIX`` their values.
- Tokens: a joker laid in a meld is written ``JK=5H`` (``meld_token``, ``token_identity``,
  ``is_joker_token``, ``parse_token``).
- ``MeldSpec``: a fully named meld; ``interpret(fixed, bare)`` every meld some cards make,
  ``resolve_meld(parts)`` the one an action names (or the reason it is none: an
  ``IllegalAction``), ``meld_value(meld)`` the value of concan.md's evaluation API.

Every meld holds at least one natural card (there are only two jokers); any number of jokers
may sit in one meld. A 13-card run ``2…K`` + ace counts the ace high (the higher value).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Sequence

from bot.i18n import _
from bot.games.base import IllegalAction, NotACard, or_list
from bot.games.french import JOKER, RANKS, SUITS, parse_card

RANK_NO = {r: i + 1 for i, r in enumerate(RANKS)}  # A 1 … K 13
SUIT_NO = {s: i for i, s in enumerate(SUITS)}
#: a suit's cards by run position 1..14: 1 is the ace low, 14 the ace high
RUN_CODES = {s: [""] + [RANKS[q - 1] + s for q in range(1, 14)] + ["A" + s] for s in SUITS}
_POS_VALUE = [0, 1] + [min(q, 10) for q in range(2, 14)] + [10]
#: RUN_PREFIX[q]: the value of the run positions 1..q (a run lo..hi is worth RUN_PREFIX[hi] - RUN_PREFIX[lo - 1])
RUN_PREFIX = [0]
for _v in _POS_VALUE[1:]:
    RUN_PREFIX.append(RUN_PREFIX[-1] + _v)
del _v
#: a card's value in a set, a penalty or a run (an ace high: the low ace of a run is 1)
RANK_VALUE = {r: 10 if r in "ATJQK" else int(r) for r in RANKS}


def card_penalty(card: str, *, announced: bool = False) -> int:
    """A card left in an opened hand: 2–9 face value, T/J/Q/K and A 10, joker 2 or 25."""
    if card == JOKER:
        return 2 if announced else 25
    return RANK_VALUE[card[0]]


def suit_order(card: str) -> tuple[int, int]:
    """A sort key: by suit (S H D C), then rank (A low)."""
    return (SUIT_NO[card[1]], RANK_NO[card[0]])


def meld_token(identity: str, joker: bool) -> str:
    """A card of a meld as written: ``"5H"``, or ``"JK=5H"`` for a joker standing for it."""
    return f"{JOKER}={identity}" if joker else identity


def token_identity(token: str) -> str:
    """``"JK=5H"`` -> ``"5H"``; a natural card is itself."""
    return token[3:] if token.startswith(JOKER + "=") else token


def is_joker_token(token: str) -> bool:
    """Whether a card of a meld or a hand is a joker (``JK`` or ``JK=5H``)."""
    return token.startswith(JOKER)


def parse_token(text: str) -> tuple[str | None, bool]:
    """A card of a meld: ``(identity, is_joker)``; a bare ``JK`` has identity ``None``."""
    t = str(text).strip().upper()
    if t.startswith(JOKER + "="):
        return parse_card(t[3:]), True
    if t == JOKER:
        return None, True
    return parse_card(t), False


@dataclass(frozen=True)
class MeldSpec:
    """A fully named meld: ``tokens`` in display order (sets by suit S H D C, runs upwards)."""

    kind: str  # "set" | "run"
    tokens: tuple[str, ...]
    value: int
    rank: str = ""  # sets
    suit: str = ""  # runs
    lo: int = 0  # runs: positions 1 (ace low) .. 14 (ace high)
    hi: int = 0

    @property
    def identities(self) -> list[str]:
        return [token_identity(t) for t in self.tokens]

    @property
    def naturals(self) -> list[str]:
        return [t for t in self.tokens if not is_joker_token(t)]

    @property
    def jokers(self) -> int:
        return sum(1 for t in self.tokens if is_joker_token(t))


def run_spec(suit: str, lo: int, hi: int, fixed: dict[int, str]) -> MeldSpec:
    """The run ``lo..hi`` of ``suit``; ``fixed`` maps positions to their tokens, the others are jokers."""
    codes = RUN_CODES[suit]
    tokens = tuple(fixed.get(q, meld_token(codes[q], True)) for q in range(lo, hi + 1))
    return MeldSpec("run", tokens, RUN_PREFIX[hi] - RUN_PREFIX[lo - 1], suit=suit, lo=lo, hi=hi)


def set_spec(rank: str, items: Iterable[tuple[str, bool]]) -> MeldSpec:
    ordered = sorted(items, key=lambda x: SUIT_NO[x[0][1]])
    return MeldSpec("set", tuple(meld_token(c, j) for c, j in ordered), len(ordered) * RANK_VALUE[rank], rank=rank)


def interpret(fixed: Sequence[tuple[str, bool]], bare: int) -> list[MeldSpec]:
    """Every valid meld made of ``fixed`` (identity, is_joker) cards plus ``bare`` unnamed
    jokers, highest value first."""
    n = len(fixed) + bare
    out: list[MeldSpec] = []
    if n < 3 or not fixed:
        return out
    idents = [c for c, _ in fixed]
    ranks = {c[0] for c in idents}
    suits = {c[1] for c in idents}
    if len(ranks) == 1 and n <= 4 and len(suits) == len(idents):
        rank = idents[0][0]
        missing = [s for s in SUITS if s not in suits]
        for combo in combinations(missing, bare):
            out.append(set_spec(rank, list(fixed) + [(rank + s, True) for s in combo]))
    if len(suits) == 1 and len(ranks) == len(idents) and n <= 13:
        suit = idents[0][1]
        for ace in ((1, 14) if "A" in ranks else (0,)):
            pos = {(ace if c[0] == "A" else RANK_NO[c[0]]): meld_token(c, j) for c, j in fixed}
            for lo in range(max(1, max(pos) - n + 1), min(pos) + 1):
                hi = lo + n - 1
                if hi <= 14:
                    out.append(run_spec(suit, lo, hi, pos))
    out.sort(key=lambda m: -m.value)
    return out


def _meld_error(fixed: Sequence[tuple[str, bool]], bare: int) -> IllegalAction:
    """Why these cards are not a meld (a short sentence)."""
    n = len(fixed) + bare
    shown = " ".join([meld_token(c, j) for c, j in fixed] + [JOKER] * bare)
    if n < 3:
        return IllegalAction(_("A meld needs at least 3 cards."))
    idents = [c for c, _j in fixed]
    ranks = [c[0] for c in idents]
    suits = [c[1] for c in idents]
    if len(set(ranks)) == 1:
        if n > 4:
            return IllegalAction(_("{cards} is not a meld: a set has at most 4 cards.").format(cards=shown))
        return IllegalAction(_("{cards} is not a meld: a set needs cards of different suits.").format(cards=shown))
    if len(set(suits)) > 1:
        return IllegalAction(_("{cards} is not a meld: a set is one rank, a run one suit.").format(cards=shown))
    if len(set(ranks)) != len(ranks):
        return IllegalAction(_("{cards} is not a meld: a run holds each rank once.").format(cards=shown))
    if "A" in ranks and ("K" in ranks or "Q" in ranks) and ("2" in ranks or "3" in ranks):
        return IllegalAction(_("{cards} is not a run: an ace is low (A 2 3) or high (Q K A), never both, and runs "
                               "do not wrap.").format(cards=shown))
    return IllegalAction(_("{cards} is not a run: its cards must follow each other.").format(cards=shown))


def not_a_card(exc: NotACard) -> IllegalAction:
    """The refusal of a text that names no card."""
    return IllegalAction(_("{text} is not a card.").format(text=exc.text))


def which_joker(choices: Sequence[str]) -> IllegalAction:
    """The refusal of a bare ``JK`` that could stand for several cards (``choices``)."""
    return IllegalAction(_("Say what the joker stands for: {choices}.").format(choices=or_list(choices)))


def meld_value(meld: str | Iterable[str]) -> int | None:
    """The value of a meld (``"QD KD AD"`` 30, ``"TH JK=JH QH"`` 30), ``None`` if it is not one.

    A bare ``JK`` counts as the best card it could stand for."""
    try:
        parts = meld.split() if isinstance(meld, str) else list(meld)
        tokens = [parse_token(p) for p in parts]
    except ValueError:
        return None
    fixed = [(c, j) for c, j in tokens if c is not None]
    specs = interpret(fixed, len(tokens) - len(fixed))
    return specs[0].value if specs else None


def resolve_meld(parts: Sequence[str]) -> MeldSpec:
    """The meld these cards make, or IllegalAction with the reason (or the joker choices)."""
    try:
        tokens = [parse_token(p) for p in parts]
    except NotACard as exc:
        raise not_a_card(exc) from None
    fixed = [(c, j) for c, j in tokens if c is not None]
    bare = len(tokens) - len(fixed)
    specs = interpret(fixed, bare)
    if not specs:
        raise _meld_error(fixed, bare)
    if bare:
        named = {tuple(sorted(t for t in s.tokens if is_joker_token(t))) for s in specs}
        if len(named) > 1:
            fixed_jokers = Counter(meld_token(c, True) for c, j in fixed if j)
            options = []
            for s in specs:
                extra = Counter(t for t in s.tokens if is_joker_token(t)) - fixed_jokers
                text = " ".join(sorted(extra.elements()))
                if text not in options:
                    options.append(text)
            raise which_joker(options)
    return specs[0]


def hand_cards(cards: str | Iterable[str]) -> list[str]:
    """Hand cards from a text (``"7D KC JK"``, commas allowed) or codes, checked."""
    parts = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    return [parse_card(p, joker=True) for p in parts]


def split_hand(cards: Iterable[str]) -> tuple[tuple[str, ...], int]:
    """``(sorted naturals, jokers)``: a hand as the solver takes it."""
    naturals = []
    jokers = 0
    for c in cards:
        if c == JOKER:
            jokers += 1
        else:
            naturals.append(c)
    return tuple(sorted(naturals)), jokers


def hand_penalty(cards: str | Iterable[str], *, opened: bool, announced_jokers: int = 0) -> int:
    """The points of a hand at the end of a round: 100 if never opened, else the cards' sum
    (aces 10, a joker 2 if announced, 25 if not)."""
    hand = hand_cards(cards)
    if not opened:
        return 100
    jokers = sum(1 for c in hand if c == JOKER)
    announced = min(announced_jokers, jokers)
    return sum(card_penalty(c) for c in hand if c != JOKER) + 2 * announced + 25 * (jokers - announced)


__all__ = ["RANK_NO", "RANK_VALUE", "RUN_CODES", "RUN_PREFIX", "SUIT_NO", "MeldSpec", "card_penalty", "hand_cards",
           "hand_penalty", "interpret", "is_joker_token", "meld_token", "meld_value", "not_a_card", "parse_token",
           "resolve_meld", "run_spec", "set_spec", "split_hand", "suit_order", "token_identity", "which_joker"]
