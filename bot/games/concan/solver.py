"""The Concan solver: the best set of disjoint melds of a hand, and the splits of a selection.

- ``solve(naturals, jokers, require=, req_jokers=, leave=, exact=)``: the memoised search the
  state asks for openings, melds and the legality of ``take`` and ``swap`` before opening.
- concan.md's evaluation: ``best_opening(cards)`` (which ignores the need to keep a card for
  the discard; the state's listed ``open`` and the legality of ``take`` respect it).
- For the UI and the AI: ``best_melds(cards, keep=)`` (the hand grouped into melds + the
  rest), ``split_opening(cards, open_min=)`` (the selection split into melds, best value,
  jokers named), ``split_choices(cards)`` (every such split, so the UI can ask what a joker
  stands for).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations
from typing import Any, Iterable

from bot.games.concan.melds import (RANK_NO, RANK_VALUE, RUN_CODES, RUN_PREFIX, MeldSpec, hand_cards, interpret,
                           is_joker_token, run_spec, set_spec, split_hand, suit_order)
from bot.games.french import JOKER, SUITS, parse_card, sort_key

# The search. The hand's distinct natural cards are ordered by suit then rank, and a hand is an integer
# with two bits per card (its count, 0–2: two packs). A memoised search takes the first
# remaining card and either leaves one copy of it or lays it in one of its candidate melds
# (sets of its rank, runs through it, with up to two jokers), then recurses. Candidates are
# built once per hand as bit masks (``need``: the naturals used). Unless jokers must be used
# (a swapped joker, or an exact split), a meld never names a joker as a card that is still
# in the hand: swapping that card with the joker gives a solution worth the same (the card
# either was left over, or sits in a later meld that can hold the joker instead), so these
# candidates (``sub & available``) are skipped. With a 15-card hand the search visits a few
# hundred states (at most one per subset of the cards times 3 joker counts times 4 flags);
# candidates per card are bounded by the 4 set shapes and the runs with at most two gaps.

_NEG = -(10**9)
_SET_COMBOS = {s: [c for size in (2, 3) for c in combinations([t for t in SUITS if t != s], size)]
               for s in SUITS}


def _subsets(items: tuple, most: int) -> list[tuple]:
    out: list[tuple] = [()]
    for n in range(1, min(most, len(items)) + 1):
        out.extend(combinations(items, n))
    return out


def _candidates(k0: str, bit: dict[str, int], jmax: int) -> list[tuple[int, int, int, int, tuple]]:
    """Every meld holding the natural ``k0`` as ``(need, jokers, sub, score, desc)``: ``need``
    the naturals used, ``sub`` the hand cards named by a joker, ``score`` = value·2²⁰ +
    cards·2⁸ − 1 (a sum of scores orders by value, then cards laid, then fewer melds)."""
    r, s = k0[0], k0[1]
    best: dict[tuple[int, int, int], tuple[int, tuple]] = {}
    me = bit[k0]
    sv = RANK_VALUE[r]
    for combo in _SET_COMBOS[s]:
        size = len(combo) + 1
        need = me
        miss: list[str] = []
        have: list[tuple[str, int]] = []
        for t in combo:
            b = bit.get(r + t, 0)
            if b:
                need |= b
                have.append((t, b))
            else:
                miss.append(t)
        if len(miss) > jmax:
            continue
        score = (size * sv << 20) + (size << 8) - 1
        for subs in _subsets(tuple(have), jmax - len(miss)):
            n, sub = need, 0
            for _t, b in subs:
                n ^= b
                sub |= b
            key = (n, len(miss) + len(subs), sub)
            if key not in best:
                best[key] = (score, ("S", r, (s, *combo), tuple(miss) + tuple(t for t, _ in subs)))
    codes = RUN_CODES[s]
    rn = RANK_NO[r]
    for p in ((1, 14) if rn == 1 else (rn,)):
        sides = []
        for step in (-1, 1):
            ends = [(p, 0, ())]
            miss_n = 0
            av: tuple[int, ...] = ()
            q = p + step
            while 1 <= q <= 14 and abs(q - p) < 13:
                if codes[q] in bit:
                    av = av + (q,)
                else:
                    miss_n += 1
                    if miss_n > jmax:
                        break
                ends.append((q, miss_n, av))
                q += step
            sides.append(ends)
        for lo, ml, al in sides[0]:
            for hi, mr, ar in sides[1]:
                length = hi - lo + 1
                if length < 3 or length > 13 or ml + mr > jmax:
                    continue
                base = al + ar
                need = me
                for q in base:
                    need |= bit[codes[q]]
                score = ((RUN_PREFIX[hi] - RUN_PREFIX[lo - 1]) << 20) + (length << 8) - 1
                for subs in _subsets(base, jmax - ml - mr):
                    n, sub = need, 0
                    for q in subs:
                        b = bit[codes[q]]
                        n ^= b
                        sub |= b
                    key = (n, ml + mr + len(subs), sub)
                    prev = best.get(key)
                    if prev is None or score > prev[0]:
                        best[key] = (score, ("R", s, lo, hi, subs))
    out = [(n, jk, sub, sc, desc) for (n, jk, sub), (sc, desc) in best.items()]
    out.sort(key=lambda x: -x[3])
    return out


def _desc_spec(desc: tuple, bit: dict[str, int]) -> MeldSpec:
    if desc[0] == "S":
        __, rank, suits, jsuits = desc
        return set_spec(rank, [(rank + t, t in jsuits) for t in suits])
    __, suit, lo, hi, subs = desc
    codes = RUN_CODES[suit]
    fixed = {q: codes[q] for q in range(lo, hi + 1) if codes[q] in bit and q not in subs}
    return run_spec(suit, lo, hi, fixed)


@lru_cache(maxsize=8192)
def solve(naturals: tuple[str, ...], jokers: int, require: str | None = None, req_jokers: int = 0,
           leave: bool = False, exact: bool = False) -> tuple[int, tuple[MeldSpec, ...]] | None:
    """The highest-value set of disjoint melds from ``naturals`` (sorted, with repeats) and
    ``jokers``: ``(value, melds)``, or ``None`` when the constraints cannot be met.

    ``require``: a natural card one of the melds must use; ``req_jokers``: the melds use at
    least that many jokers; ``leave``: at least one card (or joker) stays out; ``exact``:
    every card and joker is used. Ties go to the solution laying more cards, then to fewer melds."""
    ids = sorted(set(naturals), key=suit_order)
    bit = {c: 1 << (2 * k) for k, c in enumerate(ids)}
    rem0 = 0
    for c in naturals:
        rem0 += bit[c]
    low_mask = sum(bit.values())
    prune = not (exact or req_jokers > 0)
    jmax = min(jokers, 2)
    cand = []
    for c in ids:
        lst = _candidates(c, bit, jmax)
        if not prune:
            lst = [(n, jk, 0, sc, d) for n, jk, _sub, sc, d in lst]
        cand.append(lst)
    if require is not None and require not in bit:
        return None
    tbit = bit.get(require, 0) if require is not None else 0
    REQT, LEAVE = 1, 2
    memo: dict[int, tuple[int, Any]] = {}

    def f(rem: int, j: int, fl: int) -> int:
        key = (rem << 4) | (j << 2) | fl
        got = memo.get(key)
        if got is not None:
            return got[0]
        if rem == 0:
            ok = (not fl & REQT and jokers - j >= req_jokers and not (fl & LEAVE and j == 0)
                  and not (exact and j))
            memo[key] = (0 if ok else _NEG, None)
            return 0 if ok else _NEG
        nz = (rem | rem >> 1) & low_mask
        low = nz & -nz
        best = _NEG
        choice: Any = None
        if not exact and not (fl & REQT and low == tbit and not rem & (low << 1)):
            best = f(rem - low, j, fl & ~LEAVE)
            choice = 0
        for c in cand[(low.bit_length() - 1) >> 1]:
            need, jk, sub = c[0], c[1], c[2]
            if jk > j or need & ~nz or sub & nz:
                continue
            v = f(rem - need, j - jk, fl & ~REQT if need & tbit else fl)
            if v >= 0 and v + c[3] > best:
                best = v + c[3]
                choice = c
        memo[key] = (best, choice)
        return best

    fl0 = (REQT if tbit else 0) | (LEAVE if leave else 0)
    total = f(rem0, jokers, fl0)
    if total < 0:
        return None
    melds = []
    rem, j, fl = rem0, jokers, fl0
    while rem:
        __, ch = memo[(rem << 4) | (j << 2) | fl]
        if ch == 0:
            nz = (rem | rem >> 1) & low_mask
            rem -= nz & -nz
            fl &= ~LEAVE
        else:
            need, jk, _sub, _sc, desc = ch
            melds.append(_desc_spec(desc, bit))
            rem -= need
            j -= jk
            if need & tbit:
                fl &= ~REQT
    return total >> 20, tuple(melds)


def best_opening(cards: str | Iterable[str]) -> int:
    """The highest total of disjoint melds that can be laid from ``cards`` (0 if none).

    Exact: a memoised search over the hand's cards (see ``solve``); a 15-card hand with both
    jokers takes well under a millisecond typically (benchmarks/concan_games.py)."""
    naturals, jokers = split_hand(hand_cards(cards))
    res = solve(naturals, jokers)
    return res[0] if res else 0


def best_melds(cards: str | Iterable[str], *, keep: int = 0) -> dict[str, Any]:
    """The hand grouped for display: ``{"melds": [[tokens]], "rest": [cards], "value": int}``,
    the melds of the highest value (jokers named ``JK=5H``); ``keep=1`` keeps a card out."""
    hand = hand_cards(cards)
    naturals, jokers = split_hand(hand)
    res = solve(naturals, jokers, leave=keep > 0) if hand else None
    if res is None:
        return {"melds": [], "rest": sorted(hand, key=sort_key), "value": 0}
    value, melds = res
    rest = Counter(hand)
    for m in melds:
        rest -= Counter(m.naturals)
        rest[JOKER] -= m.jokers
    return {"melds": [list(m.tokens) for m in melds], "rest": sorted(rest.elements(), key=sort_key),
            "value": value}


def split_opening(cards: str | Iterable[str], open_min: int = 0) -> list[list[str]] | None:
    """The selected ``cards`` split into melds using every one of them, the split of the
    highest value, each joker named (``JK=5H``); ``None`` if they do not split into melds or
    are worth less than ``open_min``. Bare ``JK`` or named ``JK=5H`` jokers are both accepted
    (a named joker is counted as a joker)."""
    hand = [JOKER if is_joker_token(p) else p for p in _tokens_of(cards)]
    hand = [parse_card(c, joker=True) for c in hand]
    if not hand:
        return None
    naturals, jokers = split_hand(hand)
    res = solve(naturals, jokers, req_jokers=jokers, exact=True)
    if res is None or res[0] < open_min:
        return None
    return [list(m.tokens) for m in res[1]]


def _tokens_of(cards: str | Iterable[str]) -> list[str]:
    parts = cards.replace(",", " ").replace("|", " ").split() if isinstance(cards, str) else list(cards)
    return [p.strip().upper() for p in parts]


def split_choices(cards: str | Iterable[str], *, limit: int = 24) -> list[dict[str, Any]]:
    """Every way (at most ``limit``) to split the selected ``cards`` into melds using all of
    them, with every naming of the jokers: ``[{"melds": [[tokens]], "value": int}]``, highest
    value first. One entry: nothing to ask; several: the UI asks which (e.g. ``5H 5S JK``
    gives ``JK=5D`` and ``JK=5C``)."""
    hand = [parse_card(JOKER if is_joker_token(p) else p, joker=True) for p in _tokens_of(cards)]
    naturals = sorted((c for c in hand if c != JOKER), key=suit_order)
    jokers = len(hand) - len(naturals)
    found: dict[tuple, int] = {}

    def rec(rest: list[str], j: int, chosen: list[MeldSpec]) -> None:
        if len(found) >= limit:
            return
        if not rest:
            if j == 0 and chosen:
                key = tuple(sorted(m.tokens for m in chosen))
                found.setdefault(key, sum(m.value for m in chosen))
            return
        first, others = rest[0], rest[1:]
        partners = [i for i, c in enumerate(others) if c[0] == first[0] or c[1] == first[1]]
        seen_sets: set[tuple[str, ...]] = set()
        for size in range(0, min(12, len(partners)) + 1):
            for pick in combinations(partners, size):
                group = tuple([first] + [others[i] for i in pick])
                if group in seen_sets:
                    continue
                seen_sets.add(group)
                left = [c for i, c in enumerate(others) if i not in pick]
                for bare in range(0, j + 1):
                    for spec in interpret([(c, False) for c in group], bare):
                        rec(left, j - bare, chosen + [spec])

    rec(naturals, jokers, [])
    out = [{"melds": [list(t) for t in key], "value": value} for key, value in found.items()]
    out.sort(key=lambda d: (-d["value"], d["melds"]))
    return out


__all__ = ["best_melds", "best_opening", "solve", "split_choices", "split_opening"]
