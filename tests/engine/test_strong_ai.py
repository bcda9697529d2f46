"""The strong AI (issue #28): determinized rollouts from a seat's view (bot/games/strong_ai.py)."""

from __future__ import annotations

import gc
import importlib
import random
import time

import pytest

from bot.games import REGISTRY, strong_ai
from bot.games.arena import play, policy
from bot.games.strong_views import LEAN_VIEWS, lean_view

OPTIONS = {"concan": {"rounds": 2}}


def _positions(game: str, games: int, every: int = 1):
    """(state, seat to act) along seeded games at 2..4 seats, played by the normal AI with some
    random moves."""
    normal = importlib.import_module(f"bot.games.{game}_ai").choose
    rng = random.Random(7)
    for k in range(games):
        state = REGISTRY[game].new(2 + k % 3, seed=200 + k, options=OPTIONS.get(game))
        for step in range(300):
            if state.is_over:
                break
            seat = state.to_act[0]
            view = state.view(seat)
            if step % every == 0:
                yield state, seat
            state.apply(seat, normal(view) if rng.random() < 0.8 else rng.choice(view["legal"]))


@pytest.mark.parametrize("game", sorted(LEAN_VIEWS))
def test_the_normal_ai_chooses_the_same_from_a_lean_view(game):
    """Rollouts ask the normal AI from a lean view: it must choose what the full view makes it."""
    normal = importlib.import_module(f"bot.games.{game}_ai").choose
    count = 0
    for state, seat in _positions(game, 4, every=2):
        full = state.view(seat)
        lean = lean_view(state, seat)
        assert {k: full[k] for k in lean} == lean
        assert normal(lean) == normal(full), (game, state.actions[-3:])
        count += 1
    assert count >= 50


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_a_search_is_deterministic_for_a_seed_and_plays_a_legal_move(game):
    searched = 0
    for state, seat in _positions(game, 6, every=3):
        view = state.view(seat)
        action, info = strong_ai.search(game, view, seed=11, iterations=2)
        assert action in view["legal"]
        assert strong_ai.choose(game, view, seed=11, iterations=2) == action
        if len(info["candidates"]) > 1:
            assert info["worlds"] == 2 and len(info["means"]) == len(info["candidates"])
            assert info["candidates"][0] == importlib.import_module(f"bot.games.{game}_ai").choose(view)
            searched += 1
        if searched >= 3:
            break
    assert searched >= 3


def test_phom_searches_one_eat_of_a_card_and_the_best_rated_discards():
    state = REGISTRY["phom"].new(2, seed=3)
    view = state.view(0)
    cands = strong_ai.candidates("phom", view, importlib.import_module("bot.games.phom_ai").choose(view))
    assert len(view["legal"]) == 10 and len(cands) == strong_ai.SEARCH_DISCARDS
    state.apply(0, cands[0])
    view = state.view(1)
    eats = [a for a in view["legal"] if a.startswith("eat ")]
    cands = strong_ai.candidates("phom", view, "draw")
    assert sum(a.startswith("eat ") for a in cands) == min(1, len(eats)) and cands[0] == "draw"


def test_a_game_without_a_sampler_plays_as_normal(monkeypatch):
    monkeypatch.setattr(strong_ai, "sampler", lambda game: None)
    state = REGISTRY["chan"].new(2, seed=1)
    normal = importlib.import_module("bot.games.chan_ai").choose
    for _ in range(20):
        if state.is_over:
            break
        seat = state.to_act[0]
        view = state.view(seat)
        action = normal(view)
        assert strong_ai.choose("chan", view, seed=1, iterations=2) == action
        state.apply(seat, action)


@pytest.mark.parametrize("game", ["chan", "tusac"])
def test_the_discards_searched_first_are_the_normal_ais_choice(game):
    """Chắn's and Tứ Sắc's ``discard_order`` rank the legal discards with the normal AI's own
    key, so the few the search keeps start with the discard the normal AI makes."""
    ai = importlib.import_module(f"bot.games.{game}_ai")
    seen = 0
    for state, seat in _positions(game, 6):
        view = state.view(seat)
        discards = [a for a in view["legal"] if a.startswith("discard ")]
        if len(discards) < 2 or len(discards) != len(view["legal"]):
            continue
        order = ai.discard_order(view)
        assert sorted(order) == sorted(a.split()[1] for a in discards)
        assert "discard " + order[0] == ai.choose(view)
        seen += 1
    assert seen >= 10


def test_a_budget_bounds_the_thinking_time():
    """The deadline is checked at every rollout step: the search stops within a step of it
    (the arena measures the p99; here a loose bound for a loaded test machine)."""
    state = REGISTRY["concan"].new(4, seed=5, options={"rounds": 1})
    budget = 40
    timed = 0
    while not state.is_over and timed < 4:
        seat = state.to_act[0]
        view = state.view(seat)
        start = time.perf_counter()
        action, info = strong_ai.search("concan", view, seed=3, budget_ms=budget)
        elapsed = 1000 * (time.perf_counter() - start)
        if len(info["candidates"]) > 1:
            assert elapsed < budget + 150, elapsed
            timed += 1
        state.apply(seat, action)
    assert timed == 4


def test_the_arena_plays_the_strong_policy():
    result = play("phom", ("strong", "normal"), 4, iterations=2)
    assert result.lineup == ("strong", "normal") and sum(result.results) == 0
    assert result.times[0] and result.times[1]
    with pytest.raises(ValueError):
        policy("phom", "stronger", random.Random(1))


def test_concan_searches_the_normal_move_against_the_best_rated_discards():
    """A Concan turn is many small moves: the play step compares the normal AI's move with a
    few discards, never the other lay-offs (here a hand of two cards with a joker to lay off)."""
    state = REGISTRY["concan"].new(2, seed=0, options={"rounds": 1})
    normal = importlib.import_module("bot.games.concan_ai").choose
    checked = 0
    while not state.is_over:
        seat = state.to_act[0]
        view = state.view(seat)
        first = normal(view)
        if view["step"] == "play":
            cands = strong_ai.candidates("concan", view, first)
            assert cands[0] == first
            assert all(a.startswith("discard ") for a in cands[1:]) and len(cands) <= 1 + strong_ai.SEARCH_DISCARDS
            checked += 1
        if len(state.actions) == 35:
            assert first.startswith("layoff JK") and any(a.startswith("layoff ") and a != first for a in view["legal"])
            break
        state.apply(seat, first)
    assert checked >= 5


def test_a_failed_search_plays_as_normal(monkeypatch, caplog):
    state = REGISTRY["phom"].new(2, seed=3)
    view = state.view(0)

    def broken(view, rng):
        raise ValueError("a sampler's bug")

    monkeypatch.setattr(strong_ai, "sampler", lambda game: broken)
    normal = importlib.import_module("bot.games.phom_ai").choose
    assert strong_ai.choose("phom", view, seed=1, iterations=2) == normal(view)
    assert "search failed" in caplog.text
    with pytest.raises(ValueError):
        strong_ai.search("phom", view, seed=1, iterations=2)


def test_a_move_other_than_the_normal_one_needs_enough_worlds(monkeypatch):
    """Another move is played only when it beats the normal AI's by two standard errors over
    at least MIN_PICK_WORLDS worlds (fewer worlds give too noisy an error)."""
    state = REGISTRY["phom"].new(2, seed=3)
    view = state.view(0)
    first = importlib.import_module("bot.games.phom_ai").choose(view)
    noise = random.Random(1)

    def rollout(game, world, seat, action, normal, deadline):
        return (0.0 if action == first else 1.0) + noise.random()

    monkeypatch.setattr(strong_ai, "rollout", rollout)
    few = strong_ai.MIN_PICK_WORLDS - 1
    assert strong_ai.search("phom", view, seed=1, iterations=few)[0] == first
    assert strong_ai.search("phom", view, seed=1, iterations=strong_ai.MIN_PICK_WORLDS)[0] != first


def test_a_search_keeps_older_objects_out_of_the_collector(monkeypatch):
    """A full collection mid-search walked every object of the worker and overran the budget:
    the search runs with the older objects frozen, and leaves the freeze as it found it."""
    seen = []
    monkeypatch.setattr(strong_ai, "_search", lambda *a, **k: seen.append(gc.get_freeze_count()) or ("draw", {}))
    view = REGISTRY["phom"].new(2, seed=3).view(0)
    gc.unfreeze()  # (the arena's games earlier in this process froze what they left)
    strong_ai.search("phom", view, seed=1, iterations=2)
    assert seen[-1] > 0 and gc.get_freeze_count() == 0
    gc.freeze()  # (frozen already, as the bot's process is once ready: stays frozen)
    try:
        before = gc.get_freeze_count()
        strong_ai.search("phom", view, seed=1, iterations=2)
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()
