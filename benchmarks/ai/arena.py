"""The arena: policies play each other on duplicate deals (issue #28; the CLI is
``python -m benchmarks.arena``).

A *policy* is a function of one seat's view (``state.view(seat)``) that returns one of the
view's legal actions: it never sees the state. ``policy(game, name, rng)`` builds one:
``random`` (uniform among the legal actions), ``simple`` (the plain rule player,
:mod:`bot.ai.easy`) or ``normal`` (the game's AI, :data:`bot.ai.levels.NORMAL`).

Duplicate deals: a deal is a seed (the engines deal every round of a match, and every
reshuffle, from it), replayed once per *lineup*: with policies ``a, b`` at ``n`` seats, policy
``a`` takes each seat in turn and ``b`` the other ``n − 1`` ("1 vs 3" at four seats; at two
seats ``a`` vs ``b`` and ``b`` vs ``a``), so every policy plays every seat on the same cards
and luck of the deal cancels out.

Each seat of each game is one sample for its policy: a win (its seat is among the outcome's
winners: a shared pot counts as a win for each sharer, a drawn game for nobody) and its result
in stake units (``Outcome.chips(1)``: the engine's own settlement). In ``round`` mode
(Chinchón, Concan: one round instead of the whole match) a Chinchón round pays no stake, so
its result is the round's points margin, the mean points of the other seats less the seat's
own (positive is good), and its winners the seats with the fewest points; a Concan round is
played as a one-round set (``rounds=1``), settled by the engine.
"""

from __future__ import annotations

import gc
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from bot.ai.levels import NORMAL
from bot.games import REGISTRY
from bot.ai.easy import SIMPLE

Policy = Callable[[dict[str, Any]], str]

POLICIES = ("random", "simple", "normal")
MAX_ACTIONS = 50_000  # a game longer than this is a bug in an engine or a policy


def policy(game: str, name: str, rng: random.Random) -> Policy:
    """The policy ``name`` for ``game``; ``rng`` drives the random one."""
    if name == "random":
        return lambda view: rng.choice(view["legal"])
    if name == "simple":
        return SIMPLE[game]
    if name == "normal":
        return NORMAL[game]
    raise ValueError(f"unknown policy {name!r}: choose from {', '.join(POLICIES)}")


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % for z = 1.96); (0, 1) without games."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def lineups(policies: tuple[str, str], players: int) -> list[tuple[str, ...]]:
    """The seatings a deal is replayed with: the first policy at each seat in turn, the
    second at every other seat."""
    a, b = policies
    return [tuple(a if seat == k else b for seat in range(players)) for k in range(players)]


def deal_seed(seed: int, deal: int) -> int:
    return seed * 1_000_003 + deal


@dataclass
class GameResult:
    lineup: tuple[str, ...]
    wins: list[float]
    results: list[float]
    times: list[list[float]]  # by seat, CPU seconds per decision
    deck: list[str]  # the first round's pack as dealt (the same for every lineup of a deal)
    actions: int  # how many actions the game took


def play(game: str, lineup: tuple[str, ...], seed: int, *, mode: str = "game",
         options: dict[str, Any] | None = None) -> GameResult:
    """One game (or round, or match) of ``game`` on the deal ``seed``, seat ``i`` played by
    policy ``lineup[i]``."""
    engine = REGISTRY[game]
    players = len(lineup)
    opts = dict(options or {})
    if mode == "round" and game == "concan":
        opts["rounds"] = 1
    state = engine.new(players, seed=seed, options=opts)
    policies = [policy(game, name, random.Random(f"{seed}:{seat}:{name}")) for seat, name in enumerate(lineup)]
    times: list[list[float]] = [[] for _ in range(players)]
    # CPU time of the policy's call: on a shared machine the wall clock's p99 measures the
    # scheduler (a preempted process loses tens of milliseconds), not the policy
    clock = time.thread_time
    gc.collect()  # and none during the game: a collection's pause belongs to no decision
    gc.freeze()  # (what survives is kept out of later collections: each game's is quick)
    gc.disable()
    try:
        _play_out(state, policies, times, clock, mode)
    finally:
        gc.enable()
    if mode == "round" and game == "chinchon":
        points = state.round_results[0]["points"]
        seats = [s for s in range(players) if points[s] is not None]
        low = min(points[s] for s in seats)
        wins = [1.0 if s in seats and points[s] == low else 0.0 for s in range(players)]
        total = sum(points[s] for s in seats)
        results = [0.0 if s not in seats else (total - points[s]) / (len(seats) - 1) - points[s]
                   for s in range(players)]
    else:
        outcome = state.outcome()
        winners = set(outcome.winners)
        wins = [1.0 if s in winners else 0.0 for s in range(players)]
        results = [float(c) for c in outcome.chips(1)]
    record = state.record()
    deck = record["deck"] if "deck" in record else record["decks"][0]
    return GameResult(lineup, wins, results, times, list(deck), len(state.actions))


def _play_out(state: Any, policies: list[Policy], times: list[list[float]], clock: Callable[[], float],
              mode: str) -> None:
    """Play ``state`` to its end (or the end of its first round in ``round`` mode)."""
    for _ in range(MAX_ACTIONS):
        if state.is_over or (mode == "round" and state.name == "chinchon" and state.round_results):
            return
        seat = state.to_act[0]
        view = state.view(seat)
        start = clock()
        action = policies[seat](view)
        times[seat].append(clock() - start)
        state.apply(seat, action)
    raise RuntimeError(f"{state.name} did not end in {MAX_ACTIONS} actions")


def play_deal(game: str, policies: tuple[str, str], players: int, seed: int, deal: int, *, mode: str = "game",
              options: dict[str, Any] | None = None) -> list[GameResult]:
    """Deal number ``deal`` replayed with every lineup."""
    return [play(game, lineup, deal_seed(seed, deal), mode=mode, options=options)
            for lineup in lineups(policies, players)]


@dataclass
class Tally:
    """One policy's figures over the seats it played."""

    policy: str
    games: int = 0
    wins: float = 0.0
    result: float = 0.0
    times: list[float] = field(default_factory=list)

    def add(self, win: float, result: float, times: list[float]) -> None:
        self.games += 1
        self.wins += win
        self.result += result
        self.times.extend(times)

    def summary(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        ordered = sorted(self.times)

        def quantile(q: float) -> float:
            return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

        return {"policy": self.policy, "games": self.games, "wins": self.wins,
                "win_rate": self.wins / self.games if self.games else 0.0, "low": low, "high": high,
                "chips_per_game": self.result / self.games if self.games else 0.0,
                "p50_ms": quantile(0.5), "p99_ms": quantile(0.99), "decisions": len(ordered)}


def tally(results: list[GameResult]) -> dict[str, Tally]:
    """Per policy, every seat it played in ``results``."""
    out: dict[str, Tally] = {}
    for game in results:
        for seat, name in enumerate(game.lineup):
            out.setdefault(name, Tally(name)).add(game.wins[seat], game.results[seat], game.times[seat])
    return out


__all__ = ["POLICIES", "GameResult", "Policy", "Tally", "deal_seed", "lineups", "play", "play_deal", "policy",
           "tally", "wilson"]
