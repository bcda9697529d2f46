"""What every part of the table service shares: the tables, the database, tasks and replies."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from typing import Any, Awaitable, Callable

import discord
from discord.ext import commands

from bot import i18n
from bot.i18n import _
from bot.backends import database_failure, is_postgres
from bot.db import Database, LeaseLost

from .adapter import GameUI
from .budget import Budget
from .leases import Leases, default_holder
from .model import Table

log = logging.getLogger("bot.tables.service")


NOTIFY_MODES = ("dm", "mention", "off")
NOTIFY_DEFAULT = "dm"


class _Done:
    """What :meth:`ServiceCore._spawn` returns for work it does not start (a dropped table)."""

    @staticmethod
    def done() -> bool:
        return True

    @staticmethod
    def cancel() -> bool:
        return False


_DONE: Any = _Done()


class Refused(Exception):
    """A click that changes nothing; the message is shown privately to the clicker."""


def unreachable_text() -> str:
    """The private answer to an interaction the database failed (nothing changed)."""
    return _("The bot cannot reach its database right now, so nothing changed. Please try again in a moment.")


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
        # The next game's seating as positions in the lobby (tests and demos): [2, 0, 1] seats
        # the lobby's third player first. Otherwise a game whose seats are drawn is seated by
        # seating_random (tests may seed it), the others as in the lobby.
        self.next_seating: list[int] | None = None
        self.seating_random: random.Random = random.SystemRandom()
        # Where a game's seed comes from when none is given (tests seed it: a red CI must mean
        # that a change broke something, not an unlucky deal).
        self.deal_random: random.Random = random.SystemRandom()
        self._languages: dict[int, tuple[str, bool]] = {}  # user -> (language, chosen with /settings)
        self._notify: dict[int, str] = {}  # user -> how he is told it is his turn (/settings notify)
        # the bot's share of Discord's global limit, for every table's outbox
        self.budget = Budget(self.config.rest_calls_here)
        # Several processes on one PostgreSQL database: the tables this one drives (.driving)
        self.leases = Leases(db, enabled=is_postgres(self.config.database),
                             holder=self.config.instance_name or default_holder(),
                             seconds=self.config.lease_seconds)
        self._keeper: Any = None  # the loop that renews the leases and adopts orphaned tables
        self._listener: Any = None  # the connection that hears routed clicks
        self._routed: dict[int, asyncio.Future] = {}  # clicks routed to another process, until it answers
        self._adopting: dict[int, asyncio.Future] = {}
        self._scanning: asyncio.Task | None = None  # adopting the orphaned tables
        self._raw: Any = None  # the payloads of the clicks received (a routed click carries its own)
        self.unsettled: set[int] = set()  # games over whose settlement is still being retried here
        self.metrics = getattr(bot, "metrics", None)  # bot.metrics.Metrics when the operator turned them on


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

    async def dm_language(self, user_id: int) -> str:
        known = await self._user_language(user_id)
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

    def _spawn(self, coro: Any, name: str, table: Table | None = None) -> asyncio.Task:
        """Run ``coro`` as the bot's (a table's, if given: stopped with the table's driving)."""
        if table is not None and table.dropped:
            coro.close()  # this process no longer drives the table: nothing more runs for it
            return _DONE
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._log_failure)
        if table is not None:
            table.tasks.add(task)
            task.add_done_callback(table.tasks.discard)
        return task

    @staticmethod
    def _log_failure(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("table task %s failed", task.get_name(), exc_info=task.exception())

    async def close(self) -> None:
        for table in self.tables.values():
            for task in (table.clock, table.lobby_timer):
                if task is not None:
                    task.cancel()
            if table.presenter is not None:
                table.presenter.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    async def reply(interaction: discord.Interaction, text: str) -> None:
        await ServiceCore.respond(interaction, content=text, ephemeral=True)

    @staticmethod
    async def answer_privately(interaction: discord.Interaction, text: str) -> None:
        """:meth:`reply`, for an answer that changes nothing (a refusal, the database away):
        if Discord refuses it too there is nothing left to tell, so it is noted once, quietly."""
        try:
            await ServiceCore.reply(interaction, text)
        except discord.HTTPException as exc:
            log.info("interaction %s: the private answer %r was refused too (%r)", interaction.id, text[:40], exc)

    async def database_away(self, interaction: discord.Interaction, exc: BaseException) -> None:
        """An interaction the database failed: nothing changed, and the person is told so."""
        log.warning("interaction %s: the database failed (%r); answered that it is away", interaction.id, exc)
        await self.answer_privately(interaction, unreachable_text())

    @staticmethod
    async def respond(interaction: discord.Interaction, **kwargs: Any) -> discord.Message | None:
        """A new message answering the click: its response, or a followup once it was
        acknowledged (a busy table, or a click routed from another process); the message, when
        Discord says which."""
        if interaction.response.is_done():
            return await interaction.followup.send(**kwargs)
        callback = await interaction.response.send_message(**kwargs)
        resource = getattr(callback, "resource", None)
        return resource if isinstance(resource, discord.Message) else None

    async def _save_table(self, table: Table, **fields: Any) -> None:
        """Save the table's columns, fenced by its lease (several processes)."""
        await self._under_lease(table, self.db.update_table, table.id, **fields)

    async def _under_lease(self, table: Table, write: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
        """``write(*args, **kwargs)``, one of the database's writes that take a ``lease``, fenced by
        the table's (LeaseLost, nothing written and the table no longer driven here, if it is gone)."""
        with self._fenced(table):
            return await write(*args, lease=self.leases.lease(table.id), **kwargs)

    @contextlib.contextmanager
    def _fenced(self, table: Table):
        """A write of the table's: refused (LeaseLost) if another process took its lease, in
        which case this process stops driving the table at once."""
        try:
            yield
        except LeaseLost:
            # (the table itself, not the copy of it that shows an earlier game)
            driven = self.tables.get(table.id, table)
            if not (driven.dropped or driven.closed):
                self.leases.lost += 1
            self._stop_driving(driven, "another process took its lease")
            raise

    def _close_table(self, table: Table) -> None:
        """The table closed (cancelled, expired): forgotten here, its lease given up."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if self.leases.enabled and table.id in self.leases.epochs:
            self._spawn(self.leases.release([table.id]), f"release-{table.id}")

    def _stop_driving(self, table: Table, why: str) -> None:
        """This process no longer drives the table: its timers, AI moves, settlement and
        outbox stop now (the task that found out included), and nothing more is written."""
        if table.dropped or table.closed:
            return  # (a table an admin closed is driven by nobody; it still shows its last word)
        table.dropped = True
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        self.leases.forget(table.id)
        for task in (table.clock, table.lobby_timer, *table.tasks):
            if task is not None and not task.done():
                task.cancel()
        if table.presenter is not None:
            table.presenter.close()
        log.warning("table %s: no longer driven by %s (%s)", table.id, self.leases.holder, why)
