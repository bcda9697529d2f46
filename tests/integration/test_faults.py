"""Nothing lost under faults: results that cannot be posted, settlements that fail, lobbies
that nobody starts, restarts in the middle of a turn, and bad input from clients."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3

from bot import ledger
from bot.games.french import FULL_DECK
from tests.support.databases import both_backends
from tests.support.simhelpers import (Players, buttons, dm, enabled, fail_posts, forged_select, game_over, ledger_rows,
                              let_the_clock_play, play_channel, play_until_over, private_texts, select_id, start_table,
                              table_of)


def posts_to(env, channel) -> None:
    """Make the next post to ``channel`` fail as when a permission was removed."""
    env.inject_error("POST", f"/channels/{channel.id}/messages", status=403, code=50013, times=1)


def result_messages(channel) -> list:
    return [m for m in channel.history() if m.embeds and "— result" in (m.embeds[0].title or "")]


async def test_a_result_that_cannot_be_posted_is_retried_with_backoff(simcord_env, caplog):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    thread = play_channel(players)
    posts_to(env, thread)
    posts_to(env, players.channel)
    with caplog.at_level(logging.WARNING):
        await play_until_over(players, lan)
    table = table_of(env)
    assert table.status == "finished" and not game_over(players)
    assert len(await ledger_rows(env, table.game_id)) == 2  # the chips are written already
    assert any("showing result" in r.getMessage() for r in caplog.records)

    await env.advance_time(8)  # first backoff: 5 s, and up to half as much again of jitter
    assert game_over(players) and len(result_messages(thread)) == 1
    assert (await env.bot.db.get_game(table.game_id))["result_message_id"] == thread.last_message.id


async def test_a_locked_thread_gets_the_result_in_the_channel(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    env.inject_error("POST", f"/channels/{play_channel(players).id}/messages", status=403, code=50083, times=None)
    await play_until_over(players, lan)
    (posted,) = result_messages(players.channel)
    assert "Rematch" in buttons(posted) and posted.attachments[0].filename == "result.png"


@both_backends
async def test_a_result_that_never_reached_the_table_is_posted_at_restore(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    thread = play_channel(players)
    fail_posts(env, thread, players.channel)
    await play_until_over(players, lan)
    for delay in (5, 15, 60, 300):
        await env.advance_time(delay)
    assert result_messages(thread) == [] and result_messages(players.channel) == []
    env.backend.faults.clear()  # the outage is over

    await env.restart_bot(bot_factory())
    (posted,) = result_messages(thread)
    await lan.click(posted, label="Rematch")
    assert "Waiting for players" in thread.last_message.embeds[0].description


async def test_a_result_whose_image_fails_is_posted_without_it(simcord_env, monkeypatch):
    env = simcord_env

    async def broken(*args, **kwargs):
        raise OSError("out of memory in the renderer")

    monkeypatch.setattr("bot.tables.results.render_rows_async", broken)
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    await play_until_over(players, lan)
    (posted,) = result_messages(play_channel(players))
    assert posted.attachments == [] and "Ranking" in [f.name for f in posted.embeds[0].fields]


def refuse_writes_once_over(env, table) -> list:
    """Every database write fails (a full disk, a read-only file) from the moment the move that
    ends the game is written, until the test clears the list returned."""
    db = env.bot.db
    refusing: list[bool] = []
    append_action = db.append_action

    async def append_then_refuse(*args, **kwargs):
        await append_action(*args, **kwargs)
        if table.state.is_over:
            refusing.append(True)

    def refused(write):
        async def attempt(*args, **kwargs):
            if refusing:
                raise sqlite3.OperationalError("database or disk is full")
            return await write(*args, **kwargs)
        return attempt

    db.append_action = append_then_refuse
    for name in ("execute", "insert", "executemany"):
        setattr(db.backend, name, refused(getattr(db.backend, name)))
    return refusing


async def test_a_game_ending_while_every_database_write_fails_shows_its_result(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    table = table_of(env)
    refusing = refuse_writes_once_over(env, table)
    await play_until_over(players, lan)
    await env.settle()
    assert refusing, "the game ended while the database refused every write"
    assert game_over(players), "the result is shown at once, whatever the database does"
    (posted,) = result_messages(play_channel(players))
    assert "could not be recorded yet; they will be" in posted.embeds[0].description
    assert posted.attachments[0].filename == "result.png"
    assert await ledger_rows(env, table.game_id) == []
    refused = await lan.click(posted, label="Rematch")
    assert refused.ephemeral and "still being saved" in refused.response.content

    refusing.clear()  # the database takes writes again: the saving behind the result goes on
    await env.advance_time(8)
    rows = await ledger_rows(env, table.game_id)
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    assert table.status == "finished" and (await env.bot.db.get_table(table.id))["status"] == "finished"
    assert len(result_messages(play_channel(players))) == 1
    await lan.click(posted, label="Rematch")
    assert "Waiting for players" in play_channel(players).last_message.embeds[0].description


async def test_a_settlement_that_hangs_does_not_hold_the_result_back(simcord_env, monkeypatch):
    """The database takes its time (a lock held by another process): the result is shown after
    a moment, saying the chips will be recorded; they are, once the database answers."""
    env = simcord_env
    real_settle = ledger.settle

    async def slow(*args, **kwargs):
        await asyncio.sleep(30)
        return await real_settle(*args, **kwargs)

    monkeypatch.setattr(ledger, "settle", slow)
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    await play_until_over(players, lan)
    await env.advance_time(2)
    assert game_over(players), "the result does not wait for a database that hangs"
    (posted,) = result_messages(play_channel(players))
    assert "they will be" in posted.embeds[0].description
    await env.advance_time(30)
    table = table_of(env)
    rows = await ledger_rows(env, table.game_id)
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0 and not env.bot.tables.unsettled


async def test_a_settlement_that_fails_is_retried_and_the_table_is_not_stuck(simcord_env, monkeypatch):
    env = simcord_env
    real_settle = ledger.settle
    failures = []

    async def flaky(*args, **kwargs):
        if len(failures) < 2:
            failures.append(1)
            raise sqlite3.OperationalError("disk I/O error")
        return await real_settle(*args, **kwargs)

    monkeypatch.setattr(ledger, "settle", flaky)
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    await play_until_over(players, lan)
    table = table_of(env)
    assert game_over(players), "the result does not wait for the chips to be recorded"
    assert "they will be" in result_messages(play_channel(players))[0].embeds[0].description
    assert await ledger_rows(env, table.game_id) == []
    waited = 0
    while not await ledger_rows(env, table.game_id) and waited < 60:
        await env.advance_time(1)
        waited += 1
    # two failures: the settlement waits out the backoff (5–7.5 s, then 10–15 s), behind the result
    rows = await ledger_rows(env, table.game_id)
    assert len(failures) == 2 and len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    assert 15 <= waited <= 23, f"settled after {waited} s"
    assert game_over(players) and table.status == "finished"


@both_backends
async def test_a_settlement_failing_for_good_is_written_at_the_next_start(simcord_env, bot_factory, monkeypatch):
    env = simcord_env
    real_settle = ledger.settle

    async def down(*args, **kwargs):
        raise sqlite3.OperationalError("database disk image is malformed")

    monkeypatch.setattr(ledger, "settle", down)
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    await play_until_over(players, lan)
    game_id = table_of(env).game_id
    for delay in (5, 15, 60, 300):
        await env.advance_time(delay)
    assert game_over(players), "the table finishes even though its chips are not written yet"
    assert "could not be recorded" in play_channel(players).history()[-2].embeds[0].fields[-1].value
    assert await ledger_rows(env, game_id) == []

    monkeypatch.setattr(ledger, "settle", real_settle)
    await env.restart_bot(bot_factory())
    rows = await ledger_rows(env, game_id)
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    assert (await env.bot.db.get_game(game_id))["status"] == "finished"


@both_backends
async def test_many_tables_finishing_at_once_all_settle_once(simcord_env):
    env = simcord_env
    tables = []
    for _ in range(6):
        await start_table(env, "phom", 1, 3, turn_seconds=30)
        tables.append(env.bot.tables.tables[max(env.bot.tables.tables)])
    # nobody clicks: every table is played by its timer, so all of them end within moments
    for _ in range(40):
        if all(t.status == "finished" for t in tables):
            break
        await env.advance_time(30)
    assert all(t.status == "finished" for t in tables)
    for _ in range(10):  # a settlement that failed (two at once may deadlock) goes on behind its result
        if not env.bot.tables.unsettled:
            break
        await env.advance_time(30)
    for table in tables:
        rows = await ledger_rows(env, table.game_id)
        assert len(rows) == 4 and sum(r["chips"] for r in rows) == 0
    (count,) = await env.bot.db.fetchone("SELECT COUNT(*) FROM settlements")
    assert count == 6


async def test_a_refusal_discord_refuses_is_noted_once_quietly(simcord_env, caplog):
    """Discord refuses the private answer to a refused click: nothing is left to tell the
    clicker, so it is logged once (no traceback), and nothing escapes the click's handler."""
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    env.inject_error("POST", "/interactions/*/callback", status=503, times=1)
    with caplog.at_level(logging.INFO):
        await minh.click(players.channel.last_message, label="Start")  # only the host starts
    assert env.errors == [] and not [r for r in caplog.records if r.levelno >= logging.ERROR]
    noted = [r for r in caplog.records if "was refused too" in r.getMessage()]
    assert len(noted) == 1 and noted[0].exc_info is None and noted[0].levelno == logging.INFO


# ------------------------------------------------------------------------------------ lobbies


async def test_a_lobby_nobody_starts_expires(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    lobby = players.channel.last_message
    await minh.click(lobby, label="Join")
    await env.advance_time(899)
    assert "Waiting for players" in players.channel.last_message.embeds[0].description
    await env.advance_time(2)
    lobby = players.channel.last_message
    assert "Expired" in lobby.embeds[0].description and enabled(lobby) == set()
    assert env.bot.tables.tables == {}
    refused = await minh.click(lobby, label="Join") if "Join" in enabled(lobby) else None
    assert refused is None
    again = await lan.slash(players.channel, "phom new")
    assert not again.ephemeral


async def test_one_open_lobby_per_host_per_channel(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    second = await lan.slash(players.channel, "chan new")
    assert second.ephemeral and "already have an open lobby" in second.response.content
    other = await minh.slash(players.channel, "chan new")
    assert not other.ephemeral
    elsewhere = players.guild.create_text_channel("more-cards")
    assert not (await lan.slash(elsewhere, "tusac new")).ephemeral


async def test_the_channel_limits_count_tables_another_process_drives(simcord_env):
    """On PostgreSQL another process may drive some of a channel's tables (it adopted them):
    the one-lobby-per-host and tables-per-channel limits read the database, not this process."""
    env = simcord_env
    env.bot.tables.config = env.bot.config.with_overrides(max_tables_per_channel=2)
    players = Players(env, 3)
    lan, minh, duc = players.members
    elsewhere = {"guild_id": players.guild.id, "channel_id": players.channel.id, "game": "phom", "options": {},
                 "seats": []}
    lobby = await env.bot.db.insert_table(host_id=lan.user.id, **elsewhere)  # another process's lobby
    assert lobby not in env.bot.tables.tables
    second = await lan.slash(players.channel, "chan new")
    assert second.ephemeral and f"already have an open lobby here (table #{lobby})" in second.response.content
    playing = await env.bot.db.insert_table(host_id=minh.user.id, **elsewhere)
    await env.bot.db.update_table(playing, status="playing")
    full = await duc.slash(players.channel, "chan new")
    assert full.ephemeral and "already has 2 open tables" in full.response.content


@both_backends
async def test_lobby_expiry_survives_a_restart(simcord_env, bot_factory):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await lan.slash(players.channel, "phom new")
    await env.advance_time(600)
    await env.restart_bot(bot_factory())
    await env.advance_time(301)
    assert "Expired" in players.channel.last_message.embeds[0].description
    assert env.bot.tables.tables == {}


# ------------------------------------------------------------------------ turns and restarts


@both_backends
async def test_turn_deadline_and_timeouts_survive_a_restart(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, turn_seconds=60)
    (lan,) = players.members
    await env.advance_time(60)  # first timeout: the AI discards for Lan
    table = table_of(env)
    seat = table.seat_of(lan.id)
    assert table.timeouts[seat] == 1 and not table.seats[seat].away
    version = table.version
    assert seat in table.state.to_act  # Lan's turn again, after the AI seat's reply
    await env.advance_time(40)

    await env.restart_bot(bot_factory())
    table = table_of(env)
    assert table.timeouts[seat] == 1 and table.version == version
    await env.advance_time(21)  # the original deadline (60 s after the turn began) has passed
    assert table.version > version, "the restored timer fires when the original would have"
    assert table.seats[seat].away, "the timeout before the restart still counts"


# ------------------------------------------------------------------------- bad input, names


async def test_a_forged_select_keeps_only_cards_the_seat_holds(simcord_env):
    env = simcord_env
    lan_hand = ["7H", "KS", "KD", "QC", "2C", "9D", "JS", "4C", "TS", "3D"]
    rest = [c for c in FULL_DECK if c not in lan_hand]
    random.Random(5).shuffle(rest)  # (in pack order the AI would be dealt AS–9S: an ù at the deal)
    pack = lan_hand + rest
    players = await start_table(env, "phom", 1, 1, deck=pack)
    (lan,) = players.members
    table = table_of(env)
    seat = table.seat_of(lan.id)
    hand = dm(lan)
    result = await forged_select(env, lan.user, hand, select_id(hand), ["KS", "AS", "<script>", "KS#2"])
    assert private_texts(result) == []
    assert table.selection[seat] == ["KS"]


async def test_a_member_named_like_a_seat_never_rewrites_the_result(simcord_env):
    env = simcord_env
    players = Players(env, 2, names=("Seat 1", "AI 1"))
    seat_one, ai_one = players.members
    await seat_one.slash(players.channel, "phom new", seats=2)
    await ai_one.click(players.channel.last_message, label="Join")
    await seat_one.click(players.channel.last_message, label="Start")
    await let_the_clock_play(players, turns=40)
    result = play_channel(players).last_message.embeds[0]
    table = table_of(env)
    winner = table.state.outcome().winner
    assert result.description.startswith(table.seats[winner].name + " ")
    ranking = result.fields[0].value
    assert ranking.count("**1. ") == 1 and "Seat 1" in ranking and "AI 1" in ranking
    assert ranking.index(table.seats[winner].name) < ranking.index(table.seats[1 - winner].name)
