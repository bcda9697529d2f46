"""/admin tables and /admin remove: the server's open lobbies and tables, each with **Close**,
and removing a player (from a lobby; from a game, where the AI takes his seat).

Both answer privately with a button to confirm; the confirmation is a click on the table
(``chieu:admin:...``, bot/tables/controls.py), applied by the process that drives the table
(bot/tables/admin.py), which checks the clicker again: Discord guards no button."""

from __future__ import annotations

import json

import discord
from discord import app_commands

from bot import i18n
from bot.i18n import C_, N_, _
from bot.tables.controls import ControlId, button
from bot.tables.messages import COLOUR
from bot.tables.names import safe_name

NAMES = (C_("command name", "tables"), C_("command name", "remove"), C_("option name", "member"),
         C_("option name", "table"))
#: Close buttons one answer carries (Discord: 5 rows of 5)
MAX_BUTTONS = 25


def seated(row, user_id: int) -> bool:
    return any(seat["user_id"] == user_id for seat in json.loads(row["seats"]))


class TablesCommands:
    """A mixin of cogs/admin.py's Admin (``self.bot``, ``self.refused``)."""

    @app_commands.command(name="tables", description=N_("The open lobbies and tables of this server, to close"))
    async def tables(self, interaction: discord.Interaction) -> None:
        if await self.refused(interaction):
            return
        service = self.bot.tables
        rows = await self.bot.db.server_tables(interaction.guild_id)
        with i18n.language(await service.language_of(interaction)):
            lines = [service.describe_row(row) for row in rows]
            embed = discord.Embed(title=_("Open tables"), colour=COLOUR)
            text = ""
            for line in lines:  # (an embed holds 4,096 characters)
                if len(text) + len(line) + 1 > 4000:
                    break
                text += line + "\n"
            embed.description = text.strip() or _("No table is open on this server.")
            closes = [(row["id"], _("Close #{table}").format(table=row["id"])) for row in rows[:MAX_BUTTONS]]
            view = discord.ui.View(timeout=None)
            for table_id, label in closes:
                view.add_item(button(ControlId("admin", table_id, "close"), label, style="danger"))
            if len(rows) > MAX_BUTTONS:
                embed.set_footer(text=_("Close buttons for the {n} oldest tables only.").format(n=MAX_BUTTONS))
        await interaction.response.send_message(embed=embed, view=view if rows else discord.utils.MISSING,
                                                ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
        if closes:
            service.remember_listing(interaction, closes)

    @app_commands.command(name="remove",
                          description=N_("Remove a player from a lobby, or give their seat in a game to the AI"))
    @app_commands.describe(member=N_("The player to remove"),
                           table=N_("The table's number, if the player sits at several"))
    async def remove(self, interaction: discord.Interaction, member: discord.Member,
                     table: app_commands.Range[int, 1] | None = None) -> None:
        if await self.refused(interaction):
            return
        service = self.bot.tables
        rows = [row for row in await self.bot.db.server_tables(interaction.guild_id) if seated(row, member.id)]
        if table is not None:
            rows = [row for row in rows if row["id"] == table]
        name = safe_name(member.display_name)
        with i18n.language(await service.language_of(interaction)):
            if not rows:
                text = (_("{player} sits at no open table of this server.") if table is None else
                        _("{player} does not sit at table #{table}.")).format(player=name, table=table)
                return await interaction.response.send_message(text, ephemeral=True)
            if len(rows) > 1:
                text = _("{player} sits at several tables ({tables}): say which with `table`.").format(
                    player=name, tables=", ".join(f"#{row['id']}" for row in rows))
                return await interaction.response.send_message(text, ephemeral=True)
            (row,) = rows
            what = (_("The player leaves the lobby.") if row["status"] == "lobby" else
                    _("The AI plays the seat for the rest of the game; the player's hand is taken back."))
            text = "\n".join([_("Remove {player} from this table?").format(player=name),
                              service.describe_row(row), what])
            view = discord.ui.View(timeout=None)
            view.add_item(button(ControlId("admin", row["id"], "removeyes", target=member.id),
                                 _("Remove {player}").format(player=member.display_name)[:80], style="danger"))
        await interaction.response.send_message(text, view=view, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())
