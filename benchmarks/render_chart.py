"""Time the charts of /balance and /leaderboard, and the size of their upload.

    python -m benchmarks.render_chart [--repeat 50] [--save DIR]

The charts are built as the commands build them (:mod:`bot.charts`, in English, Vietnamese and Spanish)
from made-up running totals: a player's first two games, a season, years of games; the top
five players over an evening, a month, years. For each: the median, p95 and max of the render
(chart data to upload bytes, what runs on the rendering threads), and the PNG's size, against
the targets (50 ms, 60 KB). ``--save DIR`` writes each picture, and beside it the picture
scaled to 400 px wide (as a phone shows it), to look at.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot import charts, i18n  # noqa: E402
from bot.ledger import Series  # noqa: E402
from rendering.chart import render_chart  # noqa: E402

TARGET_MS, TARGET_KB = 50, 60
NAMES = ["Lan", "Minh Trần", "Đức Anh", "Hoà 🌸", "Tuấn Nguyễn Văn Một Cái Tên Dài"]


def series(players: int, games: int, seed: int) -> Series:
    """Running totals of ``players`` over ``games`` games, each playing about two games in three."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 3, 20, tzinfo=timezone.utc)
    at = [(start + timedelta(hours=3 * k)).isoformat(timespec="seconds") for k in range(games)]
    totals = {}
    for user in range(players):
        total, values = 0, []
        for _ in range(games):
            if rng.random() < 0.66:
                total += rng.choice([-1, 1]) * rng.randint(5, 120)
            values.append(total)
        totals[user] = values
    return Series(at, totals)


def cases():
    for lang in ("en", "vi", "es"):
        with i18n.language(lang):
            for games in (2, 150, 3000):
                yield (f"balance, {games} games ({lang})",
                       charts.balance_chart(series(1, games, games), 0, NAMES[0], NAMES[0], i18n._("all games"))[0])
            for games in (12, 200, 5000):
                title = i18n._("Leaderboard — {games}, {period}, {by}").format(
                    games=i18n._("all games"), period=i18n._("all time"), by=i18n._("by chips"))
                players = [(k, name, name) for k, name in enumerate(NAMES)]
                yield (f"leaderboard, 5 players, {games} games ({lang})",
                       charts.leaderboard_chart(series(5, games, games), players, title, "chips")[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--save", type=Path, help="write each picture (and its 400 px view) here")
    args = parser.parse_args()
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    render_chart(next(cases())[1])  # fonts loaded, masks cached: what a running bot has
    worst_ms = worst_kb = 0.0
    print(f"{'chart':<44} {'median':>8} {'p95':>8} {'max':>8} {'cpu':>8} {'size':>9}")
    for name, chart in cases():
        times, cpu = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.thread_time()
            data = render_chart(chart)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        kb = len(data) / 1024
        worst_ms, worst_kb = max(worst_ms, statistics.median(times)), max(worst_kb, kb)
        print(f"{name:<44} {statistics.median(times):6.1f}ms {p95:6.1f}ms {times[-1]:6.1f}ms {statistics.median(cpu):6.1f}ms {kb:6.1f} KB")
        if args.save:
            from io import BytesIO

            from PIL import Image

            stem = name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
            (args.save / f"{stem}.png").write_bytes(data)
            image = Image.open(BytesIO(data)).convert("RGB")
            image.resize((400, round(image.height * 400 / image.width)), Image.Resampling.LANCZOS).save(
                args.save / f"{stem}_400.png")
    verdict = "within" if worst_ms <= TARGET_MS and worst_kb <= TARGET_KB else "OVER"
    print(f"slowest median {worst_ms:.1f} ms, largest {worst_kb:.1f} KB: {verdict} the targets "
          f"({TARGET_MS} ms, {TARGET_KB} KB)")


if __name__ == "__main__":
    main()
