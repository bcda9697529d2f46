"""Chinchón: deadwood speed, AI time per decision and AI-vs-AI rounds per second.

    python -m benchmarks.chinchon_games [--seconds 3] [--hands 20000]

- ``deadwood``: median and p95 of single calls on fresh random 8-card French hands holding
  both jokers (6 real cards), each hand a new list of codes drawn before timing, so no call
  sees a hand twice (the solver keeps no per-hand cache; its run tables are built once per
  pack, before timing). Each call is timed alone with ``perf_counter_ns``.
- The same on 10-card hands without jokers, next to rlcard's gin-rummy meld search
  (``get_best_meld_clusters`` + the deadwood count) on the same hands when rlcard is installed
  (it is not a dependency of the project: ``pip install rlcard`` to compare).
- AI: every seat plays ``chinchon_ai.choose`` in whole matches (2, 3 and 4 players in turn)
  for ``--seconds``; prints the AI's median, p99 and max time per decision and the rounds per
  second of the whole loop (engine included, AI timing included).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.games.chinchon.game import GAME, PACKS, can_close, deadwood  # noqa: E402
from bot.games.chinchon.ai import choose  # noqa: E402


def _quantiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    return ordered[len(ordered) // 2] / 1000, ordered[int(len(ordered) * 0.95)] / 1000


def _time_each(fn, items) -> list[int]:
    """Nanoseconds of ``fn(item)`` for each item, each call timed alone."""
    clock = time.perf_counter_ns
    samples = []
    for item in items:
        start = clock()
        fn(item)
        samples.append(clock() - start)
    return samples


def _rlcard_deadwood(hand) -> int:
    from rlcard.games.gin_rummy.utils import melding, utils

    clusters = melding.get_best_meld_clusters(hand)
    return min((utils.get_deadwood_count(hand, c) for c in clusters), default=utils.get_deadwood_count(hand, []))


def bench_deadwood(hands: int) -> None:
    rng = random.Random(2024)
    cards = PACKS["french"].cards
    deadwood(["AS", "JK"])  # build the run tables once, outside the timing
    eight = []
    for _ in range(hands):
        hand = rng.sample(cards, 6) + ["JK", "JK"]
        rng.shuffle(hand)
        eight.append(hand)
    med, p95 = _quantiles(_time_each(deadwood, eight))
    print(f"deadwood, 8 cards with 2 jokers: median {med:.1f} µs, p95 {p95:.1f} µs ({hands} fresh hands)")

    ten = [rng.sample(cards, 10) for _ in range(min(hands, 5000))]
    med, p95 = _quantiles(_time_each(deadwood, ten))
    line = f"deadwood, 10 cards, no joker:   median {med:.1f} µs, p95 {p95:.1f} µs"
    try:
        from rlcard.games.gin_rummy.utils import utils
    except ImportError:
        print(line + "  (rlcard not installed: no comparison)")
        return
    rl_hands = [[utils.card_from_text(c) for c in hand] for hand in ten]
    rmed, rp95 = _quantiles(_time_each(_rlcard_deadwood, rl_hands))
    print(line + f"  | rlcard gin-rummy meld search: median {rmed:.1f} µs, p95 {rp95:.1f} µs")


def bench_ai(seconds: float) -> None:
    clock = time.perf_counter
    decisions: list[float] = []
    rounds = 0
    matches = 0
    can_close("AS 2S 3S 4S 5S 6S 7S 8S")  # build the tables of both weightings before timing
    start = clock()
    while clock() - start < seconds:
        state = GAME.new(2 + matches % 3, seed=matches)
        while not state.is_over:
            seat = state.to_act[0]
            t = clock()
            action = choose(state.view(seat))
            decisions.append(clock() - t)
            state.apply(seat, action)
        rounds += state.round
        matches += 1
    elapsed = clock() - start
    p99 = sorted(decisions)[int(len(decisions) * 0.99)]
    print(f"AI: median {1000 * statistics.median(decisions):.3f} ms, p99 {1000 * p99:.3f} ms, "
          f"max {1000 * max(decisions):.3f} ms per decision ({len(decisions)} decisions)")
    print(f"AI vs AI: {rounds / elapsed:.0f} rounds/s ({matches} matches, {rounds} rounds in {elapsed:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of AI-vs-AI matches")
    parser.add_argument("--hands", type=int, default=20000, help="fresh hands for deadwood")
    args = parser.parse_args()
    bench_deadwood(args.hands)
    bench_ai(args.seconds)


if __name__ == "__main__":
    main()
