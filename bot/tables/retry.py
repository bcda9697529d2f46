"""How everything a table must eventually do is retried (a message, a settlement, a timer's
move, a lobby's expiry): exponential backoff with jitter, from one function, so that a failing
Discord or database is never hammered by some retry loop of its own."""

from __future__ import annotations

import random

#: The first retry waits this long (≥ 5 s, so that tests drive it with the simulator's clock),
#: then twice as long each time, up to RETRY_MAX_SECONDS.
RETRY_FIRST_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0


def retry_delay(failures: int, rng: random.Random = random.Random()) -> float:
    """Seconds before the next attempt after ``failures`` failures in a row: exponential
    backoff with jitter (up to +50 %), never below the first delay."""
    base = min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** max(0, failures - 1))
    return base * rng.uniform(1.0, 1.5)
