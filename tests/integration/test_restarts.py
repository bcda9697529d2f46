"""Every game survives a restart of the bot in the middle of a game, on SQLite and on
PostgreSQL: the record is the same after the restore, the clock plays on, and the game is
settled exactly once, zero-sum. And a bot moved from SQLite to PostgreSQL mid-game
(``chieu copy-database``), or started on a backup taken mid-game (``chieu backup``), plays the
game on."""

from __future__ import annotations

import logging
import shutil
import sqlite3

import pytest

from bot.backup import backup_database
from bot.copy_database import copy_database
from tests.support.databases import both_backends
from tests.support.simhelpers import game_over, ledger_rows, start_table, table_of

# game -> (AI seats, lobby options): small matches for the games of several rounds
GAMES = {
    "phom": (1, {}),
    "chan": (2, {}),
    "tusac": (2, {}),
    "chinchon": (1, {"target": 20}),
    "concan": (1, {"rounds": 1}),
}
PATIENT = {"away_after_timeouts": 1000}  # Lan never goes away: each minute is one of his turns


async def play_on(env, *, minutes: int) -> None:
    """Nobody clicks for ``minutes`` (Lan's turns time out and the AI plays them), or until
    the table finishes."""
    for _ in range(minutes):
        if table_of(env).status == "finished":
            return
        await env.advance_time(60)


async def assert_settled_once(env, players, seats: int) -> None:
    table = table_of(env)
    assert table.status == "finished" and game_over(players)
    rows = await ledger_rows(env, table.game_id)
    assert len(rows) == seats and sum(r["chips"] for r in rows) == 0
    (settlements,) = await env.bot.db.fetchone("SELECT COUNT(*) FROM settlements")
    assert settlements == 1
    assert (await env.bot.db.get_game(table.game_id))["status"] == "finished"


@both_backends
@pytest.mark.parametrize("game", GAMES)
async def test_a_restart_in_mid_game(simcord_env, bot_factory, game):
    env = simcord_env
    ai, options = GAMES[game]
    env.bot.tables.config = env.bot.config.with_overrides(**PATIENT)
    players = await start_table(env, game, 1, ai, seed=3, **options)
    await play_on(env, minutes=2)
    before = table_of(env)
    assert before.status == "playing" and before.version > 0, "the game is under way"
    record, deadline = before.state.record(), before.deadline

    await env.restart_bot(bot_factory(**PATIENT))
    after = table_of(env)
    assert after is not before and after.state.record() == record and after.deadline == deadline

    await play_on(env, minutes=400)
    await assert_settled_once(env, players, 1 + ai)


async def test_a_game_moved_to_postgresql_plays_on(simcord_env, bot_factory, backend, postgres_server):
    env = simcord_env
    assert backend == "sqlite"
    env.bot.tables.config = env.bot.config.with_overrides(**PATIENT)
    players = await start_table(env, "phom", 1, 1, seed=5)
    await play_on(env, minutes=1)
    record = table_of(env).state.record()
    await env.bot.release()  # the bot stops, then its database is copied

    name = await postgres_server.create_database()
    try:
        url = postgres_server.url(name)
        await copy_database(env.bot.config.database, url)
        await env.restart_bot(bot_factory(database=url, **PATIENT))
        assert env.bot.db.backend.name == "postgresql"
        assert table_of(env).state.record() == record
        await play_on(env, minutes=100)
        await assert_settled_once(env, players, 2)
        await env.bot.release()
    finally:
        await postgres_server.drop_database(name)


async def test_a_backup_taken_mid_game_restores_the_game_in_a_new_bot(simcord_env, bot_factory, backend, tmp_path):
    env = simcord_env
    assert backend == "sqlite"
    env.bot.tables.config = env.bot.config.with_overrides(**PATIENT)
    players = await start_table(env, "phom", 1, 1, seed=5)
    await play_on(env, minutes=2)
    record = table_of(env).state.record()
    backup = tmp_path / "backups" / "chieu.sqlite3"
    backup.parent.mkdir()
    await backup_database(env.bot.config.database, str(backup))  # while the bot runs
    await play_on(env, minutes=1)
    assert table_of(env).state.record() != record, "the bot played on: moves the backup does not hold"
    await env.bot.release()

    # the restore: the backup file put where the new bot's database is. It holds the game as it
    # was when backed up; the new bot then plays the turns whose time ran out since.
    restored = tmp_path / "restored.sqlite3"
    shutil.copyfile(backup, restored)
    with sqlite3.connect(restored) as copy:
        assert copy.execute("SELECT COUNT(*) FROM actions").fetchone() == (len(record["actions"]),)
    await env.restart_bot(bot_factory(database=str(restored), **PATIENT))
    actions = table_of(env).state.record()["actions"]
    assert actions[:len(record["actions"])] == record["actions"]
    await play_on(env, minutes=100)
    await assert_settled_once(env, players, 2)


async def test_a_table_that_cannot_be_rebuilt_does_not_keep_the_others_from_coming_back(simcord_env, bot_factory,
                                                                                          caplog):
    """A record the engine no longer replays (a rule changed under a live game: Concan's round
    limit) used to stop the whole restore at the start: now only that table stays down."""
    env = simcord_env
    env.bot.tables.config = env.bot.config.with_overrides(**PATIENT)
    broken_players = await start_table(env, "phom", 1, 1, seed=3)
    healthy_players = await start_table(env, "phom", 1, 1, seed=4)
    await env.advance_time(120)
    broken, healthy = (next(t for t in env.bot.tables.tables.values() if t.channel_id == p.channel.id)
                       for p in (broken_players, healthy_players))
    assert broken.version > 0 and healthy.version > 0
    await env.bot.db.execute("UPDATE actions SET action = 'discard ZZ' WHERE game_id = ? AND idx = 0",
                             (broken.game_id,))
    record = healthy.state.record()

    with caplog.at_level(logging.ERROR):
        await env.restart_bot(bot_factory(**PATIENT))
    assert any(f"table {broken.id} could not be rebuilt" in r.getMessage() for r in caplog.records)
    tables = env.bot.tables.tables
    assert broken.id not in tables and tables[healthy.id].state.record() == record
    for _ in range(400):
        if tables[healthy.id].status == "finished":
            break
        await env.advance_time(60)
    assert tables[healthy.id].status == "finished"
