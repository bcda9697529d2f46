"""Play Tứ Sắc games for a few seconds per mode and print games per second.

    python -m benchmarks.tusac_games [--seconds 3] [--players 4]

Modes: ``random`` (uniform choice among ``legal_actions``), ``ai`` (every seat plays
``tusac_ai.choose``) and ``ai-vs-rnd`` (seats 0 and 2 AI, 1 and 3 random). Each line gives
games/s, actions per game, how games ended (won on a discard, on a drawn card, with the deal,
or drawn at 7 cards), how often the worst-card penalty applied, the AI's mean and slowest
decision, and in ``ai-vs-rnd`` the share of wins by AI seats.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games.tusac.game import GAME  # noqa: E402
from bot.games.tusac.ai import choose  # noqa: E402

AI_SEATS = {"random": lambda seat: False, "ai": lambda seat: True, "ai-vs-rnd": lambda seat: seat % 2 == 0}


def run(mode: str, players: int, seconds: float) -> str:
    is_ai = AI_SEATS[mode]
    ends: Counter = Counter()
    timings: list[float] = []
    actions = games = penalties = ai_wins = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        rng = random.Random(games)
        state = GAME.new(players, seed=games)
        while not state.is_over:
            seat = state.current
            if is_ai(seat):
                tick = time.perf_counter()
                action = choose(state.view(seat))
                timings.append(time.perf_counter() - tick)
            else:
                action = rng.choice(state.legal_actions(seat))
            state.apply(seat, action)
            actions += 1
        outcome = state.view(None)["outcome"]
        ends[outcome["how"]] += 1
        penalties += outcome["penalty"] is not None
        ai_wins += outcome["winner"] is not None and is_ai(outcome["winner"])
        games += 1
    elapsed = time.perf_counter() - start
    line = (f"{mode:>10}: {games / elapsed:7.1f} games/s  {actions / games:5.1f} actions/game  ends "
            + " ".join(f"{k}={v / games:.0%}" for k, v in sorted(ends.items()))
            + f"  penalty {penalties / games:.0%}")
    if timings:
        line += f"  AI {1000 * sum(timings) / len(timings):.3f} ms/decision (max {1000 * max(timings):.2f})"
    if mode == "ai-vs-rnd":
        won = games - ends["stock"]
        line += f"  AI seats win {ai_wins / max(1, won):.0%} of won games"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per mode")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(f"Tứ Sắc, {args.players} players, {args.seconds:g} s per mode")
    for mode in AI_SEATS:
        print(run(mode, args.players, args.seconds))


if __name__ == "__main__":
    main()
