"""The ``strong`` AI (issue #28): determinized rollouts from one seat's view.

``choose(game, view, *, seed, budget_ms=None, iterations=None) -> action``

- ``view`` is ``state.view(seat)``: what that seat may see, never the state.
- ``budget_ms`` bounds the thinking time (wall clock: it must fit in the table's AI pause);
  the search is anytime and returns its best so far. ``iterations`` bounds it by work
  instead (the number of sampled worlds), which makes a choice deterministic for a given
  ``seed`` (tests, the arena's duplicate deals). With neither, ``DEFAULT_WORLDS`` worlds.
- A game whose sampler (``bot.games.<game>_sample.determinize(view, rng) -> state``) does
  not exist yet plays as ``normal``.

The search, and why:

1. **Candidates.** The legal actions, less those that are the same move: Phỏm's eats of one
   card differ only in the hand cards they name, which are not tied to it (one is kept).
   Of many discards only the ``SEARCH_DISCARDS`` the normal AI rates best (and its own
   choice) are searched: each candidate costs a rollout in every world, and a few hundred
   milliseconds hold a few hundred rollouts. Concan's play step (a turn of many small moves:
   melds, lay-offs, swaps) compares the normal AI's move with those discards. One candidate:
   no search.
2. **Worlds.** World ``k`` is ``determinize(view, Random(f"{seed}:{k}"))``: the hidden cards
   (other hands, the stock) dealt at random consistently with the view (Chắn's, Tứ Sắc's and
   Phỏm's samplers also weigh what the other seats did: see each). Every candidate is
   played in the same worlds (common random numbers: the luck of the deal is the same for
   each, so far fewer worlds tell them apart).
3. **Rollouts.** In a copy of the world the candidate is applied, then every seat (this one
   too) plays the ``normal`` AI from its own view up to the horizon: the end of the game
   (Phỏm), the end of the round (Chinchón, Concan: a match is too long to play out in a few
   hundred milliseconds, and rounds add up).
4. **Score**, from the seat's point of view, in the game's own terms: Phỏm the stake units
   the game settles (``Outcome.chips(1)``); Chinchón and Concan the round's points margin
   (the others' mean points less the seat's own: lower points are better in both), plus,
   when the match ends inside the rollout, its result in stake units weighted
   ``MATCH_POINTS`` points a unit (a match is won by the totals, so a unit is worth about a
   target's worth of points).
5. **Anytime, round-robin**: world after world, each candidate once in it, until the
   iterations or the deadline run out. A world is begun only when a world's mean time is
   left before the deadline; the deadline is also checked before every rollout step, and a
   world not played for every candidate is dropped, so the comparison stays paired.
   From ``MIN_WORLDS`` worlds on, a candidate ``DROP`` standard errors (of its paired
   differences) worse than the normal AI's choice is dropped, and the worlds left go to
   the others (successive rejection); when none is left the search stops early.
6. **Pick**: the candidate with the best mean difference from the normal AI's choice among
   those that beat it by more than ``CONFIDENCE`` standard errors over at least
   ``MIN_PICK_WORLDS`` worlds; else the normal AI's choice. A few dozen worlds are noisy, and a move picked on noise is worse than the
   normal AI's: with one standard error the strong AI lost to it (Phỏm, two seats: 43.7 %
   of 300 games), with two it plays even (49.3 % of 600; README, "The strong AI").

Deterministic for a seed with ``iterations``: the worlds come from ``seed``, the rollout
policy is deterministic, and nothing reads the clock then.
"""

from __future__ import annotations

import copy
import gc
import importlib
import logging
import math
import random
import time
from typing import Any, Callable

from .strong_views import lean_view

log = logging.getLogger(__name__)

#: worlds sampled when neither a budget nor iterations is given
DEFAULT_WORLDS = 16
#: a stake unit won or lost in a match, in round points (Chinchón, Concan rollouts)
MATCH_POINTS = 100
#: the discards searched (the normal AI's best rated): each costs a rollout a world
SEARCH_DISCARDS = 4
#: a move other than the normal AI's is played only when its mean beats the normal one's by
#: this many standard errors of their paired differences (see ``search``)
CONFIDENCE = 2.0
#: fewer worlds never leave the normal AI's choice: a standard error from a handful of worlds
#: is itself too noisy (Concan at 8 worlds: 46.9 % of 160 games at two seats, 20.0 % of 80
#: one against three)
MIN_PICK_WORLDS = 12
#: from this many worlds on, a candidate more than ``DROP`` standard errors worse than the
#: normal AI's choice is no longer played: the time goes to the others
MIN_WORLDS = 6
DROP = 1.0
#: a rollout that runs this long is a bug in an engine or the rollout policy
MAX_ROLLOUT_ACTIONS = 5_000


ROUND_GAMES = ("chinchon", "concan")  # scored by the round's points margin, then the match


def normal_choose(game: str) -> Callable[[dict[str, Any]], str]:
    return importlib.import_module(f"bot.games.{game}_ai").choose


def sampler(game: str) -> Callable[[dict[str, Any], random.Random], Any] | None:
    """The game's ``determinize(view, rng)``, or None when it has none yet."""
    name = f"bot.games.{game}_sample"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the sampler exists but something it imports does not
            raise
        return None
    return module.determinize


# -- candidates --------------------------------------------------------------------------------


def candidates(game: str, view: dict[str, Any], first: str) -> list[str]:
    """The actions the search compares, ``first`` (the normal AI's choice) first."""
    legal = view["legal"]
    out = [first] + [a for a in legal if a != first]
    if game == "phom":  # the hand cards an eat names are not tied to the eaten card: one eat
        eat = next((a for a in out if a.startswith("eat ")), None)
        out = [a for a in out if not a.startswith("eat ") or a == eat]
    if game == "concan" and view["step"] == "play":  # many small moves a turn: the normal one
        out = [a for a in out if a == first or a.startswith("discard ")]
    discards = [a for a in out if a.startswith("discard ")]
    if len(discards) <= SEARCH_DISCARDS:
        return out
    # many discards: the few the normal AI rates best (a rollout costs milliseconds)
    ranked = ["discard " + c for c in _discard_order(game, view)]
    keep = set(([first] + [a for a in ranked if a != first])[:SEARCH_DISCARDS])
    return [a for a in out if not a.startswith("discard ") or a in keep]


def _discard_order(game: str, view: dict[str, Any]) -> list[str]:
    """The legal discards, the ones the normal AI rates best first."""
    if game == "concan":
        return _concan_discards(view)
    return importlib.import_module(f"bot.games.{game}_ai").discard_order(view)


def _concan_discards(view: dict[str, Any]) -> list[str]:
    """Concan's discards: cards outside the hand's best grouping first, the highest in points
    first (what the normal AI weighs), jokers last."""
    from .concan_melds import card_penalty
    from .concan_solver import best_melds
    from .french import JOKER
    cards = [a.split()[1] for a in view["legal"] if a.startswith("discard ")]
    rest = set(best_melds(view["hand"], keep=1)["rest"])
    return sorted(cards, key=lambda c: (c == JOKER, c not in rest, -card_penalty(c), c))


# -- rollouts ----------------------------------------------------------------------------------


class OutOfTime(Exception):
    """The deadline passed inside a rollout."""


def _round_of(state: Any) -> int:
    return len(getattr(state, "round_results", ()))


def rollout(game: str, state: Any, seat: int, action: str, normal: Callable[[dict[str, Any]], str],
            deadline: float) -> float:
    """Apply ``action`` for ``seat`` in ``state`` (a world of its own), play ``normal`` at every
    seat to the horizon, and score the end for ``seat``."""
    start = _round_of(state)
    state.apply(seat, action)  # (it may end the round itself: a close, a last discard)
    clock = time.perf_counter
    for _ in range(MAX_ROLLOUT_ACTIONS):
        if state.is_over or _round_of(state) > start:
            return score(game, state, seat)
        if clock() > deadline:
            raise OutOfTime
        s = state.to_act[0]
        state.apply(s, normal(lean_view(state, s)))
    raise RuntimeError(f"a {game} rollout did not end in {MAX_ROLLOUT_ACTIONS} actions")


def score(game: str, state: Any, seat: int) -> float:
    """The end of a rollout from ``seat``'s point of view (higher is better)."""
    value = 0.0
    if game in ROUND_GAMES and state.round_results:
        points = state.round_results[-1]["points"]
        others = [p for s, p in enumerate(points) if s != seat and p is not None]
        if points[seat] is not None and others:
            value = sum(others) / len(others) - points[seat]
    if state.is_over:
        chips = state.outcome().chips(1)[seat]
        value += MATCH_POINTS * chips if game in ROUND_GAMES else chips
    return value


# -- the search --------------------------------------------------------------------------------


def search(game: str, view: dict[str, Any], *, seed: int, budget_ms: float | None = None,
           iterations: int | None = None) -> tuple[str, dict[str, Any]]:
    """The chosen action and what the search saw (:func:`_search`), with every object older
    than the search out of the garbage collector's sight: each world is a deep copy, and a
    full collection in the middle of a search, walking the worker's caches and modules too,
    took up to 90 ms and overran the budget by as much (Phỏm at 300 ms: p99 337–379 ms; with
    the older objects frozen, the collections see only the search's own objects: p99 301–303
    ms, and 40 % more worlds). Where something froze objects already (the bot's process once
    it is ready, the arena's games) they stay as they are: unfreezing is all or nothing."""
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    try:
        return _search(game, view, seed=seed, budget_ms=budget_ms, iterations=iterations)
    finally:
        if ours:
            gc.unfreeze()


def _search(game: str, view: dict[str, Any], *, seed: int, budget_ms: float | None = None,
            iterations: int | None = None) -> tuple[str, dict[str, Any]]:
    """The chosen action and what the search saw: ``candidates``, ``means`` (each over the
    worlds it was played in), ``edges`` (how far each beat the normal AI's choice, in standard
    errors: ``_edge``) and ``worlds``."""
    legal = view["legal"]
    normal = normal_choose(game)
    determinize = sampler(game)
    if len(legal) == 1 or determinize is None or view.get("phase") == "buyback":
        action = legal[0] if len(legal) == 1 else normal(view)
        return action, {"candidates": [action], "means": [0.0], "edges": [0.0], "worlds": 0}
    start = time.perf_counter()
    deadline = start + budget_ms / 1000 if budget_ms is not None else math.inf
    if iterations is None and budget_ms is None:
        iterations = DEFAULT_WORLDS
    first = normal(view)
    cands = candidates(game, view, first)
    if len(cands) == 1:
        return first, {"candidates": cands, "means": [0.0], "edges": [0.0], "worlds": 0}
    seat = view["seat"]
    results: list[list[float]] = [[] for _ in cands]  # by candidate, its value in each world
    active = list(range(len(cands)))  # the normal AI's choice (0) stays to the end
    worlds = 0
    try:
        while (iterations is None or worlds < iterations) and len(active) > 1:
            world = determinize(view, random.Random(f"{seed}:{worlds}"))
            values = [rollout(game, copy.deepcopy(world), seat, cands[i], normal, deadline) for i in active]
            for i, v in zip(active, values):
                results[i].append(v)
            worlds += 1
            if worlds >= MIN_WORLDS:  # drop what is clearly worse than the normal AI's choice
                active = [i for i in active if i == 0 or _edge(results[0], results[i]) > -DROP]
            now = time.perf_counter()
            if now + (now - start) / worlds > deadline:  # no time for another world (on average)
                break
    except OutOfTime:
        pass
    means = [sum(r) / len(r) if r else 0.0 for r in results]
    best = max((i for i in active if i and len(results[i]) >= MIN_PICK_WORLDS
                and _edge(results[0], results[i]) > CONFIDENCE),
               key=lambda i: means[i] - sum(results[0][:len(results[i])]) / len(results[i]), default=0)
    edges = [_edge(results[0], r) if i else 0.0 for i, r in enumerate(results)]
    return cands[best], {"candidates": cands, "means": means, "edges": edges, "worlds": worlds}


def _edge(first: list[float], other: list[float]) -> float:
    """How far ``other`` beats ``first`` in the worlds both were played in: the mean of their
    paired differences over its standard error (0 with fewer than two worlds)."""
    k = len(other)
    if k < 2:
        return 0.0
    diffs = [b - a for a, b in zip(first, other)]
    mean = sum(diffs) / k
    var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
    if var == 0:
        return math.copysign(math.inf, mean) if mean else 0.0
    return mean / math.sqrt(var / k)


def choose(game: str, view: dict[str, Any], *, seed: int, budget_ms: float | None = None,
           iterations: int | None = None) -> str:
    """The strong AI's action for the seat whose view this is. A failure of the search (a
    sampler's bug: the tests call ``search`` and see it) must not stop a table: the normal
    AI's choice is played then, and the failure logged."""
    try:
        return search(game, view, seed=seed, budget_ms=budget_ms, iterations=iterations)[0]
    except Exception:  # noqa: BLE001 - logged; the seat still moves
        log.exception("the strong AI's search failed (%s, seat %s): playing as normal", game, view.get("seat"))
        return normal_choose(game)(view)


__all__ = ["DEFAULT_WORLDS", "MATCH_POINTS", "candidates", "choose", "rollout", "sampler", "score", "search"]
