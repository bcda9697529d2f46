"""Several processes on one PostgreSQL database (issue #19): which process drives which table,
how a click reaches the table's driver, and how a table whose driver died is adopted.

- **One driver per table.** A table's clock, AI seats, outbox, settlement and lobby expiry run
  in the one process that holds its lease (:mod:`.leases`); the lease is taken with the table's
  row when a lobby opens (so no other process ever sees a table without a driver), renewed with
  all the others in one statement every ``lease_seconds / 3``, and every write of the table is
  fenced by it: a process that lost a lease (stalled, cut off from the database) can no longer
  write a move, a save or a settlement of that table, and stops driving it at once (its timers
  and outbox are cancelled) as soon as it finds out, by a refused write or a failed renewal.
- **Routing.** Discord delivers a click to the process of the shard it belongs to (every DM
  click to shard 0). A process that receives a click on a table it does not drive acknowledges
  it at once (Discord's 3 s), leaves it in ``routed_clicks`` keyed by the interaction's id and
  notifies the driver (LISTEN/NOTIFY, sent with the row's commit). The driver claims the row
  (once: the claim is fenced by its lease and only succeeds while nobody took it), rebuilds the
  interaction from the payload Discord sent and handles it as its own, answering through the
  interaction's webhook (any process may, with its id and token); then it tells the receiving
  process, which was waiting for that word. A click whose driver died before claiming it waits
  in the table and is applied by whoever adopts the table (within the 15 minutes its token
  lives); a click on a table nobody drives makes the receiving process adopt the table itself.
- **Failover.** Every ``lease_seconds / 3`` each process looks for open tables without a live
  lease and adopts them: it takes the lease, reads the table again (after the take, so it sees
  every write of the previous driver) and rebuilds it as a restart would (the outbox shows what
  never reached Discord, the clock resumes from the stored deadlines).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable

import discord
from discord.ext import tasks

from bot.backends import database_failure
from bot.db import LeaseLost
from bot.i18n import _

from .controls import PREFIX, ControlId, parse
from .core import Core, Refused, defer, log
from .model import Table
from .restoring import REMATCH_WINDOW, Restoring

#: Seconds the process that received a click waits for the driver's word that it was applied
#: (Discord already has its acknowledgement; this only keeps the click's task until then).
ROUTE_WAIT = 3.0
#: A routed click nobody took within this many seconds is dropped (its token lives 15 minutes).
ROUTED_CLICK_SECONDS = 14 * 60
#: Payloads of the clicks received lately, kept in case they must be routed.
RAW_KEPT = 500

ROUTED: Any = object()  # what find_driver returns for a click it handed to another process


class RawInteractions:
    """The payload of each click as Discord sent it, for the last few hundred clicks: a click
    routed to another process travels as it came, and is rebuilt there into the very same
    interaction (discord.py keeps no payload, so its parser of INTERACTION_CREATE is wrapped)."""

    def __init__(self, client: discord.Client) -> None:
        self.payloads: OrderedDict[int, dict] = OrderedDict()
        parsers = getattr(getattr(client, "_connection", None), "parsers", None)
        if not isinstance(parsers, dict) or "INTERACTION_CREATE" not in parsers:
            return
        parse_interaction = parsers["INTERACTION_CREATE"]

        def keep(data: dict) -> None:
            if data.get("type") == discord.InteractionType.component.value:
                self.payloads[int(data["id"])] = data
                while len(self.payloads) > RAW_KEPT:
                    self.payloads.popitem(last=False)
            parse_interaction(data)

        parsers["INTERACTION_CREATE"] = keep

    def pop(self, interaction_id: int) -> dict | None:
        return self.payloads.pop(interaction_id, None)


def routed_interaction(client: discord.Client, data: dict) -> discord.Interaction:
    """The interaction of a routed click, rebuilt from its payload in this process: answered
    already (the receiving process deferred it), so what it says goes through its webhook."""
    interaction = discord.Interaction(data=data, state=client._connection)  # type: ignore[arg-type]
    interaction.response._response_type = discord.InteractionResponseType.deferred_message_update
    return interaction


#: How a click routed to this process is applied: as a click it received itself, ``routed``.
ApplyClick = Callable[[discord.Interaction, "ControlId | None", list[str]], Awaitable[None]]


class Driving:
    """Leases, routing and adoption (PostgreSQL only; nothing here runs on SQLite)."""

    def __init__(self, core: Core, restoring: Restoring, apply_click: ApplyClick) -> None:
        self.core = core
        self.db = core.db
        self.leases = core.leases
        self.restoring = restoring
        self.apply_click = apply_click
        self._keeper: Any = None  # the loop that renews the leases and adopts orphaned tables
        self._listener: Any = None  # the connection that hears routed clicks
        self._routed: dict[int, asyncio.Future] = {}  # clicks routed to another process, until it answers
        self._adopting: dict[int, asyncio.Future] = {}
        self._scanning: asyncio.Task | None = None  # adopting the orphaned tables
        self._raw: RawInteractions | None = None  # the payloads of the clicks received (a routed click carries its own)

    def driven_count(self) -> int:
        """Tables in a lobby or a game that this process drives."""
        return sum(1 for table in self.core.tables.values() if table.status in ("lobby", "playing"))

    @staticmethod
    def _rematch_since() -> str:
        return (datetime.now(timezone.utc) - REMATCH_WINDOW).isoformat(timespec="seconds")

    # ------------------------------------------------------------------ keeping the leases
    async def start(self) -> None:
        """Start hearing routed clicks, renewing the leases and adopting orphaned tables."""
        if not self.leases.enabled or self._keeper is not None:
            return
        self._raw = RawInteractions(self.core.bot)
        try:
            await self._listen()
        except Exception:
            log.exception("listening for routed clicks failed; trying again with the next renewal")
        self._keeper = tasks.loop(seconds=self.core.config.lease_seconds / 3)(self._keep)
        self._keeper.start()
        log.info("%s drives %d tables (leases of %.0f s)", self.leases.holder, self.driven_count(),
                 self.core.config.lease_seconds)

    async def _listen(self) -> None:
        self._listener = await self.db.clicks.listen(self._heard)

    async def _keep(self) -> None:
        """One beat: renew every lease (stop driving what was lost), a sign of life, listen again
        if the connection broke, adopt the tables nobody drives, apply routed clicks left waiting."""
        try:
            # (renew first: it never fails, and stops driving what it could not renew in time)
            for table_id in await self.leases.renew():
                table = self.core.tables.get(table_id)
                if table is not None:
                    self.core.stop_driving(table, "its lease could not be renewed in time")
            await self.leases.alive()
            if self._listener is None or self._listener.is_closed():
                await self._listen()
            # adopting many tables takes a while: the renewals must not wait for it
            if self._scanning is None or self._scanning.done():
                self._scanning = self.core.spawn(self._adopt_orphans(), "adopt-orphans")
            await self._apply_waiting_clicks(list(self.core.tables))
            if random.random() < 0.05:  # now and then: what nobody will ever need again
                await self.db.clicks.forget(ROUTED_CLICK_SECONDS)
                await self.db.leases.forget(REMATCH_WINDOW.total_seconds())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("keeping the leases failed; trying again in %.1f s", self.core.config.lease_seconds / 3)

    async def _adopt_orphans(self) -> None:
        """Adopt, one by one, the open tables no live process drives (in a shuffled order, so
        that processes scanning at once share them)."""
        orphans = [table_id for table_id in await self.db.tables_to_adopt(self.leases.holder, self._rematch_since())
                   if table_id not in self.core.tables and table_id not in self.leases.epochs]
        random.shuffle(orphans)
        for table_id in orphans:
            try:
                await self.adopt(table_id)
            except Exception:
                log.exception("table %s: adopting it failed", table_id)

    async def adopt(self, table_id: int) -> Table | None:
        """Drive this table from now on if nobody does (its lease is free or expired): the
        table, rebuilt from the database; None if it is closed or another process has it."""
        if table_id in self.core.tables:
            return self.core.tables[table_id]
        pending = self._adopting.get(table_id)
        if pending is None:
            pending = self._adopting[table_id] = self.core.spawn(self._adopt(table_id), f"adopt-{table_id}")
            pending.add_done_callback(lambda _: self._adopting.pop(table_id, None))
        return await asyncio.shield(pending)

    async def _adopt(self, table_id: int) -> Table | None:
        since = self._rematch_since()
        row = await self.db.open_table(table_id, since)
        if row is None or row["game"] not in self.core.uis or not await self.leases.take(table_id):
            return None
        epoch = self.leases.epochs[table_id]
        try:
            # read again under the lease: every write of the previous driver is in
            row = await self.db.open_table(table_id, since)
            if row is None:
                await self.leases.release([table_id])
                return None
            table = await self.restoring.restore_table(row)
        except Exception:
            log.exception("table %s: adopting it failed; another process may", table_id)
            self.leases.forget(table_id)
            await self.db.leases.release(self.leases.holder, {table_id: epoch})
            return None
        self.leases.adopted += 1
        log.warning("table %s (%s, %s) adopted by %s at epoch %s, move %s", table_id, table.game, table.status,
                    self.leases.holder, epoch, table.version)
        self.core.spawn(self._apply_waiting_clicks([table_id]), f"waiting-{table_id}", table)
        return table

    async def stop(self) -> None:
        """The first step of a clean stop: the renewals end, and routed clicks are no longer heard."""
        if self._keeper is not None:
            self._keeper.cancel()
        if self._listener is not None and not self._listener.is_closed():
            try:
                await asyncio.wait_for(self._listener.close(), 5)
            except Exception:
                log.warning("closing the listening connection failed", exc_info=True)

    async def release_leases(self) -> None:
        """The last step of a clean stop: the leases are given up, so that other processes adopt
        the tables at once rather than after ``lease_seconds``."""
        if self.leases.enabled and (self.leases.epochs or self.leases.named):
            try:
                await asyncio.wait_for(self.leases.release(), 5)
            except Exception:
                log.warning("giving the leases up failed; they expire in %.0f s", self.leases.seconds,
                            exc_info=True)

    # ------------------------------------------------------------------------- routing
    async def is_open(self, table_id: int) -> bool:
        """Whether the table is still open (a lobby, a game, a finished game's Rematch window)."""
        return await self.db.open_table(table_id, self._rematch_since()) is not None

    async def find_driver(self, interaction: discord.Interaction, table_id: int) -> Table | None | Any:
        """A click on a table this process does not drive: ROUTED if it went to the table's
        driver; the table if nobody drove it (this process adopted it); None if it is closed."""
        for _attempt in range(3):
            lease = await self.db.leases.of(table_id)
            if lease is not None and lease["live"] and lease["holder"] != self.leases.holder:
                await self._route(interaction, table_id, lease["holder"])
                return ROUTED
            table = await self.adopt(table_id)
            if table is not None:
                return table
            if not await self.is_open(table_id):
                return None
            # another process adopted it meanwhile: route to it
        raise Refused(_("That could not be saved, so nothing changed. Please try again."))

    async def first_delivery(self, interaction: discord.Interaction, table: Table) -> Table | None:
        """A click this process received for a table it drives: recorded, under the table's
        lease, before it is applied. The table to apply it to; None when it is applied
        elsewhere: recorded before (the same interaction routed here by another process: applied
        as such, once, since its claim succeeds once), or the table is another process's now
        (it stalled here unnoticed; the click is routed to the new driver, never answered here)."""
        lease = self.leases.lease(table.id)
        if lease is None:
            return table  # one process: every click is its own
        try:
            with self.core.fenced(table):
                first = await self.db.clicks.record(interaction.id, lease)
        except LeaseLost:
            log.info("table %s: click %s came after the table moved to another process", table.id, interaction.id)
            found = await self.find_driver(interaction, table.id)
            if found is ROUTED:
                return None
            if found is None:
                raise Refused(_("This table is closed."))
            return await self.first_delivery(interaction, found)  # free, and adopted back
        if first:
            return table
        log.info("table %s: interaction %s reached this process twice; applied once", table.id, interaction.id)
        await self._apply_routed(interaction.id, table.id)
        return None

    async def _route(self, interaction: discord.Interaction, table_id: int, holder: str) -> None:
        payload = self._raw.pop(interaction.id) if self._raw is not None else None
        if payload is None:  # not a click this process received from Discord
            raise Refused(_("That could not be saved, so nothing changed. Please try again."))
        await defer(interaction)  # within Discord's 3 s; the driver answers the rest
        answered = asyncio.get_running_loop().create_future()
        self._routed[interaction.id] = answered
        try:
            try:
                if not await self.db.clicks.route(interaction.id, table_id, self.leases.holder,
                                                  json.dumps(payload), holder):
                    return  # routed before (never twice)
            except Exception as exc:
                if database_failure(exc):
                    raise  # (rolled back: the person is told the database is away)
                log.exception("table %s: routing a click to %s failed", table_id, holder)
                raise Refused(_("That could not be saved, so nothing changed. Please try again."))
            log.debug("table %s: click %s routed to %s", table_id, interaction.id, holder)
            try:
                await asyncio.wait_for(asyncio.shield(answered), ROUTE_WAIT)
            except asyncio.TimeoutError:
                log.info("table %s: click %s routed to %s is not applied yet; it waits for the table's driver",
                         table_id, interaction.id, holder)
        finally:
            self._routed.pop(interaction.id, None)

    def _heard(self, message: dict[str, Any]) -> None:
        """A message on the routes channel (called by the listening connection)."""
        if message.get("to") != self.leases.holder:
            return
        interaction_id: Any = message.get("id")
        if message.get("kind") == "done":
            answered = self._routed.get(interaction_id)
            if answered is not None and not answered.done():
                answered.set_result(True)
        elif message.get("kind") == "click":
            table_id: Any = message.get("table")
            table = self.core.tables.get(table_id)
            if table is not None:  # else it waits for whoever drives the table
                self.core.spawn(self._apply_routed(message["id"], table.id), f"routed-{message['id']}", table)

    async def _apply_waiting_clicks(self, table_ids: list[int]) -> None:
        for row in await self.db.clicks.waiting(table_ids, ROUTED_CLICK_SECONDS):
            if row["table_id"] in self.core.tables:
                await self._apply_routed(row["interaction_id"], row["table_id"])

    async def _apply_routed(self, interaction_id: int, table_id: int) -> None:
        """Apply a click routed here, once (the claim is fenced by this process's lease)."""
        lease = self.leases.lease(table_id)
        if lease is None or table_id not in self.core.tables:
            return
        row = await self.db.clicks.claim(interaction_id, lease)
        if row is None:
            return  # applied already, or the table is no longer this process's
        data = json.loads(row["payload"])
        try:
            interaction = routed_interaction(self.core.bot, data)
            custom_id = str((data.get("data") or {}).get("custom_id", ""))
            values = list((data.get("data") or {}).get("values") or [])
            control = parse(custom_id.split(":", 1)[1]) if custom_id.startswith(f"{PREFIX}:") else None
            await self.apply_click(interaction, control, values)
        except Exception:
            log.exception("table %s: applying routed click %s failed", table_id, interaction_id)
        finally:
            try:
                await self.db.clicks.notify({"kind": "done", "to": row["sender"], "id": interaction_id})
            except Exception:
                log.warning("telling %s that click %s was applied failed", row["sender"], interaction_id,
                            exc_info=True)
