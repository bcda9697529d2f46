"""The bot-wide REST budget: never more calls than its rate allows, shared fairly by tables;
and the outbox's backoff."""

from __future__ import annotations

import asyncio
import random
import time

from bot.tables.budget import Budget
from bot.tables.retry import RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS, retry_delay


async def test_calls_beyond_the_burst_wait_for_the_rate():
    budget = Budget(rate=200, burst=10)
    start = time.perf_counter()
    stamps = []
    for _ in range(50):
        await budget.spend("table 1")
        stamps.append(time.perf_counter() - start)
    # 10 at once, then 40 more at 200/s: at least 0.2 s in all, and never ahead of the bucket
    assert stamps[9] < 0.05 and stamps[-1] >= 0.19
    for index, stamp in enumerate(stamps):
        assert index + 1 <= 10 + 200 * stamp + 1
    assert budget.spent == 50 and budget.waited == 40


async def test_a_busy_table_does_not_starve_a_quiet_one():
    budget = Budget(rate=100, burst=1)
    order: list[str] = []

    async def table(name: str, calls: int) -> None:
        for _ in range(calls):
            await budget.spend(name)
            order.append(name)

    await asyncio.gather(table("busy", 30), table("quiet", 3))
    # the quiet table's three calls are served in turn with the busy one's, not after them
    assert max(i for i, name in enumerate(order) if name == "quiet") <= 7


async def test_a_cancelled_wait_does_not_hold_up_the_others():
    budget = Budget(rate=50, burst=1)
    await budget.spend("a")
    waiting = asyncio.create_task(budget.spend("b"))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    start = time.perf_counter()
    await asyncio.wait_for(budget.spend("c"), 1)
    assert time.perf_counter() - start < 0.1  # its turn comes right after the cancelled one's


def test_backoff_grows_with_jitter_and_stays_within_bounds():
    rng = random.Random(1)
    delays = [retry_delay(failures, rng) for failures in range(1, 12)]
    assert all(RETRY_FIRST_SECONDS <= d <= RETRY_MAX_SECONDS * 1.5 for d in delays)
    assert delays[0] < 7.5 and delays[3] >= 40 and delays[-1] >= RETRY_MAX_SECONDS
    assert len({retry_delay(3, random.Random(seed)) for seed in range(20)}) > 10, "jittered"
