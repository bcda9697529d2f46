"""/balance, /leaderboard and /history: queries over the chip ledger of this server."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import ledger
from bot.games import REGISTRY
from bot.tables.messages import COLOUR

GAME_CHOICES = [app_commands.Choice(name=game.title, value=name) for name, game in REGISTRY.items()]


class Stats(commands.Cog):
    def __init__(self, bot) -> None:
        self.bot = bot

    @app_commands.command(name="balance", description="Chips won or lost at this server's tables")
    @app_commands.guild_only()
    @app_commands.describe(user="Whose balance (default: yours)")
    async def balance(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        user = user or interaction.user
        result = await ledger.balance(self.bot.db, interaction.guild_id, user.id)
        text = (f"**{user.display_name}**: **{result.chips:+d}** chips · {result.wins} wins in "
                f"{result.games} games")
        if result.ga:
            text += f" · {result.ga:+d} gà"
        await interaction.response.send_message(text + "\n-# Chips record play among friends; they are not money.")

    @app_commands.command(name="leaderboard", description="Top 10 players of this server")
    @app_commands.guild_only()
    @app_commands.describe(game="One game only (default: all games)", period="Time window", by="Ranking")
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, game: str | None = None,
                          period: Literal["week", "month", "all"] = "all",
                          by: Literal["chips", "wins", "ga"] = "chips") -> None:
        rows = await ledger.leaderboard(self.bot.db, interaction.guild_id, game=game, period=period, by=by)
        title = f"Leaderboard · {REGISTRY[game].title if game else 'all games'} · {period} · by {by}"
        embed = discord.Embed(title=title, colour=COLOUR)
        lines = [f"**{i}. {row.name}** — {row.chips:+d} chips · {row.wins} wins / {row.games} games"
                 + (f" ({row.rounds} rounds in matches)" if row.rounds else "")
                 + (f" · {row.ga:+d} gà" if row.ga or by == "ga" else "")
                 for i, row in enumerate(rows, start=1)]
        embed.description = "\n".join(lines) or "No games finished yet."
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="history", description="The last 10 games of a player here")
    @app_commands.guild_only()
    @app_commands.describe(user="Whose history (default: yours)")
    async def history(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        user = user or interaction.user
        items = await ledger.history(self.bot.db, interaction.guild_id, user.id)
        embed = discord.Embed(title=f"Last games of {user.display_name}", colour=COLOUR)
        lines = []
        for item in items:
            title = REGISTRY[item.game].title if item.game in REGISTRY else item.game
            points = "" if item.points is None else f" · {item.points} pts"
            notes = f" · {', '.join(item.detail)}" if item.detail else ""
            rounds = f" ({item.rounds} rounds)" if item.rounds else ""
            lines.append(f"`{item.at[:16].replace('T', ' ')}` {title} #{item.game_id}{rounds}: rank {item.rank}/"
                         f"{item.players}{points}{notes} · **{item.chips:+d}**")
        embed.description = "\n".join(lines) or "No games finished yet."
        await interaction.response.send_message(embed=embed)


async def setup(bot) -> None:
    await bot.add_cog(Stats(bot))
