"""/admin settings: a server's defaults for its new tables (a table's own options still win),
the games it allows, where its tables play and its game-master role, stored in the database
and logged; refused to a member granted /admin without Manage Server or the game-master role."""

from __future__ import annotations

from bot.config import load
from bot.tables.server_settings import server_defaults
from tests.support.databases import both_backends
from tests.integration.test_admin import admin_command
from tests.support.simhelpers import Players, buttons, play_channel, table_of


def listed(answer) -> str:
    """The settings as /admin settings lists them."""
    assert answer.ephemeral
    return answer.response.embeds[0].description


@both_backends  # the settings and the log, stored and read back by either database
async def test_admin_settings_for_admins_and_game_masters_only(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    guild = players.guild
    admin = players.admin()
    gm = guild.create_role("game masters")
    # the server's admins granted /admin to Lan on the Integrations page: Discord lets him run it
    guild.set_command_permissions(int(admin_command(env)["id"]), {lan: True})

    refused = await lan.slash(players.channel, "admin settings", stake=50)
    assert refused.ephemeral and "Only this server's admins" in refused.response.content
    refused = await lan.slash(players.channel, "admin settings")  # not even shown
    assert refused.ephemeral and "Only this server's admins" in refused.response.content
    assert await env.bot.db.server_settings(guild.id) == {} and await env.bot.db.admin_log(guild.id) == []

    shown = listed(await admin.slash(players.channel, "admin settings"))
    assert "Stake: **1 chip** (default)" in shown and "Game-master role: **none** (default)" in shown
    assert await env.bot.db.admin_log(guild.id) == []  # showing changes nothing

    saved = await admin.slash(players.channel, "admin settings", stake=20, turn_seconds=30, gm_role=gm)
    assert saved.response.content == "Saved."
    shown = listed(saved)
    assert "Stake: **20 chips**\n" in shown and "Seconds per move: **30 seconds**\n" in shown
    assert f"Game-master role: **<@&{gm.id}>**" in shown and "Table language: **each table's host's** (default)" in shown
    assert await env.bot.db.server_settings(guild.id) == {"stake": 20, "turn_seconds": 30, "gm_role": gm.id}

    # Hoa is a game master: he may change the settings, but not who the game masters are
    minh_gm = guild.add_member(env.create_user("hoa"), roles=[gm])
    guild.set_command_permissions(int(admin_command(env)["id"]), {lan: True, minh_gm: True})
    changed = await minh_gm.slash(players.channel, "admin settings", disable="tusac", tables_in="channel",
                                  max_tables=2)
    assert changed.response.content == "Saved."
    assert "Games allowed: **Phỏm, Chắn, Chinchón, Concan · turned off: Tứ Sắc**" in listed(changed)
    assert "Where tables play: **in the channel itself**" in listed(changed)
    refused = await minh_gm.slash(players.channel, "admin settings", reset="gm_role")
    assert "Only this server's admins (Manage Server) may change the game-master role." in refused.response.content
    refused = await admin.slash(players.channel, "admin settings", turn_seconds=5)  # under the config's limit
    assert refused.response.content == "`turn_seconds` must be 15–600."

    cleared = await admin.slash(players.channel, "admin settings", reset="gm_role", stake=5)
    assert "Game-master role: **none** (default)" in listed(cleared)
    assert await env.bot.db.server_settings(guild.id) == {
        "stake": 5, "turn_seconds": 30, "disabled_games": ["tusac"], "threads": False, "max_tables": 2}
    refused = await minh_gm.slash(players.channel, "admin settings")  # no longer a game master
    assert "Only this server's admins" in refused.response.content

    # one line per change, who and what
    log = [(row["user_id"], row["action"], row["detail"]) for row in await env.bot.db.admin_log(guild.id)]
    assert log == [(admin.id, "settings", "reset gm_role, stake 5"),
                   (minh_gm.id, "settings", "max_tables 2, disable tusac, tables_in channel"),
                   (admin.id, "settings", "stake 20, turn_seconds 30, gm_role @game masters")]
    shown = await admin.slash(players.channel, "admin log")
    assert f"<@{minh_gm.id}> changed the settings: max\\_tables 2" in shown.response.embeds[0].description


async def test_a_new_table_takes_the_servers_defaults_and_its_own_options_win(simcord_env):
    env = simcord_env
    players = Players(env, 3)
    lan, minh, duc = players.members
    await players.admin().slash(players.channel, "admin settings", stake=25, turn_seconds=45, language="vi",
                                max_tables=2)

    await lan.slash(players.channel, "phom new")
    (table,) = env.bot.tables.tables.values()
    assert (table.stake, table.turn_seconds, table.language) == (25, 45, "vi")
    assert "Cược **25 chip**" in players.channel.last_message.embeds[0].description  # the lobby speaks Vietnamese

    await minh.slash(players.channel, "chan new", stake=3, turn_seconds=90, language="es")
    own = max(env.bot.tables.tables.values(), key=lambda t: t.id)
    assert (own.stake, own.turn_seconds, own.language) == (3, 90, "es")
    assert own.options["ga_stake"] == 3  # Chắn's gà follows the table's stake

    refused = await duc.slash(players.channel, "tusac new")  # the server allows 2 open tables here, not 5
    assert refused.ephemeral and "This channel already has 2 open tables." in refused.response.content
    assert len(env.bot.tables.tables) == 2


def test_the_configs_limits_hold_for_what_a_server_stored():
    config = load(min_turn_seconds=20, max_turn_seconds=40, default_turn_seconds=30, max_tables_per_channel=4)
    assert server_defaults({}, config).turn_seconds == 30 and server_defaults({}, config).max_tables == 4
    assert server_defaults({"turn_seconds": 600}, config).turn_seconds == 40
    assert server_defaults({"turn_seconds": 5, "max_tables": 7}, config).turn_seconds == 20
    assert server_defaults({"max_tables": 7}, config).max_tables == 7
    assert server_defaults({"stake": 10**9}, config).stake == 1_000_000


async def test_a_disabled_game_is_refused_privately_with_the_reason(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    admin = players.admin()
    await admin.slash(players.channel, "admin settings", disable="tusac")
    await admin.slash(players.channel, "admin settings", disable="concan")

    refused = await lan.slash(players.channel, "tusac new", stake=5)
    assert refused.ephemeral and refused.response.content == (
        "This server's admins have turned Tứ Sắc off here, so no table of it can be opened. Games open here: "
        "Phỏm, Chắn, Chinchón.")
    assert env.bot.tables.tables == {} and players.channel.last_message is None
    assert await env.bot.db.open_tables_in(players.channel.id) == []

    await admin.slash(players.channel, "admin settings", enable="tusac")
    await lan.slash(players.channel, "tusac new")
    assert [table.game for table in env.bot.tables.tables.values()] == ["tusac"]


async def test_tables_play_in_the_channel_when_the_server_says_so(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await players.admin().slash(players.channel, "admin settings", tables_in="channel")
    await lan.slash(players.channel, "phom new")
    assert "in_channel" not in players.channel.last_message.embeds[0].description  # not an option of the table
    await minh.click(players.channel.last_message, label="Join")
    await lan.click(players.channel.last_message, label="Start")

    assert players.channel.threads == [] and play_channel(players) is players.channel
    table = table_of(env)
    assert table.status == "playing" and table.thread_id is None
    assert "My hand" in buttons(players.channel.last_message)  # the table message, in the channel itself
