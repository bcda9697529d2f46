"""Opening, joining and starting a table, as users click it."""

from __future__ import annotations

import pytest
from simcord.backend.errors import OptionError

from tests.support.simhelpers import Players, buttons, dm, enabled, play_channel, private_texts


async def open_table(players: Players, **options):
    host = players.members[0]
    result = await host.slash(players.channel, "phom new", **options)
    assert result.acknowledged and not result.ephemeral
    return players.channel.last_message


async def test_lobby_buttons_and_seats(simcord_env):
    players = Players(simcord_env, 3)
    lan, minh, duc = players.members
    lobby = await open_table(players, stake=5, seats=3, turn_seconds=30)
    assert list(buttons(lobby)) == ["Join", "Leave", "Add AI", "Start", "Cancel"]
    assert "Stake **5 chips** · 30 seconds per move · 1/3 seats taken" in lobby.embeds[0].description
    assert "lan" in lobby.embeds[0].fields[0].value

    await minh.click(lobby, label="Join")
    lobby = players.channel.last_message
    assert "minh" in lobby.embeds[0].fields[0].value

    again = await minh.click(lobby, label="Join")
    assert private_texts(again) == ["You are already seated at this table."]

    refused = await minh.click(lobby, label="Start")
    assert private_texts(refused) == [f"Only the host, <@{lan.id}>, can start this table."]
    refused = await minh.click(lobby, label="Cancel")
    assert "Only the host" in private_texts(refused)[0]

    outsider_ai = await duc.click(lobby, label="Add AI")
    assert private_texts(outsider_ai) == ["Only seated players can add AI seats."]

    await minh.click(lobby, label="Add AI")
    lobby = players.channel.last_message
    assert "🤖 AI 1" in lobby.embeds[0].fields[0].value
    assert enabled(lobby) == {"Leave", "Start", "Cancel"}  # full: 3 of 3 seats

    full = await duc.click(lobby, label="Leave")
    assert private_texts(full) == ["You are not seated at this table."]

    await minh.click(lobby, label="Leave")
    lobby = players.channel.last_message
    assert "minh" not in lobby.embeds[0].fields[0].value
    assert "Join" in enabled(lobby)


async def test_start_needs_two_players_and_host_can_cancel(simcord_env):
    players = Players(simcord_env, 2)
    lan, _ = players.members
    lobby = await open_table(players)
    refused = await lan.click(lobby, label="Start")
    assert "needs at least 2 players" in private_texts(refused)[0]
    await lan.click(lobby, label="Cancel")
    lobby = players.channel.last_message
    assert "Cancelled" in lobby.embeds[0].description
    assert enabled(lobby) == set()


async def test_start_opens_thread_table_and_private_hands(simcord_env):
    players = Players(simcord_env, 2)
    lan, minh = players.members
    lobby = await open_table(players, stake=2)
    await minh.click(lobby, label="Join")
    await lan.click(players.channel.last_message, label="Add AI")
    await lan.click(players.channel.last_message, label="Start")

    thread = play_channel(players)
    assert thread.is_thread
    table = thread.last_message
    assert set(buttons(table)) == {"My hand", "I'm back"}
    assert "Turn:" in table.embeds[0].description

    for member in (lan, minh):
        hand = dm(member)
        assert hand is not None and hand.attachments[0].filename == "hand.png"
        png = await hand.attachments[0].read()
        assert png.startswith(b"\x89PNG")
    # The first seat opens by discarding: Lan may discard, Minh waits.
    assert {"Quick Select", "Auto-arrange"} <= enabled(dm(lan))
    assert "Draw" not in enabled(dm(lan)) and "Discard" not in enabled(dm(lan))
    assert "Waiting for" in dm(minh).content
    assert enabled(dm(minh)) == {"Auto-arrange"}


async def test_several_tables_in_one_channel(simcord_env):
    players = Players(simcord_env, 2)
    lan, minh = players.members
    first = await open_table(players)
    await minh.slash(players.channel, "phom new")
    second = players.channel.last_message
    assert first.id != second.id
    assert first.embeds[0].title != second.embeds[0].title
    await minh.click(first, label="Join")
    assert "minh" in players.channel.history()[-2].embeds[0].fields[0].value


async def test_rules_for_every_game_answer_privately(simcord_env):
    players = Players(simcord_env, 1)
    (lan,) = players.members
    for command, title in (("rules phom", "Phỏm"), ("rules chan", "Chắn"), ("rules tusac", "Tứ Sắc")):
        shown = await lan.slash(players.channel, command)
        assert shown.response.ephemeral and shown.response.embeds[0].title.startswith(title), command
        assert len(shown.response.embeds[0].description) > 200


async def test_slash_options_show_the_limits_the_table_enforces(simcord_env, bot_factory):
    env = simcord_env
    await env.restart_bot(bot_factory(min_turn_seconds=30, max_turn_seconds=120, default_turn_seconds=45))
    for game, seats in (("phom", (2, 4)), ("chan", (2, 4)), ("tusac", (2, 4))):
        (new,) = env.backend.commands[None][(game, 1)]["options"]
        options = {o["name"]: o for o in new["options"]}
        assert (options["turn_seconds"]["min_value"], options["turn_seconds"]["max_value"]) == (30, 120)
        assert (options["seats"]["min_value"], options["seats"]["max_value"]) == seats
        assert options["stake"]["min_value"] == 0
        assert env.backend.commands[None][(game, 1)]["dm_permission"] is False  # servers only
    players = Players(env, 1)
    (lan,) = players.members
    with pytest.raises(OptionError):
        await lan.slash(players.channel, "phom new", turn_seconds=20)
    await lan.slash(players.channel, "phom new", turn_seconds=120)
    (table,) = env.bot.tables.tables.values()
    assert table.turn_seconds == 120
