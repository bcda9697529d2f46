"""The strong AI's decision time against its budget (issue #28): wall clock, as a table's AI
pause sees it.

    python -m benchmarks.strong_budget [--game phom] [--players 2] [--budget-ms 300] [--decisions 100]

Plays seeded games with the strong AI at every seat and times each searched decision (one
with several candidates) on the wall clock: p50, p99 and the largest, the overshoot past the
budget (a world is begun only when a world's mean time is left; the deadline is checked
before every rollout step, one normal-AI move), the worlds a decision sampled, and its CPU
time (on a loaded machine the wall clock also counts the wait for a core).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY  # noqa: E402
from bot.games.strong_ai import search  # noqa: E402


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="phom", choices=["phom", "chinchon", "concan", "chan", "tusac"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--budget-ms", type=float, default=300)
    parser.add_argument("--decisions", type=int, default=100, help="searched decisions to time")
    args = parser.parse_args(argv)
    times: list[float] = []
    worlds: list[int] = []
    cpus: list[float] = []  # CPU time: on a loaded machine the wall clock also counts waiting for a core
    seed = 0
    while len(times) < args.decisions:
        state = REGISTRY[args.game].new(args.players, seed=seed)
        seed += 1
        while not state.is_over and len(times) < args.decisions:
            seat = state.to_act[0]
            view = state.view(seat)
            start, cpu = time.perf_counter(), time.thread_time()
            action, info = search(args.game, view, seed=seed, budget_ms=args.budget_ms)
            elapsed = 1000 * (time.perf_counter() - start)
            if len(info["candidates"]) > 1:
                times.append(elapsed)
                cpus.append(1000 * (time.thread_time() - cpu))
                worlds.append(info["worlds"])
            state.apply(seat, action)
    over = [t - args.budget_ms for t in times]
    print(f"{REGISTRY[args.game].title}, {args.players} seats, budget {args.budget_ms:g} ms, {len(times)} searched "
          f"decisions: wall p50 {quantile(times, 0.5):.1f} ms, p99 {quantile(times, 0.99):.1f} ms, "
          f"max {max(times):.1f} ms; overshoot p99 {quantile(over, 0.99):+.1f} ms; "
          f"worlds p50 {quantile(worlds, 0.5):.0f} (min {min(worlds)}); CPU p50 {quantile(cpus, 0.5):.1f} ms, "
          f"p99 {quantile(cpus, 0.99):.1f} ms; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
