"""/settings language: the language of a player's DMs and private answers (by default, his
Discord client's, remembered from his last interaction). /settings notify: how he is told it is
his turn (a new DM by default, a mention in the table's thread, or nothing)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_, _
from bot.tables.people import NOTIFY_MODES

AUTO = "auto"
NAMES = (C_("command name", "settings"), C_("command name", "language"), C_("option name", "language"),
         C_("choice", "Discord's language"), C_("command name", "notify"), C_("option name", "how"),
         C_("choice", "A new DM"), C_("choice", "A mention in the table's thread"), C_("choice", "Off"))
NOTIFY_CHOICES = {"dm": "A new DM", "mention": "A mention in the table's thread", "off": "Off"}


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
                     "their own language.").format(language=i18n.language_name(language))
        await interaction.response.send_message(text, ephemeral=True)


    @settings.command(name="notify", description=N_("How you are told it is your turn"))
    @app_commands.describe(how=N_("A new DM (Discord notifies it), a mention in the table's thread, or off"))
    @app_commands.choices(how=[app_commands.Choice(name=NOTIFY_CHOICES[mode], value=mode) for mode in NOTIFY_MODES])
    async def notify(self, interaction: discord.Interaction, how: str) -> None:
        tables = self.bot.tables
        language = await tables.language_of(interaction)
        await tables.set_notify_mode(interaction.user.id, how, language)
        with i18n.language(language):
            text = {"dm": _("When it is your turn and you are not already looking at your hand, I send you a new "
                            "DM (Discord notifies it) and delete the previous one."),
                    "mention": _("When it is your turn and you are not already looking at your hand, I mention you "
                                 "in the table's thread."),
                    "off": _("I will not tell you when it is your turn; your hand DM still shows it.")}[how]
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot) -> None:
    await bot.add_cog(Settings(bot))
