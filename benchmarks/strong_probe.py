"""Where the strong AI leaves the normal AI's move, and whether that pays, in the REAL deal.

    python -m benchmarks.strong_probe --game phom --games 40 [--seed 1] [--iterations 16]

Plays ``--games`` deals with the normal AI at every seat; at each decision with more than one
candidate it asks the strong AI's search (from the view, ``--iterations`` worlds) what it
would play. Where that is not the normal AI's move, both moves are played out from the real
state (the normal AI at every seat after them: what the search's rollouts assume) and the
difference in the deciding seat's stake units is its *gain*. The decisions are the same for
any version of the search (the game is normal's), so two versions are compared on the same
positions, and a gain is one exact number rather than a whole game's noise: a quick guide to
where the search helps (issue #28, "spend the search where normal is weakest"). It is not the
arena's figure: the strong AI's later moves also change the game there.

Prints, per kind of decision (eat, draw, discard, show, ...): how many, how many deviations,
the mean gain of a deviation and the total gain per game with its standard error.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY, strong_ai  # noqa: E402
from bot.games.arena import deal_seed  # noqa: E402


def probe(game: str, seed: int, deals: range, iterations: int, players: int = 2) -> dict[str, list[float]]:
    """The gain of each deviation, by kind of decision (the normal move's verb), and under
    ``"all"`` one entry per searched decision (0 where the search kept the normal move)."""
    normal = strong_ai.normal_choose(game)
    gains: dict[str, list[float]] = defaultdict(list)
    for deal in deals:
        state = REGISTRY[game].new(players, seed=deal_seed(seed, deal), options={})
        k = 0
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            first = normal(view)
            if len(view["legal"]) > 1:
                k += 1
                action = strong_ai.search(game, view, seed=deal * 1000 + k, iterations=iterations)[0]
                gain = 0.0
                if action != first:
                    mine = strong_ai.rollout(game, copy.deepcopy(state), seat, action, normal, math.inf)
                    base = strong_ai.rollout(game, copy.deepcopy(state), seat, first, normal, math.inf)
                    gain = mine - base
                    gains[first.split()[0] + "->" + action.split()[0]].append(gain)
                gains["all"].append(gain)
            state.apply(seat, first)
    return gains


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="phom", choices=sorted(REGISTRY))
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="the first deal")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=16)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args(argv)
    gains = probe(args.game, args.seed, range(args.first, args.first + args.games), args.iterations, args.players)
    for kind, values in sorted(gains.items()):
        n = len(values)
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        if kind == "all":
            print(f"all: {n} searched decisions, {sum(1 for v in values if v)} with a gain or loss; "
                  f"gain per game {sum(values) / args.games:+.3f} (s.e. {sd * math.sqrt(n) / args.games:.3f})")
        else:
            print(f"{kind:>18}: {n:4d} deviations, mean gain {mean:+.3f} (s.e. {sd / math.sqrt(n) if n else 0:.3f})")


if __name__ == "__main__":
    main()
