"""One Database API over SQLite and PostgreSQL: the same schema from the same migrations, rows
that behave the same, 64-bit ids and exact epoch seconds, and what several processes on one
PostgreSQL need (migrating at once, settling the same game at once)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3

import pytest

from bot import ledger
from bot.backends import Row
from bot.backends.postgres import placeholders
from bot.db import Database
from bot.schema import MIGRATIONS, TABLES
from tests.support.databases import both_backends

GUILD = 7
BIG = 2**63 - 1  # the largest Discord-style snowflake a signed 64-bit column holds


@pytest.fixture
async def db(database):
    db = await Database.open(database)
    yield db
    await db.close()


async def columns_of(db: Database) -> dict[str, list[str]]:
    if db.backend.name == "postgresql":
        rows = await db.fetchall("SELECT table_name, column_name FROM information_schema.columns"
                                 " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position")
        found: dict[str, list[str]] = {}
        for table, column in rows:
            found.setdefault(table, []).append(column)
        found.pop("schema_version")
        return found
    names = [r["name"] for r in await db.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {name: [r["name"] for r in await db.fetchall(f"PRAGMA table_info({name})")] for name in names}


async def test_one_schema_from_one_migration_history(tmp_path, postgres_server):
    lite = await Database.open(str(tmp_path / "schema.sqlite3"))
    name = await postgres_server.create_database()
    pg = await Database.open(postgres_server.url(name))
    try:
        assert await lite.backend.schema_version() == await pg.backend.schema_version() == len(MIGRATIONS)
        lite_columns, pg_columns = await columns_of(lite), await columns_of(pg)
        assert lite_columns == pg_columns
        assert set(lite_columns) == set(TABLES), "TABLES names every table (copy-database fills them in)"
        # PostgreSQL's own types for what SQLite calls INTEGER and REAL
        types = {(r["table_name"], r["column_name"]): r["data_type"] for r in await pg.fetchall(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema()")}
        assert types["tables", "channel_id"] == types["ledger", "user_id"] == "bigint"
        assert types["tables", "turn_deadline"] == "double precision"
        assert types["games", "id"] == "bigint"
    finally:
        await pg.close()
        await lite.close()
        await postgres_server.drop_database(name)


# The released migrations, as SQLite has run them on every existing database: an entry is
# never edited (its effect on SQLite would change), a new one is appended.
RELEASED = {
    1: "c15afbab15829918", 2: "766deb62cece56b2", 3: "adb3d18b3b78f280", 4: "d2cc371bd2a57537",
    5: "8c3b7a542a5d196e", 6: "19a2ce3bd05a1f8d", 7: "db1529007edd891f", 8: "f6e12ac658da60ff",
    9: "f430c7842a09be73", 10: "1411207fdf82b53b", 11: "7586c6a3fc2bba53",
}


def test_released_migrations_are_never_edited():
    for number, digest in RELEASED.items():
        assert hashlib.sha256(MIGRATIONS[number - 1].encode()).hexdigest()[:16] == digest, f"migration {number}"


async def test_an_old_sqlite_database_migrates_as_before(tmp_path):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version=2")
    conn.execute("INSERT INTO tables (id, guild_id, channel_id, game, options, host_id, status, seats, created_at)"
                 " VALUES (1, 1, 2, 'phom', '{}', 3, 'playing', '[]', 'now')")
    conn.execute("INSERT INTO games (id, table_id, game_no, guild_id, game, seats, options, deck, stake, status,"
                 " started_at) VALUES (5, 1, 1, 1, 'phom', '[]', '{}', '[\"AS\"]', 1, 'playing', 'now')")
    conn.commit()
    conn.close()
    db = await Database.open(str(path))
    try:
        assert await db.backend.schema_version() == len(MIGRATIONS)
        assert (await db.record(5))["decks"] == [["AS"]]
        assert "deck" not in (await db.get_game(5)).keys()
    finally:
        await db.close()


@both_backends
async def test_rows_behave_the_same(db):
    table = await db.insert_table(guild_id=BIG, channel_id=BIG - 1, game="phom", options={"a": 1}, host_id=BIG,
                                  seats=[])
    row = await db.get_table(table)
    assert isinstance(row, Row) and isinstance(row, tuple)
    assert row["guild_id"] == BIG and row["channel_id"] == BIG - 1 and row[0] == row["id"] == table
    assert "guild_id" in row.keys() and dict(row)["options"] == '{"a": 1}'
    (count,) = await db.fetchone("SELECT COUNT(*) FROM tables")
    assert count == 1 and type(count) is int
    assert await db.fetchone("SELECT guild_id, game FROM tables") == (BIG, "phom")
    assert await db.fetchall("SELECT id FROM tables WHERE game = ?", ("none",)) == []
    with pytest.raises(KeyError, match="nope"):
        row["nope"]


@both_backends
async def test_numbers_keep_their_type_and_precision(db):
    table = await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
    deadline = 1_780_000_000.123456  # epoch seconds: 4-byte floats would lose the seconds
    await db.update_table(table, turn_deadline=deadline, lobby_expires_at=1_780_000_900)
    row = await db.get_table(table)
    assert row["turn_deadline"] == deadline and row["lobby_expires_at"] == 1_780_000_900
    game = await db.insert_game(table_id=table, game_no=1, guild_id=GUILD, game="phom", seats=[], options={},
                                decks=[[]], stake=1, seed=2**63 - 2)
    assert (await db.get_game(game))["seed"] == 2**63 - 2
    await ledger.settle(db, game_id=game, guild_id=GUILD, game="phom", entries=[
        ledger.Entry(seat=0, user_id=BIG, name="a", chips=5, ga=1, rank=1, points=None, won=True, detail=[]),
        ledger.Entry(seat=1, user_id=2, name="b", chips=-5, ga=-1, rank=2, points=3, won=False, detail=["x"])])
    balance = await ledger.balance(db, GUILD, BIG)
    assert balance == ledger.Balance(chips=5, ga=1, games=1, wins=1)
    assert all(type(value) is int for value in (balance.chips, balance.ga, balance.games, balance.wins))
    (standing,) = [s for s in await ledger.leaderboard(db, GUILD) if s.user_id == BIG]
    assert type(standing.chips) is int and standing.rounds == 0


@both_backends
async def test_ids_are_numbered_by_the_database(db):
    first = await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
    second = await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
    assert second == first + 1
    assert await db.execute("UPDATE tables SET status = 'finished' WHERE id IN (?, ?)", (first, second)) == 2
    assert await db.execute("UPDATE tables SET status = 'finished' WHERE id = ?", (second + 5,)) == 0


@both_backends
async def test_a_failed_transaction_leaves_nothing_and_transactions_do_not_nest(db):
    table = await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
    with pytest.raises(ZeroDivisionError):
        async with db.transaction():
            await db.update_table(table, status="playing")
            await db.set_meta("k", "v")
            1 / 0
    assert (await db.get_table(table))["status"] == "lobby" and await db.get_meta("k") is None
    with pytest.raises(RuntimeError, match="nest"):
        async with db.transaction():
            async with db.transaction():
                pass
    with pytest.raises(RuntimeError, match="inside a transaction"):
        await db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [("a", "b")])


def test_placeholders_are_numbered_outside_quotes():
    assert placeholders("SELECT ? , '?', \"a?\" FROM t WHERE a = ? AND b = 'it''s ?'") == \
        "SELECT $1 , '?', \"a?\" FROM t WHERE a = $2 AND b = 'it''s ?'"


# ------------------------------------------------------------------- several processes, one PostgreSQL


async def test_processes_starting_at_once_migrate_once(postgres_server):
    name = await postgres_server.create_database()
    try:
        dbs = await asyncio.gather(*(Database.open(postgres_server.url(name)) for _ in range(3)))
        try:
            assert [await db.backend.schema_version() for db in dbs] == [len(MIGRATIONS)] * 3
            (versions,) = await dbs[0].fetchone("SELECT COUNT(*) FROM schema_version")
            assert versions == 1
        finally:
            for db in dbs:
                await db.close()
    finally:
        await postgres_server.drop_database(name)


async def test_two_processes_settling_one_game_write_it_once(postgres_server):
    name = await postgres_server.create_database()
    first = await Database.open(postgres_server.url(name))
    second = await Database.open(postgres_server.url(name))
    try:
        table = await first.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
        games = [await first.insert_game(table_id=table, game_no=no, guild_id=GUILD, game="phom", seats=[],
                                         options={}, decks=[[]], stake=1) for no in range(1, 21)]

        async def settle(db: Database, game_id: int) -> bool:
            return await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=[
                ledger.Entry(seat=s, user_id=100 + s, name=f"p{s}", chips=c, ga=0, rank=s + 1, points=None,
                             won=s == 0, detail=[]) for s, c in enumerate((2 * game_id, -game_id, -game_id))])

        results = await asyncio.gather(*(settle(db, g) for g in games for db in (first, second)))
        assert sum(results) == len(games), "each game settles exactly once"
        rows = await second.fetchall("SELECT game_id, SUM(chips) AS total, COUNT(*) AS seats FROM ledger"
                                     " GROUP BY game_id")
        assert len(rows) == len(games) and all(r["total"] == 0 and r["seats"] == 3 for r in rows)
    finally:
        await first.close()
        await second.close()
        await postgres_server.drop_database(name)
