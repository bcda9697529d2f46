"""/about: what this bot is and, for a server admin, what the process that answers runs on — its
version, its database, its shards and how many tables it drives (an admin running several processes sees
which one). Players see only what the bot is: the rest is the operator's business."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_, _
from bot.permissions import is_server_admin
from bot.tables.messages import COLOUR
from bot.version import version

NAMES = (C_("command name", "about"),)


class About(commands.Cog):
    def __init__(self, bot) -> None:
        self.bot = bot

    @app_commands.command(name="about", description=N_("What Chiếu is and what this process runs on"))
    async def about(self, interaction: discord.Interaction) -> None:
        bot = self.bot
        with i18n.language(await bot.tables.language_of(interaction)):
            embed = discord.Embed(title="Chiếu", colour=COLOUR, description=_(
                "Card games among friends: Phỏm, Chắn, Tứ Sắc, Chinchón and Concan. Chips are a record of "
                "play, never money."))
            if not is_server_admin(interaction):
                await interaction.response.send_message(embed=embed, ephemeral=True)
                return
            embed.add_field(name=_("Version"), value=version())
            embed.add_field(name=_("Database"), value=bot.db.backend.title)
            embed.add_field(name=_("Shards"), value=_("{shards} of {count}").format(
                shards=bot.shards_here(), count=bot.shard_count or "?"))
            embed.add_field(name=_("This server's shard"), value=str(interaction.guild.shard_id)
                            if interaction.guild is not None else "0")
            embed.add_field(name=_("Tables driven here"), value=str(bot.tables.driven_count()))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot) -> None:
    await bot.add_cog(About(bot))
