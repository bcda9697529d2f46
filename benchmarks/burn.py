"""A stand-in for the strong AI's search in the load benchmark (``--burn``): each search spends
its whole time budget on the CPU, then plays as the strong AI would. It shows what searches
that use their budget cost the bot (its latencies, its CPU, the workers') before the search
itself lands, or whatever the search does with its budget."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import time


def burning_pool(workers: int) -> concurrent.futures.Executor:
    """The bot's pool of worker processes (:func:`bot.tables.thinking.process_pool`), its
    searches spending their budgets."""
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=burn_budgets)


def burn_budgets() -> None:
    """In a worker (started as the bot's are, below its priority): ``strong_ai.choose`` (which
    the bot's searches name) spends its budget first."""
    from bot.games import strong_ai
    from bot.tables.thinking import worker_start

    worker_start()

    search = strong_ai.choose

    def choose(game, view, *, seed, budget_ms=None, iterations=None):
        end = time.perf_counter() + (budget_ms or 0) / 1000
        while time.perf_counter() < end:
            pass
        return search(game, view, seed=seed, budget_ms=budget_ms, iterations=iterations)

    strong_ai.choose = choose
