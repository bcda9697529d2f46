"""Many tables on one bot: Discord REST calls against the global rate limit, uploads, latency, stalls.

    python -m benchmarks.load [--tables 100] [--humans 1|4] [--game phom|chan|tusac|chinchon|concan|all]
                              [--ai easy|normal] [--ai-delay SECONDS] [--think 5]
                              [--seconds 60] [--seed 1]
                              [--database URL|postgres] [--processes K] [--profile FILE] [--text-only]
                              [--metrics]

N tables share one bot in one SimCord environment, each with 1 person and 3 AI seats
(``--humans 1``, the default) or 4 people (``--humans 4``), all of one game or, with
``--game all``, spread over the five games. The bot runs with the default configuration: the
AI seats wait ``ai_delay_seconds`` (1 s) before each move, in wall-clock time (``--ai-delay 0``
for the coalesced bursts of the tests); only the turn timers are set beyond the run. The AI
seats play at ``--ai``'s level (``/<game> new ai:``; default normal).

Every person behaves like a user: after an exponential think time (mean ``--think`` seconds)
he clicks **Quick Select**, thinks again and clicks the move button it lit (a hand without Quick
Select, e.g. Chinchón's draw or buy-back, gets the lit move at once); he clicks **Next round**
on a round's result, and when his game ends the host clicks **Rematch** and **Start**. Clicks are
emitted straight into the simulated gateway, so nothing waits for the simulator to settle
while measuring: the people click concurrently, as on a real server.

Every REST call goes through SimCord's ``router.dispatch`` and is counted by route, as
**globally limited** (posts, edits and deletes of channel and DM messages, threads, DM
channels: everything Discord counts against the 50 requests/s of a bot token) or
**interaction** traffic (``POST /interactions/:id/:token/callback`` and the interaction webhook
``/webhooks/:id/:token/...``, limited per interaction, not globally). Uploaded attachments are
measured too. A *human move* is a click on a move button (not Quick Select, Next round,
Rematch or Start).

Printed: globally limited calls per table-minute and per human move, interaction calls apart,
KB uploaded per human move, the tables one token can carry at 100 % and 80 % of 50 calls/s,
click-to-done latency (from the click until the bot has finished handling it: its answer,
message edits and any refusal have reached Discord) p50/p95/p99/max, the AI pauses as they
really lasted and how far all the bot's timed pauses overslept (a WARNING when the simulator,
not the bot, could not keep up), the longest event-loop stall (gap of a 1 ms heartbeat), garbage-collector
pauses, process CPU, the routes, games settled; and, after the clicks stop and the bot has
drained, tables stuck (game over but not finished) and games over but unsettled — both must be 0.
``--text-only`` runs the tables without their picture: the difference is what the pictures cost.
``--metrics`` turns the bot's metrics on (``metrics_port``) and scrapes ``/metrics`` and
``/healthz`` every 15 s, as Prometheus and a healthcheck would: compared with a run without it,
what the metrics cost per click.

``--processes K`` (PostgreSQL only) shares the tables among K processes of this script, as the
shards of one bot share them: each runs its own bot in its own simulated Discord (their ids kept
apart), all on one database (the throwaway server's, or the URL's), so leases, fenced writes
and settlements all go through it; they measure the same window, and one report merges their
figures (CPU per process; the database server's is not counted). One simulated Discord per
process also splits the simulator's own cost, which grows faster than the number of tables.
"""

from __future__ import annotations

import argparse
import asyncio
from array import array
import contextlib
import cProfile
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.pop("DISCORD_TOKEN", None)
os.environ["CHIEU_CONFIG"] = str(ROOT / "tests" / "support" / "empty_config.toml")

from tests.support.simcord_speed import shorten_settle_idle  # noqa: E402

shorten_settle_idle()
from simcord import Env  # noqa: E402
from simcord.http import router  # noqa: E402

from benchmarks.load_figures import Figures, merge, percentile, split_tables  # noqa: E402
from benchmarks.load_routes import GLOBAL, INTERACTION, classify, route, tables_per_token, upload_size  # noqa: E402
from bot.app import create_bot  # noqa: E402
from bot.backends import is_postgres  # noqa: E402
from bot.config import load  # noqa: E402
from bot.ai.levels import LEVELS  # noqa: E402
from tests.support.simhelpers import Players, buttons, dm, emit_component, play_channel, warm_every_deck  # noqa: E402

GAMES = ("phom", "chan", "tusac", "chinchon", "concan")
# Buttons that prepare a move or change the view, never a move themselves.
HELPERS = frozenset({"Quick Select", "Find Trash", "Auto-arrange", "I'm back", "My hand"})
# Buttons of the table's messages, not of a hand.
TABLE_BUTTONS = frozenset({"Next round", "Rematch", "Start", "Join", "Add AI", "Leave", "Cancel"})
# Among several lit moves, the one a person most likely means (a meld, an eat or a win before a
# discard, before drawing or passing): by Discord button style.
STYLE_ORDER = {"success": 0, "danger": 1, "primary": 2, "secondary": 3}
CLICK_TIMEOUT = 15.0


def lit_moves(message) -> list:
    """The enabled move buttons of a hand message, the likeliest first (links and helpers left out)."""
    if message is None:
        return []
    found = [b for label, b in buttons(message).items()
             if not b.disabled and not b.url and label not in HELPERS and label not in TABLE_BUTTONS]
    return sorted(found, key=lambda b: STYLE_ORDER.get(_style(b), 9))


def _style(button) -> str:
    style = getattr(button, "style", None)
    return getattr(style, "name", str(style))


def lit(message, label: str) -> bool:
    if message is None:
        return False
    button = buttons(message).get(label)
    return button is not None and not button.disabled


class RestCounter:
    """Counts every REST call by route and kind, and the bytes it uploads; resolves a click
    when the bot has finished handling it (its answer, edits and any refusal have all reached
    Discord)."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.calls: Counter[str] = Counter()
        self.uploads: Counter[str] = Counter()  # route -> bytes
        self.kinds: dict[str, str] = {}
        self.private_answers = 0  # ephemeral answers: refusals, "everyone is ready"…
        self.refusals: Counter[str] = Counter()
        self.counting = False
        self.last_call = time.perf_counter()
        self.waiting: dict[str, asyncio.Future] = {}
        self._original = router.dispatch
        self._handle = bot.tables.handle

    def install(self) -> None:
        def dispatch(backend, method, path, **kwargs):
            self.last_call = time.perf_counter()
            if self.counting:
                name = f"{method} {route(path)}"
                self.calls[name] += 1
                self.kinds[name] = classify(method, path)
                size = upload_size(kwargs.get("files"))
                if size:
                    self.uploads[name] += size
                body = kwargs.get("json")
                if isinstance(body, dict) and body.get("type") == 4 and \
                        int((body.get("data") or {}).get("flags") or 0) & 64:
                    self.private_answers += 1
                    self.refusals[str(body["data"].get("content") or "")[:70]] += 1
            return self._original(backend, method, path, **kwargs)

        async def handle(interaction, control, values):
            try:
                return await self._handle(interaction, control, values)
            finally:
                future = self.waiting.pop(interaction.token, None)
                if future is not None and not future.done():
                    future.set_result(time.perf_counter())

        router.dispatch = dispatch
        self.bot.tables.handle = handle

    def uninstall(self) -> None:
        router.dispatch = self._original
        self.bot.tables.handle = self._handle


class BotSleeps:
    """How long the bot's timed pauses really lasted (the AI's pause before a move, the table
    message's frame holds, retries): the table modules see an ``asyncio`` whose ``sleep`` is
    timed. In SimCord a pause ends only when the simulator has settled all the bot's other work
    and moves its clock: a pause that lasts longer than asked is the simulator not keeping up,
    which the latencies then include."""

    def __init__(self, ai_delay: float) -> None:
        self.ai_delay = ai_delay
        self.ai_pauses = array("d")  # as they lasted
        self.overslept = array("d")  # seconds beyond what each pause asked (cancelled ones not counted)
        self._modules: list = []

    def install(self) -> None:
        from bot.tables import outbox, play

        real_sleep, ai_delay, ai_pauses, overslept = asyncio.sleep, self.ai_delay, self.ai_pauses, self.overslept

        async def sleep(seconds, result=None):
            if seconds <= 0:
                return await real_sleep(seconds, result)
            start = time.perf_counter()
            value = await real_sleep(seconds, result)
            lasted = time.perf_counter() - start
            overslept.append(max(0.0, lasted - seconds))
            if seconds == ai_delay:
                ai_pauses.append(lasted)
            return value

        names = {name: getattr(asyncio, name) for name in dir(asyncio) if not name.startswith("__")}
        timed = SimpleNamespace(**{**names, "sleep": sleep})
        self._modules = [play, outbox]
        for module in self._modules:
            module.asyncio = timed

    def uninstall(self) -> None:
        for module in self._modules:
            module.asyncio = asyncio


class Heartbeat:
    """A 1 ms tick; also keeps the simulator's own request logs from growing without end (a
    real Discord keeps them in another process, not in the bot's heap)."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.gaps = array("d")  # not a list: a long list of floats would lengthen every GC pass

    async def run(self, stop: asyncio.Event) -> None:
        last = time.perf_counter()
        ticks = 0
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now
            ticks += 1
            if ticks % 200 == 0:
                self.backend.transcript.clear()
                self.backend.http_requests.clear()


class GcPauses:
    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._start = 0.0

    def callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._start)


class Human:
    """One person at a table (``host``: the one who opened it, who starts rematches)."""

    def __init__(self, env, players: Players, member, host: bool, rng: random.Random, rest: RestCounter,
                 think: float) -> None:
        self.env, self.players, self.member, self.host = env, players, member, host
        self.rng, self.rest, self.think = rng, rest, think
        self.latencies: list[float] = []
        self.move_latencies: list[float] = []
        self.clicks: Counter[str] = Counter()  # quick, move, next, rematch, start, back
        self.unanswered = 0
        self.games = 0
        self._next_clicked: set[int] = set()

    async def click(self, message, button, kind: str) -> None:
        loop = asyncio.get_running_loop()
        start = time.perf_counter()
        record = emit_component(self.env, self.member.user, message, button.custom_id)
        future = loop.create_future()
        self.rest.waiting[record.token] = future
        try:
            done = await asyncio.wait_for(future, CLICK_TIMEOUT)
        except asyncio.TimeoutError:
            self.rest.waiting.pop(record.token, None)
            done = time.perf_counter()
            self.unanswered += 1
            print(f"  a {button.label} click was not answered within {CLICK_TIMEOUT:.0f} s", file=sys.stderr)
        self.latencies.append(done - start)
        if kind == "move":
            self.move_latencies.append(done - start)
        self.clicks[kind] += 1

    async def pause(self, until: float = float("inf")) -> None:
        """Think (never past the end of the run)."""
        await asyncio.sleep(max(0.0, min(self.rng.expovariate(1 / self.think), until - time.perf_counter())))

    async def run(self, until: float) -> None:
        while time.perf_counter() < until:
            await self.pause(until)
            if time.perf_counter() >= until:
                return
            await self.act(until)

    async def act(self, until: float) -> None:
        last = play_channel(self.players).last_message
        if self.host and lit(last, "Start"):  # a rematch lobby not started yet
            return await self.click(last, buttons(last)["Start"], "start")
        if last is not None and lit(last, "Rematch"):
            if self.host:
                self.games += 1
                await self.click(last, buttons(last)["Rematch"], "rematch")
                await self.pause(until)
                if time.perf_counter() >= until:
                    return
                lobby = play_channel(self.players).last_message
                if lit(lobby, "Start"):
                    await self.click(lobby, buttons(lobby)["Start"], "start")
            return
        hand = dm(self.member)
        if hand is not None:
            if lit(hand, "I'm back"):
                return await self.click(hand, buttons(hand)["I'm back"], "back")
            if lit(hand, "Quick Select"):
                await self.click(hand, buttons(hand)["Quick Select"], "quick")
                await self.pause(until)
                if time.perf_counter() >= until:
                    return
                hand = dm(self.member)
            moves = lit_moves(hand)
            if moves:
                return await self.click(hand, moves[0], "move")
        if last is not None and last.id not in self._next_clicked and lit(last, "Next round"):
            self._next_clicked.add(last.id)
            await self.click(last, buttons(last)["Next round"], "next")


async def open_table(env, players: Players, game: str, humans: int, ai: str = "normal"):
    """The lobby of ``/<game> new``, everyone seated and AI seats filled: its Start button."""
    host = players.members[0]
    await host.slash(players.channel, f"{game} new", seats=4, turn_seconds=600, ai=ai)
    for member in players.members[1:]:
        await member.click(players.channel.last_message, label="Join")
    for _ in range(4 - humans):
        await host.click(players.channel.last_message, label="Add AI")
    return players.channel.last_message


def winding_up(table) -> bool:
    """The table has work in flight: a move being applied, a message its outbox has still to
    show, a settlement, a game over whose table has not finished yet."""
    if table.lock.locked() or table.finishing:
        return True
    if table.presenter is not None and table.presenter.pending():
        return True
    return table.status == "playing" and table.state is not None and table.state.is_over


def ai_to_move(table) -> bool:
    """An AI seat (or the AI standing in for someone) moves next, without anyone clicking."""
    state = table.state
    return table.status == "playing" and state is not None and not state.is_over and \
        any(table.seats[seat].auto for seat in state.to_act)


async def drain(bot, rest: RestCounter, limit: float) -> tuple[float, int]:
    """Wait until no table has work in flight or an AI seat to move and no REST call came for
    half a second, at most ``limit`` seconds (AI seats may play on for ever once every person
    is out of a match); then, however long it takes, until no table is winding up a move or a
    game. Returns the time it took and the tables where AI seats still play."""
    start = time.perf_counter()
    while True:
        await asyncio.sleep(0.1)
        tables = list(bot.tables.tables.values())
        if time.perf_counter() - start < limit + 60 and (
                any(winding_up(table) for table in tables) or time.perf_counter() - rest.last_call < 0.5):
            continue  # (a minute more at most: then what is still winding up counts as stuck)
        playing_on = sum(ai_to_move(table) for table in tables)
        if not playing_on or time.perf_counter() - start >= limit:
            for table in tables:
                if winding_up(table):
                    pending = [key for key, slot in (table.presenter.slots.items() if table.presenter else ())
                               if slot.dirty and not slot.done]
                    print(f"  table {table.id} still winding up: lock {table.lock.locked()}, finishing "
                          f"{table.finishing}, status {table.status}, messages to show {pending}", file=sys.stderr)
            return time.perf_counter() - start, playing_on


async def main(args) -> None:
    rng = random.Random(args.seed)
    games = GAMES if args.game == "all" else (args.game,)
    overrides = {} if args.ai_delay is None else {"ai_delay_seconds": args.ai_delay}
    if args.metrics:
        overrides["metrics_port"] = free_port()
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        database = await stack.enter_async_context(database_for(args.database, Path(tmp)))
        # SimCord needs the shard count; and each simulated Discord is a new one, which has the
        # slash commands only once synced, whatever the database says was synced before
        config = load(database=database, shard_count=1, sync_commands="always", **overrides)
        bot = create_bot(config)
        if args.text_only:
            from bot.tables.adapter import GameUI
            for ui in bot.tables.uis.values():
                type(ui).table_picture = GameUI.table_picture
        # The AI pauses fire by SimCord's wall-clock fallback; under load its settling may
        # take longer than the default 5 s before it moves the virtual clock.
        env = Env(bot, settle_timeout=60)
        warm_every_deck()  # (the bot's own warm-up must not overrun SimCord's attach on a busy machine)
        keep_ids_apart(env, args.child)
        await env.start()
        adopt_only_tables_of_this_world(bot)
        rest = RestCounter(bot)
        rest.install()
        sleeps = BotSleeps(config.ai_delay_seconds)
        try:
            print(f"setting up {args.tables} tables…", file=sys.stderr)
            servers = [Players(env, args.humans, names=tuple(f"t{number}p{i}" for i in range(args.humans)))
                       for number in range(args.tables)]
            await env.settle()
            # In production the servers, channels and members are in discord.py's cache before
            # the bot is ready, and the bot freezes them out of garbage collection then; here
            # the simulated world arrives after ready, so it is frozen once it exists.
            gc.collect()
            gc.freeze()
            table_games = [games[number % len(games)] for number in range(args.tables)]
            lobbies = [await open_table(env, players, game, args.humans, args.ai)
                       for players, game in zip(servers, table_games)]
            humans = [Human(env, players, member, index == 0, random.Random(rng.random()), rest, args.think)
                      for players in servers for index, member in enumerate(players.members)]
            sleeps.install()
            # Start every table at once, without settling: the AI seats pause in real time.
            starters = [Human(env, players, players.members[0], True, rng, rest, args.think) for players in servers]
            await asyncio.gather(*(starter.click(lobby, buttons(lobby)["Start"], "start")
                                   for starter, lobby in zip(starters, lobbies)))
            # the deals reach Discord (the budget spreads them: a table's deal is about 9 calls),
            # then the measured play begins; a deal left over would be counted as play
            dealing_until = time.perf_counter() + 10 + 2 * 9 * args.tables / config.rest_calls_here
            while any(t.presenter is not None and t.presenter.pending() for t in bot.tables.tables.values()):
                if time.perf_counter() > dealing_until:
                    print("WARNING: some deals had not reached Discord when the measuring began", file=sys.stderr)
                    break
                await asyncio.sleep(0.05)
            settled_before = await settled_count(bot)
            if args.raw_out:
                await wait_for_the_other_processes()

            gc_pauses = GcPauses()
            gc.callbacks.append(gc_pauses.callback)
            beat, stop = Heartbeat(env.backend), asyncio.Event()
            ticking = asyncio.create_task(beat.run(stop))
            scraping = asyncio.create_task(scrape_every(config.metrics_port, SCRAPE_SECONDS, stop)) \
                if args.metrics else None
            errors_before = len(env.errors)
            rest.counting = True
            profiler = cProfile.Profile() if args.profile else None
            cpu0, wall0 = time.process_time(), time.perf_counter()
            until = wall0 + args.seconds
            print(f"measuring for {args.seconds:.0f} s…", file=sys.stderr)
            if profiler is not None:
                profiler.enable()  # the measured window only, not the setting up
            await asyncio.gather(*(human.run(until) for human in humans))
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            rest.counting = False
            stop.set()
            await ticking
            scrapes = await scraping if scraping is not None else 0
            gc.callbacks.remove(gc_pauses.callback)

            drain_seconds, playing_on = await drain(bot, rest, limit=10 + 4 * config.ai_delay_seconds)
            stuck, unsettled = await stuck_and_unsettled(bot)
            figures = Figures(
                tables=[args.tables], cpu=[cpu], wall=[wall],
                database="PostgreSQL" if is_postgres(config.database) else "SQLite",
                ai_delay=config.ai_delay_seconds,
                latencies=[x for h in humans for x in h.latencies],
                move_latencies=[x for h in humans for x in h.move_latencies],
                clicks=sum((h.clicks for h in humans), Counter()),
                unanswered=sum(h.unanswered for h in humans), games=sum(h.games for h in humans),
                calls=rest.calls, kinds=rest.kinds, uploads=rest.uploads, private_answers=rest.private_answers,
                refusals=rest.refusals, ai_pauses=list(sleeps.ai_pauses), overslept=list(sleeps.overslept), gaps=list(beat.gaps),
                gc_pauses=gc_pauses.pauses, settled=await settled_count(bot) - settled_before,
                stuck=stuck, unsettled=unsettled, drain_seconds=drain_seconds, playing_on=playing_on, scrapes=scrapes,
                errors=[describe(error) for error in env.errors[errors_before:]],
                ai=args.ai)
            if args.raw_out:
                Path(args.raw_out).write_text(figures.to_json())
            else:
                report(args, figures)
        finally:
            sleeps.uninstall()
            rest.uninstall()
            await env.shutdown()
            await bot.release()


#: How often ``--metrics`` scrapes, as a Prometheus would (its default interval is 15 s).
SCRAPE_SECONDS = 15.0


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def scrape_every(port: int, seconds: float, stop: asyncio.Event) -> int:
    """Scrape the bot's /metrics and /healthz every ``seconds`` until ``stop``; how many times."""
    import aiohttp

    scrapes = 0
    # a connection closed after each scrape: one kept alive is work of the bot's that SimCord
    # waits for before it moves its clock (the AI's pauses would overrun)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
        while not stop.is_set():
            for path in ("/metrics", "/healthz"):
                async with session.get(f"http://127.0.0.1:{port}{path}") as response:
                    await response.read()
            scrapes += 1
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), seconds)
    return scrapes


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:120]}"


# Each process of a run (``--processes``) has a simulated Discord of its own, whose snowflakes
# come from its clock: started this far apart (more than any run lasts), their servers,
# channels and people never share an id in the database they share.
WORLDS_APART_SECONDS = 86400.0


def keep_ids_apart(env, child: int) -> None:
    env.backend.advance_clock(child * WORLDS_APART_SECONDS)


def adopt_only_tables_of_this_world(bot) -> None:
    """A table another process of the run opened has no server in this process's simulated
    Discord: it must not adopt it once that process has given its leases up (a shard of a real
    bot, which sees every server, would)."""
    tables_to_adopt = bot.db.tables_to_adopt

    async def ours(holder: str, finished_since: str) -> list[int]:
        rows = [await bot.db.get_table(table_id) for table_id in await tables_to_adopt(holder, finished_since)]
        return [row["id"] for row in rows if row is not None and bot.get_guild(row["guild_id"]) is not None]

    bot.db.tables_to_adopt = ours


READY = "ready to measure"


async def wait_for_the_other_processes() -> None:
    """One of several processes: say this one is set up, and wait until every one is, so that
    they all measure the same window."""
    print(READY, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def run_processes(args) -> None:
    """``--processes`` K: K processes of this script, each its own bot and simulated Discord,
    on one shared PostgreSQL database; their figures merged into one report."""
    with tempfile.TemporaryDirectory() as tmp:
        async with database_for(args.database, Path(tmp)) as database:
            outputs = [Path(tmp) / f"figures-{child}.json" for child in range(args.processes)]
            children = [await start_child(args, database, child, tables, output) for child, (tables, output)
                        in enumerate(zip(split_tables(args.tables, args.processes), outputs))]
            try:
                if not all(await asyncio.gather(*(relay_until_ready(child) for child in children))):
                    raise SystemExit("a process stopped while setting up (its errors are above)")
                finished = await asyncio.gather(*(child.communicate(b"go\n") for child in children))
            finally:
                for child in children:
                    if child.returncode is None:
                        child.kill()
                        await child.wait()
            for stdout, _ in finished:
                sys.stderr.buffer.write(stdout)
            if any(child.returncode for child in children):
                raise SystemExit("a process failed (its errors are above)")
            figures = merge([Figures.from_json(output.read_text()) for output in outputs])
    report(args, figures)


async def start_child(args, database: str, child: int, tables: int, output: Path):
    options = ["--tables", tables, "--humans", args.humans, "--game", args.game, "--think", args.think,
               "--seconds", args.seconds, "--seed", args.seed + child, "--database", database,
               "--child", child, "--raw-out", output]
    if args.ai_delay is not None:
        options += ["--ai-delay", args.ai_delay]
    options += ["--ai", args.ai]
    if args.profile:
        options += ["--profile", f"{args.profile}.{child}"]
    if args.text_only:
        options.append("--text-only")
    if args.metrics:
        options.append("--metrics")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.load", *map(str, options), cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)


async def relay_until_ready(child) -> bool:
    """Whether the process got ready to measure (else it stopped); what else it printed goes on."""
    while line := await child.stdout.readline():
        if line.decode().strip() == READY:
            return True
        sys.stderr.buffer.write(line)
    return False


@contextlib.asynccontextmanager
async def database_for(choice: str | None, tmp: Path):
    """A SQLite file (default), a throwaway PostgreSQL server's database ("postgres", as the
    tests start one), or the URL given."""
    if choice != "postgres":
        yield choice or str(tmp / "load.sqlite3")
        return
    from tests.support.databases import PostgresServer, postgres_bindir

    bindir = postgres_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries for --database postgres: pass a URL")
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server.url(await server.create_database())
    finally:
        server.stop()


def servers_here(bot) -> tuple[str, tuple[int, ...]]:
    """The condition on ``guild_id`` that keeps the rows of this bot's simulated servers, and
    its parameters: with several processes on one database, the others' tables are theirs to
    count."""
    guilds = tuple(guild.id for guild in bot.guilds)
    return f"guild_id IN ({', '.join('?' * len(guilds))})", guilds


async def settled_count(bot) -> int:
    here, guilds = servers_here(bot)
    (count,) = await bot.db.fetchone(f"SELECT COUNT(*) FROM settlements WHERE {here}", guilds)
    return count


async def stuck_and_unsettled(bot) -> tuple[int, int]:
    stuck = sum(1 for t in bot.tables.tables.values()
                if t.status == "playing" and t.state is not None and t.state.is_over)
    here, guilds = servers_here(bot)
    (unsettled,) = await bot.db.fetchone(
        "SELECT COUNT(*) FROM games WHERE status != 'finished' AND id NOT IN (SELECT game_id FROM settlements)"
        f" AND (SELECT status FROM tables WHERE tables.id = games.table_id) != 'playing' AND {here}", guilds)
    return stuck, unsettled


def report(args, figures: Figures) -> None:
    latencies = [x * 1000 for x in figures.latencies]
    move_latencies = [x * 1000 for x in figures.move_latencies]
    clicks = figures.clicks
    moves = clicks["move"]
    per_move = 1 / max(moves, 1)
    wall, table_minutes = figures.window, figures.table_minutes
    game = "five games" if args.game == "all" else args.game
    seats = "1 person + 3 AI" if args.humans == 1 else f"{args.humans} people" + \
        (f" + {4 - args.humans} AI" if args.humans < 4 else "")
    print(f"\n{tables_heading(figures.tables)} ({seats}, {game}{', text only' if args.text_only else ''}"
          f"{', metrics on' if args.metrics else ''}), "
          f"AI {figures.ai}, delay {figures.ai_delay:g} s, think {args.think:g} s, {wall:.0f} s measured "
          f"({table_minutes:.1f} table-minutes), {figures.database}")
    print(f"human clicks: {sum(clicks.values())} ({sum(clicks.values()) / wall:.1f}/s): {moves} moves, "
          f"{clicks['quick']} Quick Select, {clicks['next']} Next round, {clicks['rematch']} Rematch, "
          f"{clicks['start']} Start; private (ephemeral) answers {figures.private_answers}")

    global_calls = figures.of_kind(figures.calls, GLOBAL)
    interaction_calls = figures.of_kind(figures.calls, INTERACTION)
    global_per_table_minute = global_calls / max(table_minutes, 1e-9)
    print(f"globally limited REST calls: {global_per_table_minute:.1f} per table-minute, "
          f"{global_calls * per_move:.2f} per human move ({global_calls} calls, {global_calls / wall:.1f}/s "
          f"for the whole bot)")
    print(f"interaction calls (not globally limited): {interaction_calls / max(table_minutes, 1e-9):.1f} per "
          f"table-minute, {interaction_calls * per_move:.2f} per human move ({interaction_calls} calls)")
    print(f"tables one token can carry: {tables_per_token(global_per_table_minute):.0f} at 50 calls/s, "
          f"{tables_per_token(global_per_table_minute, 0.8):.0f} at 80 % (40/s)")
    up_global = figures.of_kind(figures.uploads, GLOBAL) / 1024
    up_interaction = figures.of_kind(figures.uploads, INTERACTION) / 1024
    print(f"KB uploaded per human move: {(up_global + up_interaction) * per_move:.0f} "
          f"(globally limited calls {up_global * per_move:.0f}, interaction calls {up_interaction * per_move:.0f}); "
          f"{(up_global + up_interaction) / 1024 / wall:.2f} MB/s for the whole bot")

    if latencies:
        print(f"click-to-done ms: p50 {statistics.median(latencies):.1f}  p95 {percentile(latencies, .95):.1f}"
              f"  p99 {percentile(latencies, .99):.1f}  max {max(latencies):.1f}"
              + (f"  (moves: p50 {statistics.median(move_latencies):.1f}  p95 {percentile(move_latencies, .95):.1f}"
                 f"  p99 {percentile(move_latencies, .99):.1f})" if move_latencies else ""))
    if figures.unanswered:
        print(f"clicks not answered within {CLICK_TIMEOUT:.0f} s: {figures.unanswered}")
    if figures.ai_pauses:
        lasted = figures.ai_pauses
        print(f"AI pauses ({figures.ai_delay:g} s asked, wall clock): {len(lasted)}, "
              f"p50 {statistics.median(lasted):.2f} s  p95 {percentile(lasted, .95):.2f} s  max {max(lasted):.2f} s")
    if figures.overslept:
        over = [x * 1000 for x in figures.overslept]
        print(f"the bot's timed pauses (AI, frames, retries): {len(over)}, overslept p50 {statistics.median(over):.0f} "
              f"ms  p95 {percentile(over, .95):.0f} ms  max {max(over):.0f} ms")
    if figures.simulator_behind():
        print("WARNING: the simulator did not keep up (the bot's pauses lasted longer than asked: SimCord settles "
              "all the bot's work before each wall-clock timer moves its clock); the latencies include its delays "
              "and the tables played slower, so the per-minute figures and tables per token understate the load; "
              "per-move figures stand")
    gaps = [g * 1000 for g in figures.gaps]
    print(f"event-loop stall ms (1 ms heartbeat): max {max(gaps):.1f}  p99 {percentile(gaps, .99):.1f}  "
          f"gaps > 50 ms: {sum(g > 50 for g in gaps)}")
    for generation, pauses in figures.gc_pauses.items():
        if pauses:
            print(f"gc gen {generation}: {len(pauses)} collections, max {max(pauses) * 1000:.1f} ms, "
                  f"total {sum(pauses) * 1000:.0f} ms")
    print(f"{cpu_spent(figures)}, {sum(figures.cpu) / max(sum(clicks.values()), 1) * 1000:.1f} ms per click"
          + (f"; metrics on, scraped {figures.scrapes} times" if args.metrics else "; metrics off"))
    print("routes: calls per human move · per table-minute · KB per human move  (G: globally limited, "
          "I: interaction)")
    for name, count in figures.calls.most_common(12):
        kind = "G" if figures.kinds[name] == GLOBAL else "I"
        print(f"  {kind} {count * per_move:5.2f} · {count / max(table_minutes, 1e-9):5.1f} · "
              f"{figures.uploads[name] / 1024 * per_move:5.0f}  {name}")
    print(f"games settled while measuring: {figures.settled}; games played to the end by humans: {figures.games}")
    print(f"drained in {figures.drain_seconds:.1f} s"
          + (f" ({figures.playing_on} tables where only AI seats still play)" if figures.playing_on else "")
          + f"; tables stuck: {figures.stuck}; games over but unsettled: {figures.unsettled}")
    if figures.refusals:
        print("private answers: " + "; ".join(f"{n}× {text!r}" for text, n in figures.refusals.most_common(4)))
    if figures.errors:
        print(f"errors recorded by SimCord: {len(figures.errors)}: " + "; ".join(figures.errors[:3]))


def tables_heading(tables: list[int]) -> str:
    if len(tables) == 1:
        return f"{tables[0]} tables"
    each = f"{tables[0]} each" if len(set(tables)) == 1 else " + ".join(map(str, tables))
    return f"{sum(tables)} tables on {len(tables)} processes, {each}"


def cpu_spent(figures: Figures) -> str:
    if figures.processes == 1:
        return f"process CPU: {figures.cpu[0]:.1f} s ({figures.cpu[0] / figures.wall[0] * 100:.0f}% of one core)"
    shares = ", ".join(f"{cpu / wall * 100:.0f}%" for cpu, wall in zip(figures.cpu, figures.wall))
    return (f"CPU of the {figures.processes} bot processes: {sum(figures.cpu):.1f} s in all ({shares} of one core "
            f"each; the PostgreSQL server not counted)")


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--humans", type=int, choices=(1, 4), default=1,
                        help="people per table: 1 (and 3 AI seats) or 4")
    parser.add_argument("--game", choices=(*GAMES, "all"), default="phom",
                        help="the game of every table; all: the tables spread over the five games")
    parser.add_argument("--ai-delay", type=float, default=None,
                        help="the AI's pause before a move, seconds (default: the config's, 1 s)")
    parser.add_argument("--ai", choices=LEVELS, default="normal", help="the AI seats' level (default normal)")
    parser.add_argument("--think", type=float, default=5.0, help="mean think time before a click, seconds")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", help="a postgresql:// URL, or 'postgres' for a throwaway server as the tests "
                        "start one (default: a SQLite file)")
    parser.add_argument("--processes", type=int, default=1,
                        help="bot processes sharing the tables and one PostgreSQL database, each with its own "
                        "simulated Discord (PostgreSQL only)")
    parser.add_argument("--profile", help="write a cProfile of the measured window to this file (with --processes, "
                        "one file per process: FILE.0, FILE.1…)")
    parser.add_argument("--text-only", action="store_true",
                        help="tables without their picture (what the table picture costs, by difference)")
    parser.add_argument("--metrics", action="store_true",
                        help="the bot's metrics on, /metrics and /healthz scraped every 15 s "
                        "(their cost, by difference)")
    # what --processes gives each of its processes
    parser.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--raw-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.processes < 1 or args.processes > args.tables:
        parser.error(f"--processes must be between 1 and the number of tables ({args.tables})")
    if args.processes > 1 and args.database != "postgres" and not is_postgres(args.database or ""):
        parser.error("--processes above 1 needs PostgreSQL (--database postgres or a postgresql:// URL): "
                     "a SQLite database belongs to one process")
    return args


if __name__ == "__main__":
    arguments = parse_arguments()
    asyncio.run(run_processes(arguments) if arguments.processes > 1 else main(arguments))
