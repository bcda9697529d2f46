"""How an AI seat decides, at its table's level (issue #28).

- ``easy``: the plain rule player (:data:`bot.ai.easy.SIMPLE`),
- ``normal``: each game's own AI (``bot.games.<game>.ai.choose``, in :data:`NORMAL`).

Both take about 0.1 ms, so they run on the event loop. Every level decides from the seat's
view (``state.view(seat)``) only.

A level that was removed plays as the level named in :data:`RETIRED_LEVELS`: a table stored
at ``strong`` (a determinized-rollout search that played level with ``normal``, removed in
issue #37) plays on as ``normal``.
"""

from __future__ import annotations

from typing import Any, Callable

from bot.ai.easy import SIMPLE
from bot.games.chan import ai as chan_ai
from bot.games.chinchon import ai as chinchon_ai
from bot.games.concan import ai as concan_ai
from bot.games.phom import ai as phom_ai
from bot.games.tusac import ai as tusac_ai

LEVELS = ("easy", "normal")
DEFAULT_LEVEL = "normal"
#: levels that are no more, and the level that plays in their place
RETIRED_LEVELS = {"strong": "normal"}
#: each game's normal AI: ``choose(view) -> action``
NORMAL: dict[str, Callable[[dict[str, Any]], str]] = {
    "phom": phom_ai.choose, "chan": chan_ai.choose, "tusac": tusac_ai.choose,
    "chinchon": chinchon_ai.choose, "concan": concan_ai.choose,
}


def easy(game: str, view: dict[str, Any]) -> str:
    return SIMPLE[game](view)


def normal(game: str, view: dict[str, Any]) -> str:
    return NORMAL[game](view)


def known_level(level: Any) -> str | None:
    """``level`` as it plays now: itself, its replacement if it was retired, else None."""
    if level in LEVELS:
        return level
    return RETIRED_LEVELS.get(level) if isinstance(level, str) else None


def level_of(options: dict[str, Any]) -> str:
    """A table's AI level from its options (a table saved before levels existed: normal; one
    saved at a retired level: the level that replaced it)."""
    return known_level(options.get("ai")) or DEFAULT_LEVEL


def quick_choice(game: str, level: str, view: dict[str, Any]) -> str:
    """The move of the AI at ``level`` for the seat whose view this is."""
    return easy(game, view) if level == "easy" else normal(game, view)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "NORMAL", "RETIRED_LEVELS", "easy", "known_level", "level_of", "normal", "quick_choice"]
