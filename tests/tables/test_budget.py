"""The bot-wide REST budget: never more calls than its rate allows, shared fairly by tables;
and the outbox's backoff."""

from __future__ import annotations

import asyncio
import random

from bot.tables.budget import Budget
from bot.tables.retry import RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS, retry_delay


class Clock:
    """Seconds that pass only when the budget sleeps (or the test says): what the budget
    promises, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


async def test_calls_beyond_the_burst_wait_for_the_rate():
    clock = Clock()
    budget = Budget(rate=200, burst=10, clock=clock, sleep=clock.sleep)
    stamps = []
    for _ in range(50):
        await budget.spend("table 1")
        stamps.append(clock.now)
    # 10 at once, then 40 more at 200/s: 0.2 s in all, and never ahead of the bucket
    assert stamps[9] == 0 and abs(stamps[-1] - 0.2) < 1e-9
    for index, stamp in enumerate(stamps):
        assert index + 1 <= 10 + 200 * stamp + 1e-6
    assert budget.spent == 50 and budget.waited == 40


async def test_a_slow_caller_waits_only_for_what_the_rate_still_asks():
    """Time that passed between two calls (a busy machine, a slow table) counts for the bucket."""
    clock = Clock()
    budget = Budget(rate=10, burst=1, clock=clock, sleep=clock.sleep)
    await budget.spend("t")
    clock.now += 0.25  # more than a call's interval went by
    await budget.spend("t")
    assert budget.waited == 0 and clock.now == 0.25
    await budget.spend("t")  # right after: it waits its turn
    assert budget.waited == 1 and abs(clock.now - 0.35) < 1e-9


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
    clock = Clock()
    budget = Budget(rate=50, burst=1, clock=clock, sleep=clock.sleep)
    await budget.spend("a")
    hung = asyncio.Event()

    async def hang(seconds: float) -> None:
        await hung.wait()

    budget._sleep = hang
    waiting = asyncio.create_task(budget.spend("b"))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    budget._sleep = clock.sleep
    await budget.spend("c")
    # its turn comes right after the cancelled one's: two intervals after a's, not more
    assert abs(clock.now - 2 / 50) < 1e-9


def test_backoff_grows_with_jitter_and_stays_within_bounds():
    rng = random.Random(1)
    delays = [retry_delay(failures, rng) for failures in range(1, 12)]
    assert all(RETRY_FIRST_SECONDS <= d <= RETRY_MAX_SECONDS * 1.5 for d in delays)
    assert delays[0] < 7.5 and delays[3] >= 40 and delays[-1] >= RETRY_MAX_SECONDS
    assert len({retry_delay(3, random.Random(seed)) for seed in range(20)}) > 10, "jittered"
