"""Deal hidden cards at random under rules on how many of a kind a hand may hold (issue #28).

A seat's view says more about the other hands than their sizes: a card a player threw or
ate with was, by the rules, held an odd number of times then, a card he could not have held
is held zero times. :func:`deal` deals ``pool`` into hands of given sizes and a stock (the
rest) so that every hand keeps its rules (the numbers of copies of a kind it may hold:
``EVEN``, ``ODD``, ``NONE`` or any other set), uniformly over the deals that do:

- one hand with the stock (two seats): exactly, by counting. The ways to take ``m`` cards
  from kinds ``i..`` of the cards at hand, keeping the rules, follow from those of kinds
  ``i+1..``; each kind's number of copies is then drawn with the odds of what it leaves.
  Kinds without a rule are one group, taken at random.
- several hands: each is drawn so from what the hands before it left, then redrawn ``SWEEPS``
  times from itself and the stock, the others kept (Gibbs sampling: each redraw is exact
  given the other hands, so the deal tends to the uniform one over the deals keeping every
  rule, and the order the hands were first drawn in fades).

A hand whose rules the cards left cannot keep (the history they came from used a rule's
exception) is drawn without its rules.
"""

from __future__ import annotations

import random
from collections import Counter
from math import comb
from typing import Sequence

#: a rule is the set of copies of a kind a hand may hold (these and any other set)
EVEN, ODD, NONE = frozenset({0, 2, 4}), frozenset({1, 3}), frozenset({0})
ANY = frozenset(range(5))

#: redraws of every hand, each given the others, after the first deal (several hands only)
SWEEPS = 2


def keeps(rule: frozenset[int], copies: int) -> bool:
    """Does a hand holding ``copies`` of a kind keep its ``rule``?"""
    return copies in rule


def _allowed(rule: frozenset[int], fixed: int, available: int) -> list[int]:
    """The numbers of copies a hand may take of a kind: its rule kept with ``fixed`` copies."""
    return [x for x in range(available + 1) if x + fixed in rule]


def _draw(cards: list[str], size: int, rules: dict[str, frozenset[int]], fixed: Counter,
          rng: random.Random) -> tuple[list[str], list[str]] | None:
    """``size`` of ``cards`` keeping ``rules`` (with ``fixed`` held besides), uniformly over the
    ways to; and the cards left. None when no way keeps them."""
    if not rules:
        rng.shuffle(cards)
        return cards[:size], cards[size:]
    by_kind: dict[str, list[str]] = {}
    free: list[str] = []
    for card in cards:
        if card in rules:
            by_kind.setdefault(card, []).append(card)
        else:
            free.append(card)
    ruled = list(rules)
    choices = [[(x, comb(len(by_kind.get(kind, ())), x))
                for x in _allowed(rules[kind], fixed[kind], len(by_kind.get(kind, ())))] for kind in ruled]
    # ways[i][m]: the ways to take m cards from the ruled kinds i.. and the free group
    ways = [[0] * (size + 1) for _ in range(len(ruled) + 1)]
    ways[-1] = [comb(len(free), m) for m in range(size + 1)]
    for i in range(len(ruled) - 1, -1, -1):
        after, row = ways[i + 1], ways[i]
        for m in range(size + 1):
            row[m] = sum(w * after[m - x] for x, w in choices[i] if x <= m)
    if ways[0][size] == 0:
        return None
    hand: list[str] = []
    left: list[str] = []
    m = size
    for i, kind in enumerate(ruled):
        pick = rng.randrange(ways[i][m])
        for x, w in choices[i]:
            if x <= m:
                pick -= w * ways[i + 1][m - x]
                if pick < 0:
                    break
        copies = by_kind.get(kind, [])
        hand += copies[:x]
        left += copies[x:]
        m -= x
    rng.shuffle(free)
    return hand + free[:m], left + free[m:]


def deal(pool: Sequence[str], sizes: Sequence[int], fixed: Sequence[Counter],
         rules: Sequence[dict[str, frozenset[int]]], rng: random.Random) -> list[list[str]]:
    """``pool`` dealt into ``len(sizes)`` hands of ``sizes`` cards and the stock (the cards
    left, in random order, last); ``fixed[h]`` are cards hand ``h`` holds besides (they count
    for its rules), ``rules[h]`` its rules by kind."""
    stock = list(pool)
    hands: list[list[str]] = [[] for _ in sizes]
    sweeps = 1 + (SWEEPS if len(sizes) > 1 and any(rules) else 0)
    for sweep in range(sweeps):
        for h, size in enumerate(sizes):
            cards = hands[h] + stock
            got = _draw(cards, size, rules[h], fixed[h], rng) or _draw(cards, size, {}, fixed[h], rng)
            hands[h], stock = got
    rng.shuffle(stock)
    return hands + [stock]


__all__ = ["ANY", "EVEN", "NONE", "ODD", "deal", "keeps"]
