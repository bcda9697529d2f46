"""Milliseconds per handled click: real discord.py against SimCord's in-memory Discord.

    python -m benchmarks.click_latency [--games 5]

Each game seats one human and one AI at a Phỏm table; the human plays every move with Quick
Select and then the enabled move button, exactly as a user clicks in the DM. A click is timed
from the moment it is sent until the bot has answered it and edited the DM (new image
included), with SimCord's idle wait cut to 1 ms as in the tests. Also prints the longest time the
event loop was blocked while clicks were handled (the longest gap between two ticks of a
1 ms heartbeat), which must stay small: rendering and SQLite run off the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.pop("DISCORD_TOKEN", None)
os.environ["CHIEU_CONFIG"] = str(ROOT / "tests" / "support" / "empty_config.toml")

from tests.support.simcord_speed import shorten_settle_idle  # noqa: E402

shorten_settle_idle()
from simcord import Env  # noqa: E402

from bot.app import create_bot  # noqa: E402
from bot.config import load  # noqa: E402
from tests.support.simhelpers import Players, buttons, dm, enabled, play_channel  # noqa: E402

MOVES = ("Eat", "Show", "Discard", "Draw")


class Heartbeat:
    """Ticks every millisecond; remembers the longest gap while a click is being handled."""

    def __init__(self) -> None:
        self.measuring = False
        self.longest = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            if self.measuring:
                self.longest = max(self.longest, now - last)
            last = now


async def one_game(database: str, timings: list[float], beat: Heartbeat) -> None:
    bot = create_bot(load(database=database, ai_delay_seconds=0, shard_count=1))
    env = Env(bot)
    await env.start()
    try:
        players = Players(env, 1)
        (lan,) = players.members
        await lan.slash(players.channel, "phom new")
        await lan.click(players.channel.last_message, label="Add AI")
        await lan.click(players.channel.last_message, label="Start")
        while "Rematch" not in buttons(play_channel(players).last_message):
            for label in ("Quick Select", None):
                message = dm(lan)
                if label is None:
                    label = next(move for move in MOVES if move in enabled(message))
                beat.measuring = True
                start = time.perf_counter()
                await lan.user.click(message, label=label)
                timings.append((time.perf_counter() - start) * 1000)
                beat.measuring = False
    finally:
        await env.shutdown()
        await bot.release()


async def main(games: int) -> None:
    timings: list[float] = []
    beat = Heartbeat()
    stop = asyncio.Event()
    ticking = asyncio.create_task(beat.run(stop))
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(games):
            await one_game(str(Path(tmp) / f"bench{number}.sqlite3"), timings, beat)
    stop.set()
    await ticking
    timings.sort()
    p95 = timings[int(len(timings) * 0.95) - 1]
    print(f"clicks handled: {len(timings)} in {games} games (1 human + 1 AI, Phỏm)")
    print(f"ms per click: median {statistics.median(timings):.1f}  p95 {p95:.1f}  max {timings[-1]:.1f}")
    print(f"longest event-loop stall during a click (1 ms heartbeat): {beat.longest * 1000:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    asyncio.run(main(parser.parse_args().games))
