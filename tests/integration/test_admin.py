"""/admin: Discord keeps it from members without Manage Server (default_member_permissions), a
server may grant it to a role, and every admin command and button checks the clicker itself
(Manage Server, or the server's game-master role): the log of admin actions."""

from __future__ import annotations

import discord
import pytest
from simcord import SetupError

from tests.support.simhelpers import Players


def admin_command(env) -> dict:
    """The synced /admin, as Discord holds it (global commands)."""
    return env.backend.commands[None][("admin", 1)]


async def test_admin_is_for_the_servers_admins_only(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    command = admin_command(env)
    assert int(command["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
    assert command["dm_permission"] is False  # servers only

    with pytest.raises(SetupError, match="default-member-permissions"):
        await players.members[0].slash(players.channel, "admin log")  # Discord does not even show it

    answer = await players.admin().slash(players.channel, "admin log")
    assert answer.ephemeral and answer.response.embeds[0].description == "No admin action yet."


async def test_a_member_granted_the_command_still_needs_manage_server_or_the_game_master_role(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    gm = players.guild.create_role("game masters")
    await env.bot.db.save_server_settings(players.guild.id, {"gm_role": gm.id})
    minh_gm = players.guild.add_member(env.create_user("hoa"), roles=[gm])
    # the server's admins granted /admin to everyone on the Integrations page
    players.guild.set_command_permissions(int(admin_command(env)["id"]), {lan: True, minh_gm: True})

    refused = await lan.slash(players.channel, "admin log")
    assert refused.ephemeral and "Only this server's admins" in refused.response.content

    await env.bot.db.log_admin_action(players.guild.id, lan.id, "close", table_id=7, detail="Phỏm")
    shown = await minh_gm.slash(players.channel, "admin log")
    assert shown.ephemeral
    (line,) = shown.response.embeds[0].description.splitlines()
    assert f"<@{lan.id}> closed a table: Phỏm · table #7" in line
