"""Phỏm determinizer for the strong AI (issue #28): a full state consistent with one seat's view.

``determinize(view, rng) -> PhomState``: the seat's hand and everything public (discards,
eaten and shown cards, draws, the active discard, the phase) exactly as in ``view``; the
cards the seat cannot see (the unseen cards: the pack less its hand, the discards, the eaten
and the shown cards) dealt at random to the other hands (each keeping its size) and the stock.
What the view tells about a hidden hand is kept: each eaten card it still holds is in it, and
with hand cards making a phỏm with it (the cards named in ``eat`` are hidden, so a phỏm is
drawn for it from the unseen cards); no other hand is an ù (it would have ended the game).

Not in the view, so estimated (the state's ``view(seat)`` is still the same):

- the record (``deck``, ``actions``): a determinized state is not a real game's record;
- each seat's last discard (the tie-break of equal points at the end) is ordered by turn:
  the seat before the current one discarded last;
- past eat payments count one unit each (an ăn chốt pays 4: its timing is not in the view),
  and no last-round eat is known for an ù đền of the last round (the same for every move the
  search compares, so it does not change which move is better).
"""

from __future__ import annotations

import random
from typing import Any

from .french import FULL_DECK, sort_key
from .phom import PhomState
from .phom_melds import eat_partners, feasible, hand_is_u
from .base import Transfer

_TRIES = 50  # re-deals before giving up on the hidden hands' phỏm constraints


def unseen_cards(view: dict[str, Any]) -> list[str]:
    """The cards the seat cannot see, in pack order (other hands' hidden cards and the stock)."""
    seen = set(view["hand"])
    for s in range(view["num_players"]):
        seen.update(view["discards"][s])
        seen.update(view["eaten"][s])
        for meld in view["shown"][s]:
            seen.update(meld)
    return [c for c in FULL_DECK if c not in seen]


def _unshown_eaten(view: dict[str, Any], seat: int) -> set[str]:
    shown = {c for m in view["shown"][seat] for c in m}
    return {c for c in view["eaten"][seat] if c not in shown}


def _deal_hidden(view: dict[str, Any], rng: random.Random, pool: list[str], eaten: dict[int, set[str]], *,
                 strict: bool = True) -> dict[int, set[str]] | None:
    """One try: the hidden hands, each eaten card's partners drawn first for every hand (then
    the rest), or None when this draw breaks what the view tells. ``strict=False`` keeps only
    the eaten cards and the sizes (a last resort that always succeeds)."""
    me = view["seat"]
    pool = list(pool)
    rng.shuffle(pool)
    others = [s for s in range(view["num_players"]) if s != me]
    hands: dict[int, set[str]] = {s: set(eaten[s]) for s in others}
    if strict:
        for s in others:
            for e in sorted(eaten[s], key=sort_key):
                options = [p for p in eat_partners(e, pool) if len(p) == 2]
                if not options:
                    return None
                for c in rng.choice(options):
                    pool.remove(c)
                    hands[s].add(c)
    for s in others:
        hand = hands[s]
        size = view["hand_sizes"][s]
        if len(hand) > size:
            return None
        while len(hand) < size:
            hand.add(pool.pop())
        if strict and ((eaten[s] and not feasible(hand, eaten[s])) or hand_is_u(hand, eaten[s])):
            return None
    if len(pool) != view["stock"]:
        raise ValueError("the view's hand sizes and stock do not add up")
    hands[-1] = set(pool)  # the stock, ordered by the caller
    return hands


def determinize(view: dict[str, Any], rng: random.Random) -> PhomState:
    """A Phỏm state whose ``view(view["seat"])`` is ``view``, the unseen cards dealt at random."""
    me = view["seat"]
    n = view["num_players"]
    pool = unseen_cards(view)
    eaten = {s: _unshown_eaten(view, s) for s in range(n)}
    hands = None
    for _ in range(_TRIES):
        hands = _deal_hidden(view, rng, pool, eaten)
        if hands is not None:
            break
    if hands is None:  # keep the sizes at least: a rollout then plays on a looser world
        hands = _deal_hidden(view, rng, pool, eaten, strict=False)
    stock = sorted(hands.pop(-1), key=sort_key)
    rng.shuffle(stock)
    state = PhomState.__new__(PhomState)
    state.num_players = n
    state.options = {"send": True} if view.get("send") else {}
    state.deck = list(FULL_DECK)  # not the real deal: see the module's docstring
    state.hands = [set(view["hand"]) if s == me else hands[s] for s in range(n)]
    state.stock = stock
    state.stock_pos = 0
    state.draws = view["draws"]
    state.eaten = [list(e) for e in view["eaten"]]
    state.unshown_eaten = [set(eaten[s]) for s in range(n)]
    state.shown = [[list(m) for m in melds] for melds in view["shown"]]
    # gửi: what was sent onto each phỏm and by whom, and so how many cards each seat has sent
    state.sent = [[[list(x) for x in cards] for cards in melds] for melds in view.get("sent") or [[] for _ in range(n)]]
    state.sends = [sum(sender == s for melds in state.sent for cards in melds for _, sender in cards) for s in range(n)]
    state.discards = [list(d) for d in view["discards"]]
    state.phase = view["phase"]
    state.current = view["current"] if view["current"] is not None else 0
    state.turn_last = view["last_round"]
    state.drawn = view["drawn"]
    if state.drawn is None and state.phase in ("show", "discard") and state.current != me:
        state.drawn = next(iter(sorted(state.hands[state.current], key=sort_key)), None)
    state.active = view["active"]
    state.actions = []
    state.transfers = [Transfer((s - 1) % n, s, 1, "eat") for s in range(n) for _ in view["eaten"][s]]
    # the seat before the current one discarded last, the current one n turns ago
    state.last_discard = [-(((state.current - s - 1) % n) + 1) for s in range(n)]
    state.eat_counts = {(s, (s - 1) % n): len(view["eaten"][s]) for s in range(n) if view["eaten"][s]}
    state.last_round_victims = []
    state._outcome = None
    state._hands_at_end = None
    state._notes_u = ""
    return state


__all__ = ["determinize", "unseen_cards"]
