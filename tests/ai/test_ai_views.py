"""The AIs see only their seat's view (issue #28): re-dealing the cards a seat cannot see (the
other hands, the stock) in many positions changes neither the seat's view nor the choices of
its AI (``normal``) and of the plain player (``simple``)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from bot.ai.levels import NORMAL
from bot.games import REGISTRY
from bot.ai.easy import SIMPLE
from bot.games.tosom import sort_cards
from bot.games.tusac.sets import khaps_of


def _redeal(state, seat: int, rng: random.Random):
    """A copy of ``state`` whose cards hidden from ``seat`` are shuffled between the other
    hands and the stock, each keeping its size (and what is public about it: cards another
    seat has eaten face up stay, a Tứ Sắc hand keeps its khạp, whose number is public)."""
    other = copy.deepcopy(state)
    seats = [s for s in range(other.num_players) if s != seat]
    name = other.name
    kept: dict[int, list[str]] = {s: [] for s in seats}
    if name == "phom":
        kept = {s: list(other.unshown_eaten[s]) for s in seats}
        held = {s: [c for c in other.hands[s] if c not in other.unshown_eaten[s]] for s in seats}
    elif name == "chan":
        held = {s: list(other.hands[s]) for s in seats}
    elif name == "tusac":
        kept = {s: [c for c in khaps_of(other.private[s]) for _ in range(3)] for s in seats}
        held = {s: list((other.private[s] - Counter(kept[s])).elements()) for s in seats}
    else:  # chinchon, concan
        held = {s: list(Counter(other.hands[s]).elements()) for s in seats}
    one_pack = name in ("phom", "chan", "tusac")
    stock = other.stock[other.stock_pos:] if one_pack else list(other.stock_cards)
    for _ in range(200):
        pool = [c for s in seats for c in held[s]] + stock
        rng.shuffle(pool)
        hands = {}
        for s in seats:
            hands[s], pool = kept[s] + pool[:len(held[s])], pool[len(held[s]):]
        if name != "tusac" or all(len(khaps_of(Counter(hands[s]))) * 3 == len(kept[s]) for s in seats):
            break
    else:
        return None  # no re-deal keeps the khạp counts
    for s in seats:
        if name == "phom":
            other.hands[s] = set(hands[s])
        elif name == "chan":
            other.hands[s] = sort_cards(hands[s])
        elif name == "tusac":
            other.private[s] = Counter(hands[s])
        elif name == "concan":
            other.hands[s] = Counter(hands[s])
        else:
            other.hands[s] = hands[s]
    if one_pack:
        other.stock[other.stock_pos:] = pool
    else:
        other.stock_cards = pool
    return other


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_a_choice_is_the_same_whatever_the_hidden_cards(game):
    normal = NORMAL[game]
    simple = SIMPLE[game]
    rng = random.Random(28)
    positions = 0
    for seed in range(3):
        players = 2 + seed % 3
        state = REGISTRY[game].new(players, seed=seed, options={"rounds": 2} if game == "concan" else None)
        steps = 0
        while not state.is_over and steps < 400 and positions < 30 * (seed + 1):
            steps += 1
            seat = state.to_act[0]
            view = state.view(seat)
            if len(view["legal"]) > 1:
                positions += 1
                wanted = (normal(view), simple(view))
                for _ in range(2):
                    other = _redeal(state, seat, rng)
                    if other is None:
                        continue
                    assert other.view(seat) == view, (game, seed, steps)
                    assert (normal(other.view(seat)), simple(other.view(seat))) == wanted, (game, seed, steps)
            state.apply(seat, normal(view) if rng.random() < 0.7 else rng.choice(view["legal"]))
    assert positions >= 30
