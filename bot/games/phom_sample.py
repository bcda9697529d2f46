"""Phỏm determinizer for the strong AI (issue #28): a full state consistent with one seat's view.

``determinize(view, rng) -> PhomState``: the seat's hand and everything public (discards,
eaten and shown cards, draws, the active discard, the phase) exactly as in ``view``; the
cards the seat cannot see (the unseen cards: the pack less its hand, the discards, the eaten
and the shown cards) dealt at random to the other hands (each keeping its size) and the stock.
What the view tells about a hidden hand is kept: each eaten card it still holds is in it, and
with hand cards making a phỏm with it (the cards named in ``eat`` are hidden, so a phỏm is
drawn for it from the unseen cards); no other hand is an ù (it would have ended the game).

What the other seats did is weighed too (``determinize``'s ``infer``): a deal is kept with
probability ``FIT ** k``, ``k`` counting its contradictions of their public choices, else
another is drawn (at most ``DRAWS``; the one with the fewest is kept):

- the seat before this one threw its last discard from its hand now and that card (only this
  seat has moved since): a hand from which the normal AI would have thrown another card
  counts ``LAST_WEIGHT`` (the discard before that, at two seats, told a little more, the
  hand then being this one with that card less any one drawn since, but made a world three
  times as dear to deal: not used);
- a hand holding two free cards that make a phỏm with a card its seat declined (only the
  next seat may eat a discard: every card left in the row before it was offered to it, and
  the normal AI eats whenever an eat lowers its points) or threw away counts one each.

The real hands fit the first rule always and the second seldom (they may have drawn the
partners since): ``tests/engine/test_phom_inference.py``. At two seats the worlds then hold
28 % of the real hidden hand's cards instead of 26 %, and say the next seat can eat a given
discard 15 % of the time instead of 13 % (really: 19 %); the strong AI does not play
measurably better for it (README, "The strong AI").

The record: ``actions`` is the view's history (an eat names the card eaten, not the hand
cards), and from it each seat's last discard (the tie-break of equal points at the end),
the eat payments (an ăn chốt pays 4) and the last-round eats (ù đền) are exact; ``deck`` is
not the real deal. Should the history not replay to the view's table (``phom_history.public``
gives None: never in the tests), they are estimated instead: the seat before the current one
discarded last, each eat paid one unit, no last-round eat known (the same for every move the
search compares, so it does not change which move is better).
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable

from .french import FULL_DECK, sort_key
from .phom import PhomState
from .phom_ai import discard_order
from .phom_melds import eat_partners, feasible, hand_is_u, locked_cards
from .base import Transfer
from . import phom_history

_TRIES = 50  # re-deals before giving up on the hidden hands' phỏm constraints
#: a deal contradicting the other seats' public choices ``k`` times is kept with probability
#: ``FIT ** k`` (``determinize``); of at most ``DRAWS`` deals for one world, the one with the
#: fewest is kept
FIT = 0.25
DRAWS = 8
#: the tries each deal after the first may take to keep the eaten cards' phỏm (the first
#: takes ``_TRIES``): a position where they are hard to deal does not take ``DRAWS`` times as long
REDEAL_TRIES = 3
#: the contradictions a world counts when the seat before this one would not have thrown its
#: last discard as the normal AI; each card declined or thrown that the hand holds a phỏm
#: with counts one
LAST_WEIGHT = 2


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


def evidence(view: dict[str, Any]) -> dict[int, tuple[list[str], list[str]]]:
    """What each other seat's public choices say about its hand, by seat: the discards it
    DECLINED (only the next seat may eat a discard, so every card left in the row of the
    seat before it was offered to it and not eaten; the card on offer now is not decided
    yet) and the cards it threw away itself (its row, and the cards the next seat ate)."""
    n = view["num_players"]
    out: dict[int, tuple[list[str], list[str]]] = {}
    for s in range(n):
        if s == view["seat"]:
            continue
        declined = list(view["discards"][(s - 1) % n])
        if view["phase"] == "draw" and view["current"] == s and declined and declined[-1] == view["active"]:
            declined.pop()
        thrown = list(view["discards"][s]) + (list(view["eaten"][(s + 1) % n]) if n > 1 else [])
        out[s] = (declined, thrown)
    return out


def last_discard(view: dict[str, Any]) -> tuple[int, str, dict[str, Any]] | None:
    """The seat before this one, the card it threw last, and that seat's view then but for
    its hand (the hand to be filled in from a world): since that discard only this seat has
    moved (it drew or ate, maybe showed), so that seat's hand then was its hand now and the
    card. None before it has thrown anything (or in a position it cannot tell)."""
    me, n = view["seat"], view["num_players"]
    s = (me - 1) % n
    if s == me or view["current"] != me:
        return None
    discards = [list(d) for d in view["discards"]]
    eaten = [list(e) for e in view["eaten"]]
    drew = 0
    if view["phase"] == "draw":
        if view["active"] is None or not discards[s] or discards[s][-1] != view["active"]:
            return None
        card = discards[s].pop()
    elif view["drawn"] is not None:  # this seat drew: the card was declined, left in the row
        if not discards[s]:
            return None
        card, drew = discards[s].pop(), 1
    else:  # this seat ate it
        if not eaten[me]:
            return None
        card = eaten[me].pop()
    draws = view["draws"] - drew  # the draws once that seat had drawn (or eaten: one fewer)
    return s, card, _then(s, n, discards, eaten, view["shown"], draws)


def _then(s: int, n: int, discards: list[list[str]], eaten: list[list[str]], shown: list[Any],
          draws: int) -> dict[str, Any]:
    """Seat ``s``'s view at a past discard but for its hand. Its turn was in the last round
    when the draws before it reached 3N − 1: ``draws`` less its own draw, or none if it ate
    (not known): at that edge ``either`` says both are possible."""
    first = 3 * n - 1
    return {"seat": s, "num_players": n, "discards": discards, "eaten": eaten, "shown": shown, "draws": draws,
            "last_round": draws - 1 >= first, "either": draws - 1 < first <= draws}


def threw_as_normal(hand: set[str], eaten: set[str], card: str, then: dict[str, Any]) -> bool:
    """Whether the normal AI, holding ``hand`` and ``card`` (``eaten`` the eaten cards among
    them), would have thrown ``card`` from the position ``then`` (``last_discard``)."""
    held = hand | {card}
    locked = set(locked_cards(held, eaten))
    legal = ["discard " + c for c in sorted(held, key=sort_key) if c not in locked]
    seat_eaten = [list(e) for e in then["eaten"]]
    seat_eaten[then["seat"]] = sorted(eaten, key=sort_key)  # (the normal AI reads them from the view)
    position = {**then, "eaten": seat_eaten, "hand": sorted(held, key=sort_key), "legal": legal}
    for final in (then["last_round"], not then["last_round"])[:1 + then["either"]]:
        order = discard_order({**position, "last_round": final})
        if order and order[0] == card:
            return True
    return False


def contradictions(hands: dict[int, set[str]], eaten: dict[int, set[str]],
                   told: dict[int, tuple[list[str], list[str]]]) -> int:
    """How many public choices a deal of the hidden hands contradicts: a seat holding two
    free cards that make a phỏm with a card it declined (the normal AI eats whenever an eat
    lowers its points, and a phỏm always does), or with a card it threw away (it broke a
    phỏm to do it). The hand now is not the hand then (it drew since), so a contradiction
    makes a world unlikely, not impossible: ``determinize`` weighs it, it does not forbid it."""
    count = 0
    for s, (declined, thrown) in told.items():
        free = hands[s] - eaten[s]
        for card in declined + thrown:
            if any(len(p) == 2 for p in eat_partners(card, free)):
                count += 1
    return count


def _misfit(view: dict[str, Any], eaten: dict[int, set[str]]) -> Callable[[dict[int, set[str]]], int]:
    """How many contradictions a deal of the hidden hands counts (see ``determinize``)."""
    told = evidence(view)
    last = last_discard(view) if LAST_WEIGHT else None

    def count(hands: dict[int, set[str]]) -> int:
        found = contradictions(hands, eaten, told)
        if last is not None:
            s, card, then = last
            if not threw_as_normal(hands[s], eaten[s], card, then):
                found += LAST_WEIGHT
        return found

    return count


def _deal(view: dict[str, Any], rng: random.Random, pool: list[str], eaten: dict[int, set[str]],
          tries: int = _TRIES) -> dict[int, set[str]] | None:
    for _ in range(tries):
        hands = _deal_hidden(view, rng, pool, eaten)
        if hands is not None:
            return hands
    return None


def _rejection(view: dict[str, Any], rng: random.Random, pool: list[str], eaten: dict[int, set[str]],
               infer: bool) -> dict[int, set[str]] | None:
    """The hidden hands (and the stock, at -1) of a deal kept with probability
    ``FIT ** contradictions`` (``infer``), else of the first deal; None if the eaten cards'
    phỏm could not be dealt."""
    hands = _deal(view, rng, pool, eaten)
    if hands is None or not infer:
        return hands
    misfit = _misfit(view, eaten)
    best, fewest = hands, math.inf
    for k in range(DRAWS):
        if k:
            hands = _deal(view, rng, pool, eaten, REDEAL_TRIES)
            if hands is None:  # the eaten cards' phỏm are hard to deal: no time for more
                break
        count = misfit(hands)
        if count < fewest:
            best, fewest = hands, count
        if count == 0 or rng.random() < FIT ** count:
            return hands
    return best


def determinize(view: dict[str, Any], rng: random.Random, *, infer: bool = True) -> PhomState:
    """A Phỏm state whose ``view(view["seat"])`` is ``view``, the unseen cards dealt at random,
    the deals that fit the other seats' public choices the likelier (``infer``; see
    ``contradictions``): a deal is kept with probability ``FIT ** contradictions``, else
    another is drawn, and after ``DRAWS`` the one with the fewest is kept."""
    me = view["seat"]
    n = view["num_players"]
    pool = unseen_cards(view)
    eaten = {s: _unshown_eaten(view, s) for s in range(n)}
    hands = _rejection(view, rng, pool, eaten, infer)
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
    state._outcome = None
    state._hands_at_end = None
    state._notes_u = ""
    _record(state, view)
    return state


def _record(state: PhomState, view: dict[str, Any]) -> None:
    """The world's actions, eat payments, last discards and last-round eats: as played, from
    the view's history; estimated when it does not replay (see the module's docstring)."""
    n = view["num_players"]
    table = phom_history.public(view)
    if table is not None:
        state.actions = [list(move) for move in view["history"]]
        state.transfers = list(table.transfers)
        state.last_discard = list(table.last_discard)
        state.eat_counts = dict(table.eat_counts)
        state.last_round_victims = list(table.last_round_victims)
        return
    state.actions = []
    state.transfers = [Transfer((s - 1) % n, s, 1, "eat") for s in range(n) for _ in view["eaten"][s]]
    # the seat before the current one discarded last, the current one n turns ago
    state.last_discard = [-(((state.current - s - 1) % n) + 1) for s in range(n)]
    state.eat_counts = {(s, (s - 1) % n): len(view["eaten"][s]) for s in range(n) if view["eaten"][s]}
    state.last_round_victims = []


__all__ = ["FIT", "contradictions", "determinize", "evidence", "last_discard", "threw_as_normal", "unseen_cards"]
