"""The bot's share of Discord's global rate limit, divided fairly among its tables.

Discord allows a bot about 50 REST calls per second in all (interaction callbacks and
interaction-webhook edits excepted). Every globally limited call a table makes spends a slot
here first. Slots are handed out by the generic cell rate algorithm, which is a token bucket
(``rate`` per second, ``burst`` saved up) written as arrival times: each caller is given the
earliest time its call keeps within the limit and sleeps until then. Callers are served in the
order they asked, and a table's presenter sends one message at a time, so each table has at
most one call waiting: a busy table cannot starve a quiet one, and under overload every table
simply shows fewer frames. (Each caller sleeping on its own, rather than waiting for a
dispatcher to wake it, also lets a simulated clock move every wait.)
"""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable


class Budget:
    def __init__(self, rate: float, burst: float | None = None, *, clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        """``clock`` and ``sleep``: real seconds (the limit is Discord's); a test gives its own."""
        if rate <= 0:
            raise ValueError("the REST budget needs a positive rate")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._interval = 1 / rate
        self._tolerance = (self.burst - 1) * self._interval
        self._next = float("-inf")  # when the bucket would be empty again ("theoretical arrival time")
        self.spent = 0  # globally limited calls granted since start
        self.waited = 0  # of which had to wait for their turn
        self.waited_seconds = 0.0  # how long they waited in all
        self._clock, self._sleep = clock, sleep

    def fill(self) -> float:
        """How full the bucket is now: 0 when a burst may go at once, 1 when a call must wait."""
        used = max(0.0, self._next - self._clock())
        return min(1.0, used / (self.burst * self._interval))

    async def spend(self, table: object) -> None:
        """Wait for this table's turn to make one globally limited call (real seconds: the
        limit is Discord's, whatever clock the event loop keeps)."""
        now = self._clock()
        arrival = max(self._next, now)
        at = arrival - self._tolerance
        self._next = arrival + self._interval
        self.spent += 1
        if at > now:
            self.waited += 1
            self.waited_seconds += at - now
            await self._sleep(at - now)
