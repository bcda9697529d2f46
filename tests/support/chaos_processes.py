"""The chaos run with two bot processes on one PostgreSQL database (issue #26):
``python -m benchmarks.chaos --processes 2 --seeds N``.

Two ChieuBot instances, "a" (shard 0, which Discord sends every DM to) and "b" (shard 1), on
one SimCord as tests/integration/test_routing.py runs them, share a database on a PostgreSQL
server of the run's own (tests/support/databases.py). The tables of every game are opened in servers of
both shards, so each process drives some and routes clicks to the other. Besides the random
Discord faults of tests/support/chaos.py (not the disk, the SQLite lock or the restart, which are
SQLite's), the chaos phase brings:

* **killed connections** — every connection of the bots is terminated by the server;
* **a stall** of each process in turn — its lease renewals never reach the database and its
  own clock does not see the time pass (a paused VM: by its clock, it renewed a moment ago),
  while it goes on running; the database's clock runs on for its leases (the harness moves
  their expiry back as the simulated clock moves), so the other process adopts its tables;
* **a database restart** — the server halted for longer than a lease while players click,
  then started again (the database's clock has run meanwhile: every lease's expiry moves back
  by the outage);
* **one interaction delivered to both processes** (as around a reconnect), now and then, for
  a click on a hand.

It adds these invariants to tests/support/chaos.py's (on PostgreSQL): no Discord call of a table from
a process after another process took the table's lease (calls counted per process and table,
in order with the takes; the answers to interactions excepted: any process answers what it
received); every interaction answered (but those whose answer a fault refused); every
interaction applied at most once. And it reports per seed the adoptions (from the stall or the
outage to the take, simulated seconds), the calls of the former driver after each takeover,
and what players were told during the outage.

Clocks: leases expire in the database's (real) clock, renewals run on SimCord's virtual clock,
with ``lease_seconds`` = 60 as the other PostgreSQL tests; the harness is what makes the
database's clock run for a stalled or cut-off lease, so adoption times are virtual seconds.
Discord's 3 s to answer an interaction is real time too: the harness moves SimCord's clock past
a click that did not settle (the bot still waits on its database), so an answer late by the
simulated clock but within 3 s of real time is counted as Discord would count it.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import itertools
import logging
import os
import statistics
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simcord import interactions as sim_interactions
from simcord.backend import serializers
from simcord.backend.errors import BackendError
from simcord.enums import ComponentType, InteractionType
from simcord.http import router

from tests.support.chaos import EMPTY_CONFIG, Chaos, ChaosConfig, Faults, Report, Violation
from tests.support.databases import PostgresServer, postgres_bindir
from tests.support.simhelpers import attach_shard_process, deliver_to, private_texts, seed_deals, shard_guild_id

LEASE_SECONDS = 60.0
#: the simulated clock moves in steps of at most this while the database's clock is emulated
STEP = 2.0
#: calls that answer an interaction (any process answers what it received), not a table's
ANSWERS = {"callback", "followup"}
#: Discord's time to answer an interaction first (real time)
DISCORD_ANSWER_SECONDS = 3.0
DUPLICATE_RATE = 0.1  # chance that a hand click is delivered to both processes

#: which process a task works for: set where each bot's events and setup start their tasks
CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar("chaos_caller", default=None)


@dataclass
class Call:
    seq: int
    at: float  # simulated seconds
    process: str | None
    table: int | None
    kind: str


@dataclass
class Take:
    seq: int
    at: float
    process: str
    table: int
    before: str | None  # the lease's holder before the take (None: no lease yet)


def tag(bot, name: str) -> None:
    """Every task ``bot`` starts from its events or its setup carries its name (CALLER)."""
    parsers = bot._connection.parsers

    def tagged(parse):
        def run(data):
            token = CALLER.set(name)
            try:
                return parse(data)
            finally:
                CALLER.reset(token)
        return run

    for event, parse in list(parsers.items()):
        parsers[event] = tagged(parse)
    setup = bot.setup_hook

    async def tagged_setup() -> None:
        token = CALLER.set(name)
        try:
            await setup()
        finally:
            CALLER.reset(token)

    bot.setup_hook = tagged_setup


class _Trace(logging.Handler):
    def __init__(self, chaos: "ProcessesChaos") -> None:
        super().__init__(logging.WARNING)
        self.chaos = chaos

    def emit(self, record: logging.LogRecord) -> None:
        if "answered that it is away" not in str(record.msg):
            self.chaos.trace(f"[{CALLER.get()}] {record.levelname} {record.getMessage()[:150]}")


class CountingFaults(Faults):
    """The faults of tests/support/chaos.py, and every call written down with its process and table."""

    def __init__(self, chaos: "ProcessesChaos") -> None:
        super().__init__(chaos.env, chaos.cfg.seed, chaos.cfg.fault_rate)
        self.chaos = chaos
        self.refused_answers: set[int] = set()  # interactions whose answer a fault refused
        self.late_answers: dict[int, str] = {}  # interaction -> who answered after Discord's 3 s
        self.created: dict[int, float] = {}  # interaction -> when it was created, real time
        self.failed_answers: dict[int, str] = {}  # interaction -> a first answer Discord refused, and why

    def install(self) -> None:
        super().install()
        faulty = router.dispatch

        def dispatch(backend, method, path, **kwargs):
            try:
                return faulty(backend, method, path, **kwargs)
            except BackendError as exc:
                record = interaction_of(backend, path)
                if record is not None and path.endswith("/callback") and not record.responded:
                    kind = (kwargs.get("json") or {}).get("type")
                    self.failed_answers[record.id] = f"callback type {kind} refused ({exc}) from {answerer()}"
                raise

        router.dispatch = dispatch
        backend = self.env.backend
        new_interaction = backend.new_interaction

        def stamped(*args, **kwargs):
            record = new_interaction(*args, **kwargs)
            self.created[record.id] = time.monotonic()
            return record

        backend.new_interaction = stamped

    def observe(self, backend, method: str, path: str, kind: str) -> None:
        if kind == "callback":
            record = interaction_of(backend, path)
            if record is not None and not record.responded and record.initial_response_deadline is not None \
                    and backend.now_iso() >= record.initial_response_deadline:
                self.answered_past_the_simulated_deadline(backend, record)
        self.chaos.calls.append(Call(next(self.chaos.seq), self.chaos.now(), CALLER.get(),
                                     self.chaos.table_of_call(backend, path), kind))

    def answered_past_the_simulated_deadline(self, backend, record) -> None:
        """A first answer after SimCord's 3 s: Discord's deadline is real time, and SimCord's clock
        jumps when the harness advances it past a click that did not settle (the bot still at
        work on it: its database is slow, stalled or restarting). An answer within 3 s of real
        time is one Discord accepts (the deadline is moved to match); a later one is a violation
        and names what sent it."""
        age = time.monotonic() - self.created.get(record.id, float("-inf"))
        if age < DISCORD_ANSWER_SECONDS:
            record.initial_response_deadline = backend.iso_after(DISCORD_ANSWER_SECONDS - age)
            self.chaos.report.stats["answers in time by the real clock, late by the simulated one"] += 1
        else:
            self.late_answers[record.id] = f"{answerer()}, {age:.2f} s of real time after the click"

    def _maybe_fail(self, backend, method: str, path: str, kind: str) -> None:
        try:
            super()._maybe_fail(backend, method, path, kind)
        except Exception:
            record = interaction_of(backend, path)
            if record is not None and kind == "callback":
                self.refused_answers.add(record.id)
            raise


def answerer() -> str:
    """Which task, from which lines of the bot, sent a first response after Discord's 3 s."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # (no loop)
        task = None
    frames = [f"{Path(frame.filename).name}:{frame.lineno} {frame.name}" for frame in traceback.extract_stack()
              if f"{os.sep}bot{os.sep}" in frame.filename]
    return f"task {task.get_name() if task is not None else None}: {' → '.join(frames[-5:]) or 'no bot frame'}"


def interaction_of(backend, path: str):
    parts = path.strip("/").split("/")
    if parts[0] == "interactions" and len(parts) > 1 and parts[1].isdigit():
        return backend.interactions.get(int(parts[1]))
    if parts[0] == "webhooks" and len(parts) > 2:
        found = backend.interaction_tokens.get(parts[2])
        return backend.interactions.get(found) if found is not None else None
    return None


class ProcessesChaos(Chaos):
    def __init__(self, config: ChaosConfig, workdir: Path, server: PostgresServer, url: str) -> None:
        super().__init__(config, workdir)
        self.server = server
        self.url = url
        self.b = None
        self.seq = itertools.count()
        self.calls: list[Call] = []
        self.takes: list[Take] = []
        self.applied: Counter = Counter()  # interaction id -> times a table applied it
        self.stalled: str | None = None
        self.events: list[tuple[str, float, set[int]]] = []  # (what, started at, tables it concerned)
        self.outage_answers: Counter = Counter()
        self.outage_unanswered = 0
        self.outage = False
        self.back_at: float | None = None
        self.duplicates = 0
        self.channel_tables: dict[int, int] = {}
        self.user_tables: dict[int, int] = {}

    # ---- the bots
    def build_bot(self, name: str = "a"):
        from bot.app import create_bot
        from bot.config import load

        bot = create_bot(load(EMPTY_CONFIG, database=self.url, ai_delay_seconds=0, rest_calls_per_second=1e6,
                              table_edit_seconds=6, shard_count=1, instance_name=name,
                              lease_seconds=LEASE_SECONDS))
        seed_deals(bot, f"chaos seed {self.cfg.seed} {name}")
        tag(bot, name)
        setup = bot.setup_hook

        async def watched_setup() -> None:
            await setup()
            self.watch(bot, name)

        bot.setup_hook = watched_setup
        self.bots.append(bot)
        return bot

    def watch(self, bot, name: str) -> None:
        """Write down each lease the process takes, and each interaction a table applies."""
        service = bot.tables
        leases = service.leases
        take = leases.take

        async def taking(table_id: int) -> bool:
            before = await leases.db.leases.of(table_id)
            taken = await take(table_id)
            if taken:
                self.takes.append(Take(next(self.seq), self.now(), name, table_id,
                                       before["holder"] if before is not None else None))
                self.trace(f"{name} took table #{table_id} (held by {self.takes[-1].before})")
            return taken

        leases.take = taking
        for part, method in ((service.lobby, "click"), (service.clicks, "table_click"), (service.hands, "click")):
            original = getattr(part, method)

            def applying(interaction, *args, _original=original, **kwargs):
                self.applied[interaction.id] += 1
                return _original(interaction, *args, **kwargs)

            setattr(part, method, applying)

    def make_faults(self) -> Faults:
        return CountingFaults(self)

    async def started(self) -> None:
        self.b = self.build_bot("b")
        await attach_shard_process(self.env, self.b)
        self.processes = {"a": self.env.bot, "b": self.b}

    def now(self) -> float:
        """Simulated seconds (SimCord's clock, which the bots' loop time follows; the harness's
        own loop time is the real one)."""
        return self.env.backend.clock.elapsed if self.env is not None else 0.0

    def trace(self, message: str) -> None:
        """CHAOS_TRACE=1: the run's events with their real and simulated times, on stdout."""
        if os.environ.get("CHAOS_TRACE"):
            print(f"{os.times().elapsed - self.real_start:7.1f} real {self.now():8.1f} sim  {message}", flush=True)

    async def run(self) -> Report:
        self.real_start = os.times().elapsed
        park_route_waiters()
        handler = _Trace(self)
        logger = logging.getLogger("bot")
        logger.addHandler(handler)
        try:
            return await super().run()
        finally:
            logger.removeHandler(handler)

    def new_guild(self, index: int):
        # tables alternate between the shards: each process drives some
        return self.env.create_guild(name=f"guild-{index}", id=shard_guild_id(index % 2, index // 2 + 1))

    async def setup(self) -> None:
        await super().setup()
        for setup in self.tables:
            self.channel_tables[setup.channel.id] = setup.table_id
            for player in setup.players:
                self.user_tables[player.id] = setup.table_id

    def table_of_call(self, backend, path: str) -> int | None:
        parts = path.strip("/").split("/")
        channel_id = None
        if parts[0] == "channels" and len(parts) > 1 and parts[1].isdigit():
            channel_id = int(parts[1])
        else:
            record = interaction_of(backend, path)
            if record is not None:
                if record.user_id in self.user_tables and record.guild_id is None:
                    return self.user_tables[record.user_id]
                channel_id = record.channel_id
        if channel_id is None:
            return None
        if channel_id in self.channel_tables:
            return self.channel_tables[channel_id]
        channel = backend.channels.get(channel_id)
        if channel is None:
            return None
        if channel.is_thread:
            return self.channel_tables.get(channel.parent_id)
        recipient = next((user for user, dm in backend.dm_channels.items() if dm == channel_id), None)
        return self.user_tables.get(recipient)

    def _timed_out(self, what: str, exc: BaseException) -> None:
        super()._timed_out(what, exc)
        self.trace(f"{what} did not settle: {exc}")
        if os.environ.get("CHAOS_TRACE") == "2" and not getattr(self, "_dumped", False):
            self._dumped = True
            for task in asyncio.all_tasks():
                if "dynamic_item" not in repr(task.get_coro()):
                    continue
                coro, chain = task.get_coro(), []
                while coro is not None:
                    frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
                    if frame is not None:
                        chain.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
                    coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
                print("\n".join(chain) + f"\nwaits on {task._fut_waiter!r}\n", flush=True)

    # ---- clicks: now and then one delivered to both processes
    async def _click(self, actor, stored, custom_id: str):
        if self.calm or self.outage or not custom_id.startswith("chieu:play:") or self.rng.random() >= DUPLICATE_RATE:
            result = await super()._click(actor, stored, custom_id)
            if self.outage and result is not None:
                texts = private_texts(result)
                if not result.acknowledged and result._interaction.id not in self.faults.refused_answers:
                    self.outage_unanswered += 1
                for text in texts:
                    self.outage_answers[text] += 1
            return result
        self.report.stats["clicks"] += 1
        self.duplicates += 1
        backend = self.env.backend
        guild = getattr(actor, "guild", None)
        data = {"custom_id": custom_id, "component_type": ComponentType.BUTTON}
        record, payload = sim_interactions.base_payload(
            backend, type=InteractionType.MESSAGE_COMPONENT, channel_id=stored.channel_id,
            guild_id=guild.id if guild is not None else None, user_id=actor.id, data=data)
        payload["message"] = dict(serializers.message_payload(backend, stored))
        record.source_message_id = stored.id
        first, second = self.rng.sample(list(self.processes.values()), 2)
        deliver_to(self.env, first, payload)
        try:
            await self.env.settle()
        except TimeoutError as exc:
            self._timed_out("a click delivered twice", exc)
        deliver_to(self.env, second, copy.deepcopy(payload))
        try:
            await self.env.settle()
        except TimeoutError as exc:
            self._timed_out("a click delivered twice", exc)
        return None

    # ---- the database's clock, for a stalled process's leases
    async def _advance(self, seconds: float) -> None:
        if self.stalled is None:
            return await super()._advance(seconds)
        while seconds > 0:
            step = min(STEP, seconds)
            await self.shift_leases(step, self.stalled)
            await super()._advance(step)
            seconds -= step

    async def shift_leases(self, seconds: float, holder: str | None = None) -> None:
        """The database's clock ran ``seconds`` on for ``holder``'s leases (every lease: None)."""
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            if holder is None:
                await conn.execute("UPDATE leases SET expires_at = expires_at - $1", seconds)
            else:
                await conn.execute("UPDATE leases SET expires_at = expires_at - $1 WHERE holder = $2", seconds,
                                   holder)
        finally:
            await conn.close()

    def driven(self, name: str) -> set[int]:
        return {t.id for t in self.processes[name].tables.tables.values() if t.status in ("lobby", "playing")}

    # ---- disasters
    async def kill_connections(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            killed = await conn.fetchval(
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()")
        finally:
            await conn.close()
        self.report.stats["connections killed"] += killed
        self.trace(f"killed {killed} connections")

    async def stall(self, name: str) -> None:
        """``name`` stops renewing, its clock frozen, until the other adopted its tables."""
        bot = self.processes[name]
        leases = bot.tables.leases
        renew = leases.renew

        async def frozen() -> set[int]:
            now = leases._now()
            for table in leases.renewed:  # by its clock, it renewed a moment ago
                leases.renewed[table] = now
            return set()

        tables = self.driven(name)
        started = self.now()
        self.events.append((f"stall of {name}", started, tables))
        self.trace(f"{name} stalls, driving {sorted(tables)}")
        leases.renew = frozen
        self.stalled = name
        try:
            while self.now() - started < 3 * LEASE_SECONDS:
                taken = {t.table for t in self.takes if t.at >= started and t.process != name}
                if tables <= taken:
                    break
                await self.players_act(0.5)
                await self._advance(self.rng.choice([2, 4, 6]))
            for _ in range(3):  # still frozen: it must not speak for what it lost
                await self.players_act(0.5)
                await self._advance(5)
        finally:
            self.stalled = None
            leases.renew = renew
            self.trace(f"{name} thaws")
        self.report.stats["stalls"] += 1

    async def restart_database(self) -> None:
        """The server halted for longer than a lease while players click; then back."""
        tables = self.driven("a") | self.driven("b")
        started = self.now()
        self.events.append(("database restart", started, tables))
        self.trace(f"database halts; tables driven {sorted(tables)}")
        await asyncio.to_thread(self.server.halt)
        self.outage = True
        try:
            while self.now() - started < 1.5 * LEASE_SECONDS:
                await self.players_act(0.6)
                await self._advance(self.rng.choice([5, 10, 15]))
        finally:
            self.outage = False
            await asyncio.to_thread(self.server.start)
            self.trace("database started")
        self.back_at = self.now()
        await self.shift_leases(self.now() - started)  # the database's clock ran on
        self.report.stats["database restarts"] += 1
        self.report.figures.append(f"database back after {self.now() - started:.0f} s")

    async def chaos_phase(self) -> None:
        ticks = self.cfg.chaos_ticks
        kill_at, stall_b, outage_at, stall_a = int(ticks * 0.15), int(ticks * 0.3), int(ticks * 0.5), int(ticks * 0.7)
        self.faults.active = True
        for tick in range(ticks):
            if tick == kill_at:
                await self.kill_connections()
            if tick == stall_b:
                await self.stall("b")
            if tick == outage_at:
                await self.restart_database()
            if tick == stall_a:
                await self.stall("a")
            await self.players_act(0.6)
            await self._advance(self.rng.choice([0.5, 2, 5, 10, 16, 30]))
        self.faults.active = False

    # ---- checks
    async def stored(self) -> tuple[list, Counter, dict, dict]:
        db = self.bot.db
        games = await db.fetchall("SELECT g.*, t.status AS table_status, t.game_no AS table_game_no"
                                  " FROM games g JOIN tables t ON t.id = g.table_id ORDER BY g.id")
        settled = Counter(r["game_id"] for r in await db.fetchall("SELECT game_id FROM settlements"))
        ledger = defaultdict(list)
        for row in await db.fetchall("SELECT * FROM ledger"):
            ledger[row["game_id"]].append(row)
        tables = {r["id"]: r for r in await db.fetchall("SELECT * FROM tables")}
        self._statuses = Counter(g["status"] for g in games)
        return games, settled, ledger, tables

    def game_statuses(self) -> Counter:
        return getattr(self, "_statuses", Counter())

    async def check(self) -> list[Violation]:
        found = await super().check()
        # (6) moves numbered 0…n, each once
        moves = defaultdict(list)
        for row in await self.bot.db.fetchall("SELECT game_id, idx FROM actions ORDER BY game_id, idx"):
            moves[row["game_id"]].append(row["idx"])
        for game_id, numbers in moves.items():
            if numbers != list(range(len(numbers))):
                found.append(Violation("6 moves 0…n", f"game id {game_id}: moves numbered {numbers[:12]}…"))
        found += self.check_speech()
        # (8) every interaction answered (but those whose answer a fault refused)
        refused = self.faults.refused_answers
        unanswered = [r for r in self.env.backend.interactions.values() if not r.responded and r.id not in refused]
        for record in unanswered[:5]:
            # what Discord heard of it (its callbacks and webhook calls), to tell where it stopped
            heard = [f"{entry.method} {entry.path.split('/')[-1]}" for entry in self.env.backend.http_requests
                     if str(record.id) in entry.path or record.token in entry.path]
            found.append(Violation("8 answered", f"interaction {record.id} ({record.command_name or 'a click'}, "
                                   f"user {record.user_id}, channel {record.channel_id}, message "
                                   f"{record.source_message_id}) was never answered; calls: {heard or 'none'}"
                                   + (f"; late answer from {self.faults.late_answers[record.id]}"
                                      if record.id in self.faults.late_answers else "")
                                   + (f"; {self.faults.failed_answers[record.id]}"
                                      if record.id in self.faults.failed_answers else "")))
        if len(unanswered) > 5:
            found.append(Violation("8 answered", f"... {len(unanswered) - 5} more unanswered"))
        # (9) every interaction applied at most once
        for interaction_id, times in self.applied.items():
            if times > 1:
                found.append(Violation("9 applied once", f"interaction {interaction_id} applied {times} times"))
        self.figures()
        return found

    def check_speech(self) -> list[Violation]:
        """(7) no Discord call of a table from a process after another process took its lease."""
        found = []
        takes = defaultdict(list)
        for take in self.takes:
            takes[take.table].append(take)
        for call in self.calls:
            if call.table is None or call.kind in ANSWERS:
                continue
            before = [t for t in takes[call.table] if t.seq < call.seq]
            if before and call.process != before[-1].process:
                found.append(Violation("7 silent after takeover", f"table #{call.table}: a {call.kind} call from "
                                       f"{call.process} at {call.at:.1f} s, after {before[-1].process} took the "
                                       f"table at {before[-1].at:.1f} s"))
        return found[:10]

    def figures(self) -> None:
        """Adoptions per event, the former driver's calls after each takeover, what players saw
        during the outage."""
        out = self.report.figures
        unknown = Counter(c.kind for c in self.calls if c.process is None)
        per_process = Counter(c.process for c in self.calls if c.process is not None)
        out.append("calls per process: " + ", ".join(f"{k} {v}" for k, v in sorted(per_process.items()))
                   + (f"; from no process's task: {dict(unknown)}" if unknown else ""))
        for what, started, tables in self.events:
            delays = []
            for table in sorted(tables):
                first = next((t for t in self.takes if t.table == table and t.at >= started
                              and (what == "database restart" or t.process != what[-1])), None)
                if first is not None:
                    delays.append(first.at - started)
            if delays:
                back = ""
                if what == "database restart" and self.back_at is not None:
                    since = [d - (self.back_at - started) for d in delays]
                    back = f" (p50 {statistics.median(since):.1f} s, max {max(since):.1f} s after it was back)"
                out.append(f"{what} at {started:.0f} s: {len(delays)}/{len(tables)} tables taken again, "
                           f"p50 {statistics.median(delays):.0f} s, max {max(delays):.0f} s after it began{back}")
            else:
                out.append(f"{what} at {started:.0f} s: none of {len(tables)} tables taken again")
        takeovers = [t for t in self.takes if t.before is not None and t.before != t.process]
        after = Counter()
        after_new = Counter()
        for take in takeovers:
            later = [t for t in self.takes if t.table == take.table and t.seq > take.seq]
            until = later[0].seq if later else float("inf")
            for call in self.calls:
                if call.table == take.table and take.seq < call.seq < until and call.kind not in ANSWERS:
                    if call.process == take.before:
                        after[take.before] += 1
                    elif call.process == take.process:
                        after_new[take.process] += 1
        moves = ", ".join(f"{t.before}→{t.process} #{t.table}" for t in takeovers)
        out.append(f"takeovers {len(takeovers)} ({moves}):"
                   f" calls of the former driver after them: {dict(after) or 0};"
                   f" of the new driver: {dict(after_new)}")
        out.append(f"interactions delivered to both processes: {self.duplicates}; applied twice: "
                   f"{sum(1 for v in self.applied.values() if v > 1)}")
        told = "; ".join(f"{text[:90]!r} ×{n}" for text, n in self.outage_answers.most_common(4))
        out.append(f"during the database restart players were told: {told or 'nothing'}"
                   + (f"; {self.outage_unanswered} clicks unanswered" if self.outage_unanswered else ""))


def _in_route(task: asyncio.Task) -> bool:
    from bot.tables.driving import Driving

    coro = task.get_coro()
    while coro is not None:
        if getattr(coro, "cr_code", None) is Driving._route.__code__:
            return True
        coro = getattr(coro, "cr_await", None)
    return False


def park_route_waiters() -> None:
    """Teach SimCord's settlement that a process waiting for the driver's word on a click it
    routed (at most ROUTE_WAIT, 3 s: the click is answered already, and applied at the
    driver's next beat if the word never comes, e.g. its listening connection was killed) is
    parked, as tests/support/chaos.py's park_lock_waiters does for lock waiters: else every such click
    holds the simulated clock for 3 s of real time."""
    from simcord import _settlement

    if getattr(_settlement._park_reason, "_chieu_routes", False):
        return
    original = _settlement._park_reason

    def park_reason(self, task, deadline, seen=None):
        reason = original(self, task, deadline, seen)
        if reason is None and not task.done() and _in_route(task):
            return "waiting for a routed click's driver"
        return reason

    park_reason._chieu_routes = True
    _settlement._park_reason = park_reason


def warm_decks() -> None:
    """Every deck's sprites drawn once (cached for the process), as each bot does at start-up."""
    from rendering import warm_sprites

    for deck in ("french", "spanish", "tusac", "tosom"):
        try:
            warm_sprites(deck)
        except Exception:  # noqa: BLE001 - a deck of another name: the bot warms it itself
            pass


async def run_processes(config: ChaosConfig, workdir: Path) -> Report:
    """One two-process run on a PostgreSQL server of its own (it is halted and started again)."""
    bindir = postgres_bindir()
    if bindir is None:
        raise RuntimeError("the two-process chaos run needs PostgreSQL's server binaries (initdb, postgres)")
    server = PostgresServer(bindir)
    server.start()
    try:
        url = server.url(await server.create_database())
        from bot.db import Database

        await (await Database.open(url)).close()  # migrated before SimCord's 5 s to start a bot
        await asyncio.to_thread(warm_decks)  # the same: the bots' own warm-up is quick then
        chaos = ProcessesChaos(config, workdir, server, url)
        chaos.cfg.disk_full = chaos.cfg.restart = False  # SQLite's and one process's disasters
        chaos.cfg.db_lock_seconds = 0.0
        return await chaos.run()
    finally:
        await asyncio.to_thread(server.stop)
