"""Does the strong AI's search rate moves rightly? Its ratings against the REAL deal.

    python -m benchmarks.strong_probe --game phom --games 100 [--seed 8] [--iterations 16]
                                      [--phases discard,draw,show] [--true-hands]
    python -m benchmarks.strong_probe --game phom --games 20 --hidden [--players 2]

Plays ``--games`` deals with the normal AI at every seat. At each decision with more than
one candidate it runs the strong AI's search from the view (``--iterations`` worlds), and
plays every candidate out from the REAL state (the normal AI at every seat after it: what the
search's rollouts assume), so each candidate has a true gain over the normal AI's move in
that deal: one exact number instead of a whole game's noise, on the same positions for any
version of the search. Prints per phase and per bin of the search's *edge* (how many
standard errors a candidate beat the normal move by in the worlds) the mean true gain, and
what the search's own picks gained per game. A search that rates moves rightly shows true
gains growing with the edge; ``--true-hands`` gives it the real hidden hands (only the stock's
order re-dealt): what a perfect world model would make of the same search.

Not the arena's figure (the strong AI's later moves also change the game there); the
positions are normal's. Phỏm, two seats, 100 deals take about a minute and a half.

``--hidden`` (Phỏm) measures the worlds instead: at every position of games the normal AI
plays, the share of the real hidden hands' cards (the other seats' cards but their eaten
ones) that ``--iterations`` worlds put in the same hands, for uniform worlds and the
rejection sampler (the default).
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import sys
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games import REGISTRY, strong_ai  # noqa: E402
from bot.games.arena import deal_seed  # noqa: E402

BINS = (-math.inf, -1.0, 0.0, 1.0, 1.5, 2.0, 3.0)


def true_hands_sampler(state: Any):
    """A sampler that deals the real hidden hands, only the stock's order shuffled (Phỏm,
    Chắn and Tứ Sắc draw from ``stock[stock_pos:]``, Chinchón and Concan from ``stock_cards``)."""
    def determinize(view: dict[str, Any], rng: random.Random) -> Any:
        world = copy.deepcopy(state)
        if hasattr(world, "stock_cards"):
            rng.shuffle(world.stock_cards)
        else:
            rest = world.stock[world.stock_pos:]
            rng.shuffle(rest)
            world.stock[world.stock_pos:] = rest
        return world
    return determinize


def probe(game: str, seed: int, deals: range, iterations: int, *, players: int = 2,
          phases: tuple[str, ...] = ("draw", "show", "discard"), true_hands: bool = False) -> list[dict[str, Any]]:
    """One row per searched decision: its ``phase``, the candidates' ``edges`` and ``gains``
    (each over the normal AI's move, index 0) and the index ``chosen``."""
    normal = strong_ai.normal_choose(game)
    sampler = strong_ai.sampler
    rows = []
    try:
        for deal in deals:
            state = REGISTRY[game].new(players, seed=deal_seed(seed, deal), options={})
            k = 0
            while not state.is_over:
                seat = state.to_act[0]
                view = state.view(seat)
                first = normal(view)
                if len(view["legal"]) > 1 and view.get("phase") in phases:
                    k += 1
                    if true_hands:
                        strong_ai.sampler = lambda _game, s=state: true_hands_sampler(s)
                    action, info = strong_ai.search(game, view, seed=deal * 1000 + k, iterations=iterations)
                    cands = info["candidates"]
                    if len(cands) > 1:
                        value = [strong_ai.rollout(game, copy.deepcopy(state), seat, c, normal, math.inf)
                                 for c in cands]
                        rows.append({"phase": view["phase"], "edges": info["edges"], "chosen": cands.index(action),
                                     "gains": [v - value[0] for v in value]})
                state.apply(seat, first)
    finally:
        strong_ai.sampler = sampler
    return rows


def hidden_share(seed: int, deals: range, worlds: int, *, players: int = 2) -> dict[str, float]:
    """Phỏm: the share of the real hidden cards the worlds put in the right hands, by sampler."""
    from bot.games.phom_sample import determinize
    variants = {"uniform": {"infer": False}, "rejection": {}}
    normal = strong_ai.normal_choose("phom")
    found = dict.fromkeys(variants, 0)
    total = 0
    for deal in deals:
        state = REGISTRY["phom"].new(players, seed=deal_seed(seed, deal), options={})
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            real = {s: state.hands[s] - state.unshown_eaten[s] for s in range(players) if s != seat}
            total += worlds * sum(len(h) for h in real.values())
            for name, options in variants.items():
                for k in range(worlds):
                    world = determinize(view, random.Random(f"{deal}:{len(state.actions)}:{k}"), **options)
                    found[name] += sum(len(world.hands[s] & h) for s, h in real.items())
            state.apply(seat, normal(view))
    return {name: count / total for name, count in found.items()}


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean, sd / math.sqrt(n)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="phom", choices=sorted(REGISTRY))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=16)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--phases", default="draw,show,discard")
    parser.add_argument("--true-hands", action="store_true")
    parser.add_argument("--hidden", action="store_true", help="Phỏm: the real hidden cards in the worlds")
    args = parser.parse_args(argv)
    if args.hidden:
        shares = hidden_share(args.seed, range(args.games), args.iterations, players=args.players)
        print(f"phom, {args.players} seats, {args.games} deals (seed {args.seed}), {args.iterations} worlds a "
              "position: the real hidden cards in the same hand, " + ", ".join(
                  f"{name} {100 * share:.1f} %" for name, share in shares.items()))
        return
    rows = probe(args.game, args.seed, range(args.games), args.iterations, players=args.players,
                 phases=tuple(args.phases.split(",")), true_hands=args.true_hands)
    bins: dict[tuple[str, int], list[float]] = defaultdict(list)
    for row in rows:
        for edge, gain in zip(row["edges"][1:], row["gains"][1:]):
            bins[(row["phase"], max(i for i, low in enumerate(BINS) if edge >= low))].append(gain)
    print(f"{args.game}, {args.players} seats, {args.games} deals (seed {args.seed}), {args.iterations} worlds"
          + (", the real hidden hands" if args.true_hands else "") + f": {len(rows)} searched decisions")
    for (phase, b), gains in sorted(bins.items()):
        high = BINS[b + 1] if b + 1 < len(BINS) else math.inf
        mean, se = _mean_se(gains)
        print(f"  {phase:>8} edge [{BINS[b]:+.1f}, {high:+.1f}): {len(gains):5d} moves, "
              f"true gain {mean:+.3f} (s.e. {se:.3f})")
    picked = [row["gains"][row["chosen"]] for row in rows]
    deviations = [g for row, g in zip(rows, picked) if row["chosen"]]
    each = ""
    if deviations:
        mean, se = _mean_se(deviations)
        each = f" (a deviation: {mean:+.3f}, s.e. {se:.3f})"
    print(f"  the search's own picks: {len(deviations)} deviations, gain per game {sum(picked) / args.games:+.3f}{each}")


if __name__ == "__main__":
    main()
