"""The ``strong`` AI (issue #28): determinized search from one seat's view.

The interface is fixed so that the table (which runs it off the event loop, in a process pool)
and the arena can be built against it while the search itself grows:

``choose(game, view, *, seed, budget_ms=None, iterations=None) -> action``

- ``view`` is ``state.view(seat)``: what that seat may see, never the state.
- ``budget_ms`` bounds the thinking time (an anytime search returns its best so far);
  ``iterations`` bounds it by work instead, which makes a choice deterministic for a given
  ``seed`` (tests, the arena's duplicate deals). With neither, a small default number of
  iterations.
- A game whose sampler (``bot.games.<game>_sample.determinize(view, rng) -> state``) does not
  exist yet plays as ``normal``.
"""

from __future__ import annotations

import importlib
from typing import Any


def normal_choose(game: str):
    return importlib.import_module(f"bot.games.{game}_ai").choose


def choose(game: str, view: dict[str, Any], *, seed: int, budget_ms: float | None = None,
           iterations: int | None = None) -> str:
    """The strong AI's action for the seat whose view this is (placeholder: plays as normal
    until the search lands)."""
    return normal_choose(game)(view)


__all__ = ["choose"]
