"""Chinchón's meld search: the best arrangement of a hand, its penalty, whether it closes.

Sets are enumerated (a rank with 3+ cards, or 2+ cards and a joker to spare); what is left of
each suit goes to run tables precomputed per pack (one suit's cards are a 16-bit mask, see
:mod:`.chinchon_cards`), and the jokers are shared out among the suits.

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
from typing import Any, Iterable, Sequence

from .chinchon_cards import HAND_SIZE, JOKER, Pack, get_pack, hand_mask, indices, split_cards

UNIT = 1000

# --------------------------------------------------------------------------------------------
# Run tables, built once per pack and weight

_TABLES: dict[tuple[str, int], tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]] = {}


def run_tables(pk: Pack, unit: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """``weights[mask] = (v0, v1, v2)``: the most weight (``unit + value`` per card) one
    suit's cards ``mask`` can meld in runs needing at most 0, 1, 2 jokers, and
    ``melded[mask]``: the cards melded so."""
    got = _TABLES.get((pk.name, unit))
    if got is None:
        got = _TABLES[pk.name, unit] = _build_run_table(pk.size, [unit + v for v in pk.pos_value])
    return got


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


def melded_weight(pk: Pack, H: int, jokers: int, unit: int, detail: bool = False):
    """The most melded weight of the hand ``H`` (index mask) plus ``jokers`` jokers.

    Weights: ``unit + value`` per card, ``unit + 50`` per joker. With ``detail`` also the
    winning choice: (weight, sets [(pos, suits4, jokers)], joker budget of the runs, jokers used).
    """
    tab = run_tables(pk, unit)[0]
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


def _unmatched_weight(pk: Pack, H: int, jokers: int, value: int, unit: int) -> int:
    return value + unit * H.bit_count() + jokers * (unit + 50) - melded_weight(pk, H, jokers, unit)


def penalty(pk: Pack, H: int, jokers: int, value: int) -> int:
    left = value + jokers * 50 - melded_weight(pk, H, jokers, 0)
    return left if left else -10


def closable(pk: Pack, H: int, jokers: int, value: int, limit: int) -> bool:
    return _unmatched_weight(pk, H, jokers, value, UNIT) <= UNIT + limit


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
    """The winning choice of :func:`melded_weight`: (sets [(pos, suits4, jokers)], the cards left to
    the runs, the jokers each suit's runs get, the jokers used in all)."""
    __, sets, budget, used = melded_weight(pk, H, jokers, unit, detail=True)
    h = H
    for p, sub, __ in sets:
        h &= ~(_SPREAD[sub] << p)
    tab = run_tables(pk, unit)[0]
    shares = _shares([tab[h >> (16 * s) & 0xFFFF] for s in range(4)], budget) if budget else _ALLOCATIONS[0]
    return sets, h, shares, used


def best_melds(pk: Pack, H: int, jokers: int, unit: int) -> tuple[list[Meld], list[int], int]:
    """(melds, unmatched real indices, unmatched jokers) of the best arrangement by ``unit`` weights."""
    sets, h, shares, used = _choice(pk, H, jokers, unit)
    melds: list[Meld] = []
    for p, sub, need in sets:
        suits = [s for s in range(4) if sub >> s & 1]
        missing = [s for s in range(4) if not sub >> s & 1]
        melds.append(Meld("set", [s * 16 + p for s in suits], [s * 16 + p for s in missing[:need]], pos=p))
    tab = run_tables(pk, unit)[0]
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
    return melds, indices(H & ~melded), jokers - used


def unmatched(pk: Pack, H: int, jokers: int) -> tuple[int, int]:
    """(mask of the unmatched real cards, unmatched jokers) of the lowest-penalty arrangement
    (a leaner :func:`best_melds` for the AI: the run tables know the melded cards)."""
    __, h, shares, used = _choice(pk, H, jokers, 0)
    melded = run_tables(pk, 0)[1]
    left = h
    for s in range(4):
        left &= ~(melded[h >> (16 * s) & 0xFFFF][shares[s]] << (16 * s))
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
    melds, unmatched, spare = best_melds(pk, H, jokers, unit)
    codes = sorted((_meld_codes(pk, m) for m in melds), key=lambda c: _meld_sort_key(pk, c))
    left = pk.sorted(pk.code[i] for i in unmatched) + [JOKER] * spare
    points = sum(pk.value[i] for i in unmatched) + 50 * spare
    return Arrangement(codes, left, points if left else -10)


def arrange(cards: str | Iterable[str], *, deck: str = "french") -> Arrangement:
    """The best (lowest-penalty) arrangement: melds (jokers written ``JK=5H``), unmatched
    cards, and the penalty (``deadwood``)."""
    pk = get_pack(deck)
    H, jokers, value = hand_mask(pk, split_cards(cards))
    return arrangement(pk, H, jokers, value)
