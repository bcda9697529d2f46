"""Your turn, on every screen: a person who is not looking at his hand is told by a new message
(which Discord notifies, where an edit of his hand would not), the previous one deleted;
/settings notify chooses a DM, a mention in the thread, or nothing."""

from __future__ import annotations

from tests.simhelpers import dm, play_channel, quick_move, start_table, table_of, turn_notices


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
    from tests.simhelpers import Players, buttons

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
