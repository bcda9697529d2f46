"""Play Chắn games for a few seconds and print games per second.

    python -m benchmarks.chan_games [--seconds 3] [--players 4] [--chiu auto|ask]

Modes: ``ai`` (every seat plays ``chan_ai.choose``) and ``random`` (uniform choice among
``legal_actions``). Also prints the AI's mean and worst time per decision, how games end
(ù / chíu ù / draw), the most frequent cước factors, and how the AI fares against random
players (seats 0 and 2 AI, seats 1 and 3 random).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games.chan.game import GAME  # noqa: E402
from bot.games.chan.ai import choose  # noqa: E402


def play(players: int, seed: int, mode: str, chiu: str, stats: dict) -> object:
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"chiu": chiu})
    while not state.is_over:
        seat = state.to_act[0]
        ai = mode == "ai" or (mode == "mixed" and seat % 2 == 0)
        if ai:
            t = time.perf_counter()
            action = choose(state.view(seat))
            dt = time.perf_counter() - t
            stats["decisions"] += 1
            stats["ai_time"] += dt
            stats["worst"] = max(stats["worst"], dt)
        else:
            action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        stats["moves"] += 1
    return state


def run(mode: str, seconds: float, players: int, chiu: str) -> None:
    stats = {"decisions": 0, "ai_time": 0.0, "worst": 0.0, "moves": 0}
    ends: Counter = Counter()
    factors: Counter = Counter()
    wins: Counter = Counter()
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = play(players, games, mode, chiu, stats)
        view = state.view(None)["outcome"]
        ends[view["how"]] += 1
        factors.update(f["id"] for f in view["factors"])
        if view["winner"] is not None:
            wins["ai" if view["winner"] % 2 == 0 else "random"] += 1
        games += 1
    elapsed = time.perf_counter() - start
    line = f"{mode:6s}: {games / elapsed:7.1f} games/s ({games} games, {stats['moves'] / games:.0f} moves/game)"
    if stats["decisions"]:
        line += (f" · AI {stats['ai_time'] / stats['decisions'] * 1000:.3f} ms/decision mean, "
                 f"{stats['worst'] * 1000:.1f} ms worst")
    print(line)
    print(f"        ends: {dict(ends)} · top factors: {factors.most_common(6)}")
    if mode == "mixed":
        print(f"        wins: AI seats {wins['ai']}, random seats {wins['random']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--chiu", choices=("auto", "ask"), default="auto")
    args = parser.parse_args()
    for mode in ("ai", "random", "mixed"):
        run(mode, args.seconds, args.players, args.chiu)


if __name__ == "__main__":
    main()
