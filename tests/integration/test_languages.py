"""Speaking the players' language: tables in Vietnamese and Spanish, Discord's own command
localizations, a player's chosen language, closed DMs, and names in every summary."""

from __future__ import annotations

import re

from bot import i18n
from tests.support.simhelpers import (Players, buttons, dm, enabled, ledger_rows, let_the_clock_play, play_channel,
                              private_texts, quick_move, start_table, table_of)

DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")


def translated(lang: str, message: str) -> str:
    """``message`` in ``lang``, which must differ from the English: a test built on it cannot
    pass on a missing translation."""
    text = i18n.in_language(lang, message)
    assert text != message, f"{message!r} has no {lang} translation"
    return text


def localized(entry: dict, key: str) -> dict:
    return entry.get(f"{key}_localizations") or {}


def walk(options: list[dict]):
    for option in options:
        yield option
        yield from walk(option.get("options", []))


async def test_every_command_option_and_choice_carries_vietnamese_and_both_spanish(simcord_env):
    commands = simcord_env.backend.commands[None].values()
    assert commands
    for command in commands:
        for entry in [command, *walk(command.get("options", []))]:
            for key in ("name", "description"):
                values = localized(entry, key)
                assert {"vi", "es-ES", "es-419"} <= set(values), (entry["name"], key, values)
                assert values["es-ES"] == values["es-419"]
            for name in localized(entry, "name").values():
                assert DISCORD_NAME.match(name) and name == name.lower(), name
            for choice in entry.get("choices", []):
                assert {"vi", "es-ES", "es-419"} <= set(localized(choice, "name")), choice


async def test_a_vietnamese_table_speaks_vietnamese_from_lobby_to_result(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await lan.slash(players.channel, "phom new", language="vi", seats=2)
    lobby = players.channel.last_message
    assert translated("vi", "Waiting for players") in lobby.embeds[0].description
    assert set(buttons(lobby)) == {translated("vi", label) for label in ("Join", "Leave", "Add AI", "Start", "Cancel")}
    await lan.click(lobby, label=translated("vi", "Add AI"))
    await lan.click(players.channel.last_message, label=translated("vi", "Start"))
    board = play_channel(players).last_message
    assert board.embeds[0].fields[-1].name == translated("vi", "Last moves")
    assert translated("vi", "My hand") in buttons(board)
    assert board.attachments and board.attachments[0].filename == "table.png"
    # Lan's own DMs follow Lan's language (English here), not the table's
    assert "Quick Select" in enabled(dm(lan))
    await let_the_clock_play(players, turns=80)
    result = play_channel(players).last_message
    assert result.embeds[0].fields[0].name == translated("vi", "Ranking")
    assert translated("vi", "Rematch") in buttons(result)
    table = table_of(env)
    ui = env.bot.tables.ui_of(table)
    names = table.names()
    with i18n.language("vi"):
        summary = ui.summary_text(table.state.outcome().summary, names)
    with i18n.language("en"):
        english = ui.summary_text(table.state.outcome().summary, names)
    assert result.embeds[0].description == summary != english
    assert any(name in summary for name in names)


async def test_rules_in_a_tables_thread_speak_the_tables_language(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, language="vi")
    (lan,) = players.members
    ui = env.bot.tables.ui_of(table_of(env))
    answer = await lan.slash(play_channel(players), "rules phom")
    assert answer.response.embeds[0].description == ui.rules_texts["vi"][:4096]
    elsewhere = await lan.slash(players.channel, "rules phom")
    assert elsewhere.response.embeds[0].description == ui.rules_text[:4096]


async def test_a_spanish_table_speaks_spanish(simcord_env):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 1, language="es", target=20)
    board = play_channel(players).last_message
    assert board.embeds[0].description.startswith(translated("es", "Turn: {players}").split("{")[0])
    assert translated("es", "My hand") in buttons(board)
    await let_the_clock_play(players, turns=400)
    result = play_channel(players).last_message
    assert result.embeds[0].fields[0].name == translated("es", "Ranking")
    assert translated("es", "Rematch") in buttons(result)


async def test_settings_language_makes_dms_and_private_answers_speak_it(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    told = await lan.slash(players.channel, "settings language", language="vi")
    assert told.ephemeral and told.response.content.startswith(
        translated("vi", "From now on I speak {language} with you: your hands, DMs and private answers. Tables keep "
                         "their own language.").split("{")[0])
    await lan.slash(players.channel, "phom new", seats=2)
    assert table_of(env).language == "vi", "the table takes its host's language"
    await lan.click(players.channel.last_message, label=i18n.in_language("vi", "Add AI"))
    await lan.click(players.channel.last_message, label=i18n.in_language("vi", "Start"))
    assert translated("vi", "Quick Select") in enabled(dm(lan))
    refused = await lan.click(play_channel(players).last_message, label=translated("vi", "I'm back"))
    assert private_texts(refused) == [translated("vi", "You are not marked away.")]


async def test_closed_dms_are_told_at_join_and_a_whole_game_is_played_through_my_hand(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new", seats=2)
    env.inject_error("POST", f"/channels/{minh.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    joined = await minh.click(players.channel.last_message, label="Join")
    (told,) = private_texts(joined)
    assert "can't send you DMs" in told and "My hand" in told
    await lan.click(players.channel.last_message, label="Start")
    table = table_of(env)
    seat = table.seat_of(minh.id)
    assert seat in table.dm_closed
    board = next(m for m in play_channel(players).history() if m.embeds and "My hand" in buttons(m))
    for _ in range(300):
        if table.status != "playing":
            break
        if seat in table.state.to_act:
            # every click answers afresh: a new My hand each time (an ephemeral token lasts 15 minutes)
            hand = (await minh.click(board, label="My hand")).response
            assert hand.ephemeral
            if "Quick Select" in enabled(hand):  # off when only Draw is left
                updated = await minh.click(hand, label="Quick Select")
                hand = updated.response or hand
            move = next((label for label in ("Eat", "Show", "Discard", "Draw") if label in enabled(hand)), None)
            assert move, (hand.content, enabled(hand))
            assert private_texts(await minh.click(hand, label=move)) == []
        elif table.seat_of(lan.id) in table.state.to_act:
            assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert table.status == "finished"
    rows = await ledger_rows(env, table.game_id)
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0


async def test_hands_name_their_server_and_link_to_the_table(simcord_env):
    env = simcord_env
    players = await start_table(env, "tusac", 1, 1)
    (lan,) = players.members
    table = table_of(env)
    hand = dm(lan)
    assert players.guild.name in hand.content and f"<#{table.play_channel_id}>" in hand.content
    link = buttons(hand)["Go to table"]
    assert link.url == f"https://discord.com/channels/{table.guild_id}/{table.play_channel_id}/{table.table_message_id}"
