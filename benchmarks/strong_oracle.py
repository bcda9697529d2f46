"""What a perfect world model is worth: the strong AI against normal on the arena's duplicate
deals, its worlds dealt from the REAL hidden hands (only the stock's order shuffled).

    python -m benchmarks.strong_oracle --game phom --games 200 [--seed 11] [--iterations 16]
                                       [--mode round] [--sampler]

The same games as ``python -m benchmarks.arena --policies strong,normal --players 2`` with the
same seed, so ``--sampler`` (the strong AI's own worlds, as at a table) gives the paired figure
on the same deals. The strong AI never sees the state at a table: this is a measurement of
how much of its possible strength its samplers leave (README, "The strong AI"), not a policy.
Two seats, 16 worlds, seed 11: Phỏm 58.5 % with true hands against 48.2 % with its worlds
(200 deals), Chinchón rounds 67.5 % against 51.5 % (80 and 100 deals), Chắn 51.0 % (100).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import arena, strong_ai  # noqa: E402
from benchmarks.strong_probe import true_hands_sampler  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="phom", choices=["phom", "chinchon", "concan", "chan", "tusac"])
    parser.add_argument("--games", type=int, default=200, help="duplicate deals")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--iterations", type=int, default=16)
    parser.add_argument("--mode", default="game", choices=["game", "round"])
    parser.add_argument("--sampler", action="store_true", help="the strong AI's own worlds (the paired figure)")
    args = parser.parse_args(argv)
    if not args.sampler:
        play_out = arena._play_out

        def with_true_hands(state, policies, times, clock, mode):
            # every decision's worlds come from the state as it is at that decision
            strong_ai.sampler = lambda _game: true_hands_sampler(state)
            return play_out(state, policies, times, clock, mode)

        arena._play_out = with_true_hands
    start = time.perf_counter()
    games = [game for deal in range(args.games)
             for game in arena.play_deal(args.game, ("strong", "normal"), 2, args.seed, deal, mode=args.mode,
                                         iterations=args.iterations)]
    strong = arena.tally(games)["strong"].summary()
    print(f"{args.game}, two seats, {args.mode}, {args.games} duplicate deals (seed {args.seed}), "
          f"{args.iterations} worlds, {'its own worlds' if args.sampler else 'the true hands'}: strong wins "
          f"{100 * strong['win_rate']:.1f} % [{100 * strong['low']:.1f}, {100 * strong['high']:.1f}], "
          f"{strong['chips_per_game']:+.2f} a game ({time.perf_counter() - start:.0f} s)")

if __name__ == "__main__":
    main()
