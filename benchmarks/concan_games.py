"""Concan speed: the meld solver, the AI's decisions and AI-vs-AI rounds.

    python -m benchmarks.concan_games [--hands 2000] [--seconds 3]

Prints:

- ``best_opening`` ms, median / p99 / max, on random 15-card hands holding both jokers
  (13 natural cards from the two packs + JK JK), each solved from a cold cache (the
  solver's per-hand cache is cleared before every hand); also on 17-card hands (15 + JK JK);
- the AI's ms per decision at 6 seats, median / max (``concan_ai.choose``, including the
  ``legal_actions`` it asks for; the solver cache is warm as in a running bot);
- AI-vs-AI rounds per second at 2, 4 and 6 seats, with how many of them ended without a winner
  (concan.md, Play 7: a third empty stock, or 300 turns) and the longest in turns: every round
  ends, so the figures come back.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games.concan.game import GAME, best_opening  # noqa: E402
from bot.games.concan.solver import solve  # noqa: E402
from bot.games.concan.ai import choose  # noqa: E402
from bot.games.french import FULL_DECK  # noqa: E402

NATURALS = list(FULL_DECK) * 2


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_best_opening(hands: int, naturals: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    times = []
    for _ in range(hands):
        hand = rng.sample(NATURALS, naturals) + ["JK", "JK"]
        solve.cache_clear()
        start = time.perf_counter()
        best_opening(hand)
        times.append(1000 * (time.perf_counter() - start))
    print(f"best_opening, {naturals + 2} cards with both jokers, {hands} hands: median {statistics.median(times):.3f} ms"
          f"  p99 {pct(times, 0.99):.3f} ms  max {max(times):.3f} ms")


def play_round(players: int, seed: int, times: list[float] | None, ends: list | None = None) -> int:
    """Play one AI round; ``ends`` gets (its winner or None, its turns)."""
    state = GAME.new(players, seed=seed, options={"rounds": 1})
    steps = 0
    while not state.is_over:
        seat = state.current
        start = time.perf_counter()
        action = choose(state.view(seat))
        if times is not None:
            times.append(1000 * (time.perf_counter() - start))
        state.apply(seat, action)
        steps += 1
    if ends is not None:
        ends.append((state.round_results[0]["winner"], state.turns))
    return steps


def bench_ai(seconds: float) -> None:
    times: list[float] = []
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        play_round(6, 10_000 + seed, times)
        seed += 1
    print(f"AI at 6 seats, {len(times)} decisions in {seed} rounds: median {statistics.median(times):.3f} ms"
          f"  p99 {pct(times, 0.99):.3f} ms  max {max(times):.3f} ms")


def bench_rounds(players: int, seconds: float) -> None:
    start = time.perf_counter()
    rounds = steps = 0
    ends: list = []
    while time.perf_counter() - start < seconds:
        steps += play_round(players, 20_000 + rounds, None, ends)
        rounds += 1
    elapsed = time.perf_counter() - start
    void = sum(1 for winner, _turns in ends if winner is None)
    print(f"AI vs AI, {players} seats: {rounds / elapsed:7.1f} rounds/s  ({rounds} rounds, "
          f"{steps / rounds:.0f} actions/round; {void} without a winner; longest {max(t for _, t in ends)} turns)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands for the solver figures")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per AI figure")
    args = parser.parse_args()
    bench_best_opening(args.hands, 13)
    bench_best_opening(args.hands, 15)
    bench_ai(args.seconds)
    for players in (2, 4, 6):
        bench_rounds(players, args.seconds)


if __name__ == "__main__":
    main()
