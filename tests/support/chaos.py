"""A seeded chaos run of the bot (issue #16), shared by tests/integration/test_chaos.py and
benchmarks/chaos.py.

One simcord Env, one bot on a file database, several concurrent tables of every game. Then:

* **chaos phase** — Discord calls fail at random (403, 404, 429, 500, 503 on message posts,
  edits, deletes, interaction callbacks, webhook edits, followups, thread creation, DM
  channels, fetches), players click what they see (their DM hand or **My hand**, Next round,
  Buy back in / Decline, Rematch on a *random* result, Start on a rematch lobby), the virtual
  clock moves (turn timers play for people), the disk fills up for a while, another process
  holds the database lock longer than the bot's busy timeout, and the bot restarts;
* **calm phase** — faults cleared, the disk freed; players keep playing the games in progress
  (no new rematches) and the clock runs generously, until every table's game is over and the
  bot's retries have had time to land;
* **checks** — on what Discord shows and SQLite holds only (see :func:`check`).

The run is seeded (``random.Random(seed)`` for the players, a hash of the seed for the faults,
the seed for the bots' deals);
it is as deterministic as simcord allows (rendering and SQLite run in threads, so the order of
two tables' calls may vary between runs on a loaded machine).

Fault model notes. simcord replaces discord.py's HTTP transport (``HTTPClient.request`` and the
webhook adapter's ``request``), so discord.py's own retry loop for 429 and 5xx never runs: an
injected 429/500/503 reaches the bot as an ``HTTPException`` at once, with no sleep, real or
virtual. That is harsher than production (where discord.py would retry a few times first) and
keeps the run fast. A 404 on an edit is made real: the message is deleted (a moderator removed
the table message; a DM hand was lost) before the call proceeds, so the 404 the bot gets is
the one Discord would give, and a bot that posts anew is seen to do so.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import simcord
from simcord.backend.errors import BackendError, SetupError
from simcord.http import router
from simcord.results import ResponseMessage

from tests.support.simclock import long_timers_virtual
from tests.support.simhelpers import seed_deals

EMPTY_CONFIG = Path(__file__).with_name("empty_config.toml")

GAMES = ("phom", "chan", "tusac", "chinchon", "concan")
#: options that keep a game short where the game has them
SMALL_OPTIONS = {"chinchon": {"target": 20}, "concan": {"rounds": 2}}

HELPERS = {"Quick Select", "Find Trash", "Auto-arrange", "I'm back", "My hand", "Go to table"}
NOT_MOVES = HELPERS | {"Rematch", "Next round", "Join", "Leave", "Add AI", "Start", "Cancel"}

RESULT_TITLE = re.compile(r"· table #(\d+) · game (\d+) — result$")
ROUND_TITLE = re.compile(r"· table #(\d+) · round (\d+) — result$")
LOBBY_TITLE = re.compile(r"· table #(\d+)$")
PLAY_ID = re.compile(r"chieu:play:(\d+):(\d+):")


# ------------------------------------------------------------------------------- configuration


#: Calm ticks without a single move, with a game in play: the game is stuck (not slow).
STUCK_TICKS = 10


@dataclass
class ChaosConfig:
    seed: int
    tables: int = 5  # one of each game at 5; more tables cycle through the games again
    fault_rate: float = 0.12  # chance that a Discord call fails during the chaos phase
    chaos_ticks: int = 60
    calm_ticks: int = 90  # at most, unless games are still moving; each moves the clock 20 s
    calm_extra_ticks: int = 150  # at most this many more for games still moving (slow, not stuck)
    db_lock_seconds: float = 0.0  # real seconds another connection holds the write lock (0: never)
    disk_full: bool = True
    restart: bool = True
    closed_dm_rate: float = 0.15  # chance that a player's DMs are closed to the bot
    processes: int = 1  # 2: two bots on one PostgreSQL (tests/support/chaos_processes.py)


@dataclass
class Violation:
    invariant: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.invariant}] {self.detail}"


@dataclass
class Report:
    seed: int
    violations: list[Violation] = field(default_factory=list)
    stats: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    bot_errors: Counter = field(default_factory=Counter)
    bot_logs: Counter = field(default_factory=Counter)  # the bot's warnings and errors, by message
    seconds: float = 0.0
    calls: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)  # harness events that are not violations
    figures: list[str] = field(default_factory=list)  # what a mode measures besides (adoptions...)

    def summary(self) -> str:
        lines = [f"seed {self.seed}: {len(self.violations)} violation(s) in {self.seconds:.1f} s · "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.stats.items()))]
        lines.append("  calls: " + ", ".join(f"{k} {v}" for k, v in sorted(self.calls.items())))
        lines.append("  faults: " + ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())))
        if self.bot_errors:
            lines.append("  errors raised in the bot: " + ", ".join(
                f"{k} ×{v}" for k, v in self.bot_errors.most_common(6)))
        if self.bot_logs:
            lines.append("  bot log: " + "; ".join(f"{k} ×{v}" for k, v in self.bot_logs.most_common(8)))
        lines += [f"  note: {n}" for n in self.notes[:5]]
        lines += [f"  {line}" for line in self.figures]
        lines += [f"  {v}" for v in self.violations]
        return "\n".join(lines)


# ------------------------------------------------------------------------------------- faults


class RateLimited(BackendError):
    """A 429 with Discord's body (retry_after, global)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(429, 0, "You are being rate limited.")
        self.retry_after = retry_after

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "retry_after": self.retry_after, "global": False, "code": 0}


def _kind(method: str, path: str) -> str | None:
    """The kind of a REST call, or None for calls never failed (command sync, start-up)."""
    parts = path.strip("/").split("/")
    if parts[0] == "applications" or parts[:2] == ["users", "@me"] and method == "GET":
        return None
    if parts[0] == "interactions":
        return "callback"
    if parts[0] == "webhooks":
        if method == "POST":
            return "followup"
        return "webhook_edit" if method == "PATCH" else "webhook_" + method.lower()
    if parts[0] == "users" and method == "POST":
        return "dm_open"
    if parts[0] == "channels":
        if parts[-1] == "threads":
            return "thread"
        if len(parts) == 3 and parts[2] == "messages" and method == "POST":
            return "post"
        if len(parts) == 4 and parts[2] == "messages":
            return {"PATCH": "edit", "DELETE": "delete", "GET": "get"}.get(method, "other")
    return "get" if method == "GET" else "other"


#: what each kind of call may fail with (403 / 404 are given their Discord codes)
MENU = {
    "post": (403, 429, 500, 503),
    "edit": (403, 404, 429, 500, 503),
    "delete": (404, 429, 500, 503),
    "callback": (404, 429, 500, 503),
    "webhook_edit": (404, 429, 500, 503),
    "webhook_get": (404, 429, 500, 503),  # an interaction's original response, read
    "webhook_delete": (404, 429, 500, 503),
    "followup": (429, 500, 503),
    "thread": (403, 429, 500, 503),
    "dm_open": (429, 500, 503),
    "get": (429, 500, 503),
    "other": (429, 500, 503),
}


class Faults:
    """Wraps simcord's ``router.dispatch``: random failures while active, and what was shown."""

    def __init__(self, env, seed: int, rate: float) -> None:
        self.env = env
        self.seed = seed
        self.rate = rate
        self.active = False
        self.counts: Counter = Counter()
        self.calls: Counter = Counter()
        self._per_key: Counter = Counter()
        self.hands_shown: set[tuple[int, int]] = set()  # (table, game) whose controls Discord accepted
        self.closed_dm_channels: set[int] = set()
        self._original = None

    def install(self) -> None:
        self._original = router.dispatch
        original = self._original

        def dispatch(backend, method, path, **kwargs):
            kind = _kind(method, path)
            if kind is not None:
                self.calls[kind] += 1
                self.observe(backend, method, path, kind)
                self._maybe_fail(backend, method, path, kind)
            result = original(backend, method, path, **kwargs)
            body = kwargs.get("json")
            if body is not None:
                text = json.dumps(body, default=str)
                for table, game in PLAY_ID.findall(text):
                    self.hands_shown.add((int(table), int(game)))
            return result

        router.dispatch = dispatch

    def observe(self, backend, method: str, path: str, kind: str) -> None:
        """Every call the bot makes, before it may fail (a mode that counts calls overrides it)."""

    def uninstall(self) -> None:
        if self._original is not None:
            router.dispatch = self._original
            self._original = None

    def _draw(self, key: str) -> float:
        """A uniform draw for the n-th call of ``key``: independent of other tables' calls."""
        self._per_key[key] += 1
        digest = hashlib.blake2b(f"{self.seed}:{key}:{self._per_key[key]}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2**64

    def _maybe_fail(self, backend, method: str, path: str, kind: str) -> None:
        parts = path.strip("/").split("/")
        channel_id = int(parts[1]) if parts[0] == "channels" and parts[1].isdigit() else None
        if kind == "post" and channel_id in self.closed_dm_channels:
            self.counts["403/50007 closed DM"] += 1
            raise BackendError(403, 50007, "Cannot send messages to this user")
        if not self.active:
            return
        key = f"{kind}:{channel_id}" if channel_id else kind
        draw = self._draw(key)
        if draw >= self.rate:
            return
        menu = MENU[kind]
        status = menu[int(draw / self.rate * len(menu)) % len(menu)]
        self.counts[f"{status} {kind}"] += 1
        if status == 403:
            raise BackendError(403, 50013, "Missing Permissions")
        if status == 404:
            if kind == "edit" and channel_id is not None:
                # made real: the message is gone (deleted by a moderator, a lost DM)
                try:
                    backend.delete_message(channel_id, int(parts[3]))
                except BackendError:
                    pass
                self.counts["deleted messages"] += 1
                return  # the route answers 10008 itself
            if kind == "callback":
                raise BackendError(404, 10062, "Unknown interaction")
            raise BackendError(404, 10008, "Unknown Message")
        if status == 429:
            raise RateLimited(retry_after=round(0.2 + draw * 10, 3))
        raise BackendError(status, 0, "Internal Server Error (chaos)" if status == 500 else "Service Unavailable")


# ---------------------------------------------------------------------------------- the world


@dataclass
class Player:
    member: Any  # MemberActor
    closed_dm: bool = False

    @property
    def id(self) -> int:
        return self.member.id


@dataclass
class TableSetup:
    game: str
    guild: Any
    channel: Any  # ChannelHandle
    players: list[Player]
    ai: int
    table_id: int | None = None


def _buttons(stored) -> list[dict[str, Any]]:
    out = []
    stack = list(stored.components or [])
    while stack:
        component = stack.pop(0)
        if component.get("type") == 2:
            out.append(component)
        stack[0:0] = list(component.get("components", []) or [])
    return out


def _enabled(stored) -> dict[str, str]:
    """label -> custom id of the buttons a user can click (no links)."""
    return {b.get("label"): b["custom_id"] for b in _buttons(stored)
            if not b.get("disabled") and b.get("custom_id") and b.get("style") not in (5, 6)}


def _title(stored) -> str:
    return (stored.embeds[0].get("title") or "") if stored.embeds else ""


class _LogCounter(logging.Handler):
    """Counts the bot's warnings and errors by message template (and keeps them off stderr)."""

    def __init__(self, counts: Counter) -> None:
        super().__init__(logging.WARNING)
        self.counts = counts

    def emit(self, record: logging.LogRecord) -> None:
        template = re.sub(r"%[sdr]", "…", str(record.msg))
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            template += f" ({type(error).__name__}: {str(error)[:60]})"
        self.counts[f"{record.levelname} {template}"] += 1


class Chaos:
    def __init__(self, config: ChaosConfig, workdir: Path) -> None:
        self.cfg = config
        self.rng = Random(config.seed)
        self.workdir = workdir
        self.db_path = workdir / "chieu.sqlite3"
        self.report = Report(config.seed)
        self.bots: list[Any] = []
        self.tables: list[TableSetup] = []
        self.env = None
        self.faults: Faults | None = None
        self.calm = False
        self.stuck = False  # after the calm phase: a game in play made no move in its last ticks
        self.locked = False
        self.dead_lobbies: set[int] = set()
        self.closed_dm_users: set[int] = set()

    # ---- the bot
    def build_bot(self):
        from bot.app import create_bot
        from bot.config import load

        # no AI pause, and a budget that never holds a call back: it counts real seconds, which
        # SimCord's simulated games do not spend (benchmarks/load measures the budget's figures);
        # table_edit_seconds over SimCord's 5 s settling of a restart, so that a frame held back
        # waits on the virtual clock and never on the wall clock
        bot = create_bot(load(EMPTY_CONFIG, database=str(self.db_path), ai_delay_seconds=0,
                              rest_calls_per_second=1e6, table_edit_seconds=6, shard_count=1))
        seed_deals(bot, f"chaos seed {self.cfg.seed} #{len(self.bots)}")  # the deals too are the seed's
        self.bots.append(bot)
        return bot

    @property
    def bot(self):
        return self.env.bot

    # ---- reading what Discord shows
    def _messages(self, channel_id: int) -> list:
        return sorted(self.env.backend.messages.get(channel_id, {}).values(), key=lambda m: m.id)

    def _table_channels(self, setup: TableSetup) -> list[int]:
        ids = [setup.channel.id]
        ids += [c.id for c in self.env.backend.channels.values() if c.is_thread and c.parent_id == setup.channel.id]
        return ids

    def _public(self, setup: TableSetup) -> list:
        return [m for cid in self._table_channels(setup) for m in self._messages(cid) if not m.is_ephemeral]

    def _stored(self, channel_id: int, message_id: int):
        return self.env.backend.messages.get(channel_id, {}).get(message_id)

    async def _click(self, actor, stored, custom_id: str):
        self.report.stats["clicks"] += 1
        try:
            return await actor.click(ResponseMessage(self.env, stored), custom_id=custom_id)
        except SetupError:
            self.report.stats["clicks on vanished controls"] += 1
        except TimeoutError as exc:
            self._timed_out("a click", exc)
        return None

    def _timed_out(self, what: str, exc: BaseException) -> None:
        """simcord gave up waiting for the bot (5 s of real time): expected while another
        connection holds the database (the bot waits up to its busy timeout), a hang otherwise."""
        if self.locked:
            self.report.stats["settles timed out under the db lock"] += 1
        else:
            # not an invariant of the bot: simcord ran a short bot sleep in real time (see
            # park_lock_waiters); reported with the statistics
            self.report.stats["settles timed out"] += 1
            self.report.notes.append(f"{what} did not settle in time: {(str(exc).splitlines() or [repr(exc)])[0]}")

    # ---- setting up
    def new_guild(self, index: int):
        return self.env.create_guild(name=f"guild-{index}")

    async def setup(self) -> None:
        env = self.env
        for index in range(self.cfg.tables):
            game = GAMES[index % len(GAMES)]
            guild = self.new_guild(index)
            channel = guild.create_text_channel(f"cards-{index}")
            humans = 1 if self.rng.random() < 0.4 else self.rng.randint(2, 3)
            ai = self.rng.randint(1, 2) if humans == 1 else self.rng.randint(0, 1)
            members = []
            for n in range(humans):
                member = guild.add_member(env.create_user(f"p{index}_{n}"))
                closed = self.rng.random() < self.cfg.closed_dm_rate
                if closed:
                    self.faults.closed_dm_channels.add(member.user.dm_channel.id)
                    self.closed_dm_users.add(member.id)
                members.append(Player(member, closed))
            setup = TableSetup(game, guild, channel, members, ai)
            self.tables.append(setup)
            host = members[0].member
            options = {"stake": self.rng.randint(1, 5), "turn_seconds": self.rng.choice([15, 20, 30]),
                       **SMALL_OPTIONS.get(game, {})}
            opened = await host.slash(channel, f"{game} new", **options)
            lobby = self._stored(channel.id, opened.response.id)
            setup.table_id = int(LOBBY_TITLE.search(_title(lobby)).group(1))
            for player in members[1:]:
                await self._click(player.member, lobby, _enabled(lobby)["Join"])
            for _ in range(ai):
                await self._click(host, lobby, _enabled(self._stored(channel.id, lobby.id))["Add AI"])
            await self._click(host, lobby, _enabled(self._stored(channel.id, lobby.id))["Start"])
            self.report.stats["tables"] += 1

    # ---- players
    async def act(self, setup: TableSetup, player: Player) -> None:
        """One thing a player does on what he sees."""
        public = self._public(setup)
        choice = self.rng.random()
        if not self.calm:
            results = [m for m in public if RESULT_TITLE.search(_title(m)) and "Rematch" in _enabled(m)]
            # a lobby that answered "This lobby is closed" is not clicked again (the bot leaves
            # Start enabled on a lobby whose game has started)
            lobbies = [m for m in public if LOBBY_TITLE.search(_title(m)) and "Start" in _enabled(m)
                       and m.id not in self.dead_lobbies]
            if lobbies and player is setup.players[0] and choice < 0.6:
                self.report.stats["start clicks"] += 1
                told = await self._click(player.member, lobbies[-1], _enabled(lobbies[-1])["Start"])
                if told is not None and any("lobby is closed" in f.content for f in told.followups) or (
                        told is not None and told.ephemeral and told.response is not None
                        and "lobby is closed" in told.response.content):
                    self.dead_lobbies.add(lobbies[-1].id)
                    self.report.stats["start refused: lobby closed"] += 1
                return
            if results and self.rng.random() < 0.35:
                target = self.rng.choice(results)  # any result it sees, older ones included
                self.report.stats["rematch clicks"] += 1
                await self._click(player.member, target, _enabled(target)["Rematch"])
                return
        rounds = [m for m in public if ROUND_TITLE.search(_title(m)) and "Next round" in _enabled(m)]
        if rounds and self.rng.random() < 0.5:
            self.report.stats["next round clicks"] += 1
            await self._click(player.member, rounds[-1], _enabled(rounds[-1])["Next round"])
            return
        await self.play_hand(setup, player, public)

    def _dm_hand(self, player: Player):
        channel = self.env.backend.dm_channels.get(player.id)
        if channel is None:
            return None
        for message in reversed(self._messages(channel)):
            if message.author_id == self.env.backend.bot_user.id and any(
                    cid.startswith("chieu:") for cid in _enabled(message).values()):
                return message
        return None

    async def play_hand(self, setup: TableSetup, player: Player, public: list) -> None:
        hand = None if player.closed_dm else self._dm_hand(player)
        actor = player.member.user
        if hand is None or self.rng.random() < 0.1:
            boards = [m for m in public if "My hand" in _enabled(m)]
            if not boards:
                return
            shown = await self._click(player.member, boards[-1], _enabled(boards[-1])["My hand"])
            response = shown.response if shown is not None else None
            if response is None:
                return
            hand, actor = self._stored(response.channel_id, response.id), player.member
            self.report.stats["my hand"] += 1
        if hand is None:
            return
        controls = _enabled(hand)
        if "I'm back" in controls and self.rng.random() < 0.4:
            self.report.stats["i'm back"] += 1
            await self._click(actor, hand, controls["I'm back"])
            return
        if "Quick Select" in controls and self.rng.random() < 0.9:
            await self._click(actor, hand, controls["Quick Select"])
            hand = self._stored(hand.channel_id, hand.id)
            if hand is None:
                return
            controls = _enabled(hand)
        moves = [label for label in controls if label not in NOT_MOVES]
        if not moves:
            return
        move = self.rng.choice(moves)
        self.report.stats["moves"] += 1
        await self._click(actor, hand, controls[move])

    async def players_act(self, chance: float) -> None:
        order = list(self.tables)
        self.rng.shuffle(order)
        for setup in order:
            for player in setup.players:
                if self.rng.random() < chance:
                    await self.act(setup, player)

    # ---- disasters
    async def disk(self, full: bool) -> None:
        conn = self.bot.db.backend.writer  # the chaos harness runs on SQLite
        if full:
            (pages,) = await (await conn.execute("PRAGMA page_count")).fetchone()
            await conn.execute(f"PRAGMA max_page_count = {pages}")
        else:
            await conn.execute("PRAGMA max_page_count = 1073741823")
        self.report.stats["disk full" if full else "disk freed"] += 1

    async def hold_db_lock(self) -> None:
        """Another process takes SQLite's write lock and keeps it past the bot's busy timeout,
        while the players go on clicking and the clock runs."""
        held, done = threading.Event(), threading.Event()

        def hold() -> None:
            conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                held.set()
                time.sleep(self.cfg.db_lock_seconds)
                conn.execute("ROLLBACK")
            finally:
                conn.close()
                done.set()

        thread = threading.Thread(target=hold, daemon=True)
        thread.start()
        await asyncio.to_thread(held.wait, 30)
        self.locked = True
        started = time.monotonic()
        try:
            while not done.is_set() and time.monotonic() - started < self.cfg.db_lock_seconds + 10:
                await self.players_act(0.5)
                await self._advance(self.rng.choice([1, 5, 16]))
            await asyncio.to_thread(thread.join, 30)
            for _ in range(3):  # what waited on the lock finishes
                try:
                    await self.env.settle()
                    break
                except TimeoutError:
                    continue
        finally:
            self.locked = False
        self.report.stats["db locks"] += 1

    async def drain(self) -> None:
        """Let the bot finish what it is doing (a few tries of simcord's settle)."""
        for attempt in range(4):
            try:
                await self.env.settle()
                return
            except TimeoutError as exc:
                error = exc
        self._timed_out("draining before the restart", error)
        if os.environ.get("CHAOS_DEBUG"):
            dump_tasks()

    async def restart(self) -> None:
        old = self.env.bot
        await self.drain()
        # Discord answers while the new bot attaches: simcord settles the attach with a fixed 5 s
        # timeout, so a retry sleeping exactly 5 s (the bot's first backoff) during restore would
        # fire in real time and fail the attach itself. Faults resume right after.
        active, self.faults.active = self.faults.active, False
        attaching = ATTACH_SECONDS.set(60.0)
        try:
            await self.env.restart_bot(self.build_bot())
        except Exception as exc:  # noqa: BLE001 - a restart that fails is a finding
            self.report.violations.append(Violation("restart", f"the restart failed: {exc!r}"))
            raise
        finally:
            self.faults.active = active
            ATTACH_SECONDS.reset(attaching)
        await old.release()
        self.report.stats["restarts"] += 1

    async def _advance(self, seconds: float) -> None:
        try:
            await self.env.advance_time(seconds)
        except TimeoutError as exc:
            self._timed_out("advancing the clock", exc)

    # ---- phases
    async def chaos_phase(self) -> None:
        ticks = self.cfg.chaos_ticks
        disk_from, disk_to = int(ticks * 0.2), int(ticks * 0.35)
        lock_at, restart_at = int(ticks * 0.45), int(ticks * 0.6)
        self.faults.active = True
        for tick in range(ticks):
            if self.cfg.disk_full and tick == disk_from:
                await self.disk(True)
            if self.cfg.disk_full and tick == disk_to:
                await self.disk(False)
            if self.cfg.db_lock_seconds and tick == lock_at:
                await self.hold_db_lock()
            if self.cfg.restart and tick == restart_at:
                await self.restart()
            await self.players_act(0.6)
            await self._advance(self.rng.choice([0.5, 2, 5, 10, 16, 30]))
        self.faults.active = False

    async def _playing_tables(self) -> list[int]:
        rows = await self.bot.db.fetchall("SELECT id FROM tables WHERE status = 'playing'")
        return [row["id"] for row in rows]

    async def _moves_made(self) -> int:
        (count,) = await self.bot.db.fetchone("SELECT COUNT(*) FROM actions")
        return count

    async def calm_phase(self) -> None:
        """Play on without faults until no game is left in play. A match still in play after
        ``calm_ticks`` is told apart: still moving (slow: a long match on a loaded machine; the
        phase goes on, up to ``calm_extra_ticks`` more) or not (stuck: a violation, said so)."""
        self.calm = True
        self.faults.active = False
        self.env.backend.faults.clear()
        limit, tick = self.cfg.calm_ticks, 0
        moves = [await self._moves_made()]
        while tick < limit:
            if not await self._playing_tables():
                break
            await self.players_act(0.5)
            await self._advance(20)
            tick += 1
            moves.append(await self._moves_made())
            still_moving = moves[-1] > moves[max(0, len(moves) - 1 - STUCK_TICKS)]
            if tick == limit and still_moving and limit < self.cfg.calm_ticks + self.cfg.calm_extra_ticks \
                    and await self._playing_tables():
                limit += STUCK_TICKS  # slow, not stuck: it goes on
        self.report.stats["calm ticks"] = tick
        self.report.stats["calm ticks past the limit (slow matches)"] = max(0, tick - self.cfg.calm_ticks)
        # no move over the last STUCK_TICKS ticks while a game is in play: stuck
        self.stuck = len(moves) > STUCK_TICKS and moves[-1] == moves[-1 - STUCK_TICKS]
        for _ in range(8):  # retries back off up to 300 s: let the last of them land
            await self._advance(60)

    # ---- checks
    async def check(self) -> list[Violation]:
        """The issue's invariants, on SQLite and on what Discord shows."""
        found: list[Violation] = []
        games, settled, ledger, tables = await self.stored()

        shown_results: Counter = Counter()
        shown_rounds: Counter = Counter()
        for setup in self.tables:
            for message in self._public(setup):
                title = _title(message)
                if m := RESULT_TITLE.search(title):
                    shown_results[int(m.group(1)), int(m.group(2))] += 1
                elif m := ROUND_TITLE.search(title):
                    shown_rounds[int(m.group(1)), int(m.group(2))] += 1

        seen_games: set[tuple[int, int]] = set()
        rounds_expected: Counter = Counter()  # (table, round) -> games of the table that finished that round
        for game in games:
            key = (game["table_id"], game["game_no"])
            seen_games.add(key)
            label = f"table #{key[0]} game {key[1]} ({game['game']}, game id {game['id']})"
            try:
                state = await self.bot.tables.core.stored_state(game["id"])
            except Exception as exc:  # noqa: BLE001
                found.append(Violation("record", f"{label}: its record does not replay: {exc!r}"))
                continue
            over = state.is_over
            seats = len(json.loads(game["seats"]))
            rows = ledger.get(game["id"], [])
            # (1) settled exactly once
            if over and (settled[game["id"]] != 1 or len(rows) != seats):
                found.append(Violation("1 settled once", f"{label} is over but has {settled[game['id']]} "
                                       f"settlement(s) and {len(rows)} ledger row(s) for {seats} seats"))
            if over and game["status"] != "finished":
                found.append(Violation("1 settled once", f"{label} is over but its row says {game['status']!r}"))
            if not over and (settled[game["id"]] or rows):
                found.append(Violation("1 settled once", f"{label} is settled but its record is not over"))
            if settled[game["id"]] > 1 or len({r["seat"] for r in rows}) != len(rows):
                found.append(Violation("1 settled once", f"{label} is settled twice"))
            # (2) chips sum to zero
            if rows and (sum(r["chips"] for r in rows) != 0 or sum(r["ga"] for r in rows) != 0):
                found.append(Violation("2 zero sum", f"{label}: chips sum to {sum(r['chips'] for r in rows)}, "
                                       f"gà to {sum(r['ga'] for r in rows)}"))
            # (3) every finished game's result visible exactly once (and rounds of a match)
            count = shown_results[key]
            if over and count != 1:
                found.append(Violation("3 result once", f"{label}: its result is shown {count} times"))
            if not over and count:
                found.append(Violation("3 result once", f"{label}: a result is shown for a game not over"))
            rounds_done = len(getattr(state, "round_results", ()) or ())
            for number in range(1, rounds_done + 1):
                rounds_expected[key[0], number] += 1
            # (4) no table without progress while someone could act
            if not over and game["game_no"] == game["table_game_no"] and game["table_status"] == "playing":
                table_message = tables[key[0]]["table_message_id"]
                exists = any(self._stored(cid, table_message) for cid in self._table_channels(
                    next(s for s in self.tables if s.table_id == key[0]))) if table_message else False
                why = "stuck: no move in its last " + str(STUCK_TICKS) + " calm ticks" if self.stuck else \
                    "slow: still moving after every calm tick allowed"
                found.append(Violation("4 progress", f"{label} is still being played after the calm phase, {why} "
                                       f"({len(state.record()['actions'])} moves, to act {list(state.to_act)}, "
                                       f"table message {'shown' if exists else 'missing'})"))
            if not over and game["game_no"] != game["table_game_no"]:
                found.append(Violation("4 progress", f"{label} was left unfinished by a later game"))
            # (5) a game settled although no one was ever shown its hand
            # (players whose DMs are closed see a hand only if they ask for it with My hand)
            humans = [s for s in json.loads(game["seats"]) if s["user_id"] is not None
                      and s["user_id"] not in self.closed_dm_users]
            if over and humans and state.record()["actions"] and key not in self.faults.hands_shown:
                found.append(Violation("5 hand shown", f"{label} was played to its end but no hand of it ever "
                                       f"reached Discord"))
        for key, count in shown_results.items():
            if key not in seen_games:
                found.append(Violation("3 result once", f"a result of table #{key[0]} game {key[1]}, which "
                                       f"SQLite does not know, is shown {count} times"))
        # a round's result names its table and round, not its game: each (table, round) must be
        # shown once per game of the table that played that round
        for key in sorted(set(rounds_expected) | set(shown_rounds)):
            if rounds_expected[key] != shown_rounds[key]:
                found.append(Violation("3 result once", f"table #{key[0]}: {rounds_expected[key]} game(s) finished "
                                       f"round {key[1]}, whose result is shown {shown_rounds[key]} times"))
        for table_id, row in tables.items():
            if row["status"] == "playing" and not any(g["table_id"] == table_id and g["game_no"] == row["game_no"]
                                                      for g in games):
                found.append(Violation("4 progress", f"table #{table_id} is playing a game SQLite does not have"))
        return found

    async def stored(self) -> tuple[list, Counter, dict, dict]:
        """What the database holds: games (with their table's status and game number),
        settlements per game, ledger rows per game, tables by id."""
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            games = conn.execute("SELECT g.*, t.status AS table_status, t.game_no AS table_game_no"
                                 " FROM games g JOIN tables t ON t.id = g.table_id ORDER BY g.id").fetchall()
            settled = Counter(r["game_id"] for r in conn.execute("SELECT game_id FROM settlements"))
            ledger = defaultdict(list)
            for row in conn.execute("SELECT * FROM ledger"):
                ledger[row["game_id"]].append(row)
            tables = {r["id"]: r for r in conn.execute("SELECT * FROM tables")}
        finally:
            conn.close()
        return games, settled, ledger, tables

    def game_statuses(self) -> Counter:
        games = Counter()
        conn = sqlite3.connect(self.db_path)
        for status, count in conn.execute("SELECT status, COUNT(*) FROM games GROUP BY status"):
            games[status] = count
        conn.close()
        return games

    def make_faults(self) -> Faults:
        return Faults(self.env, self.cfg.seed, self.cfg.fault_rate)

    async def started(self) -> None:
        """The Env runs the first bot; nothing is set up yet (a mode may start more bots)."""

    # ---- the whole run
    async def run(self) -> Report:
        started = time.monotonic()
        fast_settle()
        long_timers_virtual()
        park_lock_waiters()
        logger = logging.getLogger("bot")
        counter = _LogCounter(self.report.bot_logs)
        logger.addHandler(counter)
        propagate, logger.propagate = logger.propagate, False
        bot = self.build_bot()
        if os.environ.get("CHAOS_WATCHDOG"):
            loop = asyncio.get_running_loop()
            timer = threading.Timer(float(os.environ["CHAOS_WATCHDOG"]),
                                    lambda: loop.call_soon_threadsafe(dump_tasks, True))
            timer.daemon = True
            timer.start()
        try:
            async with simcord.run(bot, check_errors=False, settle_timeout=2) as env:
                self.env = env
                self.faults = self.make_faults()
                self.faults.install()
                try:
                    await self.started()
                    await self.setup()
                    await self.chaos_phase()
                    await self.calm_phase()
                    self.report.violations += await self.check()
                finally:
                    self.faults.uninstall()
                    self.report.faults = self.faults.counts
                    self.report.stats["discord calls"] = sum(self.faults.calls.values())
                    self.report.calls = self.faults.calls
                    for error in env.errors:
                        self.report.bot_errors[f"{type(error).__name__}: {str(error)[:80]}"] += 1
                    # the last bot's tasks are cancelled by the Env's shutdown
        finally:
            logger.removeHandler(counter)
            logger.propagate = propagate
            for built in self.bots:
                try:
                    await built.release()
                except Exception:  # noqa: BLE001 - already released
                    pass
        games = self.game_statuses()
        self.report.stats.update({f"games {k}": v for k, v in games.items()})
        self.report.seconds = time.monotonic() - started
        return self.report


def dump_tasks(everything: bool = False) -> None:
    """Print the stack of every pending task (CHAOS_DEBUG=1)."""
    import io

    for task in asyncio.all_tasks():
        out = io.StringIO()
        task.print_stack(file=out)
        text = out.getvalue()
        if "/bot/" in text or everything:
            print(f"--- {task.get_name()}\n{text}")


def _waits_on_lock(task: asyncio.Task) -> bool:
    coro = task.get_coro()
    while coro is not None:
        if getattr(coro, "cr_code", None) is asyncio.Lock.acquire.__code__:
            return True
        coro = getattr(coro, "cr_await", None)
    return False


def park_lock_waiters() -> None:
    """Teach simcord's settlement that a task waiting for an ``asyncio.Lock`` is parked.

    simcord 3.2.1 parks sleeps beyond the settle deadline, listeners and view timers, but a
    task queued on a lock waits on a bare Future it does not recognise: as soon as a bot task
    holds a lock across a long (virtual) sleep — the bot's retry backoff holds a table's
    ``post_lock`` while it sleeps — every other task queued on that lock makes each settle
    time out after ``settle_timeout`` of real time. Treating lock waiters as parked is safe:
    the holder is a task of its own, checked as usual, and a waiter whose lock was handed to
    it is runnable (its future done), so it is not parked any more.
    """
    from simcord import _settlement

    if getattr(_settlement._park_reason, "_chieu_locks", False):
        return
    original = _settlement._park_reason

    def park_reason(self, task, deadline, seen=None):
        reason = original(self, task, deadline, seen)
        if reason is None and not task.done():
            waiter = getattr(task, "_fut_waiter", None)
            if waiter is not None and not waiter.done() and _waits_on_lock(task):
                return "waiting for an asyncio.Lock"
        return reason

    park_reason._chieu_locks = True
    _settlement._park_reason = park_reason


#: real seconds a restarted bot may take to attach (simcord allows a fixed 5 s, which a loaded
#: machine rebuilding every table, pictures included, overran: "bot did not settle")
ATTACH_SECONDS: contextvars.ContextVar[float] = contextvars.ContextVar("chaos_attach_seconds", default=0.0)


def fast_settle() -> None:
    """The 1 ms settle idle of tests/conftest.py (applied once; CHIEU_SIM_REAL_IDLE=1 skips it)."""
    from simcord.env import Env

    if os.environ.get("CHIEU_SIM_REAL_IDLE") == "1" or getattr(Env._settle_internal, "_chieu_fast", False):
        return
    settle = Env._settle_internal

    async def _fast_settle(self, *, timeout=None, idle=0.05, dispatch=None, _deadline=None):
        if timeout is not None and _deadline is None:
            timeout = max(timeout, ATTACH_SECONDS.get())
        return await settle(self, timeout=timeout, idle=min(idle, 0.001), dispatch=dispatch, _deadline=_deadline)

    _fast_settle._chieu_fast = True
    Env._settle_internal = _fast_settle


async def run_seed(config: ChaosConfig, workdir: Path) -> Report:
    """One chaos run in ``workdir`` (which holds its database)."""
    os.environ.pop("DISCORD_TOKEN", None)
    os.environ["CHIEU_CONFIG"] = str(EMPTY_CONFIG)
    workdir.mkdir(parents=True, exist_ok=True)
    if config.processes > 1:
        from tests.support.chaos_processes import run_processes

        return await run_processes(config, workdir)
    return await Chaos(config, workdir).run()
