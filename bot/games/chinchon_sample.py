"""Chinchón determinizer for the strong AI (issue #28): a full match state consistent with one
seat's view.

``determinize(view, rng) -> ChinchonState``: the seat's hand, the discard pile, the totals,
the seats in the match, buy-backs and past rounds exactly as in ``view``; the cards the seat
cannot see (the pack less its hand and the pile) dealt at random to the other hands (each
keeping its size) and the stock, keeping what the view tells about them:

- before any reshuffle in the round the stock holds only cards never shown face up this
  round, so a card shown (``seen``) that is neither in the pile nor in the seat's hand was
  taken: it is in another hand;
- after a reshuffle the stock was made of discards, so it holds only cards shown this round.

Not in the view, so drawn at random or estimated (``view(seat)`` is still the same):

- ``seed`` (the next reshuffles and rounds): drawn from ``rng``, as the deals to come are
  unknown; the record (``decks``, ``actions``) is not the real match's;
- another seat's drawn card (it is in its hand) and whether it came from the pile;
- between rounds (a buy-back to decide) the hands, stock and pile of the round just played:
  the seat's view shows only their sizes, and they play no part in what follows.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .chinchon import GAME, ChinchonState
from .chinchon_cards import JOKER, get_pack


def _copy_results(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from .chinchon import _copy_results as copy_results
    return copy_results(results)


def _sample(pool: Counter, k: int, rng: random.Random, sort_key) -> tuple[list[str], Counter]:
    """``k`` cards drawn at random from the multiset ``pool``, and what is left."""
    cards = sorted(pool.elements(), key=sort_key)
    rng.shuffle(cards)
    return cards[:k], Counter(cards[k:])


def determinize(view: dict[str, Any], rng: random.Random) -> ChinchonState:
    """A Chinchón state whose ``view(view["seat"])`` is ``view``, the unseen cards dealt at random."""
    me = view["seat"]
    n = view["num_players"]
    state = GAME.new(n, seed=rng.getrandbits(62), options=view["options"])
    pk = get_pack(view["options"]["deck"])
    playing = view["phase"] == "play"
    sizes = view["hand_sizes"]
    others = [s for s in range(n) if s != me and sizes[s]]
    unseen = Counter(state.pack)
    if playing:
        unseen.subtract(view["hand"])
        unseen.subtract(view["pile"])
    unseen = +unseen
    if playing:
        # the shown cards not in sight: taken into a hand, or (after a reshuffle) in the stock
        visible = Counter(view["hand"]) + Counter(view["pile"])
        shown = Counter({c: 1 for c in view["seen"] if not visible[c] and unseen[c]})
        never = unseen - shown
        if view["reshuffles"]:
            stock, rest = _sample(shown, view["stock"], rng, pk.sort_key)
            rest += never
        else:
            stock, rest = _sample(never, view["stock"], rng, pk.sort_key)
            rest += shown
        if len(stock) != view["stock"]:  # the view's counts do not fit: draw from every unseen card
            stock, rest = _sample(unseen, view["stock"], rng, pk.sort_key)
        hand_cards = sorted(rest.elements(), key=pk.sort_key)
        rng.shuffle(hand_cards)
    else:  # between rounds: see the docstring
        hand_cards = sorted(unseen.elements(), key=pk.sort_key)
        rng.shuffle(hand_cards)
        stock, hand_cards = hand_cards[:view["stock"]], hand_cards[view["stock"]:]
        pile, hand_cards = hand_cards[:view["discards"]], hand_cards[view["discards"]:]
    hands: list[list[str]] = [[] for _ in range(n)]
    for s in others:
        hands[s], hand_cards = hand_cards[:sizes[s]], hand_cards[sizes[s]:]
    if playing:
        hands[me] = list(view["hand"])
    elif sizes[me]:
        hands[me], hand_cards = hand_cards[:sizes[me]], hand_cards[sizes[me]:]
    state.hands = hands
    state.stock_cards = stock
    state.pile = list(view["pile"]) if playing else pile
    state.seen = set(view["seen"])
    state.discarded = [set(d) for d in view["discarded"]]
    state.reshuffles = view["reshuffles"]
    state.round = view["round"]
    state.first = view["first"]
    state.totals = list(view["totals"])
    state.in_match = list(view["in_match"])
    state.buybacks = list(view["buybacks"])
    state.round_results = _copy_results(view["round_results"])
    state.out_round = [None] * n
    state.refusals = {}
    for result in state.round_results:
        for s in result["out"]:
            state.out_round[s] = result["round"]
            state.refusals[s] = "bought_back" if state.buybacks[s] else "declined"
    state.phase = view["phase"]
    state.current = view["current"]
    state.step = view["step"] or "draw"
    target = state.target
    state.deciding = ([s for s in range(n) if state.in_match[s] and state.totals[s] >= target]
                      if state.phase == "buyback" else [])
    for s in state.deciding:
        state.refusals.pop(s, None)
    state.drawn = None
    state.taken = False
    if playing and state.step == "discard":
        if state.current == me:
            state.drawn = view["drawn"]
            # a card taken from the pile may not go back at once: the view's legal says which
            state.taken = f"discard {state.drawn}" not in view["legal"] and view["hand"].count(state.drawn) == 1
        else:
            state.drawn = rng.choice(hands[state.current])
    state.facedown = hand_cards[0] if not playing and hand_cards else None  # the closer's card
    state.chinchon = False
    state.winners = []
    state.summary = []
    state._outcome = None
    return state


__all__ = ["determinize", "JOKER"]
