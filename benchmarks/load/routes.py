"""Discord REST routes as the load benchmark counts them (no side effects: unit-tested).

Discord's global rate limit (50 requests/s per bot token) counts every call a bot makes with
its token, except interaction traffic: the callback that answers an interaction and the
interaction webhook (``/webhooks/<application id>/<interaction token>/...``: followups and
edits of the original response), which are limited per interaction instead.
"""

from __future__ import annotations

import io
import re
from typing import Any

from bot.metrics import GLOBAL, INTERACTION, call_class as classify  # noqa: F401 (the bot's metrics count so too)

# Discord's documented global limit, per bot token.
GLOBAL_LIMIT_PER_SECOND = 50

_ID = re.compile(r"/\d{6,}")
_TOKEN = re.compile(r"/(interactions|webhooks)/(\d+|:id)/[^/]+")


def route(path: str) -> str:
    """``/channels/123/messages/456`` -> ``/channels/:id/messages/:id``; tokens hidden."""
    path = path.split("?", 1)[0]
    path = _ID.sub("/:id", path)
    return _TOKEN.sub(lambda m: f"/{m.group(1)}/:id/:token", path)


def file_size(file: Any) -> int:
    """Bytes of one upload (a ``discord.File``, a file object or bytes), its position kept."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        return len(file)
    fp = getattr(file, "fp", file)
    if isinstance(fp, io.BytesIO):
        return fp.getbuffer().nbytes
    if isinstance(fp, (bytes, bytearray, memoryview)):
        return len(fp)
    try:
        position = fp.tell()
        end = fp.seek(0, io.SEEK_END)
        fp.seek(position)
        return int(end)
    except (AttributeError, OSError, ValueError):
        return 0


def upload_size(files: Any) -> int:
    """Bytes of every file of one call (``files`` as ``router.dispatch`` receives them)."""
    return sum(file_size(file) for file in files or ())


def tables_per_token(global_calls_per_table_minute: float, share: float = 1.0) -> float:
    """How many tables one token carries at ``share`` of the global limit."""
    if global_calls_per_table_minute <= 0:
        return float("inf")
    return GLOBAL_LIMIT_PER_SECOND * share * 60 / global_calls_per_table_minute
