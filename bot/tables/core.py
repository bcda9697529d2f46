"""What every part of the table service shares: the tables, the database, tasks and replies."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.db import Database

from .adapter import GameUI
from .model import Table

log = logging.getLogger("bot.tables.service")


class Refused(Exception):
    """A click that changes nothing; the message is shown privately to the clicker."""


def now() -> float:
    """Unix time from discord.py's clock (the simulator's virtual clock in tests)."""
    return discord.utils.utcnow().timestamp()


class ServiceCore:
    """State and helpers of :class:`bot.tables.service.TableService`, whose parts (lobby, play,
    ending) are written as mixins of this class."""

    def __init__(self, bot: commands.Bot, db: Database) -> None:
        self.bot = bot
        self.db = db
        self.config = bot.config
        self.uis: dict[str, GameUI] = {}
        self.tables: dict[int, Table] = {}
        self._tasks: set[asyncio.Task] = set()
        # A pack (or, for a match, the packs of its first rounds) to deal the next game from
        # instead of a shuffle (tests and demos).
        self.next_deck: list[str] | None = None
        self.next_decks: list[list[str]] | None = None
        self.next_seed: int | None = None


    async def stored_state(self, game_id: int) -> Any:
        """The game rebuilt from what SQLite holds (the record, replayed)."""
        record = await self.db.record(game_id)
        ui = self.uis[record["game"]]
        if not ui.game.multi_round:
            record = {**record, "deck": record["decks"][0]}
            del record["decks"], record["seed"]
        return ui.game.replay(record)

    def ui_of(self, table: Table) -> GameUI:
        """The game's UI as this table shows it (its options may choose e.g. the pack)."""
        return self.uis[table.game].bind(table.options)

    def register(self, ui: GameUI) -> None:
        self.uis[ui.game.name] = ui

    def _spawn(self, coro: Any, name: str) -> asyncio.Task:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._log_failure)
        return task

    @staticmethod
    def _log_failure(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("table task %s failed", task.get_name(), exc_info=task.exception())

    async def close(self) -> None:
        for table in self.tables.values():
            for task in (table.clock, table.refresher, table.lobby_timer):
                if task is not None:
                    task.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    async def reply(interaction: discord.Interaction, text: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    def _channel(self, channel_id: int) -> discord.abc.Messageable:
        return self.bot.get_channel(channel_id) or self.bot.get_partial_messageable(channel_id)

    async def _save_table(self, table: Table, **fields: Any) -> None:
        await self.db.update_table(table.id, **fields)
