"""The arena: two policies play each other on duplicate deals (issue #28).

    python -m benchmarks.arena --game phom --games 300 [--policies normal,simple] [--players 4]
                               [--mode game|round|match] [--seed 1] [--jobs 1] [--json]

``--games N`` is the number of deals; each is replayed once per seat with the first policy at
that seat and the second at the others (at 4 seats: one against three, rotated), so each deal
gives ``players`` games. Prints per policy the seats played, the win rate with its 95 % Wilson
interval, the mean result in stake units per game (``--mode round`` for Chinchón: the points
margin per round) and its decision time p50/p99 (the CPU time of the policy's call; building the
view is the engine's). ``--json`` prints one JSON object per policy instead. ``--mode``: ``game``
(default; for Chinchón and Concan the whole match), ``round`` (Chinchón and Concan: one round),
``match`` (the same as ``game``). The logic is :mod:`benchmarks.ai.arena`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY  # noqa: E402
from benchmarks.ai.arena import POLICIES, play_deal, tally  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(REGISTRY))
    parser.add_argument("--games", type=int, default=100, help="duplicate deals")
    parser.add_argument("--policies", default="normal,simple", help="two of: " + ", ".join(POLICIES))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--mode", choices=("game", "round", "match"), default="game")
    parser.add_argument("--match", action="store_const", const="match", dest="mode",
                        help="Chinchón and Concan: whole matches (the default)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    names = tuple(args.policies.split(","))
    if len(names) != 2 or any(n not in POLICIES for n in names):
        parser.error(f"--policies takes two of {', '.join(POLICIES)}")
    if args.mode == "round" and args.game not in ("chinchon", "concan"):
        parser.error("--mode round is for Chinchón and Concan")
    mode = "round" if args.mode == "round" else "game"
    run = partial(play_deal, args.game, names, args.players, args.seed, mode=mode)
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            deals = pool.map(run, range(args.games), chunksize=max(1, args.games // (8 * args.jobs)))
    else:
        deals = [run(d) for d in range(args.games)]
    elapsed = time.perf_counter() - start
    figures = [t.summary() for t in tally([g for deal in deals for g in deal]).values()]
    if args.json:
        for f in figures:
            print(json.dumps({"game": args.game, "players": args.players, "mode": args.mode, "deals": args.games,
                              "seed": args.seed, **f}))
        return
    unit = "points/round" if (args.game, mode) == ("chinchon", "round") else "chips/game"
    print(f"{REGISTRY[args.game].title}, {args.players} seats, {args.mode}, {args.games} duplicate deals "
          f"(seed {args.seed}), {names[0]} at one seat vs {names[1]}: {elapsed:.0f} s")
    for f in figures:
        print(f"  {f['policy']:>7}: {f['games']:6d} games  win {100 * f['win_rate']:5.1f} % "
              f"[{100 * f['low']:.1f}, {100 * f['high']:.1f}]  {f['chips_per_game']:+7.2f} {unit}  "
              f"decision p50 {f['p50_ms']:.3f} ms, p99 {f['p99_ms']:.3f} ms")


if __name__ == "__main__":
    main()
