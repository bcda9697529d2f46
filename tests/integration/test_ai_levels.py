"""AI levels at the table (issue #28): ``/<game> new ai:easy|normal`` (default: the server's,
else the config's), stored with the table (a restart keeps it), told with each AI seat in the
lobby, the table's text and its picture; the AI standing in for a person who is away plays at the
table's level. ``strong`` is a level no more (issue #37): a table, a server setting or a config
that still names it plays as normal."""

from __future__ import annotations

import json

import pytest
from simcord.backend.errors import OptionError

from bot.ai import levels
from bot.tables import messages
from tests.support.simhelpers import Players, dm, let_the_clock_play, play_channel, quick_move, start_table, table_of


@pytest.fixture
def spy(monkeypatch):
    """Every level's decision recorded as (level, seat), the moves unchanged."""
    calls: list[tuple[str, int]] = []
    for level in ("easy", "normal"):
        real = getattr(levels, level)

        def recorded(game, view, real=real, level=level):
            calls.append((level, view["seat"]))
            return real(game, view)

        monkeypatch.setattr(levels, level, recorded)
    return calls


def players_field(message) -> str:
    return next(f.value for f in message.embeds[0].fields if f.name in ("Players", "Người chơi"))


async def test_the_ai_option_is_stored_and_each_ai_seat_says_its_level(simcord_env, spy):
    env = simcord_env
    players = await start_table(env, "phom", 1, 2, seed=4, level="easy")
    table = table_of(env)
    assert table.options["ai"] == "easy"
    lobby = players.channel.history()[0]
    assert players_field(lobby).splitlines()[1:] == ["2. 🤖 AI 1 · easy", "3. 🤖 AI 2 · easy"]
    ui = env.bot.tables.ui_of(table)
    boxes = messages.table_picture(table, ui).seats
    assert [(box.name, box.detail.split("\n")[0]) for box in boxes][1:] == [("AI 1", "easy"), ("AI 2", "easy")]
    assert "easy" not in boxes[0].detail
    lan = players.members[0]
    await quick_move(lan.user, lambda: dm(lan))  # Lan discards: the AI seats play
    assert table.version >= 3 and {level for level, _seat in spy} == {"easy"}
    shown = next(m for m in play_channel(players).history() if m.id == table.table_message_id)
    assert [field.name for field in shown.embeds[0].fields][1:3] == ["🤖 AI 1 · easy", "🤖 AI 2 · easy"]


async def test_a_lobby_in_vietnamese_names_the_level_in_vietnamese(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await lan.slash(players.channel, "chan new", ai="easy", language="vi")
    await lan.click(players.channel.last_message, label="Thêm máy")
    assert "🤖 AI 1 · dễ" in players_field(players.channel.last_message)


async def test_the_servers_default_level_applies_and_a_tables_own_wins(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    admin = players.admin()
    await lan.slash(players.channel, "phom new")
    assert table_of(env).options["ai"] == "normal"  # neither the table nor the server says: the config

    saved = await admin.slash(players.channel, "admin settings", ai_level="easy")
    assert "AI level: **easy**" in saved.response.embeds[0].description
    assert await env.bot.db.server_settings(players.guild.id) == {"ai_level": "easy"}
    await minh.slash(players.channel, "tusac new")
    await minh.slash(players.channel, "chan new")  # (his lobby is open: refused, nothing new)
    levels = sorted(table.options["ai"] for table in env.bot.tables.tables.values())
    assert levels == ["easy", "normal"]

    duc = players.outsider("duc")
    await duc.slash(players.channel, "concan new", ai="normal")
    assert max(env.bot.tables.tables.values(), key=lambda t: t.id).options["ai"] == "normal"
    reset = await admin.slash(players.channel, "admin settings", reset="ai_level")
    assert "AI level: **normal** (default)" in reset.response.embeds[0].description


async def test_a_person_who_is_away_is_played_at_the_tables_level(simcord_env, spy):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, seed=11, level="easy")
    await let_the_clock_play(players, turns=40)
    assert table_of(env).seats[0].away, "Lan timed out and went away"
    assert {level for level, _seat in spy} == {"easy"}
    assert {seat for _level, seat in spy} == {0, 1}, "the AI seat and Lan's, both easy"


async def test_a_game_restored_after_a_restart_plays_on_at_the_same_level(simcord_env, bot_factory, spy):
    env = simcord_env
    patient = {"away_after_timeouts": 1000}
    env.bot.tables.config = env.bot.config.with_overrides(**patient)
    players = await start_table(env, "chan", 1, 2, seed=3, level="easy")
    await env.advance_time(60)
    before = table_of(env)
    assert before.status == "playing" and before.version > 0
    spy.clear()

    await env.restart_bot(bot_factory(**patient))
    after = table_of(env)
    assert after is not before and after.options["ai"] == "easy"
    for _ in range(3):
        await env.advance_time(60)
    assert after.version > before.version and spy and {level for level, _seat in spy} == {"easy"}
    boxes = messages.table_picture(after, env.bot.tables.ui_of(after)).seats
    assert [box.detail.split("\n")[0] for box in boxes][1:] == ["easy", "easy"]


def choices(command: dict, *path: str) -> list[str]:
    """The values offered for the option at ``path`` (subcommand, then option) of a synced command."""
    options = command["options"]
    for name in path:
        option = next(o for o in options if o["name"] == name)
        options = option.get("options", [])
    return [choice["value"] for choice in option["choices"]]


async def test_the_lobby_and_the_servers_settings_offer_easy_and_normal(simcord_env):
    env = simcord_env
    synced = env.backend.commands[None]
    for game in ("phom", "chan", "tusac", "chinchon", "concan"):
        assert choices(synced[(game, 1)], "new", "ai") == ["easy", "normal"], game
    assert choices(synced[("admin", 1)], "settings", "ai_level") == ["easy", "normal"]
    players = Players(env, 1)
    with pytest.raises(OptionError):
        await players.members[0].slash(players.channel, "phom new", ai="strong")
    with pytest.raises(OptionError):
        await players.admin().slash(players.channel, "admin settings", ai_level="strong")


async def test_a_game_stored_at_strong_plays_on_as_normal_after_a_restart(simcord_env, bot_factory, spy):
    """A table saved at ``strong`` (a level removed since) is restored and its AI seats play
    on, as normal, and say so."""
    env = simcord_env
    patient = {"away_after_timeouts": 1000}
    env.bot.tables.config = env.bot.config.with_overrides(**patient)
    await start_table(env, "chan", 1, 2, seed=3, level="normal")
    await env.advance_time(60)
    before = table_of(env)
    assert before.status == "playing" and before.version > 0
    await env.bot.db.execute("UPDATE tables SET options = ? WHERE id = ?",
                             (json.dumps({**before.options, "ai": "strong"}), before.id))
    spy.clear()

    await env.restart_bot(bot_factory(**patient))
    after = table_of(env)
    assert after is not before and after.options["ai"] == "strong"  # as stored
    for _ in range(3):
        await env.advance_time(60)
    assert after.version > before.version and spy and {level for level, _seat in spy} == {"normal"}
    boxes = messages.table_picture(after, env.bot.tables.ui_of(after)).seats
    assert [box.detail.split("\n")[0] for box in boxes][1:] == ["normal", "normal"]


async def test_a_server_setting_of_strong_gives_normal_tables(simcord_env, spy):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await env.bot.db.save_server_settings(players.guild.id, {"ai_level": "strong"})
    shown = await players.admin().slash(players.channel, "admin settings")
    assert "AI level: **normal**" in shown.response.embeds[0].description
    await lan.slash(players.channel, "phom new")
    await lan.click(players.channel.last_message, label="Add AI")
    assert table_of(env).options["ai"] == "normal"
    assert "🤖 AI 1 · normal" in players_field(players.channel.last_message)


async def test_a_config_of_strong_starts_the_bot_with_normal_tables(simcord_env, bot_factory, caplog):
    env = simcord_env
    with caplog.at_level("WARNING", logger="bot.config"):
        await env.restart_bot(bot_factory(ai_level="strong"))
    assert env.bot.config.ai_level == "normal"
    assert any("no longer a level" in r.getMessage() for r in caplog.records)
    players = Players(env, 1)
    await players.members[0].slash(players.channel, "tusac new")
    assert table_of(env).options["ai"] == "normal"
