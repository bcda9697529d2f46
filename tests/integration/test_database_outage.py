"""PostgreSQL goes away under a running bot (restarted for an upgrade, or failing over) and
comes back: the process cannot renew its leases, so it stops driving its tables (nothing of
theirs is written or shown meanwhile); once the server is back it takes them again, rebuilt
from the database, and every game goes on and ends, settled once and zero-sum, each move
written once. The table services run without Discord (tests/support/stubdiscord.py)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from bot import backends

from tests.support.databases import PostgresServer, required_bindir
from tests.support.simhelpers import (Players, attach_shard_process, buttons, dm, play_channel, private_texts, shard_guild_id,
                              start_table, until)
from tests.support.stubdiscord import close_service, headless_service, open_table, quiet_pictures

LEASE = 2.0


async def test_a_database_restart_mid_game_loses_no_table(monkeypatch):
    quiet_pictures(monkeypatch)
    server = PostgresServer(required_bindir())  # its own server: this test stops it
    server.start()
    service = None
    try:
        url = server.url(await server.create_database())
        service = await headless_service(url, "a", lease_seconds=LEASE, ai_delay_seconds=0.05,
                                         round_pause_seconds=1, table_edit_seconds=0.2)
        await service.restore()
        opened = [await open_table(service, "phom", ai=4), await open_table(service, "chinchon", ai=3, target=40)]
        ids = [table.id for table in opened]

        async def under_way() -> bool:
            return all(table.version >= 3 for table in opened)

        await until("both games under way", under_way, 20)

        server.halt()
        # no renewal can reach the server: within the lease the process stops driving both
        async def let_go() -> bool:
            return all(table.dropped for table in opened) and service.driven_count() == 0

        await until("the tables let go", let_go, 3 * LEASE)
        shown = len(service.bot.calls)
        await asyncio.sleep(LEASE)
        assert len(service.bot.calls) == shown, "nothing shown for tables nobody drives"

        server.start()

        async def all_finished() -> bool:
            try:
                rows = await service.db.fetchall("SELECT status FROM games")
            except Exception:  # the pool's connections died with the server: the next ones work
                return False
            return len(rows) == 2 and all(row["status"] == "finished" for row in rows)

        await until("both games finished", all_finished, 60)
        assert sorted(service.tables) == ids, "the process took its tables back"

        db = service.db
        (settled,) = await db.fetchone("SELECT COUNT(*) FROM settlements")
        assert settled == 2
        for game in await db.fetchall("SELECT * FROM games"):
            chips = [row["chips"] for row in await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?",
                                                                (game["id"],))]
            assert len(chips) == len(json.loads(game["seats"])) and sum(chips) == 0
            moves = [row["idx"] for row in await db.fetchall(
                "SELECT idx FROM actions WHERE game_id = ? ORDER BY idx", (game["id"],))]
            assert moves == list(range(len(moves)))
            state = await service.core.stored_state(game["id"])
            assert state.is_over, "the record replays to the end"
    finally:
        if service is not None:
            await close_service(service)
        server.stop()


# ------------------------------------------------------------ every interaction answered

@pytest.fixture
def postgres_server():
    """This module's tests halt their server: one of their own, not the session's."""
    server = PostgresServer(required_bindir())
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def simcord_bot(bot_factory):
    return bot_factory(instance_name="a", lease_seconds=60)


AWAY = "cannot reach its database"


def answered_privately(result, *texts: str) -> str:
    """The one private answer of an interaction (it must say one of ``texts``)."""
    (said,) = private_texts(result)
    assert result.ephemeral and any(text in said for text in texts), said
    return said


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_every_interaction_is_answered_while_the_database_is_away(simcord_env, bot_factory, postgres_server):
    """The server halted under two processes (a: shard 0, every DM; b: shard 1): commands,
    lobby clicks, table clicks, hand clicks in a DM on a table of b's, while the tables are
    still driven and after they were let go: each gets a private answer, nothing changes."""
    env = simcord_env
    a = env.bot
    b = bot_factory(instance_name="b", lease_seconds=60)
    await attach_shard_process(env, b)
    here = await start_table(env, "phom", 1, 1, seed=1, guild_id=shard_guild_id(0))
    there = await start_table(env, "phom", 1, 1, seed=2, guild_id=shard_guild_id(1), bot=b)
    lan, minh = here.members[0], there.members[0]
    (mine,) = a.tables.tables.values()
    (theirs,) = b.tables.tables.values()
    lobbies = Players(env, 2, names=("duc", "hoa"), guild_id=shard_guild_id(0, 2))
    duc, hoa = lobbies.members
    await duc.slash(lobbies.channel, "phom new")
    lobby = lobbies.channel.last_message
    table_message = next(m for m in reversed(play_channel(here).history()) if "My hand" in buttons(m))
    before = (mine.version, theirs.version, [s.user_id for s in a.tables.tables[max(a.tables.tables)].seats])

    postgres_server.halt()
    try:
        # still driven here (the clicks are recorded under the lease first): each says the database is away
        answered_privately(await hoa.slash(lobbies.channel, "phom new"), AWAY)
        answered_privately(await minh.user.click(dm(minh), label="Auto-arrange"), AWAY)  # routed: b's table
        answered_privately(await hoa.click(lobby, label="Join"), AWAY)
        answered_privately(await lan.slash(here.channel, "balance"), AWAY)
        answered_privately(await lan.slash(here.channel, "settings notify", how="off"), AWAY)

        # no renewal reaches the server: after the lease, neither process drives a table
        await env.advance_time(80)
        assert a.tables.driven_count() == b.tables.driven_count() == 0
        answered_privately(await lan.user.click(dm(lan), label="Auto-arrange"), AWAY)
        answered_privately(await lan.click(table_message, label="My hand"), AWAY)
        answered_privately(await hoa.click(lobby, label="Join"), AWAY)
        answered_privately(await minh.user.click(dm(minh), label="Auto-arrange"), AWAY)
        assert (mine.version, theirs.version) == before[:2], "nothing changed"
    finally:
        postgres_server.start()

    async def back() -> bool:
        try:
            return a.tables.driven_count() + b.tables.driven_count() == 3
        finally:
            await env.advance_time(20)

    await until("the tables driven again", back, 30)
    lobby_row = await a.db.get_table(max(a.tables.tables) if a.tables.tables else 0)
    assert lobby_row is None or [s["user_id"] for s in json.loads(lobby_row["seats"])] == before[2]


# ------------------------------------------------------------ a database that hangs

IN_TIME = 2.5  # Discord gives 3 s; measured on the real clock (SimCord's is virtual)


async def within_time(action):
    """``await action`` and the real seconds it took."""
    started = time.perf_counter()
    result = await action
    return result, time.perf_counter() - started


def answered_in_time(result_and_seconds, *texts: str) -> str:
    result, seconds = result_and_seconds
    assert seconds < IN_TIME, f"answered after {seconds:.2f} s"
    return answered_privately(result, *texts)


async def actions_written(db) -> int:
    (written,) = await db.fetchone("SELECT COUNT(*) FROM actions")
    return written


@pytest.fixture
def real_deadlines(simcord_env, monkeypatch):
    """The bot's deadlines on the database on the real clock, as in production: SimCord's
    virtual timers fire only once the bot settles, and a bot waiting on a hung server never does."""
    from simcord import _dpy_internals

    import asyncpg

    runtime = simcord_env._runtime
    # (nor may the pool reconnect in the background to a server that hangs: a wait SimCord
    # cannot settle; the next statement reconnects)
    monkeypatch.setattr(asyncpg.Pool, "_schedule_min_size_maintenance", lambda pool: None)
    monkeypatch.setattr(backends, "call_later", raising=False, value=lambda delay, callback: runtime.call_at(
        _dpy_internals.real_monotonic() + delay, callback))


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.usefixtures("real_deadlines")
async def test_every_interaction_is_answered_in_time_while_the_database_hangs(simcord_env, bot_factory,
                                                                              postgres_server, processes):
    """The server hangs (SIGSTOP: a paused container, a storage stall) under one process or
    two (a: shard 0, every DM; b: shard 1): commands, lobby clicks, table clicks, hand clicks,
    a routed click, each answered within 2.5 s that the database is away; once the server goes
    on (SIGCONT) nothing of theirs is applied after all, and play goes on."""
    env = simcord_env
    a = env.bot
    here = await start_table(env, "phom", 1, 1, seed=1, guild_id=shard_guild_id(0))
    lan = here.members[0]
    (mine,) = a.tables.tables.values()
    minh = theirs = None
    if processes == 2:
        b = bot_factory(instance_name="b", lease_seconds=60)
        await attach_shard_process(env, b)
        there = await start_table(env, "phom", 1, 1, seed=2, guild_id=shard_guild_id(1), bot=b)
        minh = there.members[0]
        (theirs,) = b.tables.tables.values()
    lobbies = Players(env, 2, names=("duc", "hoa"), guild_id=shard_guild_id(0, 2))
    duc, hoa = lobbies.members
    await duc.slash(lobbies.channel, "phom new")
    lobby = lobbies.channel.last_message
    table_message = next(m for m in reversed(play_channel(here).history()) if "My hand" in buttons(m))
    lobby_id = max(a.tables.tables)

    def versions():
        return mine.version, theirs.version if theirs is not None else None, len(a.tables.tables[lobby_id].seats)

    before, written = versions(), await actions_written(a.db)

    postgres_server.freeze()
    try:
        answered_in_time(await within_time(lan.user.click(dm(lan), label="Auto-arrange")), AWAY)
        answered_in_time(await within_time(hoa.click(lobby, label="Join")), AWAY)
        answered_in_time(await within_time(hoa.slash(lobbies.channel, "phom new")), AWAY)
        answered_in_time(await within_time(lan.slash(here.channel, "balance")), AWAY)
        answered_in_time(await within_time(lan.click(table_message, label="My hand")), AWAY)
        if minh is not None:  # routed: a receives it, b drives the table
            answered_in_time(await within_time(minh.user.click(dm(minh), label="Auto-arrange")), AWAY)
        answered_in_time(await within_time(lan.user.click(dm(lan), label="Auto-arrange")), AWAY)
        assert versions() == before, "nothing changed"
    finally:
        postgres_server.thaw()

    # the server goes on with what it had been sent: nothing answered "nothing changed" is applied
    await asyncio.sleep(2)
    await env.advance_time(5)
    assert versions() == before, "nothing applied after the thaw"
    assert await actions_written(a.db) == written

    # and play goes on: the same clicks work again
    said = private_texts(await lan.click(table_message, label="My hand"))
    assert not any(AWAY in text for text in said), said
    joined = await hoa.click(lobby, label="Join")
    assert not any(AWAY in text for text in private_texts(joined))
    assert len(a.tables.tables[lobby_id].seats) == before[2] + 1


async def test_healthz_answers_in_time_while_the_database_hangs(postgres_server):
    """/healthz (Metrics.health) while the server hangs: unhealthy within 3.5 s, saying why,
    however many ask; healthy again once the server goes on."""
    from types import SimpleNamespace

    from bot.db import Database
    from bot.metrics import PROBE_KEPT, Metrics

    db = await Database.open(postgres_server.url(await postgres_server.create_database()))
    checked = Metrics("127.0.0.1", 1, 600)
    checked.bot = SimpleNamespace(is_closed=lambda: False, is_ready=lambda: True, db=db,
                                  shards={0: SimpleNamespace(is_closed=lambda: False)},
                                  tables=SimpleNamespace(gauges=lambda: SimpleNamespace(
                                      outboxes=SimpleNamespace(pending=0, retrying=0, waited=0, failing_for=0))))
    try:
        assert (await checked.health())[0]
        await asyncio.sleep(PROBE_KEPT)
        postgres_server.freeze()
        try:
            started = time.perf_counter()
            answers = await asyncio.wait_for(asyncio.gather(*(checked.health() for _ in range(20))), 10)
            took = time.perf_counter() - started
            assert took < 3.5, f"answered after {took:.1f} s"
            assert all(not healthy and checks["database"] == "no answer within 3 s" for healthy, checks in answers)
            started = time.perf_counter()
            healthy, checks = await asyncio.wait_for(checked.health(), 10)  # and again (a checker retrying)
            assert not healthy and time.perf_counter() - started < 3.5
        finally:
            postgres_server.thaw()
        await asyncio.sleep(PROBE_KEPT)

        async def healthy_again() -> bool:
            return (await checked.health())[0]

        await until("healthy again", healthy_again, 20)
    finally:
        await asyncio.wait_for(db.close(), 15)
