"""Time the strong AI's worlds for Chắn and Tứ Sắc (issue #28): ``determinize(view, rng)``.

    python -m benchmarks.samplers [--games 20] [--repeat 3] [--no-infer]

Seeded games at 2, 3 and 4 seats, played by ``normal`` mixed with random moves; at every
position, the view of the seat to act is sampled once and then ``--repeat`` times more. Prints
per game and seat count the median, p90, p99 and max CPU µs of the first sample of a view and
of the next ones (a search pays one per world; CPU time, so that other processes sharing the
machine do not count).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY  # noqa: E402


def timings(game: str, players: int, games: int, repeat: int, infer: bool) -> tuple[list[float], list[float]]:
    """CPU µs of the first sample of each view (Tứ Sắc reads what the history says of each
    block then, and keeps it for the next ones), and of the next ones."""
    determinize = importlib.import_module(f"bot.games.{game}_sample").determinize
    choose = importlib.import_module(f"bot.games.{game}_ai").choose
    first, next_ = [], []
    for seed in range(games):
        state = REGISTRY[game].new(players, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            for r in range(1 + repeat):
                start = time.process_time()
                determinize(view, random.Random(r), infer=infer)
                (next_ if r else first).append((time.process_time() - start) * 1e6)
            state.apply(seat, choose(view) if rng.random() < 0.5 else rng.choice(view["legal"]))
    return first, next_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--infer", action=argparse.BooleanOptionalAction, default=True,
                        help="deal by what the history says of each hand (--no-infer: by the counts alone)")
    args = parser.parse_args()
    print(f"{'game':6} {'seats':>5} {'sample':>6} {'samples':>8} {'median µs':>10} {'p90':>8} {'p99':>8} {'max':>8}")
    for game in ("chan", "tusac"):
        for players in (2, 3, 4):
            for name, t in zip(("first", "next"), timings(game, players, args.games, args.repeat, args.infer)):
                t.sort()
                q = statistics.quantiles(t, n=100)
                print(f"{game:6} {players:>5} {name:>6} {len(t):>8} {statistics.median(t):>10.0f} {q[89]:>8.0f}"
                      f" {q[98]:>8.0f} {t[-1]:>8.0f}")


if __name__ == "__main__":
    main()
