"""What each configuration key may be: its type and range, checked when the bot starts, and the
words an operator reads when a value is wrong — one line per fault, naming where the value came
from, the key, the value (a secret masked) and what is allowed::

    config.toml: metrics_port = "9108": must be a whole number from 0 (off) to 65535

No value is converted: ``"9108"`` is text in TOML, and the bot says so rather than guess.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .backends import is_postgres

#: configuration keys the environment sets (it wins over the file: secrets stay out of it)
ENVIRONMENT = {"token": "DISCORD_TOKEN", "database": "CHIEU_DATABASE"}

#: values never printed (check-config, errors)
SECRET_KEYS = frozenset({"token"})

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ValueError):
    """Everything wrong with a configuration, one line each."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Rule:
    kind: str  # "int", "number", "text", "bool", "int list"
    allowed: str  # what an operator is told
    fits: Callable[[Any], bool] = lambda value: True
    optional: bool = False  # may be left unset (None)


def _between(low: float, high: float, *, above_low: bool = False) -> Callable[[Any], bool]:
    return lambda value: (low < value if above_low else low <= value) and value <= high


def _one_of(*choices: str, fold: bool = False) -> Callable[[Any], bool]:
    return lambda value: (value.upper() if fold else value) in choices


def _database(value: str) -> bool:
    return bool(value.strip()) and ("://" not in value or is_postgres(value))


def _int(low: int, high: int, allowed: str = "", optional: bool = False) -> Rule:
    return Rule("int", allowed or f"must be a whole number from {low} to {high}", _between(low, high), optional)


def _number(low: float, high: float, allowed: str, *, above_low: bool = False) -> Rule:
    return Rule("number", allowed, _between(low, high, above_low=above_low))


DAY = 86_400

RULES: dict[str, Rule] = {
    "token": Rule("text", "must be the bot's token from the Discord developer portal",
                  lambda value: bool(value.strip()), optional=True),
    "database": Rule("text", "must be a SQLite file path or a postgresql:// URL", _database),
    "log_level": Rule("text", f"must be one of {', '.join(LOG_LEVELS)}", _one_of(*LOG_LEVELS, fold=True)),
    "log_format": Rule("text", 'must be "text" or "json"', _one_of("text", "json")),
    "sync_commands": Rule("text", 'must be "auto", "always" or "never"', _one_of("auto", "always", "never")),
    "dev_guild_id": _int(1, 2**63 - 1, "must be a server's id (a positive whole number), or left out", True),
    "default_stake": _int(1, 1_000_000),
    "default_turn_seconds": _int(1, DAY),
    "min_turn_seconds": _int(1, DAY),
    "max_turn_seconds": _int(1, DAY),
    "ai_delay_seconds": _number(0, 60, "must be a number of seconds from 0 to 60"),
    "hands_by_dm": Rule("bool", "must be true or false"),
    "ai_level": Rule("text", 'must be "easy" or "normal"', _one_of("easy", "normal")),
    "away_after_timeouts": _int(1, 1_000_000),
    "max_tables_per_channel": _int(1, 1000),
    "lobby_timeout_seconds": _int(1, 7 * DAY),
    "round_pause_seconds": _int(0, 3600),
    "table_edit_seconds": _number(0, 60, "must be a number of seconds from 0 to 60"),
    "notify_quiet_seconds": _number(0, 3600, "must be a number of seconds from 0 to 3600"),
    "rest_calls_per_second": _number(0, 1e9, "must be a number above 0 (Discord allows a bot 50)", above_low=True),
    "shard_count": _int(1, 100_000, "must be a whole number from 1, or left out (as many as Discord says)", True),
    "shard_ids": Rule("int list", "must be a list of shard numbers, e.g. [0, 1], or left out", optional=True),
    "lease_seconds": _number(1, 3600, "must be a number of seconds from 1 to 3600"),
    "instance_name": Rule("text", "must be a name of at most 100 characters (empty: host and process id)",
                          lambda value: len(value) <= 100),
    "metrics_port": _int(0, 65535, "must be a whole number from 0 (off) to 65535"),
    "metrics_host": Rule("text", 'must be an address to listen on, e.g. "127.0.0.1" or "0.0.0.0"',
                         lambda value: bool(value.strip())),
    "health_retry_seconds": _number(0, 30 * DAY, "must be a number of seconds above 0", above_low=True),
}


def _has_kind(kind: str, value: Any) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "text":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int list":
        return isinstance(value, list) and all(_has_kind("int", item) for item in value)
    raise AssertionError(kind)


def shown(key: str, value: Any) -> str:
    """The value as TOML writes it, a secret masked and a URL's password hidden."""
    if value is None:
        return "(unset)"
    if key in SECRET_KEYS:
        return '"***"'
    if key == "database" and isinstance(value, str):
        value = hide_password(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(shown(key, item) for item in value) + "]"
    return str(value)


def hide_password(url: str) -> str:
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("://", 1)[-1]:
        return url
    scheme, _, user_password = head.partition("://")
    return f"{scheme}://{user_password.split(':', 1)[0]}:***@{tail}"


def unknown_key(where: Any, key: str, known: Iterable[str]) -> str:
    guess = difflib.get_close_matches(key, sorted(known), n=1)
    return f"{where}: unknown key {key!r}" + (f" (did you mean {guess[0]!r}?)" if guess else "")


def check(values: dict[str, Any], origins: dict[str, str]) -> list[str]:
    """Every fault of these values (key -> value set; where each came from), one line each."""
    errors: list[str] = []

    def fault(key: str, allowed: str) -> None:
        errors.append(f"{origins.get(key, 'default')}: {key} = {shown(key, values.get(key))}: {allowed}")

    for key, value in values.items():
        rule = RULES.get(key)
        if rule is None or (value is None and rule.optional):
            continue
        if not _has_kind(rule.kind, value) or not rule.fits(value):
            fault(key, rule.allowed)
    if errors:
        return errors  # the checks across keys below need every key's own type right
    _check_together(values, fault)
    return errors


def _check_together(values: dict[str, Any], fault: Callable[[str, str], None]) -> None:
    turns = [values.get(key, default) for key, default in
             (("min_turn_seconds", 15), ("default_turn_seconds", 60), ("max_turn_seconds", 600))]
    if not turns[0] <= turns[1] <= turns[2]:
        fault("default_turn_seconds", "must be from min_turn_seconds to max_turn_seconds "
              f"({turns[0]} to {turns[2]} here)")
    shard_count, shard_ids = values.get("shard_count"), values.get("shard_ids")
    if shard_ids is not None:
        if shard_count is None:
            fault("shard_ids", "needs shard_count too: every process must agree on the number of shards")
        elif not shard_ids or len(set(shard_ids)) != len(shard_ids) or not all(
                0 <= shard < shard_count for shard in shard_ids):
            fault("shard_ids", f"must be distinct shard numbers from 0 to {shard_count - 1}")
