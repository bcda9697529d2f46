"""Which tables this process drives: a lease per table in PostgreSQL, taken, renewed and given
up here (the queries are in :mod:`bot.db`; what the service does with them, in
:mod:`.driving`). On SQLite there is one process, which drives every table: no lease is taken
and no write is fenced.

Times: a lease expires at ``expires_at`` in the **database's** clock, and only the database
compares it (taking a lease is allowed once it has passed), so the processes' own clocks never
have to agree. Locally, a process counts a lease from the moment it *sent* the statement that
took or renewed it (its own monotonic clock), which is never later than the moment the database
started counting: if it cannot renew for ``seconds``, it stops driving the table before anyone
else may take it. The database's safety does not rest on time at all: every write of a table is
fenced by the lease's holder and epoch (:class:`bot.db.Lease`), which a new take changes.
Discord's messages cannot be fenced, so they rest on the local clock (:meth:`Leases.may_show`):
a stalled process holds them back until a renewal says the table is still its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time

from bot.db import Database
from bot.leasing import Lease, NameInUse

log = logging.getLogger("bot.tables.leases")

#: Messages go out only within this part of a lease's length after its last renewal. Healthy
#: renewals come every third of it; the rest is the margin for a message already on its way
#: when the process stalls.
SHOW_FRACTION = 2 / 3


#: Seconds past a renewal period (lease_seconds / 3) that a starting process waits to see
#: whether leases under its name are renewed by another.
RENEWAL_MARGIN = 0.5


def default_holder() -> str:
    """This process's name in the leases: host, process id, a start stamp and a random tag
    (unique among live processes, even containers that share a host name and are all pid 1
    and start in the same instant; a restarted process is another, and adopts its
    predecessor's tables once their leases expire)."""
    return f"{socket.gethostname()}:{os.getpid()}:{int(time.time()):x}-{secrets.token_hex(4)}"


class Leases:
    """The leases this process holds: table id -> epoch."""

    def __init__(self, db: Database, *, enabled: bool, holder: str, seconds: float, named: bool = True) -> None:
        self.db = db
        self.enabled = enabled
        self.holder = holder
        self.named = named  # the operator's instance_name (else default_holder(): no other process has it)
        self.seconds = seconds
        self.epochs: dict[int, int] = {}
        # local (monotonic) time at which the last take or renewal that succeeded was sent
        self.renewed: dict[int, float] = {}
        self.adopted = 0  # tables taken over from a process that stopped driving them
        self.lost = 0  # tables this process stopped driving: their lease taken, or not renewed in time

    async def refuse_a_shared_name(self) -> None:
        """At start, before this process shows any sign of life: NameInUse if another live
        process runs under this holder's name (its leases or its beats, :meth:`alive`, are
        renewed). Signs live under the name may also be a predecessor's that died (a restart
        under a configured name): those are not renewed, so a renewal period tells the two
        apart."""
        if not self.enabled or not self.named:
            return
        first = await self.db.leases.latest(self.holder, self.seconds)
        if first is None:
            return
        await asyncio.sleep(self.seconds / 3 + RENEWAL_MARGIN)
        latest = await self.db.leases.latest(self.holder, self.seconds)
        if latest is not None and latest > first:
            raise NameInUse(
                f"instance_name {self.holder!r} is in use: another live process runs under that name "
                "(a copied config?); give each process its own instance_name, or leave it empty")

    async def alive(self) -> None:
        """This process's sign of life under its instance_name, at every beat: what a second
        process started under the same name sees (a default name is unique: nothing to see)."""
        if self.enabled and self.named:
            await self.db.leases.alive(self.holder)

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def lease(self, table_id: int) -> Lease | None:
        """What fences this table's writes: None on SQLite (nothing to fence); else this
        process's lease (epoch 0 when it holds none, which no write passes)."""
        if not self.enabled:
            return None
        return Lease(table_id, self.holder, self.epochs.get(table_id, 0))

    def holds(self, table_id: int) -> bool:
        return not self.enabled or table_id in self.epochs

    def may_show(self, table_id: int) -> bool:
        """Whether this process may still speak for the table on Discord now: its lease was
        renewed within the last ``SHOW_FRACTION`` of its length. A message cannot be fenced as
        a write is (Discord knows no epochs), so a process that was stalled (frozen, swapped
        out, cut off from the database) holds its messages back until a renewal vouches for
        it, rather than post beside the table's new driver. True for a lease given up (a table
        that closed here shows its last word; nobody adopts a closed table), and on SQLite."""
        renewed = self.renewed.get(table_id)
        return renewed is None or self._now() - renewed < self.seconds * SHOW_FRACTION

    async def vouch(self, table_id: int) -> bool:
        """Whether this process may speak for the table on Discord right now, asked right before
        each call: :meth:`may_show` by its own clock, and then the database, whose clock saw
        every stall this process's clock may not have (a paused VM, a suspended host): the
        lease is still this process's, with at least a third of its length left (the margin for
        the call on its way). The database away, or the table another's: held back."""
        if not self.enabled or table_id not in self.epochs:
            return True  # (a table closed here shows its last word; nobody adopts it)
        if not self.may_show(table_id):
            return False
        try:
            left = await self.db.leases.left(Lease(table_id, self.holder, self.epochs[table_id]))
        except Exception as exc:
            log.info("table %s: the lease could not be checked (%r); its messages wait", table_id, exc)
            return False
        return left is not None and left > self.seconds * (1 - SHOW_FRACTION)

    async def take(self, table_id: int) -> bool:
        """Take the table's lease (free, expired, or ours from a previous life); False when
        another live process holds it. Always True on SQLite."""
        if not self.enabled:
            return True
        sent = self._now()
        epoch = await self.db.leases.take(table_id, self.holder, self.seconds)
        if epoch is None:
            return False
        self.epochs[table_id] = epoch
        self.renewed[table_id] = sent
        return True

    async def renew(self) -> set[int]:
        """Renew every lease held; returns the tables lost: taken by another process, or not
        renewed for ``seconds`` (the database may be unreachable: another process may take
        them as soon as it is back, so this one stops first)."""
        if not self.epochs:
            return set()
        held = dict(self.epochs)
        sent = self._now()
        try:
            renewed, busy = await self.db.leases.renew(self.holder, held, self.seconds)
        except Exception:
            log.warning("renewing %d leases failed", len(held), exc_info=True)
            renewed, busy = set(), set(held)
        for table in renewed:
            if self.epochs.get(table) == held[table]:
                self.renewed[table] = sent
        if busy:
            log.info("%d leases not renewed this time (their rows are locked)", len(busy))
        # a lease not renewed now still holds until ``seconds`` after its last renewal
        kept = renewed | {table for table in busy if self._now() - self.renewed.get(table, sent) < self.seconds}
        lost = {table for table in held if table not in kept and self.epochs.get(table) == held[table]}
        for table in lost:
            self.forget(table)
        self.lost += len(lost)
        return lost

    def forget(self, table_id: int) -> None:
        self.epochs.pop(table_id, None)
        self.renewed.pop(table_id, None)

    async def release(self, table_ids: list[int] | None = None) -> None:
        """Give leases up (all by default): another process may take them at once."""
        if not self.enabled:
            return
        ids = list(self.epochs) if table_ids is None else [t for t in table_ids if t in self.epochs]
        held = {table: self.epochs[table] for table in ids}
        for table in ids:
            self.forget(table)
        await self.db.leases.release(self.holder, held)
        if table_ids is None and self.named:  # a clean stop: the name is free at once
            await self.db.leases.gone(self.holder)
