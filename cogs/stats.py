"""/balance, /leaderboard and /history: queries over the chip ledger of this server, answered
in the asker's language. /leaderboard counts the server's current season (:mod:`bot.seasons`)
unless asked for another or all time; /balance and /history are a player's whole record."""

from __future__ import annotations

import io
from datetime import datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot import charts, i18n, ledger, seasons
from bot.games import REGISTRY
from bot.i18n import C_, N_, _, ngettext
from bot.tables.messages import COLOUR, chips
from bot.tables.names import member_name, safe_name
from rendering import IMAGE_EXTENSION
from rendering.chart import Chart, render_chart_async

GAME_CHOICES = [app_commands.Choice(name=game.title, value=name) for name, game in REGISTRY.items()]
PERIOD_CHOICES = [app_commands.Choice(name=C_("choice", "week"), value="week"),
                  app_commands.Choice(name=C_("choice", "month"), value="month"),
                  app_commands.Choice(name=C_("choice", "all"), value="all")]
BY_CHOICES = [app_commands.Choice(name=C_("choice", "chips"), value="chips"),
              app_commands.Choice(name=C_("choice", "wins"), value="wins"),
              app_commands.Choice(name=C_("choice", "gà"), value="ga")]
PERIOD_TEXT = {"week": N_("this week"), "month": N_("the last 30 days"), "all": N_("all time")}
#: the season option's value for "all time" (a season's value is its name)
ALL_SEASONS = "*"
BY_TEXT = {"chips": N_("by chips"), "wins": N_("by wins"), "ga": N_("by gà")}
FOOTER = N_("Chips record play among friends; they are not money.")
#: the commands' and options' names, for the catalogs (Discord shows them translated)
NAMES = (C_("command name", "balance"), C_("command name", "leaderboard"), C_("command name", "history"),
         C_("option name", "user"), C_("option name", "game"), C_("option name", "period"), C_("option name", "by"),
         C_("option name", "season"))


def games_text(games: int, wins: int) -> str:
    return _("{wins} in {games}").format(wins=ngettext("{n} win", "{n} wins", wins).format(n=wins),
                                         games=ngettext("{n} game", "{n} games", games).format(n=games))


async def chart_file(chart: Chart, description: str, name: str) -> discord.File:
    """The chart as an attachment, with its text alternative; drawn on the rendering threads."""
    png = await render_chart_async(chart)
    return discord.File(io.BytesIO(png), filename=f"{name}.{IMAGE_EXTENSION}", description=description)


async def board(db, guild_id: int, title: str, *, game: str | None = None, period: str = "all",
                by: str = "chips", window: ledger.Window = ledger.ALL_TIME) -> tuple[discord.Embed, list[discord.File]]:
    """The leaderboard under ``title`` (top 10, and the top players' race once there are two
    games): what /leaderboard shows, and a season's final board. Built in the current language."""
    rows = await ledger.leaderboard(db, guild_id, game=game, period=period, by=by, window=window)
    top = rows[:charts.CHART_PLAYERS]
    series = await ledger.running_totals(db, guild_id, [row.user_id for row in top], game=game, period=period,
                                         by=by, window=window)
    embed = discord.Embed(title=title, colour=COLOUR)
    lines = []
    for i, row in enumerate(rows, start=1):
        line = (f"**{i}. {safe_name(row.name)}** — {chips(row.chips, signed=True)} · "
                f"{games_text(row.games, row.wins)}")
        if row.rounds:
            line += " " + ngettext("({n} round in matches)", "({n} rounds in matches)",
                                   row.rounds).format(n=row.rounds)
        if row.ga or by == "ga":
            line += f" · {i18n.number(row.ga, signed=True)} gà"
        lines.append(line)
    embed.description = "\n".join(lines) or _("No games finished yet.")
    embed.set_footer(text=_(FOOTER))
    files = []
    moved = any(any(totals) for totals in series.totals.values())  # (a flat line of zeros tells nothing)
    if len(series.at) >= charts.MIN_GAMES and moved:
        chart, description = charts.leaderboard_chart(
            series, [(row.user_id, row.name, safe_name(row.name)) for row in top], title, by)
        files.append(await chart_file(chart, description, "leaderboard"))
        embed.set_image(url=f"attachment://{files[0].filename}")
    return embed, files


def all_time(season: str, known: list[seasons.Season]) -> bool:
    """Whether the season option asks for all time: its choice, or the words typed (in the
    asker's language or in English), unless a season is named so."""
    words = {_(PERIOD_TEXT["all"]).casefold(), "all time"}
    return season == ALL_SEASONS or (season.strip().casefold() in words and not seasons.named(known, season))



def played_at(title: str, table_id: int | None, game_no: int | None) -> str:
    """Which game of which table: "Chắn · table #2 · game 3", the numbers the table showed (a
    game's own id is no number anyone saw)."""
    if table_id is None or game_no is None:
        return title
    return _("{game} · table #{table} · game {number}").format(game=title, table=table_id, number=game_no)

class Stats(commands.Cog):
    def __init__(self, bot) -> None:
        self.bot = bot

    @app_commands.command(name="balance", description=N_("Chips won or lost at this server's tables"))
    @app_commands.guild_only()
    @app_commands.describe(user=N_("Whose balance (default: yours)"), game=N_("One game only (default: all games)"))
    @app_commands.choices(game=GAME_CHOICES)
    async def balance(self, interaction: discord.Interaction, user: discord.User | None = None,
                      game: str | None = None) -> None:
        """The balance in words, and beside it the chips over time once there are two games to join."""
        user = user or interaction.user
        result = await ledger.balance(self.bot.db, interaction.guild_id, user.id, game=game)
        series = None
        if result.games >= charts.MIN_GAMES:
            series = await ledger.running_totals(self.bot.db, interaction.guild_id, [user.id], game=game)
        with i18n.language(await self.bot.tables.language_of(interaction)):
            text = (f"**{safe_name(user.display_name)}**: **{chips(result.chips, signed=True)}** · "
                    f"{games_text(result.games, result.wins)}")
            if result.ga:
                text += f" · {i18n.number(result.ga, signed=True)} gà"
            what = REGISTRY[game].title if game else _("all games")
            if game:
                text += f" · {what}"
            files = []
            if series is not None and len(series.at) >= charts.MIN_GAMES:
                chart, description = charts.balance_chart(series, user.id, user.display_name,
                                                          safe_name(user.display_name), what)
                files.append(await chart_file(chart, description, "balance"))
            await interaction.response.send_message(f"{text}\n-# {_(FOOTER)}", files=files)

    @app_commands.command(name="leaderboard", description=N_("Top 10 players of this server"))
    @app_commands.guild_only()
    @app_commands.describe(game=N_("One game only (default: all games)"), period=N_("Time window"), by=N_("Ranking"),
                           season=N_("A season of this server, or all time (default: the current season)"))
    @app_commands.choices(game=GAME_CHOICES, period=PERIOD_CHOICES, by=BY_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, game: str | None = None, period: str = "all",
                          by: str = "chips", season: str | None = None) -> None:
        """The board of the server's current season (all time before its first), or of the season
        named; a period other than all is that part of it (this week of the season)."""
        known = await seasons.seasons(self.bot.db, interaction.guild_id)
        with i18n.language(await self.bot.tables.language_of(interaction)):
            if season is None or all_time(season, known):
                chosen = known[-1] if known and season is None else None
            elif (chosen := seasons.named(known, season)) is None:
                await interaction.response.send_message(
                    _("This server has no season named {name}.").format(name=safe_name(season)), ephemeral=True)
                return
            when = [_("season {name}").format(name=safe_name(chosen.name))] if chosen else []
            if period != "all" or not chosen:
                when.append(_(PERIOD_TEXT[period]))
            what = REGISTRY[game].title if game else _("all games")
            title = _("Leaderboard — {games}, {period}, {by}").format(games=what, period=", ".join(when),
                                                                     by=_(BY_TEXT[by]))
            embed, files = await board(self.bot.db, interaction.guild_id, title, game=game, period=period, by=by,
                                       window=seasons.window_of(chosen))
            await interaction.response.send_message(embed=embed, files=files)

    @leaderboard.autocomplete("season")
    async def season_choices(self, interaction: discord.Interaction, typed: str) -> list[app_commands.Choice[str]]:
        """The server's seasons, newest first, after "all time"; those whose name holds what was typed."""
        known = await seasons.seasons(self.bot.db, interaction.guild_id)
        with i18n.language(await self.bot.tables.language_of(interaction)):
            choices = [app_commands.Choice(name=_(PERIOD_TEXT["all"]), value=ALL_SEASONS)]
        choices += [app_commands.Choice(name=season.name, value=season.name) for season in reversed(known)]
        typed = typed.casefold().strip()
        return [choice for choice in choices if typed in choice.name.casefold()][:25]

    @app_commands.command(name="history", description=N_("The last 10 games of a player here"))
    @app_commands.guild_only()
    @app_commands.describe(user=N_("Whose history (default: yours)"))
    async def history(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        user = user or interaction.user
        items = await ledger.history(self.bot.db, interaction.guild_id, user.id)
        closed = await self.bot.db.closed_games(interaction.guild_id, user.id)  # void: no ledger rows
        with i18n.language(await self.bot.tables.language_of(interaction)):
            embed = discord.Embed(title=_("Last games of {player}").format(player=safe_name(user.display_name)),
                                  colour=COLOUR)
            lines = []  # (when, line), merged newest first
            for game in closed:
                ui = self.bot.tables.uis.get(game["game"])
                at = datetime.fromisoformat(game["ended_at"])
                title = played_at(ui.game.title if ui else game["game"], game["table_id"], game["game_no"])
                lines.append((at, f"`{i18n.when(at)}` {title}: " +
                              _("closed by an admin, {admin}; void, no chips moved").format(
                                  admin=member_name(interaction.guild, game["closed_by"]))))
            for item in items:
                ui = self.bot.tables.uis.get(item.game)
                title = played_at(ui.game.title if ui else item.game, item.table_id, item.game_no)
                if item.rounds:
                    title += " " + ngettext("({n} round)", "({n} rounds)", item.rounds).format(n=item.rounds)
                parts = [_("rank {rank} of {players}").format(rank=item.rank, players=item.players)]
                if item.points is not None:
                    parts.append(ngettext("{n} point", "{n} points", abs(item.points)).format(n=item.points))
                parts += [ui.note_text(note) if ui else str(note) for note in item.detail]
                at = datetime.fromisoformat(item.at)
                lines.append((at, f"`{i18n.when(at)}` {title}: {' · '.join(parts)} · "
                                  f"**{chips(item.chips, signed=True)}**"))
            lines.sort(key=lambda line: line[0], reverse=True)
            embed.description = "\n".join(line for _at, line in lines[:10]) or _("No games finished yet.")
            await interaction.response.send_message(embed=embed, allowed_mentions=discord.AllowedMentions.none())


async def setup(bot) -> None:
    await bot.add_cog(Stats(bot))
