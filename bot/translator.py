"""Discord's own localizations of the slash commands (names, descriptions, options, choices)
for Vietnamese and both Spanishes, from the same gettext catalogs as every message."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from . import i18n

#: the gettext context of a command's short words (a name must stay one lowercase word)
CONTEXTS = {
    Where.command_name: "command name",
    Where.group_name: "command name",
    Where.parameter_name: "option name",
    Where.choice_name: "choice",
}


class CatalogTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContext) -> str | None:
        lang = i18n.DISCORD_LOCALES.get(locale.value)
        if lang is None:
            return None
        with i18n.language(lang):
            where = CONTEXTS.get(context.location)
            return i18n.pgettext(where, string.message) if where else i18n._(string.message)
