"""Configuration: defaults, overridden by a TOML file, overridden by keyword arguments.

The token is never read from the file unless the admin puts it there; ``DISCORD_TOKEN`` in the
environment always wins so that the file can be shared without secrets (``CHIEU_DATABASE``
likewise for a database URL that holds a password).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .backends import is_postgres

DEFAULT_PATH = Path("config.toml")

log = logging.getLogger(__name__)

#: keys a config file may still hold from an older version, each with why it is gone: the bot
#: warns that they are no longer used and starts (they set the strong AI, removed in issue #37)
REMOVED_KEYS = {
    "ai_workers": "the strong AI's worker processes are gone",
    "ai_strong_budget_ms": "the strong AI is gone",
    "ai_strong_iterations": "the strong AI is gone",
}
#: AI levels a config file may still name, and the level that now plays in their place
RETIRED_AI_LEVELS = {"strong": "normal"}


@dataclass(frozen=True)
class Config:
    token: str | None = None
    # A SQLite file path, or a PostgreSQL URL: postgresql://user:password@host:5432/dbname
    # (or postgresql://user@/dbname?host=/run/postgresql for a unix socket).
    database: str = "chieu.sqlite3"
    log_level: str = "INFO"
    # "auto": sync slash commands only when their definitions changed since the last sync;
    # "always" / "never" for admins who manage syncing themselves.
    sync_commands: str = "auto"
    # A guild id to sync commands to instantly while developing (global sync can take an hour).
    dev_guild_id: int | None = None
    default_stake: int = 1
    default_turn_seconds: int = 60
    min_turn_seconds: int = 15
    max_turn_seconds: int = 600
    # Pause before an AI seat moves, so people can follow the table; 0 in tests.
    ai_delay_seconds: float = 1.0
    # Each person's hand comes by DM. False: no DM, everyone plays through the table message's
    # **My hand** (as a player whose DMs are closed does); the local mode, whose page shows one
    # channel and no DMs, runs so.
    hands_by_dm: bool = True
    # The AI level of a new table when neither /<game> new nor the server says: "easy" (the
    # plain rule player) or "normal" (each game's AI, bot/ai/levels.py).
    ai_level: str = "normal"
    # Consecutive turn timeouts after which a seat is marked away and played by the AI.
    away_after_timeouts: int = 2
    max_tables_per_channel: int = 5
    # An unstarted lobby closes after this many seconds (a rematch lobby too).
    lobby_timeout_seconds: int = 900
    # Matches of several rounds: the pause between two rounds (shorter if everyone clicks
    # Next round).
    round_pause_seconds: int = 10
    # The table message is edited at most once in this many seconds (a burst of moves is shown
    # as one frame); 0 in tests.
    table_edit_seconds: float = 2.5
    # A player who clicked his hand this recently is not notified of his turn (he is looking).
    notify_quiet_seconds: float = 20.0
    # The bot's share of Discord's global limit (50 calls per second per bot, all its processes
    # together): 80 %. A process running some of the shards spends their part of it.
    rest_calls_per_second: float = 40.0
    # Shards (Discord requires them past 2,500 servers). Unset: as many as Discord recommends,
    # all in this process. Several processes on one PostgreSQL database: the same shard_count
    # in each, and each its own shard_ids (e.g. 0-1 and 2-3 of 4).
    shard_count: int | None = None
    shard_ids: list[int] | None = None
    # PostgreSQL only (several processes may share the database): each table is driven by one
    # process at a time, under a lease it renews every lease_seconds / 3; a table whose driver
    # stopped renewing is adopted by another process once lease_seconds have passed.
    lease_seconds: float = 10.0
    # This process's name in the leases, unique among the live processes on one database
    # (default: host name and process id).
    instance_name: str = ""
    # Prometheus metrics and /healthz (bot.metrics) on this port; 0: off. Each process of a
    # bot serves its own. Bound to metrics_host, this machine only unless told otherwise.
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    # /healthz says unhealthy while a message of a table has been failing for longer than this.
    health_retry_seconds: float = 600.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rest_calls_here(self) -> float:
        """This process's part of ``rest_calls_per_second``: its shards' share (Discord counts
        the limit per bot, whichever process calls), all of it when it runs every shard."""
        if self.shard_ids is None or not self.shard_count:
            return self.rest_calls_per_second
        return self.rest_calls_per_second * len(self.shard_ids) / self.shard_count

    def with_overrides(self, **overrides: Any) -> "Config":
        return dataclasses.replace(self, **overrides)


_FIELDS = {f.name for f in dataclasses.fields(Config)} - {"extra"}


def load(path: str | os.PathLike[str] | None = None, **overrides: Any) -> Config:
    """Defaults, then ``path`` (or ``$CHIEU_CONFIG``, or ./config.toml if present), then overrides."""
    values: dict[str, Any] = {}
    if path is None:
        env_path = os.environ.get("CHIEU_CONFIG")
        path = Path(env_path) if env_path else (DEFAULT_PATH if DEFAULT_PATH.exists() else None)
    if path is not None:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        data = _without_removed_keys(data, path)
        unknown = set(data) - _FIELDS
        if unknown:
            raise ValueError(f"unknown option(s) in {path}: {', '.join(sorted(unknown))}")
        values.update(data)
    if os.environ.get("DISCORD_TOKEN"):
        values["token"] = os.environ["DISCORD_TOKEN"]
    if os.environ.get("CHIEU_DATABASE"):  # a URL with a password stays out of the file, like the token
        values["database"] = os.environ["CHIEU_DATABASE"]
    values.update(overrides)
    retired = values.get("ai_level")
    if retired in RETIRED_AI_LEVELS:
        values["ai_level"] = RETIRED_AI_LEVELS[retired]
        log.warning("config: ai_level %r is no longer a level; it now means %r", retired, values["ai_level"])
    config = Config(**values)
    if config.rest_calls_per_second <= 0 or config.table_edit_seconds < 0:
        raise ValueError("rest_calls_per_second must be positive and table_edit_seconds not negative")
    if "://" in config.database and not is_postgres(config.database):
        raise ValueError("database must be a SQLite file path or a postgresql:// URL")
    if config.shard_count is not None and config.shard_count < 1:
        raise ValueError("shard_count must be at least 1")
    if config.shard_ids is not None:
        if config.shard_count is None:
            raise ValueError("shard_ids needs shard_count: every process must agree on the number of shards")
        if not config.shard_ids or len(set(config.shard_ids)) != len(config.shard_ids) or not all(
                0 <= shard < config.shard_count for shard in config.shard_ids):
            raise ValueError(f"shard_ids must be distinct numbers from 0 to {config.shard_count - 1}")
    if not 0 <= config.metrics_port <= 65535:
        raise ValueError("metrics_port must be between 0 (off) and 65535")
    if config.health_retry_seconds <= 0:
        raise ValueError("health_retry_seconds must be positive")
    if not 1 <= config.lease_seconds <= 3600:
        raise ValueError("lease_seconds must be between 1 and 3600")
    if config.ai_level not in {"easy", "normal"}:
        raise ValueError("ai_level must be 'easy' or 'normal'")
    if config.sync_commands not in {"auto", "always", "never"}:
        raise ValueError("sync_commands must be 'auto', 'always' or 'never'")
    if not 1 <= config.min_turn_seconds <= config.default_turn_seconds <= config.max_turn_seconds:
        raise ValueError("turn seconds must satisfy 1 ≤ min_turn_seconds ≤ default_turn_seconds ≤ max_turn_seconds")
    return config


def _without_removed_keys(data: dict[str, Any], path: str | os.PathLike[str]) -> dict[str, Any]:
    """``data`` less the keys of :data:`REMOVED_KEYS`, each one found logged as a warning (an
    older config file still starts the bot)."""
    for key in sorted(set(data) & set(REMOVED_KEYS)):
        log.warning("config: %s in %s is no longer used (%s); remove it", key, path, REMOVED_KEYS[key])
    return {key: value for key, value in data.items() if key not in REMOVED_KEYS}
