"""Chinchón's meld search: the best arrangement of a hand, its penalty, whether it closes.

A meld holds one joker at most (chinchon.md, Melds). Sets are enumerated (a rank with 3+
cards, or 2+ cards and a joker to spare); what is left of each suit goes to run tables
precomputed per pack (one suit's cards are a 16-bit mask, see :mod:`.chinchon_cards`), and the
jokers left are shared out among the suits. The search is exact (the engine tests compare it
with a brute force over every choice of melds).

The public API of the module works on hand masks (:func:`~.chinchon_cards.hand_mask`):
:func:`melded_weight`, :func:`penalty`, :func:`closable`, :func:`close_cards`,
:func:`unmatched`, :func:`arrangement`, :func:`best_melds`, :func:`is_chinchon_mask`; and on
card codes: :func:`deadwood`, :func:`can_close`, :func:`is_chinchon`, :func:`arrange`.
``UNIT`` is the "count" weight of a card: minimising ``UNIT``·count + value finds the fewest
unmatched cards (closing), weight 0 the lowest penalty (scoring).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable, NamedTuple, Sequence

from bot.games.chinchon.cards import HAND_SIZE, JOKER, JOKER_VALUE, Pack, get_pack, hand_mask, indices, split_cards

UNIT = 1000


def joker_weight(unit: int) -> int:
    """A melded joker's weight: it saves its 50 points (and counts as a card)."""
    return unit + JOKER_VALUE


# --------------------------------------------------------------------------------------------
# Run tables, built once per pack and weight. A meld holds at most one joker, so one suit's
# runs take 0, 1 or 2 jokers (two runs with one each).


class RunTables(NamedTuple):
    """By a suit's mask: ``weight[mask][j]``, the most weight (``unit + value`` per card, the
    joker weight per joker) its cards meld in runs using at most ``j`` jokers; ``melded``: the
    cards melded so; ``jokers``: the jokers used so."""

    weight: list[tuple[int, int, int]]
    melded: list[tuple[int, int, int]]
    jokers: list[tuple[int, int, int]]


_TABLES: dict[tuple[str, int], RunTables] = {}  # by pack name and unit
_WEIGHTS: dict[tuple[str, int], list[tuple[int, int, int]]] = {}  # the hot path's part of them


def run_tables(pk: Pack, unit: int) -> RunTables:
    got = _TABLES.get((pk.name, unit))
    if got is None:
        got = _TABLES[pk.name, unit] = _build_run_tables(pk.size, [unit + v for v in pk.pos_value], joker_weight(unit))
        _WEIGHTS[pk.name, unit] = got.weight
    return got


def _build_run_tables(size: int, weights: Sequence[int], jw: int) -> RunTables:
    """Runs of one suit by dynamic programming over masks (every dependency is a smaller mask):
    the lowest card of ``mask`` is either unmatched or the lowest real card of a run (see
    :func:`_windows`)."""
    tab: list[tuple[int, int, int]] = [(0, 0, 0)] * (1 << size)
    melded: list[tuple[int, int, int]] = [(0, 0, 0)] * (1 << size)
    used: list[tuple[int, int, int]] = [(0, 0, 0)] * (1 << size)
    for mask in range(1, 1 << size):
        low = mask & -mask
        best = list(tab[mask ^ low])
        cards = list(melded[mask ^ low])
        jokers = list(used[mask ^ low])
        for val, need, after in _windows(mask, size, weights):
            rest = tab[after]
            window = mask ^ after
            val += need * jw
            for j in range(need, 3):
                v = val + rest[j - need]
                if v > best[j]:
                    best[j] = v
                    cards[j] = window | melded[after][j - need]
                    jokers[j] = need + used[after][j - need]
        tab[mask] = tuple(best)  # at most j jokers: best[j] ≥ best[j - 1], as rest[j] ≥ rest[j - 1]
        melded[mask] = tuple(cards)
        used[mask] = tuple(jokers)
    return RunTables(tab, melded, used)


def _windows(mask: int, size: int, weights: Sequence[int]):
    """The runs whose lowest real card is the lowest card of ``mask``, one per last real card
    and number of jokers: (weight of its real cards, jokers, the cards of ``mask`` above it). A
    joker fills a gap or pads the run to 3 cards (a suit has at least 10 positions: there is
    always room), or extends a run of 3+ real cards; a run holds one joker at most."""
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
        if gaps > 1:
            break
        after = mask >> (b + 1) << (b + 1)
        need = gaps + (3 - span if span < 3 else 0)
        if need <= 1:
            yield val, need, after
            if not need and span < size:
                yield val, 1, after  # the run, extended by a joker


# --------------------------------------------------------------------------------------------
# The search. Sets are enumerated (a rank with 3+ cards, or 2+ cards and a joker to spare);
# what is left of each suit goes to the run tables, and the jokers left are shared out among
# the suits.

_SPREAD = [sum(1 << (16 * s) for s in range(4) if sub >> s & 1) for sub in range(16)]


def _set_options(suits4: int, jokers: int) -> list[tuple[int, int, int]]:
    """Set choices among the suits ``suits4`` present at one rank given ``jokers``: (suits,
    jokers, real cards): 4 or 3 real cards, 3 or 2 real cards and a joker, or all four as two
    sets of 2 and a joker each (a joker may stand for a card that is elsewhere)."""
    present = [s for s in range(4) if suits4 >> s & 1]
    opts = []
    for size, joker in ((4, 0), (3, 0), (3, 1), (2, 1)):
        if joker <= jokers:
            opts += [(sum(1 << s for s in comb), joker, size) for comb in combinations(present, size)]
    if jokers == 2 and suits4 == 15:
        opts.append((15, 2, 4))
    return opts


_SET_OPTIONS = [[_set_options(s4, j) for s4 in range(16)] for j in range(3)]


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


def melded_weight(pk: Pack, H: int, jokers: int, unit: int = 0, detail: bool = False):
    """The most melded weight of the hand ``H`` (index mask) plus ``jokers`` jokers.

    Weights: ``unit + value`` per card, ``unit + 50`` per joker. With ``detail`` also the
    winning choice: (weight, sets [(pos, suits4, jokers)], joker budget of the runs).
    """
    tab = _WEIGHTS.get((pk.name, unit)) or run_tables(pk, unit).weight
    m0 = H & 0xFFFF
    m1 = H >> 16 & 0xFFFF
    m2 = H >> 32 & 0xFFFF
    m3 = H >> 48
    if jokers:
        cand = (m0 & m1) | (m0 & m2) | (m0 & m3) | (m1 & m2) | (m1 & m3) | (m2 & m3)
    else:
        cand = (m0 & m1 & m2) | (m0 & m1 & m3) | (m0 & m2 & m3) | (m1 & m2 & m3)
    if not cand:
        best = _share(tab[m0], tab[m1], tab[m2], tab[m3], jokers)
        return (best, [], jokers) if detail else best
    # every combination of set choices at the ranks that can make one
    configs: list[tuple[int, int, int, tuple]] = [(0, 0, 0, ())]  # removed, weight, jokers, sets
    opts = _SET_OPTIONS[jokers]
    value = pk.pos_value
    jw = unit + JOKER_VALUE
    while cand:
        low = cand & -cand
        p = low.bit_length() - 1
        cand ^= low
        suits4 = (m0 >> p & 1) | (m1 >> p & 1) << 1 | (m2 >> p & 1) << 2 | (m3 >> p & 1) << 3
        w = unit + value[p]
        grown = []
        for removed, weight, need, sets in configs:
            grown.append((removed, weight, need, sets))
            for sub, n2, k in opts[suits4]:
                if need + n2 <= jokers:
                    grown.append((removed | _SPREAD[sub] << p, weight + k * w + n2 * jw, need + n2,
                                  sets + ((p, sub, n2),) if detail else sets))
        configs = grown
    best = -1
    choice = None
    for removed, weight, need, sets in configs:
        h = H & ~removed
        budget = jokers - need
        total = weight + _share(tab[h & 0xFFFF], tab[h >> 16 & 0xFFFF], tab[h >> 32 & 0xFFFF], tab[h >> 48], budget)
        if total > best:
            best = total
            if detail:
                choice = (sets, budget)
    if detail:
        return (best, *choice)
    return best


def penalty(pk: Pack, H: int, jokers: int, value: int) -> int:
    """The penalty of the hand's best arrangement (``value``: its real cards' value): the
    unmatched cards' values, −10 when every card is melded."""
    left = value + jokers * JOKER_VALUE - melded_weight(pk, H, jokers, 0)
    return left if left else -10


def closable(pk: Pack, H: int, jokers: int, value: int, limit: int) -> bool:
    """The 7 cards may close: at most one unmatched card, worth at most ``limit``."""
    left = value + UNIT * H.bit_count() + jokers * (UNIT + JOKER_VALUE) - melded_weight(pk, H, jokers, UNIT)
    return left <= UNIT + limit


def deadwood(cards: str | Iterable[str], *, deck: str = "french") -> int:
    """Penalty of the best arrangement: the unmatched cards' values (a joker 50), −10 when
    every card is melded."""
    pk = get_pack(deck)
    H, jokers, value = hand_mask(pk, split_cards(cards))
    return penalty(pk, H, jokers, value)


def can_close(cards8: str | Iterable[str], close_limit: int = 5, *, deck: str = "french") -> list[str]:
    """The cards of an 8-card hand that may be laid face down to close: the other 7 have at
    most one unmatched card, worth at most ``close_limit``. Sorted; a joker listed once."""
    pk = get_pack(deck)
    cards = [pk.parse(c) for c in split_cards(cards8)]
    H, jokers, value = hand_mask(pk, cards)
    if len(cards) != HAND_SIZE + 1:
        raise ValueError("closing needs 8 cards")
    return close_cards(pk, H, jokers, value, close_limit)


def close_cards(pk: Pack, H: int, jokers: int, value: int, limit: int) -> list[str]:
    out = []
    rest = H
    while rest:
        low = rest & -rest
        rest ^= low
        idx = low.bit_length() - 1
        if closable(pk, H ^ low, jokers, value - pk.value[idx], limit):
            out.append(pk.code[idx])
    if jokers and closable(pk, H, jokers - 1, value, limit):
        out.append(JOKER)
    return sorted(out, key=pk.sort_key)


def is_chinchon(cards7: str | Iterable[str], *, deck: str = "french") -> bool:
    """Seven cards in one run of one suit, no joker."""
    pk = get_pack(deck)
    cards = [pk.parse(c) for c in split_cards(cards7)]
    if len(cards) != HAND_SIZE or JOKER in cards:
        return False
    H, __, __ = hand_mask(pk, cards)
    return is_chinchon_mask(H, 0)


def is_chinchon_mask(H: int, jokers: int) -> bool:
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


def _trace_runs(pk: Pack, unit: int, mask: int, budget: int, suit: int) -> list[Meld]:
    """The runs behind ``weight[mask][budget]`` of the run tables (the same choices)."""
    tab = run_tables(pk, unit).weight
    jw = joker_weight(unit)
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
            if need <= budget and val + need * jw + tab[after][budget - need] == target:
                found = (need, after)  # the longest such run is kept
        assert found is not None, "run table and trace disagree"
        need, after = found
        b = (mask ^ after).bit_length() - 1
        lo, hi = a, b
        cards = [suit * 16 + p for p in range(a, b + 1) if mask >> p & 1]
        jokers = [suit * 16 + p for p in range(a, b + 1) if not mask >> p & 1]
        if need > len(jokers):  # pad a short run or extend one, above when there is room
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
    """The winning choice of :func:`melded_weight`: (sets [(pos, suits4, jokers)], the cards
    left to the runs, the jokers each suit's runs may use)."""
    __, sets, budget = melded_weight(pk, H, jokers, unit, detail=True)
    h = H
    for p, sub, __ in sets:
        h &= ~(_SPREAD[sub] << p)
    tab = run_tables(pk, unit).weight
    shares = _shares([tab[h >> (16 * s) & 0xFFFF] for s in range(4)], budget) if budget else _ALLOCATIONS[0]
    return sets, h, shares


def best_melds(pk: Pack, H: int, jokers: int, unit: int) -> tuple[list[Meld], list[int], int]:
    """(melds, unmatched real indices, unmatched jokers) of the best arrangement by ``unit`` weights."""
    sets, h, shares = _choice(pk, H, jokers, unit)
    melds: list[Meld] = []
    for p, sub, need in sets:
        if need == 2:  # two sets at one rank: 2 cards and a joker each
            melds += [Meld("set", [p, 16 + p], [32 + p], pos=p), Meld("set", [32 + p, 48 + p], [p], pos=p)]
            continue
        suits = [s for s in range(4) if sub >> s & 1]
        missing = [s for s in range(4) if not sub >> s & 1]
        melds.append(Meld("set", [s * 16 + p for s in suits], [s * 16 + p for s in missing[:need]], pos=p))
    for s in range(4):
        melds += _trace_runs(pk, unit, h >> (16 * s) & 0xFFFF, shares[s], s)
    melded = 0
    for m in melds:
        for idx in m.cards:
            melded |= 1 << idx
    return melds, indices(H & ~melded), jokers - sum(len(m.jokers) for m in melds)


def unmatched(pk: Pack, H: int, jokers: int) -> tuple[int, int]:
    """(mask of the unmatched real cards, unmatched jokers) of the lowest-penalty arrangement
    (a leaner :func:`best_melds` for the AI: the run tables know the melded cards)."""
    sets, h, shares = _choice(pk, H, jokers, 0)
    tables = run_tables(pk, 0)
    left = h
    used = sum(n for __, __, n in sets)
    for s in range(4):
        m = h >> (16 * s) & 0xFFFF
        left &= ~(tables.melded[m][shares[s]] << (16 * s))
        used += tables.jokers[m][shares[s]]
    return left, jokers - used


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


def arrangement(pk: Pack, H: int, jokers: int, value: int, unit: int = 0) -> Arrangement:
    """The best arrangement of the hand by ``unit`` weights (0: lowest penalty; ``UNIT``:
    fewest unmatched cards), as card codes."""
    melds, loose, spare = best_melds(pk, H, jokers, unit)
    codes = sorted((_meld_codes(pk, m) for m in melds), key=lambda c: _meld_sort_key(pk, c))
    left = pk.sorted(pk.code[i] for i in loose) + [JOKER] * spare
    points = sum(pk.value[i] for i in loose) + JOKER_VALUE * spare
    return Arrangement(codes, left, points if left else -10)


def arrange(cards: str | Iterable[str], *, deck: str = "french") -> Arrangement:
    """The best (lowest-penalty) arrangement: melds (jokers written ``JK=5H``), unmatched
    cards, and the penalty (``deadwood``)."""
    pk = get_pack(deck)
    H, jokers, value = hand_mask(pk, split_cards(cards))
    return arrangement(pk, H, jokers, value)
