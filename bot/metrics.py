"""Metrics (Prometheus) and a health check for whoever runs the bot: ``/metrics`` and
``/healthz`` on ``metrics_port`` (0, the default: off, and nothing here runs).

Each process serves its own port, about itself: the tables it drives, its outboxes, its part
of the REST budget, its leases. What the bot keeps anyway is read when Prometheus scrapes
(:class:`_State`); only what happens in between is counted as it happens, by a few thin hooks
installed when the metrics start: clicks and their latency (``TableService.handle``), Discord
calls by class (the bot's HTTP client: globally limited; discord.py's webhook adapter:
interaction answers, not globally limited), 429s (discord.py's aiohttp trace, which sees every
answer, the retried ones too) and database calls (a timing wrapper around the backend). No
label names a table, a server or a user: games, kinds of click, classes of call, kinds of
database operation only, so the number of series stays small whatever the load.

``/healthz`` answers 200 when the gateway is connected, the database answers a trivial query
within :data:`DATABASE_SECONDS` (one probe at a time, its word kept :data:`PROBE_KEPT`; a
server that hangs is reported in time, never waited for), and no message of a table has been failing for longer than
``health_retry_seconds``; else 503, with what failed, as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import platform
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import aiohttp
import discord
from aiohttp import web
from discord.ext import commands
from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, Info, ProcessCollector,
                               generate_latest)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from . import ledger
from .version import version

# the bot is the app's ChieuBot (it owns these metrics: importing it here would tie the two in a
# circle); what is read of it is a commands.Bot's, plus .db and what its table service tells of
# itself (.tables.gauges(): bot.tables.gauges.Gauges)
ChieuBot = commands.Bot

log = logging.getLogger(__name__)

#: The database must answer the health check's query within this many seconds.
DATABASE_SECONDS = 3.0
#: A probe's word stands this many seconds: /healthz asked again meanwhile asks no database.
PROBE_KEPT = 1.0
#: What a request waits past DATABASE_SECONDS for the probe's own word (then it says so itself).
PROBE_GRACE = 0.3
#: Click-to-done seconds: a click is answered in tens of milliseconds, and Discord gives 3 s.
CLICK_BUCKETS = (.005, .01, .025, .05, .1, .25, .5, 1, 2, 3, 5, 10)
#: Database call seconds: a SQLite read is under a millisecond, a PostgreSQL round trip a few.
DATABASE_BUCKETS = (.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5)
#: Kinds of database operation (the backend's coroutines; ``transaction``: a whole one, commit included).
DATABASE_OPERATIONS = ("execute", "insert", "executemany", "fetchone", "fetchall")
#: discord.py's webhook adapter calls: every one of them is an interaction's (this bot has no
#: webhook of its own), answered with the interaction's token and not globally limited.
INTERACTION_CALLS = ("create_interaction_response", "get_original_interaction_response",
                     "edit_original_interaction_response", "delete_original_interaction_response",
                     "execute_webhook", "get_webhook_message", "edit_webhook_message", "delete_webhook_message")
GLOBAL, INTERACTION = "global", "interaction"
#: Kinds of click: the controls' kinds (bot.tables.controls), and one that does not parse.
CLICK_KINDS = ("lobby", "play", "table", "admin", "invalid")


def call_class(method: str, path: str) -> str:
    """Whether Discord counts a call against the bot's global limit (``global``) or not: an
    interaction's callback and the interaction webhook (followups, edits of the original
    answer) are limited per interaction (``interaction``)."""
    parts = path.split("?", 1)[0].strip("/").split("/")
    if "api" in parts:  # a full URL: https://discord.com/api/v10/...
        parts = parts[parts.index("api") + 2:]
    if len(parts) >= 4 and parts[0] == "interactions" and parts[3] == "callback" and method.upper() == "POST":
        return INTERACTION
    if len(parts) >= 3 and parts[0] == "webhooks":
        return INTERACTION
    return GLOBAL


class Metrics:
    """One process's metrics, in a registry of its own, and the server that shows them."""

    #: the metrics the webhook adapter's calls are counted into (a process runs one bot; in
    #: the tests, whose processes build many, the last one started)
    current: "Metrics | None" = None

    def __init__(self, host: str, port: int, health_retry_seconds: float) -> None:
        self.host, self.port = host, port
        self.health_retry_seconds = health_retry_seconds
        self.bot: ChieuBot | None = None
        self.registry = CollectorRegistry(auto_describe=True)
        self.clicks = Counter("chieu_clicks", "Clicks on the tables' controls received from Discord, by game "
                              "(other: a table another process drives) and kind of control",
                              ["game", "kind"], registry=self.registry)
        self.click_seconds = Histogram("chieu_click_seconds", "From a click's arrival until the bot has handled "
                                       "it (answered, its move saved)", ["kind"], buckets=CLICK_BUCKETS,
                                       registry=self.registry)
        self.discord_calls = Counter("chieu_discord_calls", "Discord REST calls made, by class: global (counted "
                                     "against the bot's 50/s) or interaction (answers to clicks, not counted)",
                                     ["class"], registry=self.registry)
        self.rate_limited = Counter("chieu_discord_rate_limited", "Discord answers 429 (rate limited), by class",
                                    ["class"], registry=self.registry)
        self.database_seconds = Histogram("chieu_database_seconds", "Database calls, by kind of operation",
                                          ["op"], buckets=DATABASE_BUCKETS, registry=self.registry)
        for op in (*DATABASE_OPERATIONS, "transaction"):
            self.database_seconds.labels(op)
        for kind in (GLOBAL, INTERACTION):
            self.discord_calls.labels(kind)
            self.rate_limited.labels(kind)
        for kind in CLICK_KINDS:
            self.click_seconds.labels(kind)
        self.games_settled = Counter("chieu_games_settled", "Games settled (their chips written), by game",
                                     ["game"], registry=self.registry)
        self.log_messages = Counter("chieu_log_messages", "Log records of level WARNING and above, by level: "
                                    "errors the bot met and went on from", ["level"], registry=self.registry)
        for level in ("WARNING", "ERROR", "CRITICAL"):
            self.log_messages.labels(level)
        Info("chieu_build", "The version of Chiếu this process runs", registry=self.registry).info(
            {"version": version(), "python": platform.python_version(), "discord_py": discord.__version__})
        ProcessCollector(registry=self.registry)  # the process's CPU, memory, open files (process_*)
        self._runner: web.AppRunner | None = None
        self._log_counter = _LogCounter(self.log_messages)
        self._plain_backend: Any = None  # the database without the timing (health probes are no traffic)
        self._probing: asyncio.Future | None = None  # the database's probe under way
        self._probed: tuple[float, str] | None = None  # when the latest probe ended, and its word

    # ------------------------------------------------------------------- what is counted
    def games(self, names: Any) -> None:
        """Every series of these games' clicks and settlements exists from the start (at 0: a rate
        needs two samples)."""
        for game in names:
            self.games_settled.labels(game)
            for kind in CLICK_KINDS:
                self.clicks.labels(game, kind)

    def settled(self, game: str) -> None:
        self.games_settled.labels(game).inc()

    def clicked(self, game: str, kind: str, seconds: float) -> None:
        self.clicks.labels(game, kind).inc()
        self.click_seconds.labels(kind).observe(seconds)

    def http_trace(self) -> aiohttp.TraceConfig:
        """For discord.py's HTTP session (``Client(http_trace=...)``): every answer Discord
        gives, the 429s among them (discord.py waits and retries those itself)."""
        trace = aiohttp.TraceConfig()

        async def answered(session: Any, context: Any, params: Any) -> None:
            if params.response.status == 429:
                self.rate_limited.labels(call_class(params.method, str(params.url))).inc()

        trace.on_request_end.append(answered)
        return trace

    # --------------------------------------------------------------------- running it
    async def start(self, bot: "ChieuBot") -> None:
        """Count the bot's calls from now on and serve /metrics and /healthz."""
        self.bot = bot
        self.games(bot.tables.gauges().games)
        _count_global_calls(bot, self.discord_calls.labels(GLOBAL))
        _count_interaction_calls()
        self._plain_backend = bot.db.backend
        bot.db.backend = TimedBackend(bot.db.backend, self.database_seconds)
        ledger.SETTLED.append(self.settled)
        logging.getLogger().addHandler(self._log_counter)
        self.registry.register(_State(bot))
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        Metrics.current = self
        log.info("metrics and health on http://%s:%s/metrics and /healthz", self.host, self.port)

    async def stop(self) -> None:
        if Metrics.current is self:
            Metrics.current = None
        if self.settled in ledger.SETTLED:
            ledger.SETTLED.remove(self.settled)
        logging.getLogger().removeHandler(self._log_counter)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        healthy, checks = await self.health()
        return web.json_response({"healthy": healthy, **checks}, status=200 if healthy else 503)

    # ------------------------------------------------------------------------- health
    async def health(self) -> tuple[bool, dict[str, str]]:
        """Whether the process is healthy, and each check's word ("ok" or what is wrong)."""
        checks = {"gateway": self._gateway(), "database": await self._database(), "outbox": self._outbox()}
        return all(word == "ok" for word in checks.values()), checks

    def _gateway(self) -> str:
        bot = self.bot
        if bot.is_closed():
            return "closed"
        if not bot.is_ready():
            return "not connected yet"
        down = sorted(shard_id for shard_id, shard in bot.shards.items() if shard.is_closed())
        return f"shard {', '.join(map(str, down))} disconnected" if down else "ok"

    async def _database(self) -> str:
        """The word of the latest probe of the database if it is at most PROBE_KEPT seconds old,
        else of a new one; one probe at a time (a flood of requests is one query), and never a
        wait past DATABASE_SECONDS (a server that hangs: the answer says so, in time)."""
        probed = self._probed
        if probed is not None and time.perf_counter() - probed[0] <= PROBE_KEPT:
            return probed[1]
        if self._probing is None or self._probing.done():
            self._probing = asyncio.ensure_future(self._probe())
        try:
            # shielded: the request does not wait for a probe stuck on a hung server to end
            return await asyncio.wait_for(asyncio.shield(self._probing), DATABASE_SECONDS + PROBE_GRACE)
        except asyncio.TimeoutError:
            return f"no answer within {DATABASE_SECONDS:g} s"

    async def _probe(self) -> str:
        # straight to the backend: a probe is not the bot's database traffic (chieu_database_seconds)
        target = self._plain_backend if self._plain_backend is not None else self.bot.db
        limited = getattr(target, "limited", None)  # (PostgreSQL: the probe's connection is cut in time)
        try:
            with limited(DATABASE_SECONDS) if limited is not None else contextlib.nullcontext():
                await asyncio.wait_for(target.fetchone("SELECT 1"), DATABASE_SECONDS)
            word = "ok"
        except (asyncio.TimeoutError, TimeoutError):
            word = f"no answer within {DATABASE_SECONDS:g} s"
        except Exception as exc:  # noqa: BLE001 - whatever it is, the database is not answering
            word = f"failing: {exc!r}"[:200]
        self._probed = (time.perf_counter(), word)
        return word

    def _outbox(self) -> str:
        oldest = outbox_state(self.bot)["failing_for"]
        if oldest > self.health_retry_seconds:
            return f"a message has been failing for {oldest:.0f} s (limit {self.health_retry_seconds:g} s)"
        return "ok"


def outbox_state(bot: "ChieuBot") -> dict[str, float]:
    """Over every outbox of the tables this process drives: the messages waiting to be shown,
    those being retried, how long the oldest has waited and the oldest has been failing."""
    outboxes = bot.tables.gauges().outboxes
    return {"pending": outboxes.pending, "retrying": outboxes.retrying, "waited": outboxes.waited,
            "failing_for": outboxes.failing_for}


class _State:
    """What the bot keeps anyway, read at each scrape: its tables, outboxes, REST budget,
    settlements and leases."""

    def __init__(self, bot: "ChieuBot") -> None:
        self.bot = bot

    def describe(self) -> list:
        return []  # (its families are made at each scrape)

    def collect(self):
        bot, service = self.bot, self.bot.tables
        read = service.gauges()
        tables = GaugeMetricFamily("chieu_tables", "Open tables this process drives, by game and status "
                                   "(lobby, playing)", labels=["game", "status"])
        for game in read.games:
            for status in ("lobby", "playing"):
                tables.add_metric([game, status], read.tables.get((game, status), 0))
        yield tables

        outbox = outbox_state(bot)
        yield _gauge("chieu_outbox_pending", "Messages of tables waiting to be shown", outbox["pending"])
        yield _gauge("chieu_outbox_retrying", "Messages of tables being retried after a failure", outbox["retrying"])
        yield _gauge("chieu_outbox_oldest_pending_seconds", "How long the oldest message waiting has waited",
                     outbox["waited"])
        yield _gauge("chieu_outbox_oldest_failing_seconds", "How long the message failing longest has been failing "
                     "(/healthz: unhealthy past health_retry_seconds)", outbox["failing_for"])

        budget = read.budget
        yield _gauge("chieu_rest_budget_calls_per_second", "Globally limited calls per second this process may make",
                     budget.rate)
        yield _gauge("chieu_rest_budget_fill_ratio", "How full the REST budget's bucket is, 0 to 1 (1: calls wait "
                     "for their turn)", budget.fill())
        yield _counter("chieu_rest_budget_calls", "Globally limited calls the tables spent the budget on",
                       budget.spent)
        yield _counter("chieu_rest_budget_waits", "Of those, the calls that waited for their turn", budget.waited)
        yield _counter("chieu_rest_budget_wait_seconds", "Seconds the calls waited for their turn in all",
                       budget.waited_seconds)

        yield _gauge("chieu_settlements_pending", "Games over whose settlement is still being written (retried)",
                     read.settlements_pending)
        leases = read.leases
        yield _gauge("chieu_leases_held", "Table leases this process holds (PostgreSQL)", len(leases.epochs))
        yield _counter("chieu_leases_adopted", "Tables adopted from a process that stopped driving them",
                       leases.adopted)
        yield _counter("chieu_leases_lost", "Tables this process stopped driving: their lease taken or not "
                       "renewed in time", leases.lost)
        # unknown (not connected yet): absent, never a 0 that would look perfect
        latency = bot.latency
        if math.isfinite(latency) and bot.is_ready():
            yield _gauge("chieu_gateway_latency_seconds", "Heartbeat latency of the gateway (averaged over the "
                         "shards)", latency)
        shards = GaugeMetricFamily("chieu_shard_connected", "Whether each of this process's shards is connected to "
                                   "the gateway (1) or not (0)", labels=["shard"])
        for shard_id, shard in sorted(bot.shards.items()):
            shards.add_metric([str(shard_id)], 0.0 if shard.is_closed() else 1.0)
        yield shards


class _LogCounter(logging.Handler):
    """Counts the log records of WARNING and above (chieu_log_messages_total)."""

    def __init__(self, counter: Any) -> None:
        super().__init__(logging.WARNING)
        self.counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        self.counter.labels(record.levelname).inc()


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _counter(name: str, documentation: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, documentation, value=value)


def _count_global_calls(bot: "ChieuBot", counter: Any) -> None:
    """Every call through the bot's HTTP client is made with its token: Discord counts it
    against the global limit (interaction answers go through the webhook adapter instead)."""
    http = bot.http
    request = http.request

    async def counted(route: Any, **kwargs: Any) -> Any:
        counter.inc()
        return await request(route, **kwargs)

    http.request = counted  # type: ignore[method-assign]


_interaction_calls_counted = False


def _count_interaction_calls() -> None:
    """Every call of discord.py's webhook adapter, once per process (its calls are the
    interactions', whichever bot made them): counted into :attr:`Metrics.current`."""
    global _interaction_calls_counted
    if _interaction_calls_counted:
        return
    _interaction_calls_counted = True
    from discord.webhook.async_ import AsyncWebhookAdapter

    for name in INTERACTION_CALLS:
        call = getattr(AsyncWebhookAdapter, name)

        def counted(self: Any, *args: Any, _call: Any = call, **kwargs: Any) -> Any:
            if Metrics.current is not None:
                Metrics.current.discord_calls.labels(INTERACTION).inc()
            return _call(self, *args, **kwargs)

        setattr(AsyncWebhookAdapter, name, counted)


class TimedBackend:
    """A database backend whose calls are timed, by kind of operation (the rest passes through)."""

    def __init__(self, backend: Any, histogram: Histogram) -> None:
        self._backend = backend
        self._timers = {op: histogram.labels(op) for op in (*DATABASE_OPERATIONS, "transaction")}
        for op in DATABASE_OPERATIONS:
            setattr(self, op, self._timed(getattr(backend, op), self._timers[op]))

    @staticmethod
    def _timed(call: Any, timer: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                timer.observe(time.perf_counter() - start)
        return timed

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        start = time.perf_counter()
        try:
            async with self._backend.transaction():
                yield
        finally:
            self._timers["transaction"].observe(time.perf_counter() - start)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)
