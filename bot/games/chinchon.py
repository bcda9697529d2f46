"""Chinchón engine — rules in shared/rules/chinchon.md, notation in shared/rules/notation.md.

One state is a whole match of several rounds (notation.md, "Matches of several rounds").

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players, ``multi_round``).
- ``deadwood(cards, deck="french") -> int``, ``can_close(cards8, close_limit=5, deck="french")
  -> list[str]``, ``is_chinchon(cards7, deck="french") -> bool``, ``arrange(cards, deck="french")
  -> Arrangement``; ``PHRASES``: every phrase key the engine emits, with an English template.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- Jokers (2, with 3–4 seats) are in the pack for the whole match when the match *starts* with
  3–4 seats, even once players have dropped out. A meld may hold any number of jokers (a
  card and two jokers is a meld); a joker may stand for a card that is elsewhere.
- The first player moves on by one seat each round, skipping seats out of the match: the
  first of round r+1 is the next seat still in the match after the first of round r.
- Closing needs an arrangement of the other 7 cards with at most one unmatched card worth at
  most ``close_limit``; the closer then scores his best (lowest) arrangement like everyone.
- The card just taken from the discard pile may not be discarded again in the same turn
  (unless one holds another copy, i.e. a second joker); it may be laid face down to close.
- The discards (all but the top card) are reshuffled into a new stock as soon as a discard
  leaves the stock empty, so that a player about to draw always has a stock to draw from.
- ``lay_off``: after the close, the non-closers lay off in turn from the seat after the
  closer, each onto the closer's melds as they stand (so a card laid off by one player may
  make room for the next player's). Each player's lay-off is chosen automatically together
  with the arrangement of his remaining cards to leave him the lowest penalty (ties: the
  fewest cards laid off). Any card fits that extends a run at either end or completes a set
  of another suit up to 4 cards; a joker fits any meld with room. −10 is only for a hand
  fully melded on its own: a player who lays off all his unmatched cards scores 0.
- Buy-back decisions are asked in seat order (0, 1, ...); a seat that reached the target and
  cannot buy back (it already did once) is out at once. If every seat still in reaches the
  target in the same round, the lowest total wins and the others are out in that round.
- A chinchón ends the match: the round's points are still added to the totals.
- A round's ``round_results`` entry is written at the close and completed by the buy-back
  decisions that follow it: its ``totals`` then show a bought-back total, its ``out`` the
  seats that declined, its ``phrases`` each decision.
- ``top_discard`` is None outside play (between rounds and once the match is over); the
  private view keys (``hand``, ``arrangement``, ``can_close``, ``drawn``) are in every view,
  empty (``[]``/None) for other seats and spectators and between rounds.
- Ranks: the winners 1; then the seats still in (lower total first), then the seats out, the
  later out first (then lower total); remaining ties by seat.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable, Sequence

from ..i18n import N_, _, ngettext
from .base import (Event, Game, IllegalAction, NotACard, Note, Outcome, Phrase, MatchOfRounds, outcome_dict,
                   pack_order, pot_outcome, reshuffle_rng, round_rng, split_action)

#: Every phrase key this engine emits, with an English template ({name}: a seat's name), marked
#: for translation: the UI shows them in the reader's language.
PHRASES: dict[str, str] = {
    "chinchon.close": N_("{closer} closes round {round} with {points} points."),
    "chinchon.close_melded": N_("{closer} closes round {round} with every card melded: −10."),
    "chinchon.close_chinchon": N_("{closer} closes round {round} with a chinchón!"),
    "chinchon.lays_off": N_("{player} lays off {cards}."),
    "chinchon.out": N_("{player} reaches {total} and is out."),
    "chinchon.out_bought_back": N_("{player} reaches {total} and is out (already bought back once)."),
    "chinchon.may_buy_back": N_("{player} reaches {total} and may buy back in at {at}."),
    "chinchon.bought_back": N_("{player} buys back in at {total}."),
    "chinchon.declined": N_("{player} declines to buy back and is out."),
    "chinchon.win_chinchon": N_("{winner} wins the match with a chinchón in round {round}!"),
    "chinchon.win_last": N_("{winner} is the last player left and wins the match with {total} points."),
    "chinchon.win_lowest": N_("Everyone left reached {target}: {winner} wins with the lowest total, {total}."),
    "chinchon.win_lowest_2": N_("Everyone left reached {target}: {winner1} and {winner2} share the pot "
                                 "with {total}."),
    "chinchon.win_lowest_3": N_("Everyone left reached {target}: {winner1}, {winner2} and {winner3} share the pot "
                                 "with {total}."),
    "chinchon.win_lowest_4": N_("Everyone left reached {target}: {winner1}, {winner2}, {winner3} and {winner4} "
                                 "share the pot with {total}."),
    "chinchon.out_in_round": N_("out in round {round}"),
}

#: A result's note (English, translated where it is shown; "chinchón" is a native word).
BOUGHT_BACK = N_("bought back")

JOKER = "JK"
HAND_SIZE = 7
MAX_CARDS = 10  # the evaluation API's limit (a hand holds 8 at most)
_UNIT = 1000  # "count" weight of a card: minimising 1000·count + value finds the fewest unmatched cards

# --------------------------------------------------------------------------------------------
# Packs. A card's index is suit * 16 + position, its position the place of its rank in run
# order (French A..K; spanish40 1..7, 10, 11, 12; spanish48 1..12). A suit's cards in a hand
# are then a mask of bits 0..P-1 of the hand mask shifted by 16·suit.


class Pack:
    """One kind of pack: card codes, values, run order and the run tables of the solver."""

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
        self._tables: dict[int, tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]] = {}

    def __deepcopy__(self, memo) -> "Pack":
        return self  # one shared, read-only object per kind of pack (its tables are large)

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

    def tables(self, unit: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """``weights[mask] = (v0, v1, v2)``: the most weight (``unit + value`` per card) one
        suit's cards ``mask`` can meld in runs needing at most 0, 1, 2 jokers, and
        ``melded[mask]``: the cards melded so (built once per pack and weight)."""
        got = self._tables.get(unit)
        if got is None:
            got = self._tables[unit] = _build_run_table(self.size, [unit + v for v in self.pos_value])
        return got

    def table(self, unit: int) -> list[tuple[int, int, int]]:
        return self.tables(unit)[0]


def _build_run_table(size: int, weights: Sequence[int]) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """Runs of one suit by dynamic programming over masks (every dependency is a smaller mask).

    The lowest card of ``mask`` is either unmatched or the lowest real card of a run (see
    :func:`_windows`). Returns the weights and, alongside, the cards melded by the best choice."""
    tab: list[tuple[int, int, int]] = [(0, 0, 0)] * (1 << size)
    melded: list[tuple[int, int, int]] = [(0, 0, 0)] * (1 << size)
    for mask in range(1, 1 << size):
        low = mask & -mask
        best = list(tab[mask ^ low])
        cards = list(melded[mask ^ low])
        for val, need, after in _windows(mask, size, weights):
            rest = tab[after]
            window = mask ^ after
            for j in range(need, 3):
                v = val + rest[j - need]
                if v > best[j]:
                    best[j] = v
                    cards[j] = window | melded[after][j - need]
        for j in (1, 2):
            if best[j] < best[j - 1]:
                best[j] = best[j - 1]
                cards[j] = cards[j - 1]
        tab[mask] = tuple(best)
        melded[mask] = tuple(cards)
    return tab, melded


def _windows(mask: int, size: int, weights: Sequence[int]):
    """The runs whose lowest real card is the lowest card of ``mask``, one per last real card:
    (weight of its cards, jokers needed, the cards of ``mask`` above it). Jokers fill the gaps
    and pad the run to 3 cards (a suit has at least 10 positions: there is always room); runs
    needing more than 2 jokers are left out."""
    a = (mask & -mask).bit_length() - 1
    count = 0
    val = 0
    for b in range(a, size):
        if not mask >> b & 1:
            continue
        count += 1
        val += weights[b]
        span = b - a + 1
        gaps = span - count
        if gaps > 2:
            break
        need = gaps + (3 - span if span < 3 else 0)
        if need <= 2:
            yield val, need, mask >> (b + 1) << (b + 1)


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


# --------------------------------------------------------------------------------------------
# The solver. Sets are enumerated (a rank with 3+ cards, or 2+ cards and a joker to spare);
# what is left of each suit goes to the precomputed run tables, and the jokers are shared
# out among the suits. A joker left over joins any run (or a 3-card set) when there is one.

_SPREAD = [sum(1 << (16 * s) for s in range(4) if sub >> s & 1) for sub in range(16)]


def _set_options(suits4: int, jokers: bool) -> list[tuple[int, int, int, int]]:
    """Set choices among the suits ``suits4`` present at one rank: (suits, jokers needed,
    room for one more joker, cards). A single card and two jokers is left to the runs."""
    present = [s for s in range(4) if suits4 >> s & 1]
    opts = []
    for size in (4, 3):
        for comb in combinations(present, size):
            opts.append((sum(1 << s for s in comb), 0, 1 if size == 3 else 0, size))
    if jokers:
        for comb in combinations(present, 2):
            opts.append((sum(1 << s for s in comb), 1, 1, 2))
    return opts


_SET_OPTIONS = [[_set_options(s4, j) for s4 in range(16)] for j in (False, True)]


def _share(t0, t1, t2, t3, budget: int) -> int:
    """The most run weight of four suits given ``budget`` jokers to share among them."""
    base = t0[0] + t1[0] + t2[0] + t3[0]
    if budget == 0:
        return base
    g0, g1, g2, g3 = t0[1] - t0[0], t1[1] - t1[0], t2[1] - t2[0], t3[1] - t3[0]
    if budget == 1:
        return base + max(g0, g1, g2, g3)
    gains = sorted((g0, g1, g2, g3))
    return base + max(gains[3] + gains[2], t0[2] - t0[0], t1[2] - t1[0], t2[2] - t2[0], t3[2] - t3[0])


#: every way to share at most two jokers among four suits
_ALLOCATIONS = [(0, 0, 0, 0)] + [tuple(j if k == i else 0 for k in range(4)) for j in (1, 2) for i in range(4)] + [
    tuple(1 if k in pair else 0 for k in range(4)) for pair in combinations(range(4), 2)]


def _shares(tabs, budget: int) -> tuple[int, ...]:
    """The jokers each suit gets in the best share of ``budget`` (same value as :func:`_share`)."""
    best = -1
    choice = _ALLOCATIONS[0]
    for js in _ALLOCATIONS:
        if sum(js) <= budget:
            v = tabs[0][js[0]] + tabs[1][js[1]] + tabs[2][js[2]] + tabs[3][js[3]]
            if v > best:
                best, choice = v, js
    return choice


def _search(pk: Pack, H: int, jokers: int, unit: int, detail: bool = False):
    """The most melded weight of the hand ``H`` (index mask) plus ``jokers`` jokers.

    Weights: ``unit + value`` per card, ``unit + 50`` per joker. With ``detail`` also the
    winning choice: (weight, sets [(pos, suits4, jokers)], joker budget of the runs, jokers used).
    """
    tab = pk.table(unit)
    m0 = H & 0xFFFF
    m1 = H >> 16 & 0xFFFF
    m2 = H >> 32 & 0xFFFF
    m3 = H >> 48
    jw = unit + 50
    if jokers:
        cand = (m0 & m1) | (m0 & m2) | (m0 & m3) | (m1 & m2) | (m1 & m3) | (m2 & m3)
    else:
        cand = (m0 & m1 & m2) | (m0 & m1 & m3) | (m0 & m2 & m3) | (m1 & m2 & m3)
    if not cand:
        runs = _share(tab[m0], tab[m1], tab[m2], tab[m3], jokers)
        used = jokers if runs else 0
        best = runs + used * jw
        return (best, [], jokers, used) if detail else best
    # every combination of set choices at the ranks that can make one
    configs: list[tuple[int, int, int, int, tuple]] = [(0, 0, 0, 0, ())]  # removed, weight, need, room, sets
    opts = _SET_OPTIONS[1 if jokers else 0]
    value = pk.pos_value
    while cand:
        low = cand & -cand
        p = low.bit_length() - 1
        cand ^= low
        suits4 = (m0 >> p & 1) | (m1 >> p & 1) << 1 | (m2 >> p & 1) << 2 | (m3 >> p & 1) << 3
        w = unit + value[p]
        grown = []
        for removed, weight, need, room, sets in configs:
            grown.append((removed, weight, need, room, sets))
            for sub, n2, r2, k in opts[suits4]:
                if need + n2 <= jokers:
                    grown.append((removed | _SPREAD[sub] << p, weight + k * w, need + n2, room + r2,
                                  sets + ((p, sub, n2),) if detail else sets))
        configs = grown
    best = -1
    choice = None
    for removed, weight, need, room, sets in configs:
        h = H & ~removed
        budget = jokers - need
        runs = _share(tab[h & 0xFFFF], tab[h >> 16 & 0xFFFF], tab[h >> 32 & 0xFFFF], tab[h >> 48], budget)
        used = jokers if runs else need + min(budget, room)
        total = weight + runs + used * jw
        if total > best:
            best = total
            if detail:
                choice = (sets, budget, used)
    if detail:
        return (best, *choice)
    return best


def _hand_mask(pk: Pack, cards: Iterable[str]) -> tuple[int, int, int]:
    """(index mask, jokers, value of every card) of canonical codes; ValueError if invalid."""
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


def _split(cards: str | Iterable[str]) -> Iterable[str]:
    return cards.replace(",", " ").split() if isinstance(cards, str) else cards


def _unmatched_weight(pk: Pack, H: int, jokers: int, value: int, unit: int) -> int:
    return value + unit * H.bit_count() + jokers * (unit + 50) - _search(pk, H, jokers, unit)


def _penalty(pk: Pack, H: int, jokers: int, value: int) -> int:
    left = value + jokers * 50 - _search(pk, H, jokers, 0)
    return left if left else -10


def _closable(pk: Pack, H: int, jokers: int, value: int, limit: int) -> bool:
    return _unmatched_weight(pk, H, jokers, value, _UNIT) <= _UNIT + limit


def deadwood(cards: str | Iterable[str], *, deck: str = "french") -> int:
    """Penalty of the best arrangement: the unmatched cards' values (a joker 50), −10 when
    every card is melded."""
    pk = get_pack(deck)
    H, jokers, value = _hand_mask(pk, _split(cards))
    return _penalty(pk, H, jokers, value)


def can_close(cards8: str | Iterable[str], close_limit: int = 5, *, deck: str = "french") -> list[str]:
    """The cards of an 8-card hand that may be laid face down to close: the other 7 have at
    most one unmatched card, worth at most ``close_limit``. Sorted; a joker listed once."""
    pk = get_pack(deck)
    cards = [pk.parse(c) for c in _split(cards8)]
    H, jokers, value = _hand_mask(pk, cards)
    if len(cards) != HAND_SIZE + 1:
        raise ValueError("closing needs 8 cards")
    return _close_cards(pk, H, jokers, value, close_limit)


def _close_cards(pk: Pack, H: int, jokers: int, value: int, limit: int) -> list[str]:
    out = []
    rest = H
    while rest:
        low = rest & -rest
        rest ^= low
        idx = low.bit_length() - 1
        if _closable(pk, H ^ low, jokers, value - pk.value[idx], limit):
            out.append(pk.code[idx])
    if jokers and _closable(pk, H, jokers - 1, value, limit):
        out.append(JOKER)
    return sorted(out, key=pk.sort_key)


def is_chinchon(cards7: str | Iterable[str], *, deck: str = "french") -> bool:
    """Seven cards in one run of one suit, no joker."""
    pk = get_pack(deck)
    cards = [pk.parse(c) for c in _split(cards7)]
    if len(cards) != HAND_SIZE or JOKER in cards:
        return False
    H, __, __ = _hand_mask(pk, cards)
    return _is_chinchon_mask(H, 0)


def _is_chinchon_mask(H: int, jokers: int) -> bool:
    """Seven consecutive positions of one suit (no wrap: a suit's positions are 16 bits apart)."""
    if jokers or H.bit_count() != HAND_SIZE:
        return False
    low = (H & -H).bit_length() - 1
    return H >> low == (1 << HAND_SIZE) - 1 and low % 16 + HAND_SIZE <= 16


# --------------------------------------------------------------------------------------------
# Arrangements (for views, results and messages; not on the hot path)


@dataclass
class Meld:
    """A meld as the solver sees it: ``kind`` "run" (``suit``, positions ``lo``..``hi``) or
    "set" (position ``pos``); ``cards`` the real card indices; jokers stand for the rest."""

    kind: str
    cards: list[int]
    jokers: list[int]  # the card index each joker stands for
    suit: int = 0
    lo: int = 0
    hi: int = 0
    pos: int = 0


@dataclass
class Arrangement:
    melds: list[list[str]]
    unmatched: list[str]
    deadwood: int

    def as_dict(self) -> dict[str, Any]:
        return {"melds": [list(m) for m in self.melds], "unmatched": list(self.unmatched),
                "deadwood": self.deadwood}


def _trace_runs(pk: Pack, tab, unit: int, mask: int, budget: int, suit: int) -> list[Meld]:
    """The runs behind ``tab[mask][budget]`` (the same choices as :func:`_build_run_table`)."""
    melds = []
    size = pk.size
    weights = [unit + v for v in pk.pos_value]
    while mask:
        target = tab[mask][budget]
        low = mask & -mask
        a = low.bit_length() - 1
        if tab[mask ^ low][budget] == target:
            mask ^= low  # a is unmatched
            continue
        found = None
        for val, need, after in _windows(mask, size, weights):
            if need <= budget and val + tab[after][budget - need] == target:
                found = (need, after)  # the longest such run is kept
        assert found is not None, "run table and trace disagree"
        need, after = found
        b = (mask ^ after).bit_length() - 1
        lo, hi = a, b
        cards = [suit * 16 + p for p in range(a, b + 1) if mask >> p & 1]
        jokers = [suit * 16 + p for p in range(a, b + 1) if not mask >> p & 1]
        for __ in range(need - len(jokers)):  # pad a short run, above when there is room
            if hi + 1 < size:
                hi += 1
                jokers.append(suit * 16 + hi)
            else:
                lo -= 1
                jokers.append(suit * 16 + lo)
        melds.append(Meld("run", cards, jokers, suit=suit, lo=lo, hi=hi))
        budget -= need
        mask = after
    return melds


def _choice(pk: Pack, H: int, jokers: int, unit: int):
    """The winning choice of :func:`_search`: (sets [(pos, suits4, jokers)], the cards left to
    the runs, the jokers each suit's runs get, the jokers used in all)."""
    __, sets, budget, used = _search(pk, H, jokers, unit, detail=True)
    h = H
    for p, sub, __ in sets:
        h &= ~(_SPREAD[sub] << p)
    tab = pk.table(unit)
    shares = _shares([tab[h >> (16 * s) & 0xFFFF] for s in range(4)], budget) if budget else _ALLOCATIONS[0]
    return sets, h, shares, used


def _best_arrangement(pk: Pack, H: int, jokers: int, unit: int) -> tuple[list[Meld], list[int], int]:
    """(melds, unmatched real indices, unmatched jokers) of the best arrangement by ``unit`` weights."""
    sets, h, shares, used = _choice(pk, H, jokers, unit)
    melds: list[Meld] = []
    for p, sub, need in sets:
        suits = [s for s in range(4) if sub >> s & 1]
        missing = [s for s in range(4) if not sub >> s & 1]
        melds.append(Meld("set", [s * 16 + p for s in suits], [s * 16 + p for s in missing[:need]], pos=p))
    tab = pk.table(unit)
    for s in range(4):
        melds += _trace_runs(pk, tab, unit, h >> (16 * s) & 0xFFFF, shares[s], s)
    melded = 0
    placed = 0
    for m in melds:
        for idx in m.cards:
            melded |= 1 << idx
        placed += len(m.jokers)
    spare = used - placed  # jokers melded beyond the ones the melds need: extend a run or a set
    runs = [m for m in melds if m.kind == "run"]
    for m in runs[:1]:
        while spare and m.hi + 1 < pk.size:
            m.hi += 1
            m.jokers.append(m.suit * 16 + m.hi)
            spare -= 1
        while spare and m.lo > 0:
            m.lo -= 1
            m.jokers.append(m.suit * 16 + m.lo)
            spare -= 1
    for m in melds:
        if spare and m.kind == "set" and len(m.cards) + len(m.jokers) == 3:
            have = {idx >> 4 for idx in m.cards + m.jokers}
            m.jokers.append(min(s for s in range(4) if s not in have) * 16 + m.pos)
            spare -= 1
    assert spare == 0, "jokers left to place"
    return melds, _indices(H & ~melded), jokers - used


def _unmatched(pk: Pack, H: int, jokers: int) -> tuple[int, int]:
    """(mask of the unmatched real cards, unmatched jokers) of the lowest-penalty arrangement
    (a leaner :func:`_best_arrangement` for the AI: the run tables know the melded cards)."""
    __, h, shares, used = _choice(pk, H, jokers, 0)
    melded = pk.tables(0)[1]
    left = h
    for s in range(4):
        left &= ~(melded[h >> (16 * s) & 0xFFFF][shares[s]] << (16 * s))
    return left, jokers - used


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _meld_codes(pk: Pack, m: Meld) -> list[str]:
    """A meld's cards in order (a run low to high, a set by suit), jokers written ``JK=5H``."""
    items = [(idx, pk.code[idx]) for idx in m.cards] + [(idx, f"{JOKER}={pk.code[idx]}") for idx in m.jokers]
    if m.kind == "run":
        items.sort(key=lambda t: t[0])
    else:
        items.sort(key=lambda t: t[0] >> 4)
    return [code for _, code in items]


def _meld_sort_key(pk: Pack, codes: list[str]):
    first = codes[0].split("=")[-1]
    return (pk.sort_key(first), len(codes))


def _arrangement(pk: Pack, H: int, jokers: int, value: int, unit: int = 0) -> Arrangement:
    melds, unmatched, spare = _best_arrangement(pk, H, jokers, unit)
    codes = sorted((_meld_codes(pk, m) for m in melds), key=lambda c: _meld_sort_key(pk, c))
    left = pk.sorted(pk.code[i] for i in unmatched) + [JOKER] * spare
    points = sum(pk.value[i] for i in unmatched) + 50 * spare
    return Arrangement(codes, left, points if left else -10)


def arrange(cards: str | Iterable[str], *, deck: str = "french") -> Arrangement:
    """The best (lowest-penalty) arrangement: melds (jokers written ``JK=5H``), unmatched
    cards, and the penalty (``deadwood``)."""
    pk = get_pack(deck)
    H, jokers, value = _hand_mask(pk, _split(cards))
    return _arrangement(pk, H, jokers, value)


# --------------------------------------------------------------------------------------------
# Lay-off (option ``lay_off``): the non-closers' cards onto the closer's melds

# A table meld for laying off: ("run", suit, lo, hi) or ("set", pos, real suits4, size).
TableMeld = tuple


def _table_meld(m: Meld) -> TableMeld:
    if m.kind == "run":
        return ("run", m.suit, m.lo, m.hi)
    return ("set", m.pos, sum(1 << (idx >> 4) for idx in m.cards), len(m.cards) + len(m.jokers))


def _attachments(pk: Pack, tm: TableMeld, card: int) -> list[tuple[TableMeld, int]]:
    """Where ``card`` (an index, or -1 for a joker) fits on ``tm``: (the grown meld, the card
    index it is laid as)."""
    out = []
    if tm[0] == "run":
        __, suit, lo, hi = tm
        if card < 0 or card == suit * 16 + hi + 1:
            if hi + 1 < pk.size:
                out.append((("run", suit, lo, hi + 1), suit * 16 + hi + 1))
        if card < 0 or card == suit * 16 + lo - 1:
            if lo > 0:
                out.append((("run", suit, lo - 1, hi), suit * 16 + lo - 1))
    else:
        __, pos, suits4, size = tm
        if size < 4:
            if card < 0:
                free = min(s for s in range(4) if not suits4 >> s & 1)
                out.append((("set", pos, suits4, size + 1), free * 16 + pos))
            elif card & 15 == pos and not suits4 >> (card >> 4) & 1:
                out.append((("set", pos, suits4 | 1 << (card >> 4), size + 1), card))
    return out


def _lay_off(pk: Pack, H: int, jokers: int, table: tuple[TableMeld, ...]):
    """The best lay-off of the hand (mask ``H`` + ``jokers``) onto ``table``.

    Returns (penalty, laid [(card index or -1, laid as index)], table after). Penalty: the
    remaining unmatched cards (−10 only for a hand fully melded without laying off)."""
    memo: dict[tuple, tuple] = {}

    def rest_penalty(h: int, j: int, laid_any: bool) -> int:
        pen = _penalty(pk, h, j, sum(pk.value[i] for i in _indices(h)))
        return 0 if laid_any and pen == -10 else pen

    def best(h: int, j: int, tab: tuple[TableMeld, ...], laid_any: bool):
        key = (h, j, tab)
        got = memo.get(key)
        if got is not None:
            return got
        result = (rest_penalty(h, j, laid_any), 0, (), tab)
        cards = _indices(h) + ([-1] if j else [])
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

    penalty, __, laid, after = best(H, jokers, table, False)
    return penalty, list(laid), after


def _laid_code(pk: Pack, card: int, laid_as: int) -> str:
    return pk.code[card] if card >= 0 else f"{JOKER}={pk.code[laid_as]}"


# --------------------------------------------------------------------------------------------
# The match state


class ChinchonState(MatchOfRounds):
    """A match of Chinchón: rounds until one player is left (or a chinchón, or everyone left
    reaching the target in one round)."""

    name, title = "chinchon", "Chinchón"

    def __init__(self, players: int, *, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        n = self.seat_count(players)
        opts = {k: v for k, v in (options or {}).items() if k != "players"}
        self.pk = get_pack(opts.get("deck", "french"))
        opts["deck"] = self.pk.name
        self.close_limit = int(opts.get("close_limit", 5))
        self.target = int(opts.get("target", 100))
        self.lay_off = bool(opts.get("lay_off", False))
        if self.close_limit < 0 or self.target <= 0:
            raise ValueError("close_limit must be ≥ 0 and target > 0")
        self.num_players = n
        self.options: dict[str, Any] = opts
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**63)
        self.pack = self.pk.pack(n)
        self._given = [pack_order(self.pack, seed=None, deck=d, parse=self.pk.parse) for d in (decks or [])]
        self.decks: list[list[str]] = []  # the pack of every round dealt so far, as dealt
        self.actions: list[list[Any]] = []
        self.totals = [0] * n
        self.in_match = [True] * n
        self.buybacks = [0] * n
        self.out_round: list[int | None] = [None] * n
        self.round_results: list[dict[str, Any]] = []
        self.round = 0
        self.first = 0
        self.phase = "play"  # "play" | "buyback" | "over"
        self.step = "draw"  # in play: "draw" (draw or take) or "discard" (discard or close)
        self.current: int | None = 0
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.stock_cards: list[str] = []
        self.pile: list[str] = []  # the discard pile, bottom first
        self.reshuffles = 0
        self.drawn: str | None = None
        self.taken = False  # the drawn card came from the discard pile
        self.facedown: str | None = None  # the closer's card laid face down
        self.seen: set[str] = set()  # cards shown face up this round (public; the AI reads it)
        self.deciding: list[int] = []  # seats still to decide on a buy-back, in order
        #: why a seat may not buy back: "nobody_under", "bought_back" or "declined" (the message
        #: is written when the seat asks, in its language)
        self.refusals: dict[int, str] = {}
        self.winners: list[int] = []
        self.chinchon = False
        self.summary: list[Phrase] = []
        self._outcome: Outcome | None = None
        self._deal()

    # -- protocol and public attributes ------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        if self.phase == "over":
            return ()
        if self.phase == "buyback":
            return (self.deciding[0],)
        return (self.current,)

    @property
    def top_discard(self) -> str | None:
        return self.pile[-1] if self.pile and self.phase == "play" else None

    @property
    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self.hands]

    @property
    def pot(self) -> int:
        return self.num_players + sum(self.buybacks)

    def seats_in(self) -> list[int]:
        return [s for s in range(self.num_players) if self.in_match[s]]

    def _next_in(self, seat: int) -> int:
        n = self.num_players
        for k in range(1, n + 1):
            s = (seat + k) % n
            if self.in_match[s]:
                return s
        raise RuntimeError("nobody is in the match")

    # -- rounds -------------------------------------------------------------------------------

    def _deal(self) -> None:
        self.round += 1
        r = self.round
        if r > 1:
            self.first = self._next_in(self.first)
        if r <= len(self._given):
            cards = list(self._given[r - 1])
        else:
            cards = list(self.pack)
            round_rng(self.seed, r).shuffle(cards)
        self.decks.append(list(cards))
        self.hands = [[] for _ in range(self.num_players)]
        k = 0
        seat = self.first
        for __ in self.seats_in():
            self.hands[seat] = cards[k:k + HAND_SIZE]
            k += HAND_SIZE
            seat = self._next_in(seat)
        self.pile = [cards[k]]
        self.seen = {cards[k]}
        self.stock_cards = cards[k + 1:]
        self.reshuffles = 0
        self.current = self.first
        self.step = "draw"
        self.drawn = None
        self.taken = False
        self.facedown = None
        self.phase = "play"

    def _reshuffle(self) -> Event:
        self.reshuffles += 1
        cards = self.pile[:-1]
        reshuffle_rng(self.seed, self.round, self.reshuffles).shuffle(cards)
        self.stock_cards = cards
        self.pile = self.pile[-1:]
        return Event(None, "reshuffle")

    # -- legality -----------------------------------------------------------------------------

    def _hand_code(self, seat: int) -> tuple[int, int, int]:
        return _hand_mask(self.pk, self.hands[seat])

    def close_cards(self, seat: int) -> list[str]:
        """Cards ``seat`` may lay face down to close now ([] if none)."""
        if self.phase != "play" or seat != self.current or self.step != "discard":
            return []
        H, jokers, value = self._hand_code(seat)
        return _close_cards(self.pk, H, jokers, value, self.close_limit)

    def discardable(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        out = set(hand)
        if self.taken and hand.count(self.drawn) == 1:
            out.discard(self.drawn)
        return self.pk.sorted(out)

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "buyback":
            return ["buyback", "decline"] if seat == self.deciding[0] else []
        if self.phase != "play" or seat != self.current:
            return []
        if self.step == "draw":
            return ["draw", "take"]
        return ["discard " + c for c in self.discardable(seat)] + ["close " + c for c in self.close_cards(seat)]

    def _card_arg(self, seat: int, rest: str, verb: str) -> str:
        parts = rest.split()
        if len(parts) != 1:
            raise IllegalAction(_("Name one card to lay face down: close <card>.") if verb == "close" else
                                _("Name one card to discard: discard <card>."))
        try:
            card = self.pk.parse(parts[0])
        except NotACard as exc:
            raise IllegalAction(_("{text} is not a card of this pack.").format(text=exc.text)) from None
        if card not in self.hands[seat]:
            raise IllegalAction(_("You do not have {card}.").format(card=card))
        return card

    def _close_refusal(self, seat: int, card: str) -> IllegalAction | None:
        """Why ``seat`` may not close laying ``card`` face down (None when it may)."""
        rest = list(self.hands[seat])
        rest.remove(card)
        H, jokers, value = _hand_mask(self.pk, rest)
        if _closable(self.pk, H, jokers, value, self.close_limit):
            return None
        arr = _arrangement(self.pk, H, jokers, value, unit=_UNIT)  # fewest unmatched cards
        left = arr.unmatched
        limit = self.close_limit
        if len(left) > 1:
            return IllegalAction(ngettext(
                "You cannot close: {count} unmatched card ({cards}) — at most one worth ≤ {limit}.",
                "You cannot close: {count} unmatched cards ({cards}) — at most one worth ≤ {limit}.",
                len(left)).format(count=len(left), cards=", ".join(left), limit=limit))
        worth = 50 if left[0] == JOKER else self.pk.value[self.pk.index[left[0]]]
        return IllegalAction(_("You cannot close: {card} is unmatched and worth {worth} — at most one worth ≤ "
                               "{limit}.").format(card=left[0], worth=worth, limit=limit))

    # -- apply --------------------------------------------------------------------------------

    def apply(self, seat: int, action: str) -> list[Event]:
        verb, rest = split_action(action)
        if verb in ("buyback", "decline"):
            if rest:
                raise IllegalAction(_("{verb} takes nothing else.").format(verb=verb))
            return self._decide(seat, verb)
        if verb not in ("draw", "take", "discard", "close"):
            raise IllegalAction(_("Unknown action {verb}: use draw, take, discard or close.").format(verb=repr(verb)))
        if self.phase == "over":
            raise IllegalAction(_("The match is over."))
        if self.phase == "buyback":
            raise IllegalAction(_("The round is over: waiting for a buy-back decision."))
        if seat != self.current:
            raise IllegalAction(_("It is not your turn."))
        if verb in ("draw", "take"):
            if rest:
                raise IllegalAction(_("{verb} takes no card.").format(verb=verb))
            if self.step != "draw":
                raise IllegalAction(_("You have already drawn: discard a card or close."))
            return self._draw(seat, verb)
        if self.step != "discard":
            raise IllegalAction(_("Draw from the stock or take the top discard first."))
        card = self._card_arg(seat, rest, verb)
        if verb == "discard":
            if card not in self.discardable(seat):
                raise IllegalAction(_("You cannot discard {card}: you just took it from the discard pile.").format(
                    card=card))
            return self._discard(seat, card)
        refusal = self._close_refusal(seat, card)
        if refusal:
            raise refusal
        return self._close(seat, card)

    def _draw(self, seat: int, verb: str) -> list[Event]:
        if verb == "draw":
            card = self.stock_cards.pop(0)
            event = Event(seat, "draw")
        else:
            card = self.pile.pop()
            event = Event(seat, "take", (card,))
        self.hands[seat].append(card)
        self.drawn = card
        self.taken = verb == "take"
        self.step = "discard"
        self.actions.append([seat, verb])
        return [event]

    def _discard(self, seat: int, card: str) -> list[Event]:
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.seen.add(card)
        self.actions.append([seat, f"discard {card}"])
        events = [Event(seat, "discard", (card,))]
        if not self.stock_cards:
            events.append(self._reshuffle())
        self.drawn = None
        self.taken = False
        self.step = "draw"
        self.current = self._next_in(seat)
        return events

    def _close(self, seat: int, card: str) -> list[Event]:
        self.hands[seat].remove(card)
        self.facedown = card
        self.actions.append([seat, f"close {card}"])
        self.drawn = None
        self.taken = False
        events = [Event(seat, "close")]
        events.append(self._end_round(seat))
        events += self._continue()
        return events

    # -- the end of a round -------------------------------------------------------------------

    def _end_round(self, closer: int) -> Event:
        pk = self.pk
        n = self.num_players
        r = self.round
        seats = self.seats_in()
        points: list[int | None] = [None] * n
        hands: list[dict[str, Any] | None] = [None] * n
        phrases: list[Phrase] = []
        H, jokers, value = self._hand_code(closer)
        melds, __, __ = _best_arrangement(pk, H, jokers, 0)
        self.chinchon = _is_chinchon_mask(H, jokers)
        table = tuple(_table_meld(m) for m in melds)
        order = [closer]
        while len(order) < len(seats):
            order.append(self._next_in(order[-1]))
        lay_phrases = []
        for seat in order:
            H, jokers, value = self._hand_code(seat)
            laid_codes: list[str] = []
            laid_mask = 0
            laid_jokers = 0
            if self.lay_off and seat != closer and not self.chinchon:
                __, laid, table = _lay_off(pk, H, jokers, table)
                for card, laid_as in laid:
                    laid_codes.append(_laid_code(pk, card, laid_as))
                    if card >= 0:
                        laid_mask |= 1 << card
                    else:
                        laid_jokers += 1
                if laid_codes:
                    lay_phrases.append(Phrase("chinchon.lays_off", {"player": seat}, {"cards": " ".join(laid_codes)}))
            rest_value = value - sum(pk.value[i] for i in _indices(laid_mask))
            arr = _arrangement(pk, H & ~laid_mask, jokers - laid_jokers, rest_value)
            pts = arr.deadwood
            if laid_codes and pts == -10:
                pts = 0  # −10 is for a hand melded on its own
            points[seat] = pts
            hands[seat] = {"melds": arr.melds, "unmatched": arr.unmatched, "laid_off": laid_codes}
        if self.chinchon:
            phrases.append(Phrase("chinchon.close_chinchon", {"closer": closer}, {"round": r}))
        elif points[closer] == -10:
            phrases.append(Phrase("chinchon.close_melded", {"closer": closer}, {"round": r}))
        else:
            phrases.append(Phrase("chinchon.close", {"closer": closer}, {"round": r, "points": points[closer]}))
        phrases += lay_phrases
        for seat in seats:
            self.totals[seat] += points[seat]
        result = {"round": r, "points": points, "totals": list(self.totals), "closer": closer,
                  "chinchon": self.chinchon, "hands": hands, "out": [], "phrases": []}
        self.round_results.append(result)
        if self.chinchon:
            self._finish([closer], [Phrase("chinchon.win_chinchon", {"winner": closer}, {"round": r})])
        else:
            phrases += self._reached(seats, result)
        result["phrases"] = [p.as_dict() for p in phrases]
        return Event(None, "round_end", phrases=tuple(phrases))

    def _reached(self, seats: list[int], result: dict[str, Any]) -> list[Phrase]:
        """Seats at or over the target: out, or asked to buy back; the match may end here."""
        over = [s for s in seats if self.totals[s] >= self.target]
        under = [s for s in seats if self.totals[s] < self.target]
        phrases = []
        if over and not under:  # everyone left reached the target in this round
            low = min(self.totals[s] for s in over)
            winners = [s for s in over if self.totals[s] == low]
            for s in over:
                self.refusals[s] = "nobody_under"
                if s not in winners:
                    self._out(s, result)
            key = "chinchon.win_lowest" if len(winners) == 1 else f"chinchon.win_lowest_{len(winners)}"
            names = {"winner": winners[0]} if len(winners) == 1 else {
                f"winner{k + 1}": s for k, s in enumerate(winners)}
            self._finish(winners, [Phrase(key, names, {"target": self.target, "total": low})])
            return phrases
        at = max(self.totals[s] for s in under)
        for s in over:
            if self.buybacks[s]:
                self.refusals[s] = "bought_back"
                self._out(s, result)
                phrases.append(Phrase("chinchon.out_bought_back", {"player": s}, {"total": self.totals[s]}))
            else:
                self.deciding.append(s)
                phrases.append(Phrase("chinchon.may_buy_back", {"player": s}, {"total": self.totals[s], "at": at}))
        return phrases

    def _out(self, seat: int, result: dict[str, Any]) -> None:
        self.in_match[seat] = False
        self.out_round[seat] = self.round
        result["out"].append(seat)

    def _continue(self) -> list[Event]:
        """After a round's end or a decision: ask the next seat, end the match, or deal."""
        if self.phase == "over":
            return [Event(None, "end", phrases=tuple(self.summary))]
        if self.deciding:
            self.phase = "buyback"
            self.current = self.deciding[0]
            return []
        seats = self.seats_in()
        if len(seats) == 1:
            winner = seats[0]
            self._finish([winner], [Phrase("chinchon.win_last", {"winner": winner}, {"total": self.totals[winner]})])
            return [Event(None, "end", phrases=tuple(self.summary))]
        self._deal()
        return [Event(None, "round_start", text=str(self.round))]

    def _buyback_refusal(self, seat: int) -> IllegalAction:
        why = self.refusals[seat]
        if why == "nobody_under":
            return IllegalAction(_("You cannot buy back: nobody else is still under {target}.").format(
                target=self.target))
        if why == "bought_back":
            return IllegalAction(_("You cannot buy back: you already bought back once."))
        return IllegalAction(_("You declined to buy back: you are out of the match."))

    def _decide(self, seat: int, verb: str) -> list[Event]:
        if self.phase != "buyback" or seat != self.deciding[0]:
            if verb == "buyback" and seat in self.refusals:
                raise self._buyback_refusal(seat)
            if self.phase == "over":
                raise IllegalAction(_("The match is over."))
            if self.phase == "buyback":
                raise IllegalAction(_("It is not your decision."))
            raise IllegalAction(_("There is no buy-back to decide now."))
        self.deciding.pop(0)
        result = self.round_results[-1]
        if verb == "buyback":
            at = max(self.totals[s] for s in self.seats_in() if self.totals[s] < self.target)
            self.totals[seat] = at
            result["totals"][seat] = at
            self.buybacks[seat] += 1
            phrase = Phrase("chinchon.bought_back", {"player": seat}, {"total": at})
        else:
            self.refusals[seat] = "declined"
            self._out(seat, result)
            phrase = Phrase("chinchon.declined", {"player": seat})
        result["phrases"].append(phrase.as_dict())
        self.actions.append([seat, verb])
        return [Event(seat, verb)] + self._continue()

    # -- the end of the match -----------------------------------------------------------------

    def _finish(self, winners: list[int], summary: list[Phrase]) -> None:
        self.phase = "over"
        self.current = None
        self.deciding = []
        self.winners = sorted(winners)
        self.summary = summary
        n = self.num_players

        def standing(s: int):
            if s in self.winners:
                return (0, 0, 0, s)
            if self.in_match[s]:
                return (1, 0, self.totals[s], s)
            return (2, -self.out_round[s], self.totals[s], s)

        order = sorted(range(n), key=standing)
        ranks = [0] * n
        for k, s in enumerate(order):
            ranks[s] = 1 if s in self.winners else k + 1
        notes: list[list[Note]] = [[] for _ in range(n)]
        for s in range(n):
            if self.buybacks[s]:
                notes[s].append(BOUGHT_BACK)
            if self.out_round[s] is not None:
                notes[s].append(Phrase("chinchon.out_in_round", {}, {"round": self.out_round[s]}).as_dict())
        if self.chinchon:
            notes[self.winners[0]].append("chinchón")
        self._outcome = pot_outcome(n, paid=[1 + b for b in self.buybacks], winners=self.winners, ranks=ranks,
                                    points=list(self.totals), notes=notes, summary=summary)
        self._outcome.check_balanced()

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the match is not over")
        return self._outcome

    # -- views and records --------------------------------------------------------------------

    def arrangement(self, seat: int) -> dict[str, Any]:
        H, jokers, value = self._hand_code(seat)
        return _arrangement(self.pk, H, jokers, value).as_dict()

    def _outcome_dict(self) -> dict[str, Any] | None:
        if self._outcome is None:
            return None
        return {**outcome_dict(self._outcome), "round": self.round, "totals": list(self.totals),
                "chinchon": self.chinchon}

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        own = seat is not None and 0 <= seat < n
        playing = self.phase == "play"
        mine = own and playing and bool(self.hands[seat])
        return {
            "game": "chinchon",
            "seat": seat,
            "num_players": n,
            "options": dict(self.options),
            "round": self.round,
            "totals": list(self.totals),
            "round_results": _copy_results(self.round_results),
            "in_match": list(self.in_match),
            "buybacks": list(self.buybacks),
            "pot": self.pot,
            "phase": self.phase,
            "step": self.step if playing else None,
            "first": self.first,
            "current": self.current,
            "to_act": list(self.to_act),
            "stock": self.stock,
            "top_discard": self.top_discard,
            "discards": self.discards,
            "hand_sizes": self.hand_sizes,
            "legal": self.legal_actions(seat) if own else [],
            "outcome": self._outcome_dict(),
            "hand": self.pk.sorted(self.hands[seat]) if mine else [],
            "arrangement": self.arrangement(seat) if mine else None,
            "can_close": self.close_cards(seat) if mine else [],
            "drawn": self.drawn if mine and seat == self.current else None,
        }


def _copy_results(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        out.append({**r, "points": list(r["points"]), "totals": list(r["totals"]), "out": list(r["out"]),
                    "hands": [None if h is None else {"melds": [list(m) for m in h["melds"]],
                                                      "unmatched": list(h["unmatched"]),
                                                      "laid_off": list(h["laid_off"])} for h in r["hands"]],
                    "phrases": [dict(p, seats=dict(p["seats"]), values=dict(p["values"])) for p in r["phrases"]]})
    return out


GAME = Game.of(ChinchonState, deck="french", close_limit=5, lay_off=False, target=100)

__all__ = ["GAME", "PHRASES", "Arrangement", "ChinchonState", "arrange", "can_close", "deadwood", "is_chinchon"]
