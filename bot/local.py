"""``python -m bot --local`` (``bash scripts/start --local``): Chiếu without Discord.

The real bot (the same cogs, tables, outbox and database code) runs against SimCord, an
in-process simulated Discord, with one server, one channel and the local people; SimCord's
Preview serves that channel as a Discord-like page on 127.0.0.1, where a click runs the bot's
real callbacks. Nothing here is imported by the production bot: SimCord and its Preview come
with the optional ``local`` extra (``pip install -e .[local]``).

What the Preview cannot show, the local bot does not send there:

- tables play in the channel itself, not in a thread of their own (a server setting);
- a hand is not sent by DM (the page shows one channel): each person plays through **My
  hand** on the table message, as a player whose DMs are closed does (config ``hands_by_dm``),
  and his turn is announced in the channel.

Time is real: SimCord's timers fire on the wall clock, and the bot keeps its production
pauses (AI seats wait ``ai_delay_seconds``). What the bot does between two clicks (an AI's
move, a turn's timeout) is published to the page by :class:`LocalSession`'s refresher.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import webbrowser
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Callable

import discord

from .app import ChieuBot, create_bot
from .config import Config

log = logging.getLogger("bot.local")

#: the simulated server's id, the same on every start (its settings, chips and history are kept
#: in the local database under it)
GUILD_ID = 1_000_000_000_000_000_001
#: the person at the page when ``--people`` names nobody: a name, as every message writes a
#: seat's name in the third person ("Lan opens", "Chips of Lan"), which "you" made ungrammatical
DEFAULT_PEOPLE = ("Lan",)
#: how often what the bot did between clicks is published to the page
REFRESH_SECONDS = 0.25
#: the longest a click (its rendering included) may take before SimCord reports it stuck
SETTLE_SECONDS = 30.0


@dataclass
class LocalOptions:
    people: tuple[str, ...] = DEFAULT_PEOPLE
    database: str = "data/local.sqlite3"
    port: int = 0
    open_browser: bool = True
    overrides: dict[str, Any] = field(default_factory=dict)


def local_config(config: Config, options: LocalOptions) -> Config:
    """The config of the local bot: its own database, one shard, its commands published to the
    new simulated Discord on every start, hands shown in the channel, and no metrics: their
    server's connections (a scrape, a keep-alive) are work the simulated Discord waits for
    before a click settles, so every action on the page waited its 30 s settling limit."""
    local = config.with_overrides(token=None, database=options.database, shard_count=1, shard_ids=None,
                                  sync_commands="always", dev_guild_id=None, hands_by_dm=False,
                                  threads_allowed=False, **options.overrides)
    if local.metrics_port:
        log.warning("the local mode serves no metrics (metrics_port %s is ignored): they are for a bot on Discord",
                    local.metrics_port)
        local = local.with_overrides(metrics_port=0)
    return local


class LocalSession:
    """The bot on a simulated Discord, and the page that shows its channel.

    ``async with LocalSession(config, options) as session:`` starts it; ``session.url`` is the
    page's address (its secret is the part after ``#``)."""

    def __init__(self, config: Config, options: LocalOptions,
                 prepare: Callable[[ChieuBot], None] | None = None) -> None:
        self.options = options
        self.prepare = prepare  # (tests: seeds the deals)
        self.config = local_config(config, options)
        self.bot: ChieuBot | None = None
        self.env: Any = None
        self.preview: Any = None
        self.people: list[Any] = []
        self.channel: Any = None
        self._stack = contextlib.AsyncExitStack()
        # one thing at a time drives the simulated Discord: a click from the page, or the refresher
        self._turn = asyncio.Lock()
        self._changed = asyncio.Event()
        self._refresher: asyncio.Task | None = None
        self.voided: list[int] = []  # tables whose game an earlier run left in play (void now)

    @property
    def url(self) -> str:
        return self.preview.url

    async def __aenter__(self) -> "LocalSession":
        import simcord

        if self.config.database != ":memory:" and "://" not in self.config.database:
            Path(self.config.database).parent.mkdir(parents=True, exist_ok=True)
        self.voided = await close_earlier_tables(self.config.database)
        # every card drawn before the simulated Discord starts (it gives a start 5 s to settle,
        # which a cold machine's drawing, off the event loop, could overrun)
        await asyncio.to_thread(warm_all_sprites)
        self.bot = create_bot(self.config)
        if self.prepare is not None:
            self.prepare(self.bot)
        try:
            self._stack.enter_context(real_time_settling())
            self.env = await self._stack.enter_async_context(
                simcord.run(self.bot, settle_timeout=SETTLE_SECONDS, check_errors=False))
            self._real_dates()
            self.env.backend.edit_bot_profile("Chiếu")
            guild = self.env.create_guild("Chiếu", id=GUILD_ID)
            self.channel = guild.create_text_channel("cards")
            # the first person owns the server: /admin works for him
            admins = guild.create_role("admins", permissions=discord.Permissions(manage_guild=True))
            self.people = [guild.add_member(self.env.create_user(name), roles=[admins] if not i else [])
                           for i, name in enumerate(self.options.people)]
            await self._tables_in_channel()
            self.preview = await self._stack.enter_async_context(self.env.preview(
                self.channel, viewers=self.people, layout="channel", port=self.options.port))
            await self._say_voided()
            self._serialise_actions()
            self.env.backend.subscribers.append(self._on_event)
            self._refresher = asyncio.create_task(self._refresh_forever(), name="local refresher")
        except BaseException:
            await self.close()
            raise
        return self

    async def _say_voided(self) -> None:
        """A game the local bot was stopped in is void at this start (:func:`close_earlier_tables`):
        the page says so, not only the log."""
        if not self.voided:
            return
        from . import i18n
        from .i18n import ngettext

        settings = await self.bot.db.server_settings(GUILD_ID)
        with i18n.language(settings.get("language") or "en"):
            text = ngettext(
                "Chiếu was stopped during a game: table {tables} is closed and its game is void (no chips moved "
                "for it). Earlier games stay settled.",
                "Chiếu was stopped during games: tables {tables} are closed and their games are void (no chips "
                "moved for them). Earlier games stay settled.", len(self.voided)).format(
                tables=", ".join(f"#{table}" for table in self.voided))
        await self.bot.get_channel(self.channel.id).send(text)
        await self.env.settle()

    def _real_dates(self) -> None:
        """The simulated Discord dates its messages from a fixed day (made for tests: 1 January
        2026); here a message is dated when it was sent, and "opened 5 minutes ago" is true.
        (SimCord's clock, private API pinned in the ``local`` extra: only its starting day moves.)"""
        clock = self.env.backend.clock
        clock._epoch = datetime.now(UTC) - timedelta(seconds=clock.elapsed)

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
            await asyncio.gather(self._refresher, return_exceptions=True)
            self._refresher = None
        try:
            await self._stack.aclose()  # the page, then the simulated Discord
        finally:
            if self.bot is not None:
                await self.bot.release()  # SimCord never closes the bot: its timers and database

    async def _tables_in_channel(self) -> None:
        """Tables play in the channel (the page shows one channel, not threads)."""
        db = self.bot.db
        settings = await db.server_settings(GUILD_ID)
        if settings.get("threads") is not False:
            await db.save_server_settings(GUILD_ID, {**settings, "threads": False})

    def _serialise_actions(self) -> None:
        """A click from the page and the refresher never drive SimCord at once (it allows one
        operation at a time): each waits for the other.

        And a click is taken on the page as it is now, as on Discord, where a click names its
        button, not a version of the message: the Preview refuses an action sent from a state
        older than the last it published (made for a test's fixed pictures), but here the
        refresher publishes whenever the bot does something, so a person clicking while an AI
        plays, or twice in a second, would be told "Action was not completed". The control is
        still looked up in the current state (a button gone is refused), and the bot checks a
        late click as it does on Discord."""
        act = self.preview._action

        async def action(context_id: Any, body: Any) -> Any:
            async with self._turn:
                if isinstance(body, dict) and "published_revision" in body:
                    with contextlib.suppress(Exception):  # (an unknown page: SimCord says so)
                        body = {**body, "published_revision": self.preview._get_page(context_id).revision}
                return await act(context_id, body)

        self.preview._action = action

    def _on_event(self, event: str, payload: Any) -> None:
        self._changed.set()

    async def _refresh_forever(self) -> None:
        """Publish to the page what the bot did on its own (an AI moved, a clock ran out)."""
        while True:
            await self._changed.wait()
            await asyncio.sleep(REFRESH_SECONDS)
            async with self._turn:
                self._changed.clear()
                try:
                    await self.preview.refresh()
                except Exception:
                    log.exception("publishing the bot's changes to the page failed")

    async def wait_closed(self) -> None:
        await self.preview.wait_closed()


async def close_earlier_tables(database: str) -> list[int]:  # (the tables whose game was voided)
    """Close the tables an earlier run left in a lobby or a game: their messages were on that
    run's simulated Discord, gone with it (a new one starts with every run), so nothing could
    show them or take a click on them. A game in play is void, no chip moves for it, as when an
    admin closes a table; chips and history of the games that ended stay. Before the bot
    starts, so that it does not rebuild them."""
    from .db import Database

    db = await Database.open(database)
    try:
        rows = await db.fetchall("SELECT id, guild_id, game_no, status FROM tables"
                                 " WHERE status IN ('lobby', 'playing') ORDER BY id")
        voided = []
        for row in rows:
            async with db.transaction():
                if row["status"] == "playing":
                    game = await db.current_game(row["id"], row["game_no"])
                    if game is not None and game["status"] == "playing":
                        await db.void_game(game["id"], row["guild_id"], closed_by=None)
                        voided.append(row["id"])
                await db.update_table(row["id"], status="cancelled", turn_deadline=None, pause_until=None)
    finally:
        await db.close()
    if rows:
        log.info("closed %d table%s an earlier run left open (%s): their messages were on that run's page; "
                 "a game in play is void, no chips moved for it", len(rows), "" if len(rows) == 1 else "s",
                 ", ".join(f"#{row['id']}" for row in rows))
    return voided


@contextlib.contextmanager
def real_time_settling():
    """SimCord, made for tests, lets a click settle only once every timer due within its
    settling deadline has fired (an AI's pause, the pause between rounds): a click would wait
    for the AI seats to play after it. Here time is real: any timer is a parked wait, the click
    returns once its own work is done, and the timers fire on the wall clock (SimCord's real
    fallback), their effects published by the refresher. (Private SimCord API, pinned in the
    ``local`` extra; undone when the session closes, so tests of the same process keep
    SimCord's own rule.)"""
    from simcord import env as simcord_env

    is_parked, callback_is_parked = simcord_env._is_parked, simcord_env._callback_is_parked
    simcord_env._is_parked = lambda state, task, deadline: is_parked(state, task, float("-inf"))
    simcord_env._callback_is_parked = lambda state, record, deadline: callback_is_parked(
        state, record, float("-inf"))
    try:
        yield
    finally:
        simcord_env._is_parked, simcord_env._callback_is_parked = is_parked, callback_is_parked


def warm_all_sprites() -> None:
    """Draw the sprites of every deck the games use (they are cached per process)."""
    import importlib

    from rendering import warm_sprites

    from .app import EXTENSIONS
    from .tables.commands import GameCog

    cogs = [value for extension in EXTENSIONS for value in vars(importlib.import_module(extension)).values()
            if isinstance(value, type) and issubclass(value, GameCog) and value is not GameCog]
    for deck in sorted({deck for cog in cogs for deck in cog.ui_class().decks_used()}):
        warm_sprites(deck)


BANNER = """\
Chiếu is running locally, without Discord (a simulated server, channel #cards).

  Open:  {url}

The address holds a secret: whoever has it can play as {people}. Type /phom new (or /chan,
/tusac, /chinchon, /concan) in the message box, add AI seats, press Start, then My hand.
Stop with Ctrl+C."""


async def serve(config: Config, options: LocalOptions) -> None:
    """Run the local session until Ctrl+C (or the page's Close)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with LocalSession(config, options) as session:
        print(BANNER.format(url=session.url, people=", ".join(options.people)), flush=True)
        if options.open_browser:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(webbrowser.open, session.url)
        closed = asyncio.create_task(session.wait_closed())
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait((closed, stopped), return_when=asyncio.FIRST_COMPLETED)
        for task in (closed, stopped):
            task.cancel()
    print("Chiếu (local) stopped.", flush=True)
