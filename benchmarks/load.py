"""Many tables on one bot: latency, event-loop stalls, GC pauses and Discord REST calls per click.

    python -m benchmarks.load [--tables 100] [--think 5] [--seconds 60] [--seed 1] [--profile FILE] [--text-only]

N Phỏm tables share one bot in one SimCord environment, each with 1 human and 3 AI seats (AI
delay 0). Every human behaves like a user: after an exponential think time (mean ``--think``
seconds) he clicks **Quick Select**, thinks again and clicks the move button it enabled; when
his game ends he clicks **Rematch** and **Start**. Clicks are emitted straight into the
simulated gateway, so nothing waits for the simulator to settle while measuring: the humans
click concurrently, as on a real server.

Printed: click-to-done latency (from the click until the bot has finished handling it: its answer,
message edits and any refusal have reached Discord) p50/p95/p99/max; the longest event-loop stall (gap of a 1 ms
heartbeat) and its p99; garbage-collector pauses per generation; process CPU per click; Discord
REST calls per human click, by route; games settled; and, after the clicks stop and the bot
drains, tables stuck (game over but not finished) and games over but unsettled — both must be 0.
``--text-only`` runs the tables without their picture: the difference is what the pictures cost.
"""

from __future__ import annotations

import argparse
import asyncio
from array import array
import cProfile
import gc
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.pop("DISCORD_TOKEN", None)
os.environ["CHIEU_CONFIG"] = str(ROOT / "tests" / "empty_config.toml")

import tests.conftest  # noqa: E402,F401  (the 1 ms SimCord idle patch, used while setting up)
from simcord import Env  # noqa: E402
from simcord.http import router  # noqa: E402

from bot.app import create_bot  # noqa: E402
from bot.config import load  # noqa: E402
from tests.simhelpers import Players, buttons, dm, emit_component, enabled, play_channel  # noqa: E402

MOVES = ("Eat", "Show", "Discard", "Draw")
_ID = re.compile(r"/\d{6,}")
_TOKEN = re.compile(r"/(interactions|webhooks)/(\d+|:id)/[^/]+")


def route(path: str) -> str:
    """``/channels/123/messages/456`` -> ``/channels/:id/messages/:id``; tokens hidden."""
    path = _ID.sub("/:id", path)
    return _TOKEN.sub(lambda m: f"/{m.group(1)}/:id/:token", path)


class RestCounter:
    """Counts every REST call by route; resolves a click when the bot has finished handling it
    (its answer, edits and any refusal have all reached Discord)."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.calls: Counter[str] = Counter()
        self.counting = False
        self.waiting: dict[str, asyncio.Future] = {}
        self._original = router.dispatch
        self._handle = bot.tables.handle

    def install(self) -> None:
        def dispatch(backend, method, path, **kwargs):
            if self.counting:
                self.calls[f"{method} {route(path)}"] += 1
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
    def __init__(self, env, players: Players, rng: random.Random, rest: RestCounter, think: float) -> None:
        self.env, self.players, self.rng, self.rest, self.think = env, players, rng, rest, think
        self.member = players.members[0]
        self.latencies: list[float] = []
        self.games = 0

    async def click(self, message, label: str) -> None:
        loop = asyncio.get_running_loop()
        custom_id = buttons(message)[label].custom_id
        start = time.perf_counter()
        record = emit_component(self.env, self.member.user, message, custom_id)
        future = loop.create_future()
        self.rest.waiting[record.token] = future
        try:
            done = await asyncio.wait_for(future, 10)
        except asyncio.TimeoutError:
            self.rest.waiting.pop(record.token, None)
            done = time.perf_counter()
            print(f"  a {label} click was not answered within 10 s", file=sys.stderr)
        self.latencies.append(done - start)

    async def pause(self) -> None:
        await asyncio.sleep(self.rng.expovariate(1 / self.think))

    async def run(self, until: float) -> None:
        while time.perf_counter() < until:
            await self.pause()
            if time.perf_counter() >= until:
                return
            table_message = play_channel(self.players).last_message
            if table_message is not None and "Rematch" in buttons(table_message):
                self.games += 1
                await self.click(table_message, "Rematch")
                await asyncio.sleep(0.05)
                lobby = play_channel(self.players).last_message
                if "Start" in enabled(lobby):
                    await self.click(lobby, "Start")
                continue
            hand = dm(self.member)
            if hand is None or "Quick Select" not in enabled(hand):
                continue  # not his turn yet
            await self.click(hand, "Quick Select")
            await self.pause()
            hand = dm(self.member)
            move = next((label for label in MOVES if label in enabled(hand)), None)
            if move is not None:
                await self.click(hand, move)


async def main(tables: int, think: float, seconds: float, seed: int, profile: str | None = None) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        bot = create_bot(load(database=str(Path(tmp) / "load.sqlite3"), ai_delay_seconds=0,
                              max_tables_per_channel=tables))
        env = Env(bot)
        await env.start()
        rest = RestCounter(bot)
        rest.install()
        try:
            print(f"setting up {tables} tables…", file=sys.stderr)
            humans = []
            servers = [Players(env, 1, names=(f"player{number}",)) for number in range(tables)]
            await env.settle()
            # In production the servers, channels and members are in discord.py's cache before
            # the bot is ready, and the bot freezes them out of garbage collection then; here
            # the simulated world arrives after ready, so it is frozen once it exists.
            gc.collect()
            gc.freeze()
            for players in servers:
                member = players.members[0]
                # The simulator's clock is virtual (it moves when a test advances it), so turn
                # timers are set beyond the run: only clicks and AI seats move the tables.
                await member.slash(players.channel, "phom new", turn_seconds=600)
                for _ in range(3):
                    await member.click(players.channel.last_message, label="Add AI")
                await member.click(players.channel.last_message, label="Start")
                humans.append(Human(env, players, random.Random(rng.random()), rest, think))
            await env.settle()
            settled_before = await settled_count(bot)

            gc_pauses = GcPauses()
            gc.callbacks.append(gc_pauses.callback)
            beat, stop = Heartbeat(env.backend), asyncio.Event()
            ticking = asyncio.create_task(beat.run(stop))
            rest.counting = True
            profiler = cProfile.Profile() if profile else None
            cpu0, wall0 = time.process_time(), time.perf_counter()
            until = wall0 + seconds
            print(f"measuring for {seconds:.0f} s…", file=sys.stderr)
            if profiler is not None:
                profiler.enable()  # the measured window only, not the setting up
            await asyncio.gather(*(human.run(until) for human in humans))
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            rest.counting = False
            stop.set()
            await ticking
            gc.callbacks.remove(gc_pauses.callback)

            for _ in range(50):  # let every table finish what it started
                await asyncio.sleep(0.1)
                if not bot.tables._tasks or all(t.get_name().startswith(("timer-", "lobby-"))
                                                for t in bot.tables._tasks):
                    break
            report(humans, rest, beat, gc_pauses, cpu, wall, tables, think,
                   await settled_count(bot) - settled_before, await stuck_and_unsettled(bot))
        finally:
            rest.uninstall()
            await env.shutdown()
            await bot.release()


async def settled_count(bot) -> int:
    (count,) = await bot.db.fetchone("SELECT COUNT(*) FROM settlements")
    return count


async def stuck_and_unsettled(bot) -> tuple[int, int]:
    stuck = sum(1 for t in bot.tables.tables.values()
                if t.status == "playing" and t.state is not None and t.state.is_over)
    (unsettled,) = await bot.db.fetchone(
        "SELECT COUNT(*) FROM games WHERE status != 'finished' AND id NOT IN (SELECT game_id FROM settlements)"
        " AND (SELECT status FROM tables WHERE tables.id = games.table_id) != 'playing'")
    return stuck, unsettled


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def report(humans, rest, beat, gc_pauses, cpu, wall, tables, think, settled, stuck_unsettled) -> None:
    latencies = [x * 1000 for h in humans for x in h.latencies]
    clicks = len(latencies)
    print(f"\n{tables} tables (1 human + 3 AI, Phỏm), think {think} s, {wall:.0f} s measured, "
          f"{clicks} human clicks ({clicks / wall:.1f}/s)")
    if clicks:
        print(f"click-to-done ms: p50 {statistics.median(latencies):.1f}  p95 {percentile(latencies, .95):.1f}"
              f"  p99 {percentile(latencies, .99):.1f}  max {max(latencies):.1f}")
    gaps = [g * 1000 for g in beat.gaps]
    print(f"event-loop stall ms (1 ms heartbeat): max {max(gaps):.1f}  p99 {percentile(gaps, .99):.1f}  "
          f"gaps > 50 ms: {sum(g > 50 for g in gaps)}")
    for generation, pauses in gc_pauses.pauses.items():
        if pauses:
            print(f"gc gen {generation}: {len(pauses)} collections, max {max(pauses) * 1000:.1f} ms, "
                  f"total {sum(pauses) * 1000:.0f} ms")
    print(f"process CPU: {cpu:.1f} s ({cpu / wall * 100:.0f}% of one core), "
          f"{cpu / max(clicks, 1) * 1000:.1f} ms per click")
    total = sum(rest.calls.values())
    print(f"Discord REST calls per human click: {total / max(clicks, 1):.2f} ({total} calls, "
          f"{total / wall:.1f}/s for the whole bot)")
    for name, count in rest.calls.most_common(8):
        print(f"  {count / max(clicks, 1):5.2f}  {name}")
    stuck, unsettled = stuck_unsettled
    print(f"games settled while measuring: {settled}; games played to the end by humans: "
          f"{sum(h.games for h in humans)}")
    print(f"tables stuck: {stuck}; games over but unsettled: {unsettled}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--think", type=float, default=5.0, help="mean think time before a click, seconds")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of the measured window to this file")
    parser.add_argument("--text-only", action="store_true",
                        help="tables without their picture (what the table picture costs, by difference)")
    args = parser.parse_args()
    if args.text_only:
        from bot.tables.adapter import GameUI
        from cogs.phom import PhomUI
        PhomUI.table_picture = GameUI.table_picture
    asyncio.run(main(args.tables, args.think, args.seconds, args.seed, args.profile))
