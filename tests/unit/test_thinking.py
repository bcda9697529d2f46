"""The strong AI's thinking (bot/tables/thinking.py): a search runs in a worker process, off the
event loop; its budget shrinks while the workers are busy; a search that fails or is late gives
way to the normal AI, logged once; a search is seeded by its table and move."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import time

import pytest

from bot.config import load
from bot.games import phom
from bot.games import strong_ai
from bot.tables import thinking
from bot.tables.thinking import Thinking, move_seed


def a_view() -> dict:
    """Seat 1's view in a Phỏm game, its turn to draw or eat."""
    state = phom.GAME.new(2, seed=5)
    seat = state.to_act[0]
    state.apply(seat, state.legal_actions(seat)[0])
    return state.view(state.to_act[0])


def threads(workers: int) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(workers)


async def test_a_search_runs_in_a_worker_process_and_plays_a_legal_move():
    brain = Thinking(load(ai_workers=1, ai_strong_iterations=20))
    try:
        view = a_view()
        brain.warm()
        move = await brain.result(brain.start("phom", view["seat"], 1, view, seed=7, pause=0))
        assert move in view["legal"] and move == strong_ai.choose("phom", view, seed=7, iterations=20)
        pool = brain._executor
        assert isinstance(pool, concurrent.futures.ProcessPoolExecutor)
        assert {p.pid for p in pool._processes.values()} and os.getpid() not in pool._processes
        assert (brain.searches, brain.running, brain.fallbacks) == (1, 0, 0)
        # below the bot's priority: the bot's own work comes first
        assert pool.submit(os.nice, 0).result() == min(19, os.nice(0) + thinking.WORKER_NICENESS)
    finally:
        await brain.close()
    assert brain._executor is None


async def test_the_loop_runs_on_while_a_search_thinks(monkeypatch):
    def slow(game, view, *, seed, budget_ms=None, iterations=None):
        time.sleep(0.5)  # holds its worker, not the loop
        return view["legal"][-1]

    monkeypatch.setattr(strong_ai, "choose", slow)
    brain = Thinking(load(ai_workers=1, ai_strong_iterations=1), executor_factory=threads)
    view = a_view()
    started = time.monotonic()
    thought = brain.start("phom", view["seat"], 1, view, seed=1, pause=0)
    beats = 0
    while not thought.future.done():
        await asyncio.sleep(0.01)
        beats += 1
    assert beats >= 20, "the loop was blocked during the search"
    assert await brain.result(thought) == view["legal"][-1]
    assert time.monotonic() - started >= 0.5
    await brain.close()


def test_the_budget_fits_the_pause_and_shrinks_with_the_searches_queued_per_worker():
    brain = Thinking(load(ai_workers=2, ai_strong_budget_ms=300))
    assert brain.budget_ms(pause=1.0) == 300
    assert brain.budget_ms(pause=0.2) == pytest.approx(200)  # within a shorter pause
    brain.running = 3  # 4 searches for 2 workers: 2 each
    assert brain.budget_ms(pause=1.0) == 150
    brain.running = 999
    assert brain.budget_ms(pause=1.0) == thinking.FLOOR_MS


async def test_a_failed_pool_gives_way_to_the_normal_ai_logged_once(caplog):
    class Broken(concurrent.futures.Executor):
        def submit(self, fn, *args, **kwargs):
            raise concurrent.futures.process.BrokenProcessPool("a worker died")

    made = []
    brain = Thinking(load(ai_workers=1), executor_factory=lambda n: made.append(n) or Broken())
    view = a_view()
    normal = thinking.normal("phom", view)
    with caplog.at_level(logging.DEBUG, logger="bot.tables.thinking"):
        for _ in range(3):
            assert await brain.result(brain.start("phom", view["seat"], 1, view, seed=1, pause=0)) == normal
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "normal AI plays instead" in warnings[0].getMessage()
    assert brain.fallbacks == 3 and len(made) == 3  # a broken pool is replaced at the next search


async def test_a_search_not_back_in_time_gives_way_to_the_normal_ai(monkeypatch):
    def stuck(game, view, **kwargs):
        time.sleep(0.6)
        return view["legal"][-1]

    monkeypatch.setattr(strong_ai, "choose", stuck)
    brain = Thinking(load(ai_workers=1, ai_strong_budget_ms=50), executor_factory=threads)
    view = a_view()
    started = time.monotonic()
    thought = brain.start("phom", view["seat"], 1, view, seed=1, pause=0.1)
    assert await brain.result(thought) == thinking.normal("phom", view)
    assert time.monotonic() - started < 0.1 + thinking.GRACE + 0.2  # the pause and the grace, not the search
    assert brain.fallbacks == 1
    await brain.close()


async def test_a_search_gets_its_seed_and_the_configured_iterations(monkeypatch):
    seen = []

    def record(game, view, *, seed, budget_ms=None, iterations=None):
        seen.append((game, seed, budget_ms, iterations))
        return view["legal"][0]

    monkeypatch.setattr(strong_ai, "choose", record)
    view = a_view()
    by_work = Thinking(load(ai_strong_iterations=64), executor_factory=threads)
    await by_work.result(by_work.start("phom", 1, 3, view, seed=move_seed(12, 2, 3), pause=1.0))
    by_time = Thinking(load(ai_strong_budget_ms=250, ai_workers=1), executor_factory=threads)
    await by_time.result(by_time.start("phom", 1, 3, view, seed=move_seed(12, 2, 3), pause=1.0))
    assert seen == [("phom", move_seed(12, 2, 3), None, 64), ("phom", move_seed(12, 2, 3), 250, None)]
    assert len({move_seed(12, 2, 3), move_seed(12, 2, 4), move_seed(12, 3, 3), move_seed(13, 2, 3)}) == 4
    await by_work.close()
    await by_time.close()
