"""Leases and routed clicks in the database (PostgreSQL, where several processes share it):
the queries behind ``bot/tables/leases.py`` and ``bot/tables/driving.py``, and the fence that
every write of a table carries (``FENCE``). A :class:`bot.db.Database` offers them as two
objects of their own: ``db.leases`` (:class:`LeaseQueries`) and ``db.clicks``
(:class:`RoutedClicks`).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any, AsyncContextManager, AsyncIterator, Callable, Protocol, Sequence

from .backends import Row

# PostgreSQL's clock, in the seconds since 1970 that leases count in: every process compares
# leases with the one clock of the database, never with its own (see bot/tables/driving.py).
DB_NOW = "extract(epoch from clock_timestamp())"
# Routed clicks and their answers travel on this LISTEN/NOTIFY channel.
ROUTES_CHANNEL = "chieu_routes"


class LeaseLost(RuntimeError):
    """A write for a table this process no longer drives (another process took its lease):
    nothing was written."""


class NameInUse(RuntimeError):
    """At start: another live process runs under this process's ``instance_name``
    (a copied config; containers that share the host's name and pid)."""


@dataclass(frozen=True)
class Lease:
    """A process's hold on a table: ``epoch`` grows with each new take (never repeating), so a
    write fenced by it fails once anyone (this process included) has taken the table again."""

    table_id: int
    holder: str
    epoch: int


# A new epoch: more than the lease's last one, and the database's clock in milliseconds when
# that is more, so that epochs never come back, even for a lease whose row was deleted (a day
# after it expired).
_EPOCH = f"CAST({DB_NOW} * 1000 AS BIGINT)"

# The condition a fenced write adds: the lease row is still this holder's at this epoch, and
# stays so until the write commits (FOR SHARE: a take waits for the write, then sees the lease
# it must respect).
FENCE = "EXISTS (SELECT 1 FROM leases WHERE table_id = ? AND holder = ? AND epoch = ? FOR SHARE)"


def fence(lease: Lease) -> tuple[int, str, int]:
    """The parameters of ``FENCE`` for this lease."""
    return lease.table_id, lease.holder, lease.epoch


class Statements(Protocol):
    """What the queries run on: :class:`bot.db.Database`'s statements and transactions."""

    backend: Any

    def transaction(self) -> AsyncContextManager[None]: ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class LeaseQueries:
    """The table leases (``db.leases``): taken, renewed, given up, checked, and the fence of a
    table's writes."""

    def __init__(self, db: Statements) -> None:
        self.db = db

    async def take(self, table_id: int, holder: str, seconds: float) -> int | None:
        """Take the table's lease for ``seconds`` if nobody holds it, it expired, or it is
        ``holder``'s already (a restarted process of the same name): the new epoch, or None
        when a live lease of another process stands. One statement: of two processes taking
        the same lease, the row lock lets one win and shows the other the winner's lease."""
        # The expiry is computed when the row is written: a take that waited for a write in
        # flight (its row lock) counts its lease from then, not from when the statement began
        # (which would install a lease expired already, for the next process to take at once).
        row = await self.db.fetchone(
            f"INSERT INTO leases (table_id, holder, epoch, expires_at) VALUES (?, ?, {_EPOCH}, {DB_NOW} + ?)"
            " ON CONFLICT (table_id) DO UPDATE SET holder = excluded.holder,"
            f" epoch = GREATEST(leases.epoch + 1, {_EPOCH}), expires_at = {DB_NOW} + ?"
            f" WHERE leases.holder = excluded.holder OR leases.expires_at < {DB_NOW}"
            " RETURNING epoch", (table_id, holder, seconds, seconds))
        return None if row is None else row["epoch"]

    async def renew(self, holder: str, held: dict[int, int], seconds: float) -> tuple[set[int], set[int]]:
        """Extend the leases ``held`` (table -> epoch) that are still this holder's at that
        epoch: the tables renewed, and those still this holder's but locked right now (a write
        of theirs in flight, or stuck: not renewed this time, and never waited for, so that one
        table's lock cannot hold every other lease back). The others are lost."""
        if not held:
            return set(), set()
        ids, epochs = list(held), list(held.values())
        rows = await self.db.fetchall(
            f"UPDATE leases SET expires_at = {DB_NOW} + ? FROM ("
            " SELECT l.table_id FROM leases l JOIN unnest(?::bigint[], ?::bigint[]) AS mine (id, epoch)"
            " ON l.table_id = mine.id AND l.epoch = mine.epoch WHERE l.holder = ?"
            " FOR NO KEY UPDATE OF l SKIP LOCKED) AS free"
            " WHERE leases.table_id = free.table_id RETURNING leases.table_id", (seconds, ids, epochs, holder))
        renewed = {row["table_id"] for row in rows}
        if len(renewed) == len(held):
            return renewed, set()
        rest = [table for table in ids if table not in renewed]
        # a plain read waits for no lock: which of the rest are still this holder's
        rows = await self.db.fetchall(
            "SELECT l.table_id FROM leases l JOIN unnest(?::bigint[], ?::bigint[]) AS mine (id, epoch)"
            " ON l.table_id = mine.id AND l.epoch = mine.epoch WHERE l.holder = ?",
            (rest, [held[table] for table in rest], holder))
        return renewed, {row["table_id"] for row in rows}

    async def release(self, holder: str, held: dict[int, int]) -> None:
        """Give these leases up (a clean stop, a closed table): another process may take them at
        once. The rows stay, expired, so that the next take's epoch is still above theirs."""
        if held:
            await self.db.execute(
                f"UPDATE leases SET expires_at = {DB_NOW} - 1 FROM unnest(?::bigint[], ?::bigint[]) AS mine (id, epoch)"
                " WHERE leases.table_id = mine.id AND leases.epoch = mine.epoch AND leases.holder = ?",
                (list(held), list(held.values()), holder))

    async def of(self, table_id: int) -> Row | None:
        """The table's lease: ``holder``, ``epoch`` and ``live`` (not expired)."""
        return await self.db.fetchone(
            f"SELECT holder, epoch, expires_at > {DB_NOW} AS live FROM leases WHERE table_id = ?", (table_id,))

    async def check(self, lease: Lease) -> None:
        """Inside a transaction: the lease holds, and holds until the transaction ends; else LeaseLost."""
        if await self.db.fetchone(f"SELECT 1 WHERE {FENCE}", fence(lease)) is None:
            raise LeaseLost(f"table {lease.table_id}: lease {lease.epoch} of {lease.holder} is gone")

    @contextlib.asynccontextmanager
    async def fenced(self, lease: Lease | None) -> AsyncIterator[None]:
        """The enclosed writes, only while ``lease`` holds: one transaction that checks it first
        (a taker waits for its commit), else LeaseLost and nothing written. Without a lease (one
        process, nothing to fence), the writes run as they are."""
        if lease is None:
            yield
            return
        async with self.db.transaction():
            await self.check(lease)
            yield

    async def latest(self, holder: str, seconds: float) -> float | None:
        """Until when ``holder`` counts as alive (the database's epoch seconds): the expiry of
        its last live lease, or ``seconds`` after its last sign of life (:meth:`alive`),
        whichever is later; None if neither is live. A live process moves it on at every beat."""
        row = await self.db.fetchone(
            f"SELECT GREATEST((SELECT MAX(expires_at) FROM leases WHERE holder = ? AND expires_at > {DB_NOW}),"
            f" (SELECT seen_at + ? FROM instances WHERE name = ? AND seen_at + ? > {DB_NOW})) AS latest",
            (holder, seconds, holder, seconds))
        return None if row is None or row["latest"] is None else float(row["latest"])

    async def alive(self, holder: str) -> None:
        """A sign of life of the process named ``holder``, at every beat (leases or none)."""
        await self.db.execute(
            f"INSERT INTO instances (name, seen_at) VALUES (?, {DB_NOW})"
            " ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at", (holder,))

    async def gone(self, holder: str) -> None:
        """The process named ``holder`` stopped cleanly: its name is free at once."""
        await self.db.execute("DELETE FROM instances WHERE name = ?", (holder,))

    async def forget(self, dead_for: float) -> None:
        """Leases nobody renewed for ``dead_for`` seconds (their tables closed long ago)."""
        await self.db.execute(f"DELETE FROM leases WHERE expires_at < {DB_NOW} - ?", (dead_for,))

    async def left(self, lease: Lease) -> float | None:
        """Seconds this lease has left in the database's clock (negative once expired); None
        when it is no longer this holder's at this epoch (another process took the table)."""
        row = await self.db.fetchone(
            f"SELECT expires_at - {DB_NOW} AS left FROM leases WHERE table_id = ? AND holder = ? AND epoch = ?",
            fence(lease))
        return None if row is None else float(row["left"])


class RoutedClicks:
    """The routed clicks (``db.clicks``): a click that reached a process which does not drive
    its table, left for the table's driver, and the routes channel that tells it."""

    def __init__(self, db: Statements, leases: LeaseQueries) -> None:
        self.db = db
        self.leases = leases

    async def route(self, interaction_id: int, table_id: int, sender: str, payload: str, to: str) -> bool:
        """Leave the click for its table's driver and tell it (``NOTIFY``, sent at commit);
        False if this interaction was routed already."""
        async with self.db.transaction():
            added = await self.db.execute(
                "INSERT INTO routed_clicks (interaction_id, table_id, sender, payload, created_at)"
                f" VALUES (?, ?, ?, ?, {DB_NOW}) ON CONFLICT DO NOTHING",
                (interaction_id, table_id, sender, payload))
            if added:
                await self.notify({"kind": "click", "to": to, "id": interaction_id, "table": table_id})
        return bool(added)

    async def claim(self, interaction_id: int, lease: Lease) -> Row | None:
        """Take a routed click to apply it, only as the table's driver (fenced by its lease)
        and only once: its ``payload`` and ``sender``, or None (taken already, or not ours)."""
        return await self.db.fetchone(
            "UPDATE routed_clicks SET taken_by = ? WHERE interaction_id = ? AND table_id = ? AND taken_by IS NULL"
            f" AND {FENCE} RETURNING payload, sender",
            (lease.holder, interaction_id, lease.table_id, *fence(lease)))

    async def record(self, interaction_id: int, lease: Lease) -> bool:
        """A click the table's driver received itself, recorded as taken by it before it is
        applied: the same interaction delivered to another process too (Discord may, around a
        reconnect) is then never routed here and applied again. False when the interaction was
        recorded first by another process (routed here, or to be); LeaseLost when the table is
        no longer this holder's (the click is for its new driver)."""
        # one statement (a click's round trip); only when it wrote nothing, a second says why
        if await self.db.execute(
                "INSERT INTO routed_clicks (interaction_id, table_id, sender, payload, created_at, taken_by)"
                f" SELECT ?, ?, ?, '', {DB_NOW}, ? WHERE {FENCE} ON CONFLICT DO NOTHING",
                (interaction_id, lease.table_id, lease.holder, lease.holder, *fence(lease))):
            return True
        if await self.leases.left(lease) is None:
            raise LeaseLost(f"table {lease.table_id}: lease {lease.epoch} of {lease.holder} is gone")
        return False

    async def waiting(self, table_ids: list[int], within: float) -> list[Row]:
        """Routed clicks for these tables that nobody took, younger than ``within`` seconds."""
        if not table_ids:
            return []
        return await self.db.fetchall(
            "SELECT interaction_id, table_id FROM routed_clicks WHERE taken_by IS NULL"
            f" AND table_id = ANY(?::bigint[]) AND created_at > {DB_NOW} - ? ORDER BY interaction_id",
            (table_ids, within))

    async def forget(self, older_than: float) -> None:
        await self.db.execute(f"DELETE FROM routed_clicks WHERE created_at < {DB_NOW} - ?", (older_than,))

    async def notify(self, message: dict) -> None:
        """A message to every process listening on the routes channel (with the transaction it is in)."""
        await self.db.execute("SELECT pg_notify(?, ?)", (ROUTES_CHANNEL, json.dumps(message)))

    async def listen(self, callback: Callable[[dict], None]) -> Any:
        """A connection of its own (outside the pool) that calls ``callback(message)`` for each
        message on the routes channel; close it with ``await connection.close()``."""
        return await self.db.backend.listen(ROUTES_CHANNEL, lambda payload: callback(json.loads(payload)))
