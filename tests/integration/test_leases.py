"""Leases on PostgreSQL, in one process: a table's lease is held by one process, renewed,
taken over once it expired (in the database's clock), given up on a clean stop; and every
write of a table is fenced by it, so that a driver which stalled past its lease (here: whose
lease the test expires, as the database's clock would) can never write a move after another
process adopted the table. The table services run without Discord (tests/support/stubdiscord.py)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from bot.db import Database, Lease, LeaseLost
from bot.leasing import NameInUse
from bot.tables.outbox import HELD_BACK_SECONDS
from tests.support.stubdiscord import close_service, headless_service, open_table, quiet_pictures

pytestmark = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


async def expire(db: Database, holder: str) -> None:
    """``holder`` stopped renewing long enough ago: its leases expired in the database's clock."""
    await db.execute("UPDATE leases SET expires_at = expires_at - 3600 WHERE holder = ?", (holder,))


async def beat(service) -> None:
    """One beat of the service's keeper: renewals, then adoptions (which it runs apart)."""
    await service.driving._keep()
    if service.driving._scanning is not None:
        await service.driving._scanning


@pytest.fixture
async def services(database, monkeypatch):
    quiet_pictures(monkeypatch)
    made = []

    async def make(name: str, **overrides):
        service = await headless_service(database, name, **{"lease_seconds": 30, **overrides})
        await service.restore()
        made.append(service)
        return service

    yield make
    for service in made:
        await close_service(service)


async def test_one_holder_at_a_time_and_every_write_fenced(database):
    db = await Database.open(database)
    try:
        table = await db.insert_table(guild_id=1, channel_id=2, game="phom", options={}, host_id=3, seats=[])
        game = await db.insert_game(table_id=table, game_no=1, guild_id=1, game="phom", seats=[], options={},
                                    decks=[[]], stake=1)
        first = await db.leases.take(table, "a", 10)
        assert first is not None
        assert await db.leases.take(table, "b", 10) is None, "a live lease of another process stands"
        assert await db.leases.renew("a", {table: first}, 10) == ({table}, set())
        assert await db.leases.renew("b", {table: first}, 10) == (set(), set())
        await db.append_action(game, 0, 0, "d", lease=Lease(table, "a", first))

        await expire(db, "a")
        second = await db.leases.take(table, "b", 10)
        assert second is not None and second > first
        assert await db.leases.renew("a", {table: first}, 10) == (set(), set()), "a learns at its next renewal"
        with pytest.raises(LeaseLost):
            await db.append_action(game, 1, 0, "x", lease=Lease(table, "a", first))
        with pytest.raises(LeaseLost):
            await db.update_table(table, lease=Lease(table, "a", first), status="cancelled")
        with pytest.raises(LeaseLost):
            async with db.transaction():
                await db.leases.check(Lease(table, "a", first))
        # what a table remembers of its messages is fenced too: a stale driver never overwrites
        # the message ids of the new driver's posts
        await db.save_hand_message(game, 0, 50, 500, lease=Lease(table, "b", second))
        await db.set_result_message(game, 600, lease=Lease(table, "b", second))
        await db.set_rounds_posted(game, 1, lease=Lease(table, "b", second))
        with pytest.raises(LeaseLost):
            await db.save_hand_message(game, 0, 51, 501, lease=Lease(table, "a", first))
        with pytest.raises(LeaseLost):
            await db.set_result_message(game, 601, lease=Lease(table, "a", first))
        with pytest.raises(LeaseLost):
            await db.set_rounds_posted(game, 2, lease=Lease(table, "a", first))
        assert await db.hand_messages(game) == {0: (50, 500)}
        stored = await db.get_game(game)
        assert (stored["result_message_id"], stored["rounds_posted"]) == (600, 1)
        await db.append_action(game, 1, 0, "e", lease=Lease(table, "b", second))
        await db.update_table(table, lease=Lease(table, "b", second), status="playing")

        # a restarted b (same name) takes its own lease back at once, with a new epoch that
        # fences whatever its previous life still had in memory
        third = await db.leases.take(table, "b", 10)
        assert third is not None and third > second
        with pytest.raises(LeaseLost):
            await db.append_action(game, 2, 0, "x", lease=Lease(table, "b", second))
        # given up: free at once, and its epochs never come back
        await db.leases.release("b", {table: third})
        assert not (await db.leases.of(table))["live"]
        fourth = await db.leases.take(table, "a", 10)
        assert fourth is not None and fourth > third
        assert await db.actions(game) == [(0, "d"), (0, "e")]
        assert (await db.get_table(table))["status"] == "playing"
    finally:
        await db.close()


async def hold_share_lock(db: Database, table: int, released: asyncio.Event) -> None:
    """What a fenced write in flight holds on the table's lease row (FOR SHARE), until ``released``."""
    async with db.transaction():
        await db.fetchone("SELECT 1 FROM leases WHERE table_id = ? FOR SHARE", (table,))
        await released.wait()


async def test_a_take_that_waited_for_a_write_installs_a_live_lease(database):
    """A take waits for a write in flight on the lease; the lease it installs counts from when
    it is written, not from when the take began (else it is expired already, and the next
    process takes the table at once: several adoptions in a row)."""
    db = await Database.open(database)
    try:
        table = await db.insert_table(guild_id=1, channel_id=2, game="phom", options={}, host_id=3, seats=[])
        assert await db.leases.take(table, "a", 10) is not None
        await expire(db, "a")
        released = asyncio.Event()
        writing = asyncio.create_task(hold_share_lock(db, table, released))
        await asyncio.sleep(0.2)
        taking = asyncio.create_task(db.leases.take(table, "b", 1))
        await asyncio.sleep(1.5)  # longer than the lease the take asks for
        assert not taking.done(), "the take waits for the write"
        released.set()
        await writing
        assert await taking is not None
        lease = await db.leases.of(table)
        assert lease["holder"] == "b" and lease["live"], "the lease taken is live"
        assert await db.leases.take(table, "c", 1) is None
    finally:
        await db.close()


async def test_one_locked_lease_fails_over_only_its_own_table(services, database):
    """A write of one table stuck while it holds its lease row: the renewal of the process's
    other leases does not wait for it, so only that table may move elsewhere."""
    a = await services("a", lease_seconds=1.5, ai_delay_seconds=30)
    stuck, other = await open_table(a, "phom", ai=2), await open_table(a, "phom", ai=2)
    outside = await Database.open(database)
    released = asyncio.Event()
    holding = asyncio.create_task(hold_share_lock(outside, stuck.id, released))
    try:
        await asyncio.sleep(2.5)  # more than the lease: renewals every 0.5 s meanwhile
        assert not other.dropped and other.id in a.tables, "the other table's lease was renewed"
        assert (await outside.leases.of(other.id))["live"]
        assert a.leases.may_show(other.id)
    finally:
        released.set()
        await holding
        await outside.close()


async def test_a_routed_click_is_claimed_once_and_only_by_the_driver(database):
    db = await Database.open(database)
    try:
        table = await db.insert_table(guild_id=1, channel_id=2, game="phom", options={}, host_id=3, seats=[])
        epoch = await db.leases.take(table, "b", 10)
        assert await db.clicks.route(77, table, "a", json.dumps({"id": "77"}), "b")
        assert not await db.clicks.route(77, table, "a", "{}", "b"), "an interaction is routed once"
        assert [r["interaction_id"] for r in await db.clicks.waiting([table], 60)] == [77]
        assert await db.clicks.claim(77, Lease(table, "a", epoch)) is None, "only the table's driver claims it"
        claimed = await db.clicks.claim(77, Lease(table, "b", epoch))
        assert claimed["sender"] == "a" and json.loads(claimed["payload"]) == {"id": "77"}
        assert await db.clicks.claim(77, Lease(table, "b", epoch)) is None, "applied at most once"
        assert await db.clicks.waiting([table], 60) == []
    finally:
        await db.close()


async def test_a_stalled_driver_never_writes_after_its_table_was_adopted(services):
    a, b = await services("a"), await services("b")
    # Lan (seat 0) opens; his turn has a minute; the AI plays at once
    table = await open_table(a, "phom", ai=1, people=1)
    for _ in range(100):
        if a.showing.can_see_hand(table, 0):
            break
        await asyncio.sleep(0.01)
    assert a.showing.can_see_hand(table, 0) and list(table.state.to_act) == [0] and a.driven_count() == 1
    await beat(b)
    assert b.driven_count() == 0, "a's lease is live: nobody else drives its table"

    # a stalls (no renewal) past its lease; b adopts the table, as it was
    await expire(a.db, "a")
    await beat(b)
    adopted = b.tables[table.id]
    assert adopted.state.record() == table.state.record() and adopted.deadline == table.deadline

    # a wakes up: Lan's minute is over, its clock plays for him... and is refused
    async with table.lock:
        with pytest.raises(LeaseLost):
            await a.play.time_out(table)
    assert table.dropped and table.id not in a.tables and a.driven_count() == 0
    await asyncio.sleep(0)
    assert table.clock.cancelled(), "its clock stopped at once"

    # b, the driver now, plays the game to its end: every move once, in order
    for _ in range(400):
        if adopted.status == "finished":
            break
        if not adopted.state.is_over and list(adopted.state.to_act) == [0] and not adopted.seats[0].away:
            async with adopted.lock:
                await b.play.time_out(adopted)
        await asyncio.sleep(0.005)
    assert adopted.status == "finished"
    db = b.db
    game = await db.get_game(adopted.game_id)
    assert game["status"] == "finished"
    state = await b.core.stored_state(adopted.game_id)
    assert state.record() == adopted.state.record() and state.is_over
    rows = await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?", (adopted.game_id,))
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    (settled,) = await db.fetchone("SELECT COUNT(*) FROM settlements")
    assert settled == 1


def shown(service) -> int:
    """How many posts, edits and deletions the service sent to Discord so far (in these tests
    it shows one table)."""
    return sum(1 for call in service.bot.calls if call["op"] in ("post", "edit", "delete"))


def changed(service, table) -> None:
    """The table message must be shown anew (as if what it shows had changed)."""
    table.presenter.get("table").shown = None
    service.showing.request_refresh(table)


async def test_a_stalled_driver_holds_its_messages_back(services):
    """Discord knows no epochs: a driver that stalled past the part of its lease it may speak
    in (frozen, cut off from the database) sends nothing more for the table until a renewal
    vouches for it; once another process adopted the table, it never speaks for it again."""
    a, b = await services("a"), await services("b")
    table = await open_table(a, "phom", ai=1, people=1)
    for _ in range(100):
        if a.showing.can_see_hand(table, 0) and not table.presenter.pending():
            break
        await asyncio.sleep(0.01)
    assert a.showing.can_see_hand(table, 0) and not table.presenter.pending()

    # a's last renewal is a lease-length ago, as after a freeze: a refresh waits, unsent
    before = shown(a)
    a.leases.renewed[table.id] -= a.config.lease_seconds
    assert not a.leases.may_show(table.id)
    changed(a, table)
    await asyncio.sleep(0.2)
    assert table.presenter.pending() and shown(a) == before, "nothing reached Discord"

    # a renewal vouches for a again (nobody took the table): what waited goes out
    await beat(a)
    assert a.leases.may_show(table.id)
    for _ in range(300):
        if not table.presenter.pending():
            break
        await asyncio.sleep(0.01)
    assert not table.presenter.pending() and shown(a) > before

    # stalled again, and this time b adopts the table before a wakes up
    a.leases.renewed[table.id] -= a.config.lease_seconds
    changed(a, table)
    await expire(a.db, "a")
    await beat(b)
    adopted = b.tables[table.id]
    for _ in range(300):
        if not adopted.presenter.pending():
            break
        await asyncio.sleep(0.01)
    hands_of_b = await b.db.hand_messages(adopted.game_id)
    silent_since = shown(a)
    await asyncio.sleep(HELD_BACK_SECONDS + 0.2)  # a's held-back presenter looks again
    await beat(a)  # ... and learns at its renewal that the table is b's
    await asyncio.sleep(HELD_BACK_SECONDS + 0.2)
    assert table.dropped and table.presenter.closed
    assert shown(a) == silent_since, "a never spoke for b's table"
    assert await b.db.hand_messages(adopted.game_id) == hands_of_b


async def test_a_driver_whose_clock_missed_its_stall_says_nothing_after_the_takeover(services):
    """A paused VM, a suspended host: the process's own clock did not count the stall, so by
    it the lease was renewed a moment ago. It asks the database before it speaks: the table
    is b's now, and a sends nothing more for it."""
    a, b = await services("a"), await services("b")
    table = await open_table(a, "phom", ai=1, people=1)
    for _ in range(100):
        if a.showing.can_see_hand(table, 0) and not table.presenter.pending():
            break
        await asyncio.sleep(0.01)
    assert not table.presenter.pending()
    await expire(a.db, "a")  # a froze past its lease...
    await beat(b)  # ... and b adopted the table meanwhile
    assert table.id in b.tables and a.leases.may_show(table.id), "to a's clock, nothing happened"
    silent_since = shown(a)
    changed(a, table)
    await asyncio.sleep(HELD_BACK_SECONDS + 0.3)
    assert shown(a) == silent_since, "a sent nothing for b's table"
    await beat(a)  # its renewal: the table is b's
    assert table.dropped and shown(a) == silent_since


async def test_a_clean_stop_gives_the_tables_up_at_once(services, database):
    a, b = await services("a", ai_delay_seconds=30), await services("b")
    table = await open_table(a, "phom", ai=2)
    await a.close()  # a clean stop: its leases are given up (no wait for their expiry)
    await beat(b)
    assert b.driven_count() == 1 and b.tables[table.id].game_id == table.game_id
    lease = await b.db.leases.of(table.id)
    assert lease["holder"] == "b" and lease["live"]


async def test_a_name_another_live_process_renews_is_refused_at_start(services, database, monkeypatch):
    """Two processes under one instance_name would take each other's tables at every beat: the
    second is refused at start, naming the name; a restart under the name of a process that
    died (its leases live, renewed by nobody) starts, and so does a process of another name."""
    first = await services("shared", lease_seconds=1.5)
    await open_table(first, "phom", ai=4)
    await first.driving.start()  # (the keeper renews every 0.5 s)
    second = await headless_service(database, "shared", lease_seconds=1.5)
    try:
        with pytest.raises(NameInUse, match="'shared' is in use"):
            await second.restore()
        first.driving._keeper.cancel()  # it dies: its leases live on, renewed by nobody
        await asyncio.sleep(0.1)
        await second.restore()  # its successor starts
        other = await services("another", lease_seconds=1.5)
        assert other.leases.holder == "another"
    finally:
        await close_service(second)


async def test_a_name_in_use_is_refused_though_its_process_drives_no_table(services, database):
    """A live process with no table holds no lease; its sign of life is what the second process
    under its name sees. Once it stops cleanly, the name is free at once (no renewal period)."""
    idle = await services("idle", lease_seconds=1.5)
    await idle.driving.start()
    assert idle.driven_count() == 0
    await asyncio.sleep(0.1)
    second = await headless_service(database, "idle", lease_seconds=1.5)
    try:
        with pytest.raises(NameInUse, match="'idle' is in use"):
            await second.restore()
        await idle.close()  # a clean stop
        started = time.perf_counter()
        await second.restore()
        assert time.perf_counter() - started < 0.5, "no renewal period to wait after a clean stop"
    finally:
        await close_service(second)


def test_the_default_name_is_unique_per_process_start(monkeypatch, backend):
    """Host and pid are not enough: containers on the host's network share the host name and
    are all pid 1."""
    import os
    import socket

    from bot.tables.leases import default_holder

    monkeypatch.setattr(socket, "gethostname", lambda: "host")
    monkeypatch.setattr(os, "getpid", lambda: 1)
    names = {default_holder() for _ in range(3)}
    assert len(names) == 3 and all(name.startswith("host:1:") for name in names)


def test_a_shared_name_stops_the_bot_with_exit_status_2(monkeypatch, capsys, backend):
    import bot.__main__ as main
    from bot.config import load

    async def refused(config):
        raise NameInUse("instance_name 'shared' is in use: another live process runs under that name")

    monkeypatch.setattr(main, "_run_until_stopped", refused)
    assert main.run_bot(load(database="x.sqlite3")) == 2
    assert "'shared' is in use" in capsys.readouterr().err
