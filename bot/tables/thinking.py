"""How an AI seat decides, at its table's level (issue #28), and where the strong AI thinks.

- ``easy``: the plain rule player (:data:`bot.games.simple_ai.SIMPLE`), ``normal``: each game's
  AI (``bot.games.<game>_ai.choose``). Both take about 0.1 ms, so they run on the event loop.
- ``strong``: :func:`bot.games.strong_ai.choose`, a search, in a pool of worker processes
  (:class:`Thinking`), never on the event loop. The table starts it when the AI's turn begins
  and lets it run during the AI's pause, so the move lands at the end of the pause (not after
  pause + thought). Its time budget shrinks while the workers are busy (the configured budget
  divided by the searches queued per worker, down to :data:`FLOOR_MS`): the searches queued
  ahead of one then take about one budget in all, so a move is due about when its pause ends
  however many tables are busy. A search that fails, or is not back in time (more searches than
  even the floor lets the workers finish), gives way to ``normal`` (logged once).

Every level decides from the seat's view (``state.view(seat)``) only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib
import logging
import multiprocessing
import os
import time
from dataclasses import dataclass
from typing import Any, Callable

from bot.games import strong_ai
from bot.games.simple_ai import SIMPLE

log = logging.getLogger(__name__)

LEVELS = ("easy", "normal", "strong")
DEFAULT_LEVEL = "normal"
#: the least budget a search gets however busy the workers are (milliseconds)
FLOOR_MS = 10.0
#: how long past its due time a search is waited for before ``normal`` plays instead (seconds)
GRACE = 0.25
#: a search bounded by iterations (tests) is waited for this long, whatever the machine's load
ITERATIONS_WAIT = 30.0
#: how much lower than the bot's the workers' scheduling priority is (``nice``)
WORKER_NICENESS = 10


def easy(game: str, view: dict[str, Any]) -> str:
    return SIMPLE[game](view)


def normal(game: str, view: dict[str, Any]) -> str:
    return importlib.import_module(f"bot.games.{game}_ai").choose(view)


def level_of(options: dict[str, Any]) -> str:
    """A table's AI level from its options (a table saved before levels existed: normal)."""
    level = options.get("ai")
    return level if level in LEVELS else DEFAULT_LEVEL


def quick_choice(game: str, level: str, view: dict[str, Any]) -> str:
    """The move of a level that needs no search (``strong`` without one plays as ``normal``)."""
    return easy(game, view) if level == "easy" else normal(game, view)


def move_seed(table_id: int, game_no: int, version: int) -> int:
    """The strong AI's seed for one move of one table: the same move searches the same way
    after a restart (and in tests)."""
    return ((table_id * 1_000_003 + game_no) * 1_000_033 + version) % 2**63


@dataclass
class Thought:
    """A search under way for one seat at one version of a table."""

    game: str
    seat: int
    version: int
    view: dict[str, Any]
    future: asyncio.Future
    due: float  # time.monotonic() by which its move is expected


class Thinking:
    """The strong AI's worker processes, started at the first search, shut down with the bot."""

    def __init__(self, config: Any, executor_factory: Callable[[int], concurrent.futures.Executor] | None = None):
        self.config = config
        self.workers = config.ai_workers or max(1, (os.cpu_count() or 2) - 1)
        #: builds the executor from the number of workers (None: :func:`process_pool`; tests may give threads)
        self.executor_factory = executor_factory
        self._executor: concurrent.futures.Executor | None = None
        self.running = 0  # searches submitted and not back yet
        self.searches = 0  # searches submitted since the start
        self.fallbacks = 0  # moves ``normal`` played because a search failed or was late
        self._warned = False
        self._closed = False  # the bot stopped: no pool is started again

    def budget_ms(self, pause: float) -> float:
        """The time budget of a search starting now: the configured one, within the pause, and
        divided by the searches each worker already has queued."""
        budget = self.config.ai_strong_budget_ms
        if pause > 0:
            budget = min(budget, pause * 1000)
        queued = (self.running + 1) / self.workers
        return max(FLOOR_MS, budget / max(1.0, queued))

    def warm(self) -> None:
        """Start the workers now (a strong table's game starts), so that its first search does
        not wait for a process to start (a spawned worker takes up to a second)."""
        if self._closed:
            return
        try:
            if self._executor is None:
                self._executor = (self.executor_factory or process_pool)(self.workers)
                for _ in range(self.workers):
                    self._executor.submit(os.getpid)
        except Exception:
            log.warning("the strong AI's workers could not start", exc_info=True)
            self._drop_executor()

    def start(self, game: str, seat: int, version: int, view: dict[str, Any], *, seed: int,
              pause: float) -> Thought:
        """Start a search (never blocks the loop); :meth:`result` waits for its move."""
        iterations = self.config.ai_strong_iterations
        budget = None if iterations else self.budget_ms(pause)
        loop = asyncio.get_running_loop()
        try:
            if self._closed:
                raise RuntimeError("the bot is stopping")
            if self._executor is None:
                self._executor = (self.executor_factory or process_pool)(self.workers)
            future = asyncio.wrap_future(self._executor.submit(
                # (pickled by name: a worker imports bot.games.strong_ai only, not the bot)
                strong_ai.choose, game, view, seed=seed, budget_ms=budget, iterations=iterations),
                                         loop=loop)
        except Exception as exc:  # a pool that broke (a worker killed) or shut down
            self._drop_executor()
            future = loop.create_future()
            future.set_exception(exc)
        else:
            self.running += 1
            self.searches += 1
            future.add_done_callback(self._search_done)
        wait = ITERATIONS_WAIT if iterations else max(pause, 2 * budget / 1000) + GRACE
        return Thought(game, seat, version, view, future, time.monotonic() + wait)

    def _search_done(self, future: asyncio.Future) -> None:
        self.running -= 1
        if not future.cancelled() and isinstance(future.exception(), concurrent.futures.BrokenExecutor):
            self._drop_executor()

    async def result(self, thought: Thought) -> str:
        """The search's move, or ``normal``'s if the search failed or is not back when due (the
        search is then cancelled, so that a late search does not hold a worker that later ones need)."""
        try:
            return await asyncio.wait_for(asyncio.shield(thought.future),
                                          max(0.0, thought.due - time.monotonic()))
        except asyncio.CancelledError:
            if not thought.future.cancelled():
                thought.future.cancel()  # the table's task itself was cancelled: its search is moot
                raise
            why: BaseException | str = "cancelled"
        except asyncio.TimeoutError:
            thought.future.cancel()
            why = "not back in time"
        except Exception as exc:
            why = exc
        self.fallbacks += 1
        if not self._warned:
            self._warned = True
            log.warning("the strong AI's search failed (%r); the normal AI plays instead (logged once)", why)
        else:
            log.debug("the strong AI's search failed (%r); the normal AI plays", why)
        return normal(thought.game, thought.view)

    def _drop_executor(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Stop the workers (the bot stops): queued searches are dropped, running ones end."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


def process_pool(workers: int) -> concurrent.futures.Executor:
    # spawned, not forked: a fork would copy the bot's threads' locks (aiosqlite, asyncpg) mid-use
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=worker_start)


def worker_start() -> None:
    """In a worker process: run below the bot's priority. A search is anytime, so it takes the
    CPU the bot leaves: on a machine with few cores, the bot's own work (clicks, edits, the
    other tables' moves) comes first, not after the searches'."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Thinking", "Thought", "easy", "level_of", "move_seed", "normal",
           "quick_choice"]
