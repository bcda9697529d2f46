"""Play random Phỏm games for a few seconds and print games per second.

    python -m benchmarks.phom_games [--seconds 3] [--players 4]

Modes: ``ai`` (every seat plays ``phom_ai.choose``) and ``random`` (uniform choice among
``legal_actions``). Also prints the AI's mean time per decision and how the AI fares against
random players.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games.phom.game import GAME  # noqa: E402
from bot.games.phom.ai import choose  # noqa: E402


def play(players: int, seed: int, ai_seats: set[int], stats: dict[str, float]) -> object:
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed)
    while not state.is_over:
        seat = state.current
        if seat in ai_seats:
            start = time.perf_counter()
            action = choose(state.view(seat))
            stats["ai_time"] += time.perf_counter() - start
            stats["ai_decisions"] += 1
        else:
            action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        stats["actions"] += 1
    return state


def run(mode: str, players: int, seconds: float) -> None:
    stats = {"ai_time": 0.0, "ai_decisions": 0, "actions": 0}
    ai_seats = set(range(players)) if mode == "ai" else set() if mode == "random" else {0}
    payout = 0
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = play(players, games, ai_seats, stats)
        payout += state.outcome().results[0].payout
        games += 1
    elapsed = time.perf_counter() - start
    line = f"{mode:>10}: {games / elapsed:8.1f} games/s  ({games} games, {stats['actions'] / games:.0f} actions/game)"
    if stats["ai_decisions"]:
        line += f"  AI {1000 * stats['ai_time'] / stats['ai_decisions']:.3f} ms/decision"
    if mode == "ai-vs-rnd":
        line += f"  AI seat 0 mean payout {payout / games:+.2f} units/game"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per mode")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(f"Phỏm, {args.players} players, {args.seconds:g} s per mode")
    for mode in ("ai", "random", "ai-vs-rnd"):
        run(mode, args.players, args.seconds)


if __name__ == "__main__":
    main()
