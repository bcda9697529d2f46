"""What Phỏm's worlds infer from the other seats' public choices (issue #28, the strong AI).

``bot.games.phom_sample`` deals the hidden cards so that the other seats' moves fit them:
the seat before this one threw its last discard as the normal AI would have from the hand
it holds in the world and that card; a seat does not hold two cards making a phỏm with a
card it declined or threw away. These tests check that each rule reads the view rightly
(the real hand always fits it) and that worlds contradicting it are made rare.
"""

from __future__ import annotations

import importlib
import random

from bot.games import REGISTRY
from bot.games import phom_sample
from bot.games.phom_sample import contradictions, determinize, evidence, last_discard, threw_as_normal

normal = importlib.import_module("bot.games.phom_ai").choose


def _positions(players: int, games: int, *, seed: int = 50):
    """(state, view of the seat to act) at every decision of seeded games of normal AIs."""
    for k in range(games):
        state = REGISTRY["phom"].new(players, seed=seed + k)
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            yield state, view
            state.apply(seat, normal(view))


def test_the_last_discard_is_read_from_the_view_in_every_phase():
    """On offer (draw), declined (this seat drew: still in the row) or eaten by this seat:
    the card, and the row as it was before it was thrown."""
    phases = set()
    for state, view in _positions(2, 6):
        last = last_discard(view)
        if view["phase"] == "draw" and view["active"] is not None:
            seat, card, then = last
            assert (seat, card) == (1 - view["seat"], view["active"])
            assert then["discards"][seat] == view["discards"][seat][:-1]
            phases.add("offered")
        elif view["phase"] in ("discard", "show") and last is not None:
            if view["drawn"] is None:
                assert last[1] == view["eaten"][view["seat"]][-1]
                phases.add("eaten")
            else:
                assert last[1] == view["discards"][last[0]][-1]
                phases.add("declined")
    assert phases == {"offered", "declined", "eaten"}


def test_the_real_hands_fit_every_rule():
    """Played by the normal AI, the seat before threw its last discard as the rule says, at
    every seat count (at two seats always; at more, the seats between it and this one threw
    since, and those cards count as seen: 3 of 1,158 times did not fit in one sample); and a
    real hand seldom holds a phỏm with a card it declined or threw (it may have drawn the
    partners since)."""
    for players in (2, 3, 4):
        checked = fits = 0
        found = positions = 0
        for state, view in _positions(players, 8):
            hands = {s: set(state.hands[s]) for s in range(players)}
            eaten = {s: set(state.unshown_eaten[s]) for s in range(players)}
            last = last_discard(view)
            if last is not None:
                s, card, then = last
                checked += 1
                fits += threw_as_normal(hands[s], eaten[s], card, then)
            found += contradictions(hands, eaten, evidence(view))
            positions += 1
        assert checked >= 100
        assert fits >= 0.99 * checked and (players > 2 or fits == checked), (players, fits, checked)
        assert found <= 0.35 * positions


def test_worlds_fit_the_last_discard_and_the_declined_cards():
    """Dealt at random, the seat before would mostly have thrown another card than its last
    discard from the hand it gets, or holds a phỏm with a card it declined; the worlds the
    strong AI plays in do so far less often (the rule is soft: a world is not rejected
    outright, and the hand now is not quite the hand then)."""
    rates = {}
    for infer in (False, True):
        fit = total = found = 0
        for k, (state, view) in enumerate(_positions(2, 4, seed=70)):
            last = last_discard(view)
            if last is None or view["draws"] < 2:
                continue
            world = determinize(view, random.Random(k), infer=infer)
            s, card, then = last
            hands = {x: set(world.hands[x]) for x in range(2)}
            eaten = {x: set(world.unshown_eaten[x]) for x in range(2)}
            fit += threw_as_normal(hands[s], eaten[s], card, then)
            found += contradictions(hands, eaten, evidence(view))
            total += 1
        rates[infer] = (fit / total, found / total)
    assert total >= 40
    # (seeds 70-73: 19 % of random deals fit the last discard, 44 % of the worlds; 0.48 cards
    # declined or thrown with a phỏm in hand a position, 0.13 in the worlds)
    assert rates[True][0] >= 2 * rates[False][0], rates
    assert rates[True][1] <= rates[False][1] / 2, rates


def test_a_world_is_kept_with_probability_fit_to_the_power_of_its_contradictions(monkeypatch):
    """The rejection itself: with every deal contradicting once and FIT = 0 nothing is kept
    early (all ``DRAWS`` deals are drawn), with FIT = 1 the first deal is."""
    state, view = next((st, v) for st, v in _positions(2, 1) if v["draws"] >= 4)
    calls = []
    monkeypatch.setattr(phom_sample, "contradictions", lambda *a: calls.append(1) or 1)
    monkeypatch.setattr(phom_sample, "LAST_WEIGHT", 0)
    for fit, expected in ((0.0, phom_sample.DRAWS), (1.0, 1)):
        calls.clear()
        monkeypatch.setattr(phom_sample, "FIT", fit)
        determinize(view, random.Random(1))
        assert len(calls) == expected
