"""One bot process of the failover test (tests/integration/test_failover.py), run as
``python -m tests.support.failover_worker DATABASE NAME EVENTS [--open GAME:AI ...]``.

It is the bot's table service as ``python -m bot`` runs it (its leases, renewals, adoptions,
timers, AI seats, outbox, settlements), on the shared PostgreSQL database, with Discord's REST
side stubbed (tests/support/stubdiscord.py: every post and edit succeeds in memory) since the
failover under test is the database's, not Discord's. It opens the tables it is asked to
(seats of AI, as Start would deal them), drives them, adopts orphaned ones, and writes what it
does to EVENTS, one JSON object a line, flushed at once (a SIGKILL loses at most the line
being written):

- ``{"ev": "drive", "table", "epoch", "version", "at"}``: it drives the table from move
  ``version`` on, under lease ``epoch`` (a table it opened: epoch 1, move 0);
- ``{"ev": "move", "table", "game", "idx", "epoch", "at"}``: a move it wrote (after the commit);
- ``{"ev": "lost", "table", "at"}``: it stopped driving the table;
- ``{"ev": "post"|"edit"|"delete", "table", ...}``: what it showed on (stub) Discord, and for
  which table (the outbox task that sent it says).

- ``{"ev": "refused", "what", "table", ...}``: a call to (stub) Discord that failed;
- ``{"ev": "stall", "table"}``, ``{"ev": "thaw", "stalled"}``: it stopped itself inside a fenced
  write (below), and went on after so many seconds.

SIGTERM stops it cleanly (its leases given up); the test SIGKILLs and SIGSTOPs it too. SIGUSR1
makes Discord refuse its next two calls (its outbox retries them later) and then makes it stop
itself (SIGSTOP) inside its next fenced write, the lease row share-locked, until the test sends
SIGCONT. With ``--frozen-clock`` its event loop's clock does not count the stall (a paused VM,
a suspended host).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import sys
import time

from tests.support.stubdiscord import close_service, headless_service, open_table, quiet_pictures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("name")
    parser.add_argument("events")
    parser.add_argument("--open", action="append", default=[], help="GAME:AI_SEATS, a table to open")
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--ai-delay", type=float, default=0.05)
    parser.add_argument("--frozen-clock", action="store_true", help="the loop's clock does not count a stall")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s {args.name} %(levelname)s %(name)s: %(message)s")
    asyncio.run(run(args))


async def run(args: argparse.Namespace) -> None:
    out = open(args.events, "a", buffering=1)

    def event(ev: str, **fields) -> None:
        out.write(json.dumps({"ev": ev, "by": args.name, "at": time.time(), **fields}) + "\n")
        out.flush()

    refused = [0]  # calls Discord refused

    def shown(call: dict) -> None:
        refused[0] += call["op"] == "refused"
        if refused[0] >= 2:
            service.bot.failing = False  # two messages wait for their retry: enough
        task = asyncio.current_task()
        sender = re.fullmatch(r"present-table (\d+)", task.get_name()) if task is not None else None
        event(call.pop("op"), table=int(sender[1]) if sender else None, **call)

    quiet_pictures()
    service = await headless_service(args.database, args.name, on_call=shown,
                                     lease_seconds=args.lease, ai_delay_seconds=args.ai_delay, round_pause_seconds=1,
                                     table_edit_seconds=0.5)

    apply, restore_table, stop_driving = service.play.apply, service.restoring.restore_table, service.core.stop_driving

    async def applied(table, seat, action, **kwargs):
        idx, epoch = table.version, service.leases.epochs.get(table.id)
        events = await apply(table, seat, action, **kwargs)
        event("move", table=table.id, game=table.game_id, idx=idx, epoch=epoch)
        return events

    async def restored(row):
        table = await restore_table(row)
        event("drive", table=table.id, epoch=service.leases.epochs.get(table.id), version=table.version)
        return table

    def stopped(table, why):
        if not table.dropped:
            event("lost", table=table.id, why=why)
        stop_driving(table, why)

    service.play.apply, service.restoring.restore_table, service.core.stop_driving = applied, restored, stopped

    loop = asyncio.get_running_loop()
    missed = [0.0]  # seconds of stalls the loop's clock did not count
    if args.frozen_clock:
        real_time = loop.time
        loop.time = lambda: real_time() - missed[0]
    armed = asyncio.Event()
    db, append_action = service.db, service.db.append_action

    async def append_then_stall(*fields, lease=None, **kwargs):
        if lease is None or not armed.is_set() or refused[0] < 2:
            return await append_action(*fields, lease=lease, **kwargs)
        armed.clear()
        async with contextlib.AsyncExitStack() as stack:
            if not db.in_transaction():
                await stack.enter_async_context(db.transaction())
            await append_action(*fields, lease=lease, **kwargs)  # the lease row is share-locked now
            event("stall", table=lease.table_id)
            began = time.monotonic()
            os.kill(os.getpid(), signal.SIGSTOP)
            stalled = time.monotonic() - began
            if args.frozen_clock:
                missed[0] += stalled
            event("thaw", stalled=stalled)

    def arm() -> None:
        service.bot.failing = True
        armed.set()

    db.append_action = append_then_stall
    loop.add_signal_handler(signal.SIGUSR1, arm)
    await service.restore()
    for spec in args.open:
        game, ai = spec.split(":")
        options = {"chinchon": {"target": 40}, "concan": {"rounds": 2}}.get(game, {})
        table = await open_table(service, game, ai=int(ai), **options)
        event("drive", table=table.id, epoch=service.leases.epochs.get(table.id), version=0)

    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    event("ready")
    await stop.wait()
    await close_service(service)
    event("stopped")


if __name__ == "__main__":
    main()
