"""Phỏm's public history (issue #28): ``PhomState.public_history`` in the view, and the world
records the strong AI's sampler takes from it (``bot.games.phom_history``).

- the history tells no hidden card (a draw's card, the hand cards an eat names), and the
  normal AI does not read it (the lean view has none);
- a world's record (eat payments, last discards, last-round eats) is the game's.
"""

from __future__ import annotations

import importlib
import random

from bot.games import REGISTRY
from bot.games.phom_sample import determinize
from bot.games.strong_views import lean_view

normal = importlib.import_module("bot.games.phom_ai").choose


def test_the_history_tells_only_public_cards():
    """No card another seat holds hidden, nor a stock card, is in any viewer's history (an
    eat names the card eaten, never the hand cards it named); each move is the action's verb;
    the normal AI's lean view has no history (it does not read it)."""
    eats = 0
    for players, options in ((2, None), (3, None), (4, {"send": True})):
        state = REGISTRY["phom"].new(players, seed=7 + players, options=options)
        while not state.is_over:
            seat = state.to_act[0]
            stock = set(state.stock[state.stock_pos:])
            for viewer in [None, *range(players)]:
                view = state.view(viewer)
                assert view["history"] == state.public_history()
                hidden = set(stock)
                for s in range(players):
                    if s != viewer:
                        hidden |= state.hands[s] - state.unshown_eaten[s]
                words = {w for _s, text in view["history"] for w in text.split()}
                assert not words & hidden, (viewer, words & hidden)
                for (s, text), (s2, action) in zip(view["history"], state.actions):
                    assert s == s2 and text.split()[0] == action.split()[0]
            assert "history" not in lean_view(state, seat)
            state.apply(seat, normal(state.view(seat)))
        for (s, text), (_, action) in zip(state.public_history(), state.actions):
            if action.startswith("eat"):
                eats += 1
                assert len(text.split()) == 2 and text.split()[1] not in action.split()[1:]
    assert eats >= 2


def test_a_world_keeps_the_record_as_played():
    """From the history a world's eat payments (an ăn chốt pays 4), last discards (the
    tie-break of equal points) and last-round eats (ù đền) are the real game's."""
    checked = chot = 0
    for seed in range(20):
        state = REGISTRY["phom"].new(2, seed=200 + seed)
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            if state.eaten[0] or state.eaten[1]:
                world = determinize(view, random.Random(seed))
                assert world.transfers == state.transfers
                assert world.last_discard == state.last_discard
                assert world.eat_counts == state.eat_counts
                assert world.last_round_victims == state.last_round_victims
                checked += 1
                chot += any(t.units == 4 for t in state.transfers)
            state.apply(seat, normal(view))
    assert checked >= 50 and chot >= 5, (checked, chot)
