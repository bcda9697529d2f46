"""/rules <game>: one subcommand per registered game, built from the table registry."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.tables.messages import COLOUR


class Rules(commands.Cog):
    def __init__(self, bot) -> None:
        self.bot = bot
        self.group = app_commands.Group(name="rules", description="How to play each game")
        for name, ui in sorted(bot.tables.uis.items()):
            self.group.add_command(app_commands.Command(
                name=name, description=f"The rules of {ui.game.title} as this bot plays them",
                callback=self._rules_callback(ui)))

    @staticmethod
    def _rules_callback(ui):
        async def show_rules(interaction: discord.Interaction) -> None:
            embed = discord.Embed(title=f"{ui.game.title} — rules", description=ui.rules_text[:4096], colour=COLOUR)
            await interaction.response.send_message(embed=embed, ephemeral=True)

        return show_rules

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)


async def setup(bot) -> None:
    await bot.add_cog(Rules(bot))
