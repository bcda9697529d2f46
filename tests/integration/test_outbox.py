"""Never stuck: every message a table shows goes through its outbox, which retries each one on
its own, and nothing that drives a game dies with a failed Discord call or database write.
One test (or two) per way a table used to freeze or lose its result."""

from __future__ import annotations

import re
import sqlite3

from tests.support.databases import both_backends
from tests.support.simhelpers import (Players, buttons, dm, enabled, fail_posts, game_over, hand_dms, ledger_rows,
                              play_channel, play_until_over, private_texts, quick_move, start_table, table_of)

NOT_SAVED = "could not be saved"


def results_by_game(*channels) -> dict[int, int]:
    """game number -> how many result messages show it, over the table's thread and channel."""
    counts: dict[int, int] = {}
    for channel in channels:
        for message in channel.history():
            title = message.embeds[0].title if message.embeds else ""
            if match := re.search(r"game (\d+) — result", title or ""):
                counts[int(match.group(1))] = counts.get(int(match.group(1)), 0) + 1
    return counts


async def open_in_channel(env, players: Players, **options):
    """A lobby whose game will play in the channel itself (the thread cannot be opened), so
    that a test knows where the table posts before the deal."""
    host = players.members[0]
    await host.slash(players.channel, "phom new", **options)
    for member in players.members[1:]:
        await member.click(players.channel.last_message, label="Join")
    env.inject_error("POST", f"/channels/{players.channel.id}/messages/*/threads", status=403, code=50013,
                     times=None)
    return players.channel.last_message


class FailingWrites:
    """The next ``times`` moves (of ``seat``, or anyone's) cannot be written (the database is
    locked by another process)."""

    def __init__(self, db, times: int, seat: int | None = None) -> None:
        self.times, self.seat, self.real = times, seat, db.append_action
        db.append_action = self

    async def __call__(self, game_id, idx, seat, *args, **kwargs):
        if self.times > 0 and self.seat in (None, seat):
            self.times -= 1
            raise sqlite3.OperationalError("database is locked")
        return await self.real(game_id, idx, seat, *args, **kwargs)


# 1 -------------------------------------------------------------------------------------------
async def test_a_game_nobody_was_shown_is_never_played_for_them_and_can_be_cancelled(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    lobby = await open_in_channel(env, players, seats=2)
    await lan.click(lobby, label="Add AI")
    env.inject_error("POST", f"/channels/{players.channel.id}/messages", status=503, times=None)
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=503, times=None)
    await lan.click(lobby, label="Start")
    table = table_of(env)
    assert table.status == "playing" and table.table_message_id is None and hand_dms(lan) == []

    for _ in range(5):
        await env.advance_time(60)  # five turns' time: Lan has no hand, so nobody plays for him
    assert table.version == 0 and table.timeouts.get(0, 0) == 0

    lobby = players.channel.history()[0]
    assert "Cancel" in enabled(lobby), "the host may still cancel a game nobody saw"
    await lan.click(lobby, label="Cancel")
    assert table.status == "cancelled" and env.bot.tables.tables == {}
    game = await env.bot.db.get_game(table.game_id)
    assert game["status"] == "aborted" and await ledger_rows(env, table.game_id) == []

    env.backend.faults.clear()
    await env.advance_time(400)  # the outbox has nothing left to show for a cancelled game
    assert hand_dms(lan) == [] and not any(m.embeds and "My hand" in buttons(m) for m in players.channel.history())


@both_backends
async def test_after_a_restart_the_turn_starts_when_the_hand_arrives(simcord_env, bot_factory):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    lobby = await open_in_channel(env, players, seats=2)
    await lan.click(lobby, label="Add AI")
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=503, times=None)
    await lan.click(lobby, label="Start")
    await env.restart_bot(bot_factory())
    table = table_of(env)
    for _ in range(5):
        await env.advance_time(60)
    assert table.version == 0, "no AI plays for a person who was never shown his hand"

    env.backend.faults.clear()
    for _ in range(60):  # until the next try of the hand DM
        if hand_dms(lan):
            break
        await env.advance_time(10)
    assert len(hand_dms(lan)) == 1 and "Your turn" in dm(lan).content and table.version == 0
    await env.advance_time(50)
    assert table.version == 0, "his minute starts when the hand reached him"
    await env.advance_time(15)
    assert table.version >= 1 and table.timeouts[0] == 1


# 2 -------------------------------------------------------------------------------------------
async def test_a_failed_dm_and_a_failed_notice_do_not_stop_the_deal(simcord_env):
    env = simcord_env
    players = Players(env, 3)
    lan, minh, duc = players.members
    lobby = await open_in_channel(env, players)
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    env.inject_error("POST", f"/channels/{players.channel.id}/messages", status=503, times=2)
    await lan.click(lobby, label="Start")
    assert len(hand_dms(minh)) == 1 and len(hand_dms(duc)) == 1, "the later seats got their hands"
    assert not any("can't send you a DM" in m.content for m in players.channel.history())

    await env.advance_time(8)  # the table message and the notice, on their next try
    notice = next(m for m in players.channel.history() if "can't send you a DM" in m.content)
    assert f"<@{lan.id}>" in notice.content
    board = next(m for m in players.channel.history() if m.embeds and "My hand" in buttons(m))
    hand = (await lan.click(board, label="My hand")).response
    await lan.click(hand, label="Quick Select")
    await lan.click(hand, label="Discard")
    table = table_of(env)
    assert table.version == 1 and 1 in table.state.to_act
    assert "Your turn" in dm(minh).content, "the next player's hand is brought up to date"


# 3 -------------------------------------------------------------------------------------------
async def test_a_timeout_move_that_cannot_be_written_is_tried_again(simcord_env):
    env = simcord_env
    await start_table(env, "phom", 1, 1)
    table = table_of(env)
    FailingWrites(env.bot.db, 1)
    await env.advance_time(60)
    assert table.version == 0 and table.timeouts.get(0, 0) == 0, "a move that was not written did not happen"
    await env.advance_time(8)
    assert table.version >= 1 and table.timeouts[0] == 1


async def test_an_ai_move_that_cannot_be_written_is_tried_again(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    table = table_of(env)
    writes = FailingWrites(env.bot.db, 2, seat=1)  # the AI's reply, twice
    await lan.user.click(dm(lan), label="Quick Select")
    assert private_texts(await lan.user.click(dm(lan), label="Discard")) == []
    assert table.version == 1 and table.state.to_act == (1,)
    await env.advance_time(8)
    await env.advance_time(16)
    assert writes.times == 0 and table.state.to_act == (0,), "the AI played once the database took it"
    assert "Your turn" in dm(lan).content


# 4 -------------------------------------------------------------------------------------------
async def test_a_click_whose_move_cannot_be_saved_is_told_so_and_changes_nothing(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    table = table_of(env)
    record = table.state.record()
    await lan.user.click(dm(lan), label="Quick Select")
    FailingWrites(env.bot.db, 1)
    told = private_texts(await lan.user.click(dm(lan), label="Discard"))
    assert len(told) == 1 and NOT_SAVED in told[0]
    assert table.version == 0 and table.state.record() == record
    assert (await env.bot.db.actions(table.game_id)) == []
    assert private_texts(await lan.user.click(dm(lan), label="Discard")) == []  # the same click, again
    assert table.version >= 1


# 5 -------------------------------------------------------------------------------------------
@both_backends
async def test_a_rematch_from_an_older_result_never_loses_or_repeats_the_newest(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    thread = play_channel(players)
    await play_until_over(players, lan)
    first_result = thread.last_message
    await lan.click(first_result, label="Rematch")
    await lan.click(thread.last_message, label="Start")
    fail_posts(env, thread, players.channel)  # the second result cannot be posted for a while
    await play_until_over(players, lan)
    table = table_of(env)
    assert table.status == "finished" and results_by_game(thread, players.channel) == {1: 1}

    await lan.click(first_result, label="Rematch")  # its button is still live
    await lan.click(thread.last_message, label="Start")
    assert table.game_no == 3
    await env.restart_bot(bot_factory())
    env.backend.faults.clear()
    await env.advance_time(10)
    assert results_by_game(thread, players.channel) == {1: 1, 2: 1}
    await env.advance_time(400)  # (the clock may play game 3 out meanwhile)
    counts = results_by_game(thread, players.channel)
    assert {1, 2} <= counts.keys() and set(counts.values()) == {1}, "posted once, whatever retried"


# 6 -------------------------------------------------------------------------------------------
@both_backends
async def test_a_rematch_whose_answer_fails_still_opens_a_lobby_that_survives_a_restart(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    thread = play_channel(players)
    await play_until_over(players, lan)
    result = thread.last_message
    env.inject_error("POST", "/interactions/*/callback", status=503, times=1)
    await lan.click(result, label="Rematch")
    lobby = thread.last_message
    assert lobby.id != result.id and "Waiting for players" in lobby.embeds[0].description
    table = table_of(env)
    assert (await env.bot.db.get_table(table.id))["lobby_message_id"] == lobby.id

    await env.restart_bot(bot_factory())
    await lan.click(lobby, label="Start")
    assert table_of(env).status == "playing" and table_of(env).game_no == 2


# 7 -------------------------------------------------------------------------------------------
async def test_a_deleted_table_message_is_posted_anew(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    table = table_of(env)
    thread = play_channel(players)
    old = table.table_message_id
    env.backend.delete_message(thread.id, old)
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert table.table_message_id != old and "My hand" in buttons(thread.last_message)
    assert (await env.bot.db.get_table(table.id))["table_message_id"] == table.table_message_id
    assert str(table.table_message_id) in next(b.url for b in buttons(dm(lan)).values() if b.url)


async def test_a_player_who_blocked_the_bot_does_not_stop_the_others_hands(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 3, 0)
    lan, minh, duc = players.members
    env.inject_error("PATCH", f"/channels/{minh.user.dm_channel.id}/messages/*", status=403, code=50007,
                     times=None)
    env.inject_error("POST", f"/channels/{minh.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    assert await quick_move(lan.user, lambda: dm(lan)) == []  # minh's turn: his hand cannot be edited
    thread = play_channel(players)
    assert any("can't send you a DM" in m.content and f"<@{minh.id}>" in m.content for m in thread.history())
    board = next(m for m in thread.history() if m.embeds and "My hand" in buttons(m))
    hand = (await minh.click(board, label="My hand")).response
    await minh.click(hand, label="Draw")
    await minh.click(hand, label="Quick Select")
    await minh.click(hand, label="Discard")
    assert table_of(env).state.to_act == (2,)
    assert "Your turn" in dm(duc).content, "Duc's hand still follows the game"


# 8 -------------------------------------------------------------------------------------------
async def test_a_one_off_dm_error_is_retried_not_taken_for_closed_dms(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    await minh.click(players.channel.last_message, label="Join")
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=503, times=1)
    env.inject_error("POST", f"/channels/{minh.user.dm_channel.id}/messages", status=403, code=50013, times=1)
    await lan.click(players.channel.last_message, label="Start")
    assert hand_dms(lan) == [] and hand_dms(minh) == []
    await env.advance_time(8)
    assert len(hand_dms(lan)) == 1 and len(hand_dms(minh)) == 1
    thread = play_channel(players)
    assert not any("can't send you a DM" in m.content for m in thread.history())
    assert table_of(env).dm_closed == set()


async def test_a_result_is_retried_for_as_long_as_it_takes(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    thread = play_channel(players)
    fail_posts(env, thread, players.channel)
    await play_until_over(players, lan)
    for _ in range(30):
        await env.advance_time(60)  # half an hour of outage
    assert not game_over(players)
    env.backend.faults.clear()
    await env.advance_time(460)  # at most one more backoff (5 minutes, and its jitter)
    assert game_over(players) and results_by_game(thread, players.channel) == {1: 1}


async def _lan_plays_from_my_hand(env, **lobby_options):
    """Two players at a channel table; Lan's DMs are closed, so his hand is the one My hand
    shows: he takes it and makes his first move there. (players, lan, minh, that hand)"""
    players = Players(env, 2)
    lan, minh = players.members
    lobby = await open_in_channel(env, players, **lobby_options)
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    await lan.click(lobby, label="Start")
    await env.advance_time(8)
    board = next(m for m in players.channel.history() if m.embeds and "My hand" in buttons(m))
    hand = (await lan.click(board, label="My hand")).response
    await lan.click(hand, label="Quick Select")
    await lan.click(hand, label="Discard")
    return players, lan, minh, hand


async def test_the_hand_my_hand_shows_a_player_no_dm_reaches_follows_the_game(simcord_env):
    # his only hand: kept up to date through his click, as a hand DM is, while its token lasts
    env = simcord_env
    players, lan, minh, hand = await _lan_plays_from_my_hand(env)
    assert "Draw" not in enabled(hand)
    while table_of(env).state.to_act == (1,):  # minh draws (or eats), then discards: lan's turn again
        await quick_move(minh.user, lambda: dm(minh))
    assert table_of(env).state.to_act == (0,)
    assert "Draw" in enabled(hand) and "Your turn" in hand.content, "his hand shows his turn"


async def test_a_private_hand_whose_click_expired_waits_for_the_next_click(simcord_env, caplog):
    # only its click's token can edit it (15 minutes): then the outbox leaves it alone (no edit
    # tried, none retried), and his next click on it shows the hand as it is and renews that
    env = simcord_env
    players, lan, minh, hand = await _lan_plays_from_my_hand(env, turn_seconds=360)
    caplog.set_level("DEBUG", logger="bot.tables.outbox")
    table = table_of(env)
    while table.state.to_act != (0,):  # minh's time runs out (12 minutes): lan's turn, shown in time
        await env.advance_time(60)
    shown = hand.content
    assert "Your turn" in shown and "Draw" in enabled(hand)
    await env.advance_time(360)  # lan's time runs out: a card drawn for him, after the 15 minutes
    assert table.timeouts.get(0) == 1 and table.state.to_act == (0,)
    assert hand.content == shown and "hand:0" not in caplog.text
    await lan.click(hand, label="Auto-arrange")
    assert hand.content != shown and "Discard" in hand.content
