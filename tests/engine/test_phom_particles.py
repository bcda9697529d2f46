"""Phỏm's worlds from the whole public history (issue #28, third pass): ``PhomState.public_history``
in the view and the particle filter over it (``bot.games.phom_particles``).

- the history tells no hidden card (a draw's card, the hand cards an eat names), and the
  normal AI does not read it (the lean view has none);
- the real hands, carried through a game of normal AIs, fit every move (no move weighed down)
  and end as the real hands: the filter's model of the other seats is right;
- a hand from which the normal AI would have thrown another card is weighed down by ``EPS``;
- a population, and so a world, depends on the view alone (and the world's rng);
- a world's record (eat payments, last discards, last-round eats) is the game's, from the
  history, whichever sampler dealt it.
"""

from __future__ import annotations

import importlib
import json
import random

from bot.games import REGISTRY
from bot.games import phom_particles as pp
from bot.games.base import deal
from bot.games.phom_sample import determinize
from bot.games.strong_views import lean_view

normal = importlib.import_module("bot.games.phom_ai").choose


def _game(players: int, seed: int, options=None):
    """A finished game of normal AIs."""
    state = REGISTRY["phom"].new(players, seed=seed, options=options)
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, normal(state.view(seat)))
    return state


def _replay(state, moves: int):
    """The same deal after its first ``moves`` actions."""
    again = REGISTRY["phom"].new(state.num_players, deck=state.deck, options=state.options or None)
    for seat, action in state.actions[:moves]:
        again.apply(seat, action)
    return again


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


def _real_walk(state, me: int) -> pp.Particle:
    """The particle holding the real hands from the real deal, each draw of another seat
    scheduled to be the real card, carried through the history of ``state``'s view for
    ``me`` without resampling."""
    players = state.num_players
    view = state.view(me)
    hands, stock = deal(state.deck, players, 10, 9)
    others = [s for s in range(players) if s != me]
    schedule = {}
    k = 0
    for i, (seat, action) in enumerate(state.actions):
        if action == "draw":
            if seat != me:
                schedule[i] = stock[k]
            k += 1
    mine, _origin = pp._known(view)
    dealt = set().union(*(hands[s] for s in others))
    particle = pp.Particle({s: set(hands[s]) for s in others}, {s: set() for s in others},
                           set(pp.FULL_DECK) - mine - dealt, schedule=schedule)
    return pp.walk(view, [particle], random.Random(0), resample=False)[0]


def test_the_real_hands_fit_every_move_of_a_game_of_normal_ais():
    for players in (2, 3, 4):
        for seed in range(3):
            game = _game(players, 30 + seed)
            state = _replay(game, len(game.actions) - 1)  # the last position before the end
            for me in range(players):
                p = _real_walk(state, me)
                assert p.misses == 0, (players, seed, me)
                assert all(p.hands[s] == state.hands[s] and p.ue[s] == state.unshown_eaten[s] for s in p.hands)
                assert len(p.free) == state.stock_left


def test_a_hand_that_would_have_thrown_another_card_is_weighed_down():
    """The dealer's first discard, seen from seat 1: the real 10 cards keep their weight; the
    same hand with one card changed so that the normal AI would throw another card (the card
    thrown still in it) gets ``EPS``."""
    for seed in range(40, 60):
        state = _replay(_game(2, seed), 1)
        view = state.view(1)
        thrown = view["history"][0][1].split()[1]
        hands, _stock = deal(state.deck, 2, 10, 9)
        real = set(hands[0])
        free = set(pp.FULL_DECK) - set(view["hand"]) - real
        for out in sorted(real - {thrown}):
            for new in sorted(free):
                other = real - {out} | {new}
                probe = REGISTRY["phom"].new(2, seed=seed)
                probe.hands[0] = set(other)
                if normal(probe.view(0)) != "discard " + thrown:
                    break
            else:
                continue
            break
        else:
            continue
        particles = [pp.Particle({0: set(real)}, {0: set()}, set(free)),
                     pp.Particle({0: set(other)}, {0: set()}, set(free - {new} | {out}))]
        after = pp.walk(view, particles, random.Random(0), stop=1, resample=False)
        assert [p.w for p in after] == [1.0, pp.EPS]
        assert [p.misses for p in after] == [0, 1]
        return
    raise AssertionError("no position found")


def test_a_population_and_its_worlds_depend_on_the_view_alone():
    game = _game(3, 12)
    state = _replay(game, len(game.actions) // 2)
    view = state.view(state.to_act[0])
    pp._cache.clear()
    first = determinize(view, random.Random(5), history=True)
    pp._cache.clear()  # rebuilt from a JSON copy: the same population, so the same world
    again = determinize(json.loads(json.dumps(view)), random.Random(5), history=True)
    assert first.hands == again.hands and first.stock == again.stock
    a = pp.build(view, random.Random(1))
    b = pp.build(view, random.Random(1))
    assert [(p.hands, p.w) for p in a.particles] == [(p.hands, p.w) for p in b.particles]
    # the other seats' hands come from the particles (each keeps its size and eaten cards)
    for s in range(3):
        assert len(first.hands[s]) == view["hand_sizes"][s]


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
