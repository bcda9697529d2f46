"""How often does the strong AI's search depart from the normal AI's move?

    python -m benchmarks.strong_deviations [--games 15] [--seed 77] [--iterations 16] [--games-of phom,chan]

Plays ``--games`` two-seat deals of each game with the normal AI at both seats (Chinchón and
Concan: one round) and, at every decision of seat 0, runs the strong AI's search from the
view: prints how many decisions there were, how many had more than one candidate to search,
and how many times the search chose another move than the normal AI's. A search that almost
never departs from the normal move cannot play much better (or worse) than it: this is the
figure behind "level with normal" in the README (issue #28).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY, strong_ai  # noqa: E402
from bot.games.arena import deal_seed  # noqa: E402

GAMES = ("phom", "chan", "tusac", "chinchon", "concan")


def count(game: str, games: int, seed: int, iterations: int) -> tuple[int, int, int]:
    """(decisions, searched, departures) of seat 0 over ``games`` deals."""
    normal = importlib.import_module(f"bot.games.{game}_ai").choose
    decisions = searched = departures = 0
    for deal in range(games):
        state = REGISTRY[game].new(2, seed=deal_seed(seed, deal), options={"rounds": 1} if game == "concan" else {})
        while not state.is_over and not (game == "chinchon" and state.round_results):
            seat = state.to_act[0]
            view = state.view(seat)
            action = normal(view)
            if seat == 0:
                chosen, info = strong_ai.search(game, view, seed=deal, iterations=iterations)
                decisions += 1
                searched += len(info["candidates"]) > 1
                departures += chosen != action
            state.apply(seat, action)
    return decisions, searched, departures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--iterations", type=int, default=16, help="worlds per decision")
    parser.add_argument("--games-of", default=",".join(GAMES), help="which games, comma-separated")
    args = parser.parse_args(argv)
    for game in args.games_of.split(","):
        decisions, searched, departures = count(game, args.games, args.seed, args.iterations)
        print(f"{REGISTRY[game].title:>9}: {decisions:5d} decisions, {searched:5d} searched, {departures:4d} departures "
              f"from the normal move ({100 * departures / max(1, decisions):.1f} % of decisions, "
              f"{100 * departures / max(1, searched):.1f} % of those searched)", flush=True)


if __name__ == "__main__":
    main()
