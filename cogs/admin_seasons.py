"""/admin season start: the server's admins end the season (its final board is posted where
they asked) and start the next; /leaderboard then counts the new season's games (cogs/stats.py).
The ledger is never rewritten: a season is a named stretch of it (:mod:`bot.seasons`)."""

from __future__ import annotations

import discord
from discord import app_commands

from bot import i18n, seasons
from bot.i18n import C_, N_, _
from bot.ledger import Window
from bot.tables.controls import AdminId, button
from bot.tables.names import safe_name
from cogs.stats import board

NAMES = (C_("command name", "season"), C_("command name", "start"), C_("option name", "name"))
NO_MENTIONS = discord.AllowedMentions.none()


def _season_text(season: seasons.Season | None) -> str:
    return _("season **{name}**").format(name=safe_name(season.name)) if season else _("all time")


class SeasonCommands:
    """The ``/admin season`` commands and their confirmation button (mixed into ``Admin``)."""

    season = app_commands.Group(name="season", description=N_("This server's seasons (admins)"))

    @season.command(name="start", description=N_("Post the final board of this season and start a new one"))
    @app_commands.describe(name=N_("The new season's name"))
    async def season_start(self, interaction: discord.Interaction,
                           name: app_commands.Range[str, 1, seasons.NAME_LIMIT]) -> None:
        """Asks first (privately): the button carries the name and the season it ends, so that
        a second click, or a click after another admin's start, changes nothing."""
        if await self.refused(interaction):
            return
        name = seasons.clean_name(name)
        known = await seasons.seasons(self.bot.db, interaction.guild_id)
        now = known[-1] if known else None
        with i18n.language(await self.bot.tables.language_of(interaction)):
            if not name:
                return await interaction.response.send_message(_("A season needs a name."), ephemeral=True)
            if seasons.named(known, name):
                return await interaction.response.send_message(
                    _("This server already has a season named {name}.").format(name=safe_name(name)), ephemeral=True)
            text = _("Start season **{name}**? The board of {season} is posted here as its final board, and "
                     "the leaderboard then counts the new season's games. No chips change: earlier seasons can "
                     "still be shown.").format(name=safe_name(name), season=_season_text(now))
            view = discord.ui.View(timeout=None)
            view.add_item(button(AdminId(interaction.guild_id, "season", f"{now.id if now else 0}:{name}"),
                                 _("Start the season"), style="danger"))
        await interaction.response.send_message(text, view=view, ephemeral=True)

    async def season_clicked(self, interaction: discord.Interaction, control: AdminId) -> None:
        """The confirmation: the season starts (one admin_log line), then the final board of the
        one it ends is posted in the channel, as the leaderboard stood."""
        if await self.refused(interaction):
            return
        after, _colon, name = control.arg.partition(":")
        if not after.isdigit() or not seasons.clean_name(name):
            return await self.bot.tables.handle(interaction, None, [])  # forged: "not valid"
        after_id = int(after) or None
        started = await seasons.start(self.bot.db, interaction.guild_id, name, interaction.user.id, after=after_id)
        known = await seasons.seasons(self.bot.db, interaction.guild_id)
        with i18n.language(await self.bot.tables.language_of(interaction)):
            if started is None:
                if seasons.named(known, name):
                    text = _("This server already has a season named {name}.")
                else:
                    text = _("Another season started since you asked, so nothing changed.")
                return await interaction.response.send_message(text.format(name=safe_name(name)), ephemeral=True)
            await interaction.response.edit_message(
                content=_("Season **{name}** started.").format(name=safe_name(started.name)), view=None)
            ended = next((season for season in known if season.id == after_id), None)
            window = Window(ended.started_at if ended else None, started.started_at)
            title = (_("Final board — season {name}").format(name=safe_name(ended.name)) if ended
                     else _("Final board — all time, before season {name}").format(name=safe_name(started.name)))
            embed, files = await board(self.bot.db, interaction.guild_id, title, window=window)
            content = _("<@{user}> started season **{name}**.").format(user=interaction.user.id,
                                                                     name=safe_name(started.name))
        await interaction.followup.send(content, embed=embed, files=files, allowed_mentions=NO_MENTIONS)
