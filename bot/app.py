"""Building the bot: ``create_bot(config)`` is used by ``python -m bot`` and by the tests."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging

import discord
from discord import app_commands
from discord.ext import commands

from rendering import warm_sprites

from . import i18n
from .i18n import _
from .backends import database_failure
from .config import Config
from .db import Database
from .metrics import Metrics
from .stopping import STOP_SECONDS, StopReport, stop_tables
from .tables.controls import Control
from .tables.core import INTERACTION_STATEMENT_SECONDS
from .tables.service import TableService
from .translator import CatalogTranslator
from .version import describe as describe_version, version

log = logging.getLogger(__name__)
#: whether this process has frozen its long-lived objects out of garbage collection (once)
_frozen = False

EXTENSIONS = ("cogs.phom", "cogs.chan", "cogs.tusac", "cogs.chinchon", "cogs.concan", "cogs.stats", "cogs.rules",
              "cogs.about",
              "cogs.settings", "cogs.admin")


class CommandTree(app_commands.CommandTree):
    """discord.py's, with a limit on the database: a slash command (and its error's answer) is
    answered in Discord's 3 s whatever the database does (a hung server fails its statements)."""

    async def _call(self, interaction: discord.Interaction) -> None:
        with self.client.db.limited(INTERACTION_STATEMENT_SECONDS):  # type: ignore[attr-defined]
            try:
                await super()._call(interaction)
            except app_commands.AppCommandError as error:
                await self._dispatch_error(interaction, error)


class ChieuBot(commands.AutoShardedBot):
    db: Database
    tables: TableService

    def __init__(self, config: Config) -> None:
        # /metrics and /healthz, when the operator asked for them (config metrics_port)
        metrics = Metrics(config.metrics_host, config.metrics_port, config.health_retry_seconds) \
            if config.metrics_port else None
        # Slash commands and components only: no privileged intents, no message content.
        # No message cache: every message the bot edits is named by id (partial messages) or
        # comes with its interaction, and thousands of cached messages would only lengthen
        # every garbage collection.
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         tree_cls=CommandTree,
                         help_command=None, max_messages=None,
                         # A name or a phrase in a message never pings: a message that means to
                         # ping someone says so (the notice of closed DMs names its player).
                         allowed_mentions=discord.AllowedMentions.none(),
                         # one process may run every shard or some of them (config shard_ids)
                         shard_count=config.shard_count, shard_ids=config.shard_ids,
                         http_trace=metrics.http_trace() if metrics else None)
        self.config = config
        self.metrics = metrics
        self._ready_logged = False
        self._released = False
        #: answers "restarting" being sent to clicks that came during the stop
        self._refusals: set[asyncio.Task] = set()

    async def setup_hook(self) -> None:
        log.info("%s starting", describe_version())
        # no stalled process (this one included) may hold a table's locks past half a lease
        self.db = await Database.open(self.config.database, lock_seconds=self.config.lease_seconds / 2)
        log.info("database: %s", self.db.describe())
        await self.tree.set_translator(CatalogTranslator())
        self.tree.on_error = self._command_failed
        self.tables = TableService(self, self.db)
        self.add_dynamic_items(Control)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.tables.restore()
        if self.metrics is not None:
            await self.metrics.start(self)
        await self.sync_commands()
        # Draw every card sprite once, off the event loop, so the first hands render as fast
        # as the rest (a cold deck costs ~100 ms).
        self._warming = asyncio.create_task(self._warm_sprites())

    async def _warm_sprites(self) -> None:
        for deck in sorted({deck for ui in self.tables.uis.values() for deck in ui.decks_used()}):
            count = await asyncio.to_thread(warm_sprites, deck)
            log.debug("warmed %d %s sprites", count, deck)

    async def on_ready(self) -> None:
        global _frozen
        if not self._ready_logged:
            self._ready_logged = True
            if not _frozen:
                # Everything alive now (modules, caches, restored tables) lives as long as the
                # process: keep it out of the collector's full passes, which otherwise stall the
                # event loop for tens of milliseconds (benchmarks/load). Once a process: what
                # is frozen is never freed, so a process that builds bot after bot (the tests)
                # must not freeze each one's leftovers.
                _frozen = True
                gc.collect()
                gc.freeze()
                log.info("ready: %d objects frozen out of garbage collection", gc.get_freeze_count())
            log.info("running %s", self.describe())

    def shards_here(self) -> str:
        """This process's shards, "0, 1" (/about and the ready log; ``shard_count`` is all of them)."""
        shards = sorted(self.shards) if self.shards else list(self.shard_ids or [])
        return ", ".join(map(str, shards)) or "-"

    def describe(self) -> str:
        """What this process runs: its database, its shards, the tables it drives."""
        return (f"Chiếu {version()} · database {self.db.describe()} · "
                f"shards {self.shards_here()} of {self.shard_count or '?'} · "
                f"{self.tables.driven_count()} tables driven here")

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # discord.py silently drops a click whose custom id is not on the message (a forged
        # or tampered click); answer it instead of leaving "This interaction failed".
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = (interaction.data or {}).get("custom_id", "")
        if custom_id.startswith("chieu:") and not _has_component(interaction.message, custom_id):
            with self.db.limited(INTERACTION_STATEMENT_SECONDS):
                language = await self.tables.language_of(interaction)
            with i18n.language(language):
                await interaction.response.send_message(_("That control is not valid."), ephemeral=True)

    async def _command_failed(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """A slash command the database failed (/balance, /settings... during an outage) is
        answered that it is away, not left as "The application did not respond"."""
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if database_failure(cause) and not interaction.response.is_done():
            with i18n.language(await self.tables.language_of(interaction)):
                return await self.tables.database_away(interaction, cause)
        await app_commands.CommandTree.on_error(self.tree, interaction, error)

    async def sync_commands(self) -> None:
        mode = self.config.sync_commands
        guild = discord.Object(self.config.dev_guild_id) if self.config.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        # the payload as Discord gets it, translations included: a new catalog is synced too
        payload = json.dumps([await c.get_translated_payload(self.tree, self.tree.translator)
                              for c in self.tree.get_commands()], sort_keys=True)
        digest = hashlib.sha256(f"{guild and guild.id}:{payload}".encode()).hexdigest()
        if mode == "never" or (mode == "auto" and await self.db.get_meta("commands_digest") == digest):
            return
        synced = await self.tree.sync(guild=guild)
        await self.db.set_meta("commands_digest", digest)
        log.info("synced %d slash commands%s", len(synced), f" to guild {guild.id}" if guild else " globally")

    # ---------------------------------------------------------------------- a clean stop
    def refuse_clicks(self) -> None:
        """From now on every interaction (a click, a command) is answered that the bot is
        restarting, and nothing else is done with it (bot.stopping, step 1)."""
        parsers = self._connection.parsers

        def refuse(data: dict) -> None:
            interaction = discord.Interaction(data=data, state=self._connection)
            if interaction.type is discord.InteractionType.autocomplete:
                return  # (it cannot carry a message; the command it completes will be answered)
            task = asyncio.create_task(self._say_restarting(interaction), name="restarting-answer")
            self._refusals.add(task)
            task.add_done_callback(self._refusals.discard)

        parsers["INTERACTION_CREATE"] = refuse

    async def _say_restarting(self, interaction: discord.Interaction) -> None:
        try:
            language = await asyncio.wait_for(self.tables.language_of(interaction), 1)
        except Exception:  # noqa: BLE001 - the database may be on its way out: the default language
            language = i18n.DEFAULT
        try:
            with i18n.language(language):
                await interaction.response.send_message(
                    _("Chiếu is restarting: try again in a moment."), ephemeral=True)
        except discord.HTTPException as exc:
            log.info("answering a click during the stop failed (%r)", exc)

    async def stop_cleanly(self, why: str, seconds: float = STOP_SECONDS) -> StopReport:
        """Stop as bot.stopping says, within ``seconds``: clicks answered "restarting", the
        tables' clocks stopped, their outboxes flushed, leases given up, the database and the
        gateway closed."""
        log.info("stopping (%s): clicks are answered that the bot is restarting", why)
        self.refuse_clicks()

        async def close() -> None:
            if self._refusals:
                await asyncio.wait(set(self._refusals), timeout=1)
            await self.close()

        if not hasattr(self, "tables"):  # (stopped before it was set up)
            await asyncio.wait_for(self.close(), seconds)
            return StopReport()
        return await stop_tables(self.tables, close, seconds=seconds)

    async def release(self) -> None:
        """Stop timers and close the database (also used by tests, which never call close())."""
        if self._released:
            return
        self._released = True
        if self.metrics is not None:
            await self.metrics.stop()
        if hasattr(self, "tables"):
            await self.tables.close()
        if hasattr(self, "db"):
            await self.db.close()

    async def close(self) -> None:
        await self.release()
        await super().close()


def _has_component(message: discord.Message | None, custom_id: str) -> bool:
    if message is None:
        return False
    for row in message.components:
        for child in getattr(row, "children", [row]):
            if getattr(child, "custom_id", None) == custom_id:
                return True
    return False


def create_bot(config: Config) -> ChieuBot:
    return ChieuBot(config)
