"""The bot's share of Discord's global rate limit, divided fairly among its tables.

Discord allows a bot about 50 REST calls per second in all (interaction callbacks and
interaction-webhook edits excepted). Every globally limited call a table makes spends a token
here first: a token bucket refilled at ``rate`` per second, at most ``burst`` saved up. When
tokens run short, waiting tables are served in turn, one call each (a table's presenter sends
one message at a time, so each table has at most one call waiting): a busy table cannot starve
a quiet one, and under overload every table simply shows fewer frames.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque


class Budget:
    def __init__(self, rate: float, burst: float | None = None) -> None:
        if rate <= 0:
            raise ValueError("the REST budget needs a positive rate")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._tokens = self.burst
        self._stamp = time.perf_counter()
        self._waiting: deque[tuple[object, asyncio.Future[None]]] = deque()
        self._dispatcher: asyncio.Task | None = None
        self.spent = 0  # globally limited calls granted since start
        self.waited = 0  # of which had to wait for a token

    def _refill(self) -> None:
        now = time.perf_counter()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    async def spend(self, table: object) -> None:
        """Wait for this table's turn to make one globally limited call."""
        self._refill()
        if not self._waiting and self._tokens >= 1:
            self._tokens -= 1
            self.spent += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((table, future))
        self.waited += 1
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch(), name="rest-budget")
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._tokens += 1  # granted but not used: give it back
                self.spent -= 1
            raise

    async def _dispatch(self) -> None:
        while self._waiting:
            self._refill()
            while self._waiting and self._tokens >= 1:
                _, future = self._waiting.popleft()
                if future.done():
                    continue
                self._tokens -= 1
                self.spent += 1
                future.set_result(None)
            if self._waiting:
                await asyncio.sleep((1 - self._tokens) / self.rate)
