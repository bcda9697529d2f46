"""/admin: what a server's admins (Manage Server) and game masters control — the server's
settings, its tables, its seasons — and the log of everything they did. Discord keeps the
command from members without Manage Server (``default_member_permissions``; a server may grant
it to a role); buttons it shows check :func:`bot.permissions.may_administer` themselves.

Each part lives in a module of its own (``cogs/admin_*.py``), gathered here into one command
group."""

from __future__ import annotations

import json
from datetime import datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_, _
from bot.permissions import may_administer
from bot.tables.messages import COLOUR
from bot.tables.names import member_name, safe_name
from cogs.admin_seasons import SeasonCommands
from cogs.admin_settings import SettingsCommands, change_text
from cogs.admin_tables import TablesCommands

NAMES = (C_("command name", "admin"), C_("command name", "log"))
#: what each kind of admin action is called in the log (its ``action`` key -> words)
ACTIONS = {"settings": N_("changed the settings"), "close": N_("closed a table"), "remove": N_("removed a player"),
           "season": N_("started a season")}


def log_line(row, config, guild=None) -> str:
    """One admin action as the log shows it: when, who, what (and which table)."""
    what = _(ACTIONS[row["action"]]) if row["action"] in ACTIONS else row["action"]
    if row["action"] == "settings" and (row["detail"] or "").startswith("{"):
        what += ": " + change_text(json.loads(row["detail"]), config)  # (words of the settings list)
    elif row["detail"]:
        what += ": " + safe_name(row["detail"])
    if row["table_id"] is not None:
        what += " · " + _("table #{table}").format(table=row["table_id"])
    return _("{when} · {user} {action}").format(when=i18n.when(datetime.fromisoformat(row["at"])),
                                                 user=member_name(guild, row["user_id"]), action=what)


@app_commands.default_permissions(manage_guild=True)
@app_commands.guild_only()
class Admin(SettingsCommands, TablesCommands, SeasonCommands, commands.GroupCog, group_name="admin",
            group_description=N_("Run Chiếu on this server (admins)")):
    def __init__(self, bot) -> None:
        self.bot = bot
        super().__init__()

    async def refused(self, interaction: discord.Interaction) -> bool:
        """Answers (privately) and returns True when the clicker may not administer this server;
        every admin command and button asks this first. Discord already keeps /admin from
        members without Manage Server, unless the server granted it to them."""
        settings = await self.bot.db.server_settings(interaction.guild_id) if interaction.guild_id else {}
        if may_administer(interaction, settings.get("gm_role")):
            return False
        with i18n.language(await self.bot.tables.language_of(interaction)):
            text = _("Only this server's admins (Manage Server) and its game masters may do that.")
        await interaction.response.send_message(text, ephemeral=True)
        return True

    @app_commands.command(name="log", description=N_("The last things this server's admins did"))
    async def log(self, interaction: discord.Interaction) -> None:
        if await self.refused(interaction):
            return
        rows = await self.bot.db.admin_log(interaction.guild_id)
        with i18n.language(await self.bot.tables.language_of(interaction)):
            lines = [log_line(row, self.bot.config, interaction.guild) for row in rows]
            embed = discord.Embed(title=_("Admin log"), colour=COLOUR,
                                  description="\n".join(lines) or _("No admin action yet."))
        await interaction.response.send_message(embed=embed, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())


async def setup(bot) -> None:
    await bot.add_cog(Admin(bot))
