"""Where the bot's log goes: standard error, as text for a person (``log_format = "text"``,
discord.py's own format) or one JSON object per line for a log collector (``"json"``: Loki,
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


def setup(level: str, log_format: str = "text") -> None:
    numeric = logging.getLevelName(level.upper())
    if log_format == "json":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        root = logging.getLogger()
        root.handlers[:] = [handler]
        root.setLevel(numeric)
    else:
        # discord.py's own setup: coloured on a terminal, plain in a container's log
        discord.utils.setup_logging(level=numeric, root=True)
