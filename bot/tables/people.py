"""What each person chose for himself: the language he is answered in (and his DMs speak),
and how he is told it is his turn. Read from the database once, then kept."""

from __future__ import annotations

import logging

import discord

from bot import i18n
from bot.backends import database_failure
from bot.db import Database

log = logging.getLogger("bot.tables.service")

NOTIFY_MODES = ("dm", "mention", "off")
NOTIFY_DEFAULT = "dm"


class People:
    """Each person's language and turn notifications."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._languages: dict[int, tuple[str, bool]] = {}  # user -> (language, chosen with /settings)
        self._notify: dict[int, str] = {}  # user -> how he is told it is his turn (/settings notify)

    # ---- languages
    async def language_of(self, interaction: discord.Interaction) -> str:
        """The language to answer a person in: the one he chose with /settings, else his Discord
        client's (which is remembered: his DMs speak it)."""
        user_id = interaction.user.id
        seen = i18n.normalize(str(interaction.locale.value) if interaction.locale else None)
        try:
            known = await self._user_language(user_id)
            if known is not None and known[1]:
                return known[0]
            if known is None or known[0] != seen:
                await self.remember_language(user_id, seen, chosen=False)
        except Exception as exc:
            if not database_failure(exc):
                raise
            # the database is away: answered in his client's language all the same
            log.info("the language of user %s could not be read or remembered (%r)", user_id, exc)
        return seen

    async def dm_language(self, user_id: int | None) -> str:
        """The language of a person's DMs (an AI seat, who gets none: the default)."""
        known = None if user_id is None else await self._user_language(user_id)
        return i18n.DEFAULT if known is None else known[0]

    async def remember_language(self, user_id: int, language: str, *, chosen: bool) -> None:
        self._languages[user_id] = (language, chosen)
        await self.db.set_user_language(user_id, language, chosen)

    async def _user_language(self, user_id: int) -> tuple[str, bool] | None:
        if user_id not in self._languages:
            stored = await self.db.user_language(user_id)
            if stored is None:
                return None
            self._languages[user_id] = stored
        return self._languages[user_id]

    # ---- turn notifications
    async def notify_mode(self, user_id: int) -> str:
        """How this player is told it is his turn: "dm" (the default), "mention" or "off"."""
        if user_id not in self._notify:
            self._notify[user_id] = await self.db.user_notify(user_id) or NOTIFY_DEFAULT
        return self._notify[user_id]

    async def set_notify_mode(self, user_id: int, mode: str, language: str) -> None:
        await self.db.set_user_notify(user_id, mode, language)
        self._notify[user_id] = mode
