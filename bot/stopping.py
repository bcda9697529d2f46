"""A clean stop, on SIGTERM, SIGINT or SIGHUP (a container's stop, Ctrl+C, a terminal closed),
within :data:`STOP_SECONDS`, then exit status 0.

What a stop does, in order (:func:`stop_tables`, then the caller's close):

1. the bot stops taking clicks: each is answered that the bot is restarting (``ChieuBot``);
2. the tables' clocks stop: no turn times out and no AI seat moves from now on, so what the
   tables show stops changing;
3. the tables' outboxes get up to :data:`FLUSH_SECONDS` to show what they hold; what is still
   unshown then is handed over: every message not confirmed by Discord is shown again by the
   process that drives the table next (this one restarted, or another that adopts it);
4. the close: the table service's tasks end, its leases are given up (PostgreSQL: another
   process adopts the tables at its next beat, without waiting for the leases to run out) and
   the database is closed (SQLite: its write-ahead log checkpointed into the file).

A second signal during the stop ends the process at once (status 128 + the signal).
The same functions stop ``python -m bot`` and the test worker that plays a real process
(tests/failover_worker.py), so what the test sees is what the bot does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

log = logging.getLogger("bot.stopping")

#: the whole stop's bound; compose's stop_grace_period and systemd's TimeoutStopSec leave 2 s more
STOP_SECONDS = 8.0
#: of which the outboxes get at most this long to show what they hold
FLUSH_SECONDS = 3.0
#: how often the flush looks at the outboxes
FLUSH_POLL_SECONDS = 0.05
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@dataclass
class StopReport:
    """What a stop found: how long it took, and what was left for the next driver to show."""

    seconds: float = 0.0
    unshown: int = 0  # messages not confirmed by Discord at the close (handed over)
    leases_given_up: int = 0
    finished: bool = True  # False: the bound ran out before the close ended


def on_stop_signals(callback: Callable[[str], None]) -> None:
    """Call ``callback(signal name)`` at the first stop signal; a second one exits at once."""
    loop = asyncio.get_running_loop()
    received: list[str] = []

    def heard(number: int) -> None:
        name = signal.Signals(number).name
        if received:
            log.warning("%s during the stop: exiting at once", name)
            os._exit(128 + number)
        received.append(name)
        callback(name)

    for number in STOP_SIGNALS:
        try:
            loop.add_signal_handler(number, heard, number)
        except (NotImplementedError, RuntimeError, ValueError):  # no such signal here (Windows)
            pass


def unshown(tables: Any) -> int:
    """Messages of the tables this process drives that Discord has not confirmed yet."""
    return tables.gauges().outboxes.pending


def stop_clocks(tables: Any) -> None:
    """No turn times out, no lobby expires and no AI seat moves from now on (their deadlines
    are stored: whoever drives the table next arms them again)."""
    for table in list(tables.tables.values()):
        for timer in (table.clock, table.lobby_timer):
            if timer is not None:
                timer.cancel()


async def flush(tables: Any, seconds: float) -> int:
    """Give the outboxes up to ``seconds`` to show what they hold; the messages still unshown."""
    deadline = time.monotonic() + seconds
    left = unshown(tables)
    while left and time.monotonic() < deadline:
        await asyncio.sleep(FLUSH_POLL_SECONDS)
        left = unshown(tables)
    return left


async def stop_tables(tables: Any, close: Callable[[], Awaitable[None]], *,
                      seconds: float = STOP_SECONDS, flush_seconds: float = FLUSH_SECONDS) -> StopReport:
    """Steps 2–4 above, within ``seconds`` in all; ``close`` ends the service and the database
    (it gives the leases up: :meth:`bot.tables.driving.DriveFlow.close`)."""
    started = time.monotonic()
    report = StopReport()
    leases = getattr(tables, "leases", None)
    report.leases_given_up = len(leases.epochs) if leases is not None and leases.enabled else 0
    stop_clocks(tables)
    report.unshown = await flush(tables, min(flush_seconds, seconds / 2))
    try:
        await asyncio.wait_for(close(), max(0.5, seconds - (time.monotonic() - started)))
    except asyncio.TimeoutError:
        report.finished = False
        log.warning("the stop did not end within %.0f s: exiting anyway (leases left expire by themselves)",
                    seconds)
    if leases is not None and leases.epochs:
        report.leases_given_up -= len(leases.epochs)
    report.seconds = time.monotonic() - started
    return report


def say_stopped(report: StopReport, why: str) -> None:
    log.info("stopped (%s) in %.1f s: %d leases given up, %d messages left for the next start to show%s",
             why, report.seconds, report.leases_given_up, report.unshown,
             "" if report.finished else " (the close was cut short)")
