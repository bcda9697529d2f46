"""Your turn, on every screen: a person who is not looking at his hand is told by a new message
(which Discord notifies, where an edit of his hand would not), the previous one deleted;
/settings notify chooses a DM, a mention in the thread, or nothing."""

from __future__ import annotations

from tests.support.simhelpers import dm, play_channel, quick_move, start_table, table_of, turn_notices


async def test_a_player_not_looking_is_told_by_a_new_dm_and_a_clicking_one_is_not(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, seed=1)  # a deal where nobody ù early
    lan, minh = players.members
    table = table_of(env)
    assert turn_notices(lan) == [] and turn_notices(minh) == []  # the dealt hand is a new DM already

    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert table.state.to_act == (1,)
    (notice,) = turn_notices(minh)
    assert "Your turn" in notice.content and f"/{dm(minh).id}" in notice.content  # a link to his hand
    assert turn_notices(lan) == []

    await minh.user.click(dm(minh), label="Draw")  # (Minh draws: his own turn goes on, no notice)
    assert await quick_move(minh.user, lambda: dm(minh)) == []
    assert table.state.to_act == (0,)
    assert turn_notices(lan) == [], "Lan clicked his hand a moment ago: he is looking"

    await env.advance_time(25)  # Lan thinks
    await lan.user.click(dm(lan), label="Draw")
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    await env.advance_time(25)
    await minh.user.click(dm(minh), label="Draw")
    assert await quick_move(minh.user, lambda: dm(minh)) == []
    await env.advance_time(25)
    await lan.user.click(dm(lan), label="Draw")
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert len(turn_notices(minh)) == 1 and turn_notices(minh)[0].id != notice.id, \
        "a new notice, and the previous one deleted"


async def test_settings_notify_off_silences_and_mention_pings_in_the_thread(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 3, 0, seed=1)  # a deal where nobody ù early
    lan, minh, duc = players.members
    off = await minh.slash(players.channel, "settings notify", how="off")
    assert off.ephemeral and "not tell you" in off.response.content
    await duc.slash(players.channel, "settings notify", how="mention")

    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert table_of(env).state.to_act == (1,)
    assert turn_notices(minh) == []
    await minh.user.click(dm(minh), label="Draw")
    await env.advance_time(1)
    assert await quick_move(minh.user, lambda: dm(minh)) == []
    assert table_of(env).state.to_act == (2,)
    assert turn_notices(duc) == []
    thread = play_channel(players)
    mention = next(m for m in reversed(thread.history()) if f"<@{duc.id}>" in (m.content or ""))
    assert "your turn" in mention.content
    assert env.backend.get_message(thread.id, mention.id).ping_user_ids == [duc.id]


async def test_a_player_whose_dms_are_closed_is_mentioned_in_the_thread(simcord_env):
    env = simcord_env
    from tests.support.simhelpers import Players, buttons

    players = Players(env, 2)
    lan, minh = players.members
    env.inject_error("POST", f"/channels/{minh.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    await lan.slash(players.channel, "phom new", seats=2)
    await minh.click(players.channel.last_message, label="Join")
    await lan.click(players.channel.last_message, label="Start")
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    thread = play_channel(players)
    mention = next(m for m in reversed(thread.history()) if "your turn" in (m.content or ""))
    assert mention.content.startswith(f"<@{minh.id}>")
    assert env.backend.get_message(thread.id, mention.id).ping_user_ids == [minh.id]
    assert any("My hand" in buttons(m) for m in thread.history())


# A notice exists only while it is true: gone once its player has played his turn, once his
# turn has passed by timeout, and none is left when the game is over (issue #25, 1).

def mentions(players, member) -> list:
    """The turn mentions of ``member`` in the table's thread."""
    return [m for m in play_channel(players).history() if f"<@{member.id}>, it's your turn" in (m.content or "")]


async def play_to_the_end(players, *, check) -> None:
    """Whoever is to act plays Quick Select moves (a minute of thought before each, so that
    every turn is notified); ``check(member)`` after each move."""
    env, table = players.env, table_of(players.env)
    for _ in range(120):
        if table.state.is_over:
            return
        member = players.members[table.state.to_act[0]]
        await env.advance_time(25)
        assert await quick_move(member.user, lambda: dm(member)) == []
        check(member)
    raise AssertionError("the game did not end")


async def test_a_turn_notice_is_deleted_once_its_player_has_played_and_none_is_left_after_the_game(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, seed=1)
    lan, minh = players.members
    table = table_of(env)
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert len(turn_notices(minh)) == 1

    notified = []

    def check(member) -> None:
        for other in players.members:
            seat = table.seat_of(other.id)
            acting = not table.state.is_over and seat in table.state.to_act
            assert acting or turn_notices(other) == [], f"{other.user.name} is not to act: no notice"
            notified.append(len(turn_notices(other)))

    await play_to_the_end(players, check=check)
    assert 1 in notified, "turns were notified"
    assert turn_notices(lan) == [] and turn_notices(minh) == [], "no notice after the game"


async def test_a_mention_is_deleted_once_its_player_has_played_and_none_is_left_after_the_game(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, seed=1)
    lan, minh = players.members
    for member in players.members:
        await member.slash(players.channel, "settings notify", how="mention")
    table = table_of(env)
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert len(mentions(players, minh)) == 1 and turn_notices(minh) == []

    def check(member) -> None:
        for other in players.members:
            seat = table.seat_of(other.id)
            acting = not table.state.is_over and seat in table.state.to_act
            assert acting or mentions(players, other) == [], f"{other.user.name} is not to act: no mention"

    await play_to_the_end(players, check=check)
    assert mentions(players, lan) == [] and mentions(players, minh) == [], "no mention after the game"


async def test_a_turn_notice_is_deleted_when_the_turn_passes_by_timeout(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, seed=1)
    lan, minh = players.members
    table = table_of(env)
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert len(turn_notices(minh)) == 1 and table.state.to_act == (1,)
    for _ in range(3):  # Minh does not play: the AI plays his turn for him (a draw, then a discard)
        if 1 not in table.state.to_act:
            break
        await env.advance_time(61)
    assert table.timeouts.get(1, 0) >= 1 and 1 not in table.state.to_act
    assert turn_notices(minh) == [], "his turn has passed: the notice went with it"


async def test_a_turn_notice_is_deleted_when_the_host_cancels_a_game_nobody_could_see(simcord_env):
    from tests.integration.test_outbox import open_in_channel
    from tests.support.simhelpers import Players, enabled

    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    lobby = await open_in_channel(env, players, seats=2)
    env.inject_error("POST", f"/channels/{players.channel.id}/messages", status=503, times=None)
    await lan.click(lobby, label="Start")  # the hands arrive, the table message does not
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert len(turn_notices(minh)) == 1
    lobby = players.channel.history()[0]
    assert "Cancel" in enabled(lobby)
    await lan.click(lobby, label="Cancel")
    assert turn_notices(minh) == [], "no game, no turn"


async def test_a_notice_from_before_a_restart_still_goes_once_its_turn_has_passed(simcord_env, bot_factory):
    """The notices on Discord are written down: a restarted bot deletes them like its own."""
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, seed=1)
    lan, minh = players.members
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    (notice,) = turn_notices(minh)

    await env.restart_bot(bot_factory())
    table = table_of(env)
    assert table.state.to_act == (1,) and [m.id for m in turn_notices(minh)] == [notice.id], \
        "still his turn: the notice is still true"

    def check(member) -> None:
        for other in players.members:
            acting = not table.state.is_over and table.seat_of(other.id) in table.state.to_act
            assert acting or turn_notices(other) == [], f"{other.user.name} is not to act: no notice"

    await play_to_the_end(players, check=check)
    assert turn_notices(lan) == [] and turn_notices(minh) == [], "no notice after the game"
    assert await env.bot.db.notices(table.id) == []
