"""Retrying what must eventually happen (a settlement, a result reaching its table)."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable, Sequence, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

#: Seconds between attempts. Long enough for a Discord outage or a permission fix to pass;
#: each pause is also ≥ 5 s so that tests drive them with the simulator's clock.
BACKOFF: tuple[float, ...] = (5, 15, 60, 300)


async def with_retries(what: str, attempt: Callable[[], Awaitable[T]], *,
                       delays: Sequence[float] = BACKOFF) -> T:
    """``attempt()`` until it succeeds, pausing ``delays`` between tries; every failure is
    logged, and the last one is raised when the delays are used up."""
    for number in range(len(delays) + 1):
        try:
            return await attempt()
        except asyncio.CancelledError:
            raise
        except Exception:
            if number == len(delays):
                log.exception("%s failed %d times; giving up for now", what, number + 1)
                raise
            log.warning("%s failed (attempt %d); retrying in %ss", what, number + 1, delays[number],
                        exc_info=True)
            await asyncio.sleep(delays[number])
    raise AssertionError("unreachable")
