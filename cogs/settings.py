"""/settings language: the language of a player's DMs and private answers (by default, his
Discord client's, remembered from his last interaction)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_, _

AUTO = "auto"
NAMES = (C_("command name", "settings"), C_("command name", "language"), C_("option name", "language"),
         C_("choice", "Discord's language"))


class Settings(commands.Cog):
    settings = app_commands.Group(name="settings", description=N_("Your settings for Chiếu"))

    def __init__(self, bot) -> None:
        self.bot = bot

    @settings.command(name="language", description=N_("The language of your hands, DMs and private answers"))
    @app_commands.describe(language=N_("Your language, or Discord's own"))
    @app_commands.choices(language=[app_commands.Choice(name=name, value=code) for code, name in i18n.LANGUAGES.items()]
                          + [app_commands.Choice(name="Discord's language", value=AUTO)])
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        tables = self.bot.tables
        if language == AUTO:
            seen = i18n.normalize(interaction.locale.value if interaction.locale else None)
            await tables.remember_language(interaction.user.id, seen, chosen=False)
            language = seen
        else:
            await tables.remember_language(interaction.user.id, i18n.normalize(language), chosen=True)
        with i18n.language(language):
            text = _("From now on I speak {language} with you: your hands, DMs and private answers. Tables keep "
                     "their own language.").format(language=i18n.LANGUAGES[i18n.normalize(language)])
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot) -> None:
    await bot.add_cog(Settings(bot))
