"""``chieu copy-database``: a SQLite database into an empty PostgreSQL one, every row with its
id, in one transaction, identity sequences advanced past the copied ids."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from bot import __main__ as cli
from bot import ledger
from bot.copy_database import CopyError, copy_database
from bot.db import SCHEMA_WRITER, Database
from bot.schema import TABLES

GUILD = 7


async def fill(db: Database, games: int = 6) -> None:
    await db.set_meta("commands_digest", "abc")
    await db.set_user_language(2**62 + 5, "vi", True)
    await db.set_user_notify(11, "mention", "en")
    for number in range(games):
        table = await db.insert_table(guild_id=GUILD, channel_id=100 + number, game="chinchon", options={"stake": 2},
                                      host_id=11, seats=[{"user_id": 11}], guild_name="Nhà")
        await db.update_table(table, status="playing", turn_deadline=1_780_000_000.25 + number, game_no=1)
        async with db.transaction():
            game = await db.insert_game(table_id=table, game_no=1, guild_id=GUILD, game="chinchon", seats=[],
                                        options={"target": 100}, decks=[["AS", "2S"], ["3S"]], stake=2, seed=number)
        for idx in range(5):
            await db.append_action(game, idx, idx % 2, f"discard {idx}", 1_780_000_000.5)
        await db.save_hand_message(game, 0, 900 + number, 2**62 + number)
        if number % 2 == 0:
            await ledger.settle(db, game_id=game, guild_id=GUILD, game="chinchon", outcome={"winner": 0}, entries=[
                ledger.Entry(seat=0, user_id=11, name="Lan", chips=4, ga=0, rank=1, points=None, won=True,
                             detail=["thắng"], rounds=3),
                ledger.Entry(seat=1, user_id=None, name="AI 1", chips=-4, ga=0, rank=2, points=12, won=False,
                             detail=[], rounds=3)])
            await db.set_result_message(game, 5000 + number)


async def everything(db: Database) -> dict[str, list[tuple]]:
    found = {}
    for table in TABLES:
        rows = await db.fetchall(f"SELECT * FROM {table}")
        found[table] = sorted((tuple(sorted(dict(r).items())) for r in rows), key=repr)
    return found


async def test_every_row_is_copied_with_its_id_and_new_ids_follow(tmp_path, postgres_server):
    source = str(tmp_path / "old.sqlite3")
    lite = await Database.open(source)
    await fill(lite)
    before = await everything(lite)
    board = await ledger.leaderboard(lite, GUILD)
    await lite.close()

    name = await postgres_server.create_database()
    url = postgres_server.url(name)
    try:
        said = []
        copied = await copy_database(source, url, say=said.append)
        assert copied == {table: len(rows) for table, rows in before.items()} and copied["actions"] == 30
        assert said[-1].startswith(f"copied {sum(copied.values())} rows in ")

        pg = await Database.open(url)
        try:
            assert await everything(pg) == before
            assert await ledger.leaderboard(pg, GUILD) == board
            (last_table,) = await pg.fetchone("SELECT MAX(id) FROM tables")
            new = await pg.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
            assert new == last_table + 1, "the identity sequence starts after the copied ids"
            (last_game,) = await pg.fetchone("SELECT MAX(id) FROM games")
            assert await pg.insert_game(table_id=new, game_no=1, guild_id=GUILD, game="phom", seats=[], options={},
                                        decks=[[]], stake=1) == last_game + 1
        finally:
            await pg.close()

        with pytest.raises(CopyError, match="not empty"):
            await copy_database(source, url)
    finally:
        await postgres_server.drop_database(name)


async def test_a_copy_that_fails_leaves_the_target_empty(tmp_path, postgres_server):
    source = tmp_path / "broken.sqlite3"
    lite = await Database.open(str(source))
    await fill(lite, games=2)
    await lite.close()
    # a ledger row of a game never settled: SQLite without foreign keys let it in, PostgreSQL won't
    conn = sqlite3.connect(source)
    conn.execute("INSERT INTO ledger (game_id, guild_id, game, seat, name, chips, rank, won, detail, at)"
                 " VALUES (999, 7, 'phom', 0, 'x', 0, 1, 0, '[]', 'now')")
    conn.commit()
    conn.close()

    name = await postgres_server.create_database()
    try:
        with pytest.raises(Exception, match="foreign key"):
            await copy_database(str(source), postgres_server.url(name))
        pg = await Database.open(postgres_server.url(name))
        try:
            for table in TABLES:  # (but which version made the schema: the migrations write it)
                mine = f" WHERE key != '{SCHEMA_WRITER}'" if table == "meta" else ""
                assert await pg.fetchall(f"SELECT * FROM {table}{mine}") == [], table
        finally:
            await pg.close()
    finally:
        await postgres_server.drop_database(name)


def test_the_command(tmp_path, postgres_server, capsys, monkeypatch):
    source = str(tmp_path / "chieu.sqlite3")

    async def make() -> str:
        lite = await Database.open(source)
        await fill(lite, games=1)
        await lite.close()
        return await postgres_server.create_database()

    name = asyncio.run(make())
    try:
        assert cli.main(["copy-database", source, postgres_server.url(name)]) == 0
        out = capsys.readouterr().out
        assert "  ledger: 2 rows" in out and "copied " in out
        assert cli.main(["copy-database", source, postgres_server.url(name)]) == 1
        assert "the target is not empty" in capsys.readouterr().err
        # the target may come from the config's `database`
        config = tmp_path / "config.toml"
        config.write_text(f'database = "{postgres_server.url(name)}"\n')
        assert cli.main(["--config", str(config), "copy-database", str(tmp_path / "missing.sqlite3")]) == 1
        assert "no SQLite file" in capsys.readouterr().err
    finally:
        asyncio.run(postgres_server.drop_database(name))
