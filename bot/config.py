"""Configuration: defaults, overridden by a TOML file, overridden by keyword arguments.

The token is never read from the file unless the admin puts it there; ``DISCORD_TOKEN`` in the
environment always wins so that the file can be shared without secrets (``CHIEU_DATABASE``
likewise for a database URL that holds a password).

Every key is checked at load against its type and range (:mod:`bot.config_rules`); whatever is
wrong is raised at once as a :class:`ConfigError` whose lines each name the key, the value and
what is allowed (``chieu`` prints them and exits 2; ``chieu check-config`` shows the rest).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .config_rules import ENVIRONMENT, ConfigError, check, unknown_key

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
    # "text": one line per record for a person; "json": one JSON object per line for a log collector
    log_format: str = "text"
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


def source_path(path: str | os.PathLike[str] | None) -> Path | None:
    """The file to read: ``path``, or ``$CHIEU_CONFIG``, or ./config.toml if present (a file
    named by either of the first two must exist)."""
    if path is not None:
        return Path(path)
    env_path = os.environ.get("CHIEU_CONFIG")
    if env_path:
        return Path(env_path)
    return DEFAULT_PATH if DEFAULT_PATH.exists() else None


def read_file(path: Path) -> dict[str, Any]:
    """The TOML file's keys; a ConfigError of one line if it is missing or not TOML."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError([f"{path}: no such file (given by --config or CHIEU_CONFIG)"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {exc}"]) from None
    except OSError as exc:
        raise ConfigError([f"{path}: cannot be read: {exc.strerror or exc}"]) from None


def gather(path: str | os.PathLike[str] | None = None, *, warn: Callable[[str], None] | None = None,
           **overrides: Any) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The values set (file, then environment, then overrides), where each came from, and the
    keys that may not be set (named, with a guess); a removed key is only a warning."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    errors: list[str] = []
    file = source_path(path)
    if file is not None:
        for key, value in read_file(file).items():
            if key in REMOVED_KEYS:
                (warn or log.warning)(f"config: {key} in {file} is no longer used ({REMOVED_KEYS[key]}); remove it")
            elif key not in _FIELDS:
                errors.append(unknown_key(file, key, _FIELDS))
            else:
                values[key], origins[key] = value, str(file)
    for key, variable in ENVIRONMENT.items():
        if os.environ.get(variable):
            values[key], origins[key] = os.environ[variable], variable
    for key, value in overrides.items():
        if key not in _FIELDS and key != "extra":
            errors.append(f"argument: unknown key {key!r}")  # (a caller's mistake)
        values[key], origins[key] = value, "argument"
    retired = values.get("ai_level")
    if isinstance(retired, str) and retired in RETIRED_AI_LEVELS:
        values["ai_level"] = RETIRED_AI_LEVELS[retired]
        (warn or log.warning)(f"config: ai_level {retired!r} is no longer a level; it now means {values['ai_level']!r}")
    return values, origins, errors


def load(path: str | os.PathLike[str] | None = None, *, warn: Callable[[str], None] | None = None,
         **overrides: Any) -> Config:
    """Defaults, then ``path`` (or ``$CHIEU_CONFIG``, or ./config.toml if present), then the
    environment, then overrides; every key checked (a :class:`ConfigError` naming each fault)."""
    values, origins, errors = gather(path, warn=warn, **overrides)
    errors += check({key: value for key, value in values.items() if key in _FIELDS}, origins)
    if errors:
        raise ConfigError(errors)
    return Config(**values)

