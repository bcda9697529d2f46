"""What Tứ Sắc's public history says of each hidden block, and dealing blocks that keep it
(issue #28, for :mod:`.tusac_sample`).

A block only ever loses cards, and every card it loses is shown, so the block at any past
move is the block now plus the cards it gave up since. The rules then say a lot about it:

- a discard was a trash card of the block (its group's trash fell by one when it went);
- an eat did not raise the trash count, with free cards (not locked in a Khap);
- when a card was turned up or thrown, nobody had to claim it: no Khap of it in a block in
  the claim order, no pair of it that a claim would have taken (the pair exemption, which
  hangs on the whole block, is not looked at: a rare block it would have let off is missed);
  a pair claimed was a pair whose claim kept the trash count;
- no block was dealt four of a code (that was a Quan, laid down at once).

Every set lies inside one of the nine groups of :mod:`.tusac_sets`, and so does every one of
these conditions, so each says which count vectors of one group the block may hold now
(:func:`read_rules`). :func:`draw` deals a block from the cards at hand keeping them, with
the Khap count the view shows, uniformly over the ways to: the ways to fill ``m`` cards with
``k`` Khaps from groups ``g..`` follow from those of groups ``g+1..``, and each group's share
is drawn with the odds of what it leaves.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product
from math import comb
from typing import Any, Sequence

from .tusac_sets import GROUP_OF, GROUPS, group_trash


def _key(r: Sequence[int]) -> tuple[int, ...]:
    """A group's free counts (a Khap is locked)."""
    return tuple(x - 3 if x >= 3 else x for x in r)


def _holds(kind: str, check: tuple, r: tuple[int, ...]) -> bool:
    """Does the group's count vector ``r`` at the time of ``check`` allow what happened?"""
    what = check[0]
    if max(r) > 3:
        return False
    if what == "deal":
        return True
    i = check[1]
    if what == "nokhap":
        return r[i] < 3
    key = _key(r)
    trash = group_trash(kind, key)
    if what == "discard":
        return key[i] >= 1 and group_trash(kind, _minus(key, i, 1)) == trash - 1
    if what in ("pair", "nopair"):
        claims = r[i] == 2 and group_trash(kind, _key(_minus(r, i, 2))) <= trash
        return claims == (what == "pair")
    # an eat with the vector ``i`` of free cards
    if any(k < m for k, m in zip(key, i)):
        return False
    return group_trash(kind, _key(tuple(x - m for x, m in zip(r, i)))) <= trash


def _minus(r: tuple[int, ...], i: int, n: int) -> tuple[int, ...]:
    return tuple(x - n if k == i else x for k, x in enumerate(r))


def read_checks(history: list[list[Any]], n: int) -> tuple[list[list[str]], list[list[tuple[int, int, tuple]]]]:
    """Each seat's cards given up in order, and its checks: ``(group, len(given) then, check)``."""
    given: list[list[str]] = [[] for _ in range(n)]
    checks: list[list[tuple[int, int, tuple]]] = [[] for _ in range(n)]

    def note(seat: int, card: str, check: tuple) -> None:
        checks[seat].append((GROUP_OF[card][0], len(given[seat]), check))

    for j, (seat, kind, *cards) in enumerate(history):
        if kind == "discard":
            note(seat, cards[0], ("discard", GROUP_OF[cards[0]][1]))
            given[seat].append(cards[0])
        elif kind == "eat":
            active, *mine = cards
            if mine:
                g, members = GROUP_OF[active][0], GROUPS[GROUP_OF[active][0]][1]
                checks[seat].append((g, len(given[seat]), ("eat", tuple(mine.count(c) for c in members))))
            given[seat] += mine
        elif kind == "khui":
            given[seat] += cards * 3
        elif kind == "pair":
            given[seat] += cards * 2
        elif kind == "u":
            given[seat] += cards[1:]
        if kind in ("draw", "discard"):  # a card turned up or thrown: nobody had to claim it
            card = cards[0]
            order = [(seat + k) % n for k in (range(n) if kind == "draw" else range(1, n))]
            after = history[j + 1] if j + 1 < len(history) else None
            claim = after if after is not None and after[1] in ("khui", "pair") else None
            i = GROUP_OF[card][1]
            for s in order:
                if claim and claim[1] == "khui" and claim[0] == s:
                    break
                note(s, card, ("nokhap", i))
            if card[1] != "K" and not (claim and claim[1] == "khui"):
                for s in order[1:]:
                    if claim and claim[0] == s:
                        note(s, card, ("pair", i))  # he held the pair, and it kept his trash
                        break
                    note(s, card, ("nopair", i))
    for seat in range(n):
        for g in range(len(GROUPS)):
            checks[seat].append((g, 0, ("deal",)))
    return given, checks


class GroupRule:
    """The count vectors one group of a block may hold now, and, by the copies at hand, the
    weight of each (the ways to pick its copies) by size."""

    __slots__ = ("vectors", "_by_avail")

    def __init__(self, vectors: list[tuple[int, ...]]) -> None:
        self.vectors = vectors
        self._by_avail: dict[tuple[int, ...], tuple[dict, dict]] = {}

    def options(self, avail: tuple[int, ...]) -> tuple[dict, dict]:
        """By ``(size, Khaps)``: the vectors the copies at hand allow with their weights, and
        their total weight."""
        got = self._by_avail.get(avail)
        if got is None:
            by_shape: dict[tuple[int, int], list[tuple[int, tuple[int, ...]]]] = {}
            for v in self.vectors:
                w = 1
                for x, a in zip(v, avail):
                    w *= _COMB[a][x]
                if w:
                    by_shape.setdefault((sum(v), v.count(3)), []).append((w, v))
            got = by_shape, {shape: sum(w for w, _v in vs) for shape, vs in by_shape.items()}
            self._by_avail[avail] = got
        return got


_COMB = [[comb(a, x) for x in range(5)] for a in range(5)]


def read_rules(given: list[str], checks: list[tuple[int, int, tuple]], hidden: Counter) -> list[GroupRule]:
    """The count vectors of each group a block may hold now, given what the history says."""
    by_group: dict[int, dict[tuple[int, ...], list[tuple]]] = {}
    for g, before, check in checks:
        members = GROUPS[g][1]
        since = Counter(c for c in given[before:] if GROUP_OF[c][0] == g)
        by_group.setdefault(g, {}).setdefault(tuple(since[c] for c in members), []).append(check)
    out = []
    dealt = Counter(given)  # with the block now, at most three of a code (four were a Quan)
    for g, (kind, members) in enumerate(GROUPS):
        ranges = [range(max(-1, min(3 - dealt[c], hidden[c])) + 1) for c in members]
        vectors = list(product(*ranges))
        for after, checks in by_group.get(g, {}).items():  # each check thins the list
            for check in sorted(set(checks), key=lambda check: _COST[check[0]]):
                vectors = [v for v in vectors if _holds(kind, check, tuple(x + a for x, a in zip(v, after)))]
        out.append(GroupRule(vectors))
    return out


#: the cheap checks first: they leave the dear ones fewer vectors
_COST = {"deal": 0, "nokhap": 1, "discard": 2, "pair": 3, "nopair": 3, "eat": 4}


def draw(cards: list[str], size: int, khaps: int, rules: list[GroupRule],
         rng: random.Random) -> tuple[list[str], list[str]] | None:
    """``size`` of ``cards`` with ``khaps`` Khaps, each group's vector among ``rules``,
    uniformly over the ways to; and the cards left. None when no way keeps the rules."""
    have = Counter(cards)
    options, totals = zip(*(rule.options(tuple(have[c] for c in members))
                            for rule, (_kind, members) in zip(rules, GROUPS)))
    # ways[g][m][k]: the ways to take m cards holding k Khaps from groups g..
    ways = [[[0] * (khaps + 1) for _ in range(size + 1)] for _ in range(len(GROUPS) + 1)]
    ways[-1][0][0] = 1
    for g in range(len(GROUPS) - 1, -1, -1):
        after, row = ways[g + 1], ways[g]
        for (sz, kh), w in totals[g].items():
            if kh > khaps:
                continue
            for m in range(sz, size + 1):
                src, dst = after[m - sz], row[m]
                for k in range(kh, khaps + 1):
                    if src[k - kh]:
                        dst[k] += w * src[k - kh]
    if ways[0][size][khaps] == 0:
        return None
    picked: list[tuple[int, ...]] = []
    m, k = size, khaps
    for g in range(len(GROUPS)):
        pick = rng.randrange(ways[g][m][k])
        for (sz, kh), w in totals[g].items():
            if sz <= m and kh <= k:
                pick -= w * ways[g + 1][m - sz][k - kh]
                if pick < 0:
                    break
        pick = rng.randrange(totals[g][sz, kh])
        for w, v in options[g][sz, kh]:
            pick -= w
            if pick < 0:
                break
        picked.append(v)
        m, k = m - sz, k - kh
    pools: dict[str, list[str]] = {}
    for card in cards:
        pools.setdefault(card, []).append(card)
    hand: list[str] = []
    for (_kind, members), v in zip(GROUPS, picked):
        for code, x in zip(members, v):
            hand += pools.get(code, [])[:x]
    left = list((Counter(cards) - Counter(hand)).elements())
    return hand, left


__all__ = ["draw", "read_checks", "read_rules"]
