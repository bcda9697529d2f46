"""Concan determinizer for the strong AI (issue #28): a full set state consistent with one
seat's view.

``determinize(view, rng) -> ConcanState``: the seat's hand, the melds on the table, the top
discard, the sizes of every hand, of the stock and of the pile, who opened, the announced
jokers, the totals and past rounds exactly as in ``view``; the cards the seat cannot see (the
106 less its hand, the table and the top discard) dealt at random to the other hands, the
stock and the pile under its top card. A hand keeps at least the jokers it announced.

Not in the view, so estimated (``view(seat)`` is still the same):

- the discards under the top one (the view counts them, it does not list them): drawn at
  random with the other unseen cards;
- ``seed`` (the reshuffles and rounds to come): drawn from ``rng``; the record (``decks``,
  ``actions``) is not the real set's;
- how many reshuffles the round had (0; or 2 when the stock is empty in the play step: the
  round ends with this turn) and its turns so far (the cards drawn from the stock): they only
  bound how long the round may still go on;
- another seat's obligation to open with a card it took (it is not in this seat's view).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .concan import GAME, MAX_RESHUFFLES, PACK, ConcanState
from .concan_melds import is_joker_token, token_identity
from .concan_table import table_from_view
from .french import JOKER, sort_key


def _sort_key(card: str) -> tuple[int, int]:
    return (99, 99) if card == JOKER else sort_key(card)


def unseen_cards(view: dict[str, Any]) -> Counter:
    """The cards the seat cannot see: the pack less its hand, the table and the top discard."""
    left = Counter(PACK)
    left.subtract(view["hand"])
    if view["top_discard"] is not None:
        left[view["top_discard"]] -= 1
    for meld in view["melds"]:
        for token in meld["cards"]:
            left[JOKER if is_joker_token(token) else token_identity(token)] -= 1
    if any(v < 0 for v in left.values()):
        raise ValueError("the view shows more copies of a card than the pack holds")
    return +left


def _obligation(view: dict[str, Any]) -> list[tuple[str | None, int]]:
    """The ``(must_card, must_jokers)`` readings of the seat's obligation: ``JK`` alone may be
    a joker taken from the pile or one swapped from the table."""
    duty = view["obligation"]
    if not duty:
        return [(None, 0)]
    cards = duty["must_open_with"].split()
    jokers = cards.count(JOKER)
    named = [c for c in cards if c != JOKER]
    if named:
        return [(named[0], jokers)]
    return [(None, jokers), (JOKER, jokers - 1)]


def determinize(view: dict[str, Any], rng: random.Random) -> ConcanState:
    """A Concan state whose ``view(view["seat"])`` is ``view``, the unseen cards dealt at random."""
    me = view["seat"]
    n = view["num_players"]
    state = GAME.new(n, seed=rng.getrandbits(62), options=view["options"])
    pool = sorted(unseen_cards(view).elements(), key=_sort_key)
    rng.shuffle(pool)
    hands: list[Counter] = [Counter() for _ in range(n)]
    hands[me] = Counter(view["hand"])
    for s in range(n):  # a hand holds at least the jokers it announced
        if s != me and view["announced"][s]:
            for _ in range(view["announced"][s]):
                pool.remove(JOKER)
            hands[s][JOKER] += view["announced"][s]
    for s in range(n):
        if s != me:
            k = view["hand_sizes"][s] - sum(hands[s].values())
            hands[s].update(pool[:k])
            pool = pool[k:]
    stock, pool = pool[:view["stock"]], pool[view["stock"]:]
    under = view["discards"] - (1 if view["top_discard"] is not None else 0)
    if len(pool) != under:
        raise ValueError("the view's hand, stock and pile sizes do not add up")
    state.hands = hands
    state.stock_cards = stock
    state.pile = pool + ([view["top_discard"]] if view["top_discard"] is not None else [])
    state.table = table_from_view(view["melds"])
    state.opened_flags = list(view["opened"])
    state.announced_counts = list(view["announced"])
    state.round = view["round"]
    state.first = view["first"]
    state.totals = list(view["totals"])
    state.in_match = list(view["in_match"])
    state.round_results = [{**r, "points": list(r["points"]), "totals": list(r["totals"]),
                            "hands": [dict(h, cards=list(h["cards"])) for h in r["hands"]],
                            "phrases": [dict(p) for p in r["phrases"]]} for r in view["round_results"]]
    state.phase = view["phase"]
    state.current = view["current"] if view["current"] is not None else 0
    state.step = view["step"]
    dealt = 15 + 14 * (n - 1)
    state.turns = max(0, len(PACK) - dealt - view["stock"])
    state.reshuffles = 0
    state.last_turn = None
    if not stock and view["step"] == "play":  # the stock ran out at this turn's draw: its last
        state.reshuffles = MAX_RESHUFFLES if view["discards"] >= 2 else 0
        state.last_turn = "concan.round_void_stock" if view["discards"] >= 2 else "concan.round_void"
    state.must_card, state.must_jokers = None, 0
    if state.current == me:
        readings = _obligation(view)
        for must_card, must_jokers in readings:
            state.must_card, state.must_jokers = must_card, must_jokers
            state._version += 1
            if len(readings) == 1 or state.legal_actions(me) == view["legal"]:
                break
    state._version += 1
    state._legal_cache = None
    return state


__all__ = ["determinize", "unseen_cards"]
