"""/rules <game>: the rules as this bot plays them, privately, where a translation exists
(``bot/rules/<game>.<lang>.md``) in the table's language when asked in a table's thread, else
in the asker's; without a translation, in English with the native terms."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_, _
from bot.tables.messages import COLOUR

NAMES = (C_("command name", "rules"),)


class Rules(commands.Cog):
    def __init__(self, bot) -> None:
        self.bot = bot
        self.group = app_commands.Group(name="rules", description=N_("How to play each game"))
        for name, ui in sorted(bot.tables.uis.items()):
            self.group.add_command(app_commands.Command(name=name, description=ui.description or ui.game.title,
                                                        callback=self._rules_callback(ui)))

    def _rules_callback(self, ui):
        async def show_rules(interaction: discord.Interaction) -> None:
            with i18n.language(await self._language(interaction)) as lang:
                text = ui.rules_texts.get(lang) or ui.rules_text
                embed = discord.Embed(title=_("{game} — rules").format(game=ui.game.title), description=text[:4096],
                                      colour=COLOUR)
                if lang not in ui.rules_texts and lang != i18n.DEFAULT:
                    embed.set_footer(text=_("These rules are not translated yet: here they are in English."))
            await interaction.response.send_message(embed=embed, ephemeral=True)

        return show_rules

    async def _language(self, interaction: discord.Interaction) -> str:
        tables = self.bot.tables
        here = [t for t in tables.tables.values() if t.thread_id and t.thread_id == interaction.channel_id]
        return here[0].language if here else await tables.language_of(interaction)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)


async def setup(bot) -> None:
    await bot.add_cog(Rules(bot))
