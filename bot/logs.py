"""Where the bot's log goes: standard error, as text for a person (``log_format = "text"``,
discord.py's layout, coloured on a terminal only) or one JSON object per line for a log collector (``"json"``: Loki,
Elasticsearch, journald's JSON export). Rotation is the supervisor's: journald under systemd,
the container engine's log driver under compose (docs/operating.md, "Logs")."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

import discord


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message"}`` and, for an error, ``"exception"``."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                 "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


#: text lines: discord.py's layout, without its colours (a log file or a container's log)
TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s %(message)s"


def setup(level: str, log_format: str = "text") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    elif sys.stderr.isatty():
        handler.setFormatter(discord.utils._ColourFormatter())  # (discord.py's own, on a terminal)
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT, "%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.getLevelName(level.upper()))
