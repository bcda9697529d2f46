"""How the tests run SimCord's clock: long bot timers move only with the simulated clock.

SimCord 3.2.1 gives every bot timer a wall-clock fallback: a timer nobody advances to fires
after as many real seconds. For the bot's long timers (retry backoffs of 5 s and more, lobby
expiries, turn clocks) that fallback fires in the middle of whatever the test does next — an
attach after a restart, a click — and starts an advance of its own with a 2–5 s real deadline;
on a loaded machine a retry loop that fails again (a database still locked, Discord still
refusing) keeps it busy past that deadline and the test ends with "bot did not settle while
advancing time". Tests move long timers with ``env.advance_time`` (the shared notes say keep
timers ≥ 5 s or drive them so), so for them the fallback is only noise: it is removed, and
such a timer fires when, and only when, a test advances the clock to it. Short timers (an AI's
pause, a 1 s debounce) keep their fallback and still run in real time.

Private SimCord API, pinned with SimCord's version in the test extra. The local mode
(bot/local.py) plays in real time, as a person sees it: its tests run inside ``real_time()``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

#: timers at least this far ahead on the simulated clock get no wall-clock fallback
LONG_TIMER_SECONDS = 4.0

_real_time = False


@contextlib.contextmanager
def real_time() -> Iterator[None]:
    """Every timer keeps SimCord's wall-clock fallback (the local mode's tests)."""
    global _real_time
    _real_time, before = True, _real_time
    try:
        yield
    finally:
        _real_time = before


def long_timers_virtual() -> None:
    """Applied once per process (idempotent)."""
    from simcord.env import Env

    if getattr(Env._schedule_timer, "_chieu_virtual", False):
        return
    schedule = Env._schedule_timer

    def schedule_timer(self, record, callback, args, schedule_context):
        schedule(self, record, callback, args, schedule_context)
        ahead = record.when - self._virtual_time
        if record.real_handle is not None and ahead >= LONG_TIMER_SECONDS and not _real_time:
            record.real_handle.cancel()
            record.real_handle = None

    schedule_timer._chieu_virtual = True
    Env._schedule_timer = schedule_timer
