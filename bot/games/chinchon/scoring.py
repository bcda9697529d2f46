"""The end of a Chinchón round: every hand in its best arrangement, and the lay-off.

``score_round(pk, hands, lay_off)`` takes the hands in laying-off order, the closer's first,
and returns whether the closer made a chinchón and each hand's :class:`HandScore`.

Lay-off (option ``lay_off``): after the close, the non-closers lay off in turn onto the
closer's melds as they stand (so a card laid off by one player may make room for the next
player's). Each player's lay-off is chosen together with the arrangement of his remaining
cards to leave him the lowest penalty (ties: the fewest cards laid off). Any card fits that
extends a run at either end or completes a set of another suit up to 4 cards; a joker fits a
meld with room that holds no joker yet. Nobody lays off onto a closer who scores −10 (nor
onto a chinchón).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from bot.games.chinchon.cards import JOKER, Pack, hand_mask, indices, mask_value
from bot.games.chinchon.melds import Meld, arrangement, best_melds, is_chinchon_mask, penalty

# A closer's meld on the table: ("run", suit, lo, hi, joker) or ("set", pos, real suits4, size,
# joker); ``joker``: it holds one (a meld holds one at most).
TableMeld = tuple


def table_meld(m: Meld) -> TableMeld:
    if m.kind == "run":
        return ("run", m.suit, m.lo, m.hi, bool(m.jokers))
    return ("set", m.pos, sum(1 << (idx >> 4) for idx in m.cards), len(m.cards) + len(m.jokers), bool(m.jokers))


def _attachments(pk: Pack, tm: TableMeld, card: int) -> list[tuple[TableMeld, int]]:
    """Where ``card`` (an index, or -1 for a joker) fits on ``tm``: (the grown meld, the card
    index it is laid as). A joker fits only a meld without one."""
    out = []
    joker = card < 0
    if joker and tm[-1]:
        return out
    has = joker or tm[-1]
    if tm[0] == "run":
        __, suit, lo, hi, __ = tm
        if joker or card == suit * 16 + hi + 1:
            if hi + 1 < pk.size:
                out.append((("run", suit, lo, hi + 1, has), suit * 16 + hi + 1))
        if joker or card == suit * 16 + lo - 1:
            if lo > 0:
                out.append((("run", suit, lo - 1, hi, has), suit * 16 + lo - 1))
    else:
        __, pos, suits4, size, __ = tm
        if size < 4:
            if joker:
                free = min(s for s in range(4) if not suits4 >> s & 1)
                out.append((("set", pos, suits4, size + 1, has), free * 16 + pos))
            elif card & 15 == pos and not suits4 >> (card >> 4) & 1:
                out.append((("set", pos, suits4 | 1 << (card >> 4), size + 1, has), card))
    return out


def lay_off(pk: Pack, H: int, jokers: int, table: tuple[TableMeld, ...]):
    """The best lay-off of the hand (mask ``H`` + ``jokers``) onto ``table``.

    Returns (penalty, laid [(card index or -1, laid as index)], table after). Penalty: the
    remaining unmatched cards (−10 only for a hand fully melded without laying off)."""
    memo: dict[tuple, tuple] = {}

    def rest_penalty(h: int, j: int, laid_any: bool) -> int:
        pen = penalty(pk, h, j, mask_value(pk, h))
        return 0 if laid_any and pen == -10 else pen

    def best(h: int, j: int, tab: tuple[TableMeld, ...], laid_any: bool):
        key = (h, j, tab)
        got = memo.get(key)
        if got is not None:
            return got
        result = (rest_penalty(h, j, laid_any), 0, (), tab)
        cards = indices(h) + ([-1] if j else [])
        for card in cards:
            for k, tm in enumerate(tab):
                for grown, laid_as in _attachments(pk, tm, card):
                    sub = best(h & ~(1 << card) if card >= 0 else h, j - (card < 0),
                               tab[:k] + (grown,) + tab[k + 1:], True)
                    cand = (sub[0], sub[1] + 1, ((card, laid_as),) + sub[2], sub[3])
                    if cand[:2] < result[:2]:
                        result = cand
        memo[key] = result
        return result

    points, __, laid, after = best(H, jokers, table, False)
    return points, list(laid), after


def laid_code(pk: Pack, card: int, laid_as: int) -> str:
    return pk.code[card] if card >= 0 else f"{JOKER}={pk.code[laid_as]}"


@dataclass
class HandScore:
    """One hand at the end of a round: its points, melds, unmatched cards and cards laid off."""

    points: int
    melds: list[list[str]]
    unmatched: list[str]
    laid_off: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list]:
        return {"melds": self.melds, "unmatched": self.unmatched, "laid_off": self.laid_off}


def score_round(pk: Pack, hands: Sequence[Sequence[str]], lay_off_option: bool) -> tuple[bool, list[HandScore]]:
    """(the closer made a chinchón, each hand's score) for ``hands`` in laying-off order, the
    closer's first. Nobody lays off onto a chinchón or a closer who scores −10."""
    H, jokers, __ = hand_mask(pk, hands[0])
    chinchon = is_chinchon_mask(H, jokers)
    melds, loose, spare = best_melds(pk, H, jokers, 0)
    table = tuple(table_meld(m) for m in melds)
    lay_off_option = lay_off_option and not chinchon and bool(loose or spare)
    scores = []
    for k, hand in enumerate(hands):
        H, jokers, value = hand_mask(pk, hand)
        laid_codes: list[str] = []
        laid_mask = 0
        laid_jokers = 0
        if lay_off_option and k:
            __, laid, table = lay_off(pk, H, jokers, table)
            for card, laid_as in laid:
                laid_codes.append(laid_code(pk, card, laid_as))
                if card >= 0:
                    laid_mask |= 1 << card
                else:
                    laid_jokers += 1
        arr = arrangement(pk, H & ~laid_mask, jokers - laid_jokers, value - mask_value(pk, laid_mask))
        points = arr.deadwood
        if laid_codes and points == -10:
            points = 0  # −10 is for a hand melded on its own
        scores.append(HandScore(points, arr.melds, arr.unmatched, laid_codes))
    return chinchon, scores
