"""What every part of the table service shares: the tables this process drives, the games'
UIs, the database and the leases that fence each table's writes, the tasks the tables run,
and each table's outbox (:class:`~.outbox.Presenter`). Also the answers every part gives a
click (:func:`reply`, :func:`respond`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Callable, Coroutine, Iterator

import discord

from bot import backends
from bot.backends import is_postgres
from bot.config import Config
from bot.db import Database, LeaseLost
from bot.i18n import _

from .adapter import GameUI
from .budget import Budget
from .leases import Leases, default_holder
from .model import Table
from .outbox import Presenter

log = logging.getLogger("bot.tables.service")

#: Each database statement of an interaction's answer may take this long: a server that hangs
#: (a paused container, a storage stall, a path that drops packets) then fails it, nothing it
#: wrote is committed, and the person is told so within Discord's 3 s.
INTERACTION_STATEMENT_SECONDS = 1.2
#: An interaction still unanswered after this long is acknowledged (deferred), and its answer
#: follows when it is known (a table's lock held by a write the server hangs, a COMMIT in
#: flight: its outcome is waited for, never guessed).
ACKNOWLEDGE_SECONDS = 1.5
#: How long the acknowledgement waits for an answer already on its way (usually milliseconds):
#: past it, it is sent anyway, so that a stuck answer cannot hold it past 2 s (Discord allows 3 s;
#: the rest is the request's own way there).
ANSWER_ON_ITS_WAY_SECONDS = 0.5
#: Discord's error code for a message that no longer exists
UNKNOWN_MESSAGE = 10008

# The interactions being answered (in_time), each with the lock its first response is sent
# under: by the answer, or by the late acknowledgement, one at a time. The second then sees
# the first's outcome (``response.is_done()``, set only once Discord has accepted it), where two
# calls in flight together would both reach Discord, which refuses one of them.
_answering: dict[int, asyncio.Lock] = {}


def answering(interaction: discord.Interaction) -> asyncio.Lock:
    """The lock to hold while choosing between the interaction's response and its followup
    (``is_done()``) and sending it."""
    return _answering.get(interaction.id) or asyncio.Lock()


class _Done:
    """What :meth:`Core.spawn` returns for work it does not start (a dropped table)."""

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


class Core:
    """The tables this process drives and what every part of the service writes them with.

    ``config`` is read at each use (a test may give the service another); the rest stays."""

    def __init__(self, bot: discord.Client, db: Database, config: Config) -> None:
        self.bot = bot
        self.db = db
        self.config = config
        self.uis: dict[str, GameUI] = {}
        self.tables: dict[int, Table] = {}
        self._tasks: set[asyncio.Task] = set()
        self.unsettled: set[int] = set()  # games over whose settlement is still being retried here
        # the bot's share of Discord's global limit, for every table's outbox
        self.budget = Budget(config.rest_calls_here)
        # Several processes on one PostgreSQL database: the tables this one drives (.driving)
        self.leases = Leases(db, enabled=is_postgres(config.database),
                             holder=config.instance_name or default_holder(), seconds=config.lease_seconds,
                             named=bool(config.instance_name))

    # ---- the games
    def register(self, ui: GameUI) -> None:
        self.uis[ui.game.name] = ui

    def ui_of(self, table: Table) -> GameUI:
        """The game's UI as this table shows it (its options may choose e.g. the pack)."""
        return self.uis[table.game].bind(table.options)

    async def stored_state(self, game_id: int) -> Any:
        """The game rebuilt from what the database holds (the record, replayed)."""
        record = await self.db.record(game_id)
        ui = self.uis[record["game"]]
        if not ui.game.multi_round:
            record = {**record, "deck": record["decks"][0]}
            del record["decks"], record["seed"]
        return ui.game.replay(record)

    # ---- tasks
    def spawn(self, coro: Coroutine[Any, Any, Any], name: str, table: Table | None = None) -> asyncio.Task:
        """Run ``coro`` as the bot's (a table's, if given: stopped with the table's driving)."""
        if table is not None and table.dropped:
            coro.close()  # this process no longer drives the table: nothing more runs for it
            return _DONE
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)
        if table is not None:
            table.tasks.add(task)
            task.add_done_callback(table.tasks.discard)
        return task

    async def close(self) -> None:
        """Every table's timers and outbox stop, and every task the tables run ends."""
        for table in self.tables.values():
            for task in (table.clock, table.lobby_timer):
                if task is not None:
                    task.cancel()
            if table.presenter is not None:
                table.presenter.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # ---- interactions answered in time
    @contextlib.contextmanager
    def in_time(self, interaction: discord.Interaction) -> Iterator[None]:
        """Within the block (the answer to ``interaction``), database statements are limited
        (INTERACTION_STATEMENT_SECONDS each) and the interaction is acknowledged after
        ACKNOWLEDGE_SECONDS if it is not answered by then."""
        lock = _answering.setdefault(interaction.id, asyncio.Lock())
        deferring = backends.call_later(
            ACKNOWLEDGE_SECONDS, lambda: self.spawn(acknowledge(interaction, lock), f"acknowledge-{interaction.id}"))
        try:
            with self.db.limited(INTERACTION_STATEMENT_SECONDS):
                yield
        finally:
            deferring.cancel()
            if _answering.get(interaction.id) is lock:
                del _answering[interaction.id]

    # ---- the outbox
    def presenter(self, table: Table) -> Presenter:
        """The table's outbox: everything it shows."""
        if table.presenter is None:
            # the presenter times frames and retries on the event loop's clock (what its sleeps use)
            table.presenter = Presenter(f"table {table.id}", self.bot, self.budget, asyncio.get_running_loop().time,
                                        lambda coro, name: self.spawn(coro, name, table),
                                        may_show=lambda: self.leases.vouch(table.id))
        return table.presenter

    # ---- writes, fenced by the table's lease
    async def save_table(self, table: Table, **fields: Any) -> None:
        """Save the table's columns, fenced by its lease (several processes)."""
        await self.under_lease(table, self.db.update_table, table.id, **fields)

    async def under_lease(self, table: Table, write: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
        """``write(*args, **kwargs)``, one of the database's writes that take a ``lease``, fenced by
        the table's (LeaseLost, nothing written and the table no longer driven here, if it is gone)."""
        with self.fenced(table):
            return await write(*args, lease=self.leases.lease(table.id), **kwargs)

    async def check_lease(self, table: Table) -> None:
        """Inside a transaction: this process still holds the table's lease (several
        processes), and does until the transaction ends; else LeaseLost."""
        lease = self.leases.lease(table.id)
        if lease is not None:
            await self.db.leases.check(lease)

    @contextlib.contextmanager
    def fenced(self, table: Table) -> Iterator[None]:
        """A write of the table's: refused (LeaseLost) if another process took its lease, in
        which case this process stops driving the table at once."""
        try:
            yield
        except LeaseLost:
            # (the table itself, not the copy of it that shows an earlier game)
            driven = self.tables.get(table.id, table)
            if not (driven.dropped or driven.closed):
                self.leases.lost += 1
            self.stop_driving(driven, "another process took its lease")
            raise

    def close_table(self, table: Table) -> None:
        """The table closed (cancelled, expired): forgotten here, its lease given up."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if self.leases.enabled and table.id in self.leases.epochs:
            self.spawn(self.leases.release([table.id]), f"release-{table.id}")

    def stop_driving(self, table: Table, why: str) -> None:
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


def _log_failure(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("table task %s failed", task.get_name(), exc_info=task.exception())


# ---- answers to a click
async def respond(interaction: discord.Interaction, **kwargs: Any) -> discord.Message | None:
    """A new message answering the click: its response, or a followup once it was
    acknowledged (a busy table, or a click routed from another process); the message, when
    Discord says which."""
    async with answering(interaction):
        if interaction.response.is_done():
            return await interaction.followup.send(**kwargs)
        callback = await interaction.response.send_message(**kwargs)
    resource = getattr(callback, "resource", None)
    return resource if isinstance(resource, discord.Message) else None


async def edit_answer(interaction: discord.Interaction, **kwargs: Any) -> None:
    """The clicked message changed as the answer: through the response, or once the click was
    acknowledged, through the original response."""
    async with answering(interaction):
        if interaction.response.is_done():
            await interaction.edit_original_response(**kwargs)
        else:
            await update_clicked(interaction, **kwargs)


async def update_clicked(interaction: discord.Interaction, **kwargs: Any) -> None:
    """The click's first response edits the clicked message. If the message is gone (deleted
    by a moderator or the outbox between the click and its answer), the click is acknowledged
    all the same and the failure raised: the caller's outbox shows the message again."""
    try:
        await interaction.response.edit_message(**kwargs)
    except discord.NotFound as exc:
        if exc.code != UNKNOWN_MESSAGE:
            raise
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.defer()
        raise


async def defer(interaction: discord.Interaction) -> None:
    """Acknowledge a click now, unless it was answered already (its answer edits or follows)."""
    async with answering(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer()


async def acknowledge(interaction: discord.Interaction, lock: asyncio.Lock) -> None:
    """Acknowledge a click or command whose answer is late (its answer follows, as a routed
    click's does): Discord would otherwise show "This interaction failed". Under the
    interaction's ``lock``: an answer already on its way is waited for, not raced (for
    ANSWER_ON_ITS_WAY_SECONDS at most: being in time comes first)."""
    try:
        try:
            await asyncio.wait_for(lock.acquire(), ANSWER_ON_ITS_WAY_SECONDS)
            held = True
        except asyncio.TimeoutError:
            held = False
            log.info("interaction %s: its answer is still on its way; acknowledged beside it", interaction.id)
        try:
            if interaction.response.is_done():
                return
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()  # (nothing shown; the answer edits or follows)
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
        finally:
            if held:
                lock.release()
        log.info("interaction %s: not answered within %.1f s; acknowledged", interaction.id, ACKNOWLEDGE_SECONDS)
    except (discord.HTTPException, discord.InteractionResponded) as exc:  # answered meanwhile
        log.info("interaction %s: acknowledging it failed (%r)", interaction.id, exc)


async def reply(interaction: discord.Interaction, text: str) -> None:
    await respond(interaction, content=text, ephemeral=True)


async def answer_privately(interaction: discord.Interaction, text: str) -> None:
    """:func:`reply`, for an answer that changes nothing (a refusal, the database away): if
    Discord refuses it too there is nothing left to tell, so it is noted once, quietly."""
    try:
        await reply(interaction, text)
    except discord.HTTPException as exc:
        log.info("interaction %s: the private answer %r was refused too (%r)", interaction.id, text[:40], exc)


async def database_away(interaction: discord.Interaction, exc: BaseException) -> None:
    """An interaction the database failed: nothing changed, and the person is told so."""
    log.warning("interaction %s: the database failed (%r); answered that it is away", interaction.id, exc)
    await answer_privately(interaction, unreachable_text())
