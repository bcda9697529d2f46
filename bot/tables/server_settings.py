"""A server's settings (``/admin settings``): the defaults of its new tables, the games it
allows, where its tables play, and its game-master role.

They are stored as one JSON object per server (:meth:`bot.db.Database.server_settings`), holding
only what the server's admins set: whatever they did not set is the config's. The keys:

- ``language``: the table language of a new table (unset: the host's own language)
- ``stake``, ``turn_seconds``: a new table's stake and seconds per move
- ``max_tables``: open tables per channel (replaces the config's ``max_tables_per_channel``)
- ``disabled_games``: the games that may not be opened here (a list of game names, so that a
  game added to the bot later is allowed until the admins say otherwise)
- ``threads``: False when tables play in the channel itself rather than in a thread of their own
- ``gm_role``: the id of the game-master role (:mod:`bot.permissions`)
- ``ai_level``: how well a new table's AI seats play (``easy``, ``normal``; a stored ``strong``,
  a level removed since, is ``normal``)

A table's own options still win over these, and the config's limits (seconds per move between
``min_turn_seconds`` and ``max_turn_seconds``, the stake up to ``MAX_STAKE``) hold for them too:
a value stored under other limits is brought within today's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot import i18n
from .commands import MAX_STAKE
from bot.ai.levels import known_level

if TYPE_CHECKING:
    from bot.config import Config

#: the most open tables per channel a server may allow
MAX_TABLES = 50
#: the settings ``/admin settings`` shows, in its order (the keys it may reset)
SHOWN = ("language", "stake", "turn_seconds", "max_tables", "disabled_games", "threads", "gm_role", "ai_level")


@dataclass(frozen=True)
class ServerDefaults:
    """What a new table of a server starts from: the server's settings over the config's."""

    language: str | None  # None: the host's language
    stake: int
    turn_seconds: int
    max_tables: int
    disabled_games: frozenset[str]
    threads: bool
    gm_role: int | None
    ai_level: str


def clamp(value: Any, low: int, high: int, default: int) -> int:
    """``value`` within [low, high]; ``default`` if it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(low, min(high, value))


def server_defaults(settings: dict[str, Any], config: "Config") -> ServerDefaults:
    """The defaults of a server's new tables, from its stored settings and the config."""
    language = settings.get("language")
    return ServerDefaults(
        language=language if language in i18n.LANGUAGES else None,
        stake=clamp(settings.get("stake"), 0, MAX_STAKE, config.default_stake),
        turn_seconds=clamp(settings.get("turn_seconds"), config.min_turn_seconds, config.max_turn_seconds,
                           config.default_turn_seconds),
        max_tables=clamp(settings.get("max_tables"), 1, MAX_TABLES, config.max_tables_per_channel),
        disabled_games=frozenset(settings.get("disabled_games") or ()),
        threads=settings.get("threads") is not False,
        gm_role=settings.get("gm_role"),
        ai_level=known_level(settings.get("ai_level")) or config.ai_level,
    )
