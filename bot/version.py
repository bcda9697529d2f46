"""The one version of Chiếu: the installed package's (``version`` in pyproject.toml), shown by
``chieu --version``, /about (admins), the start-up log line, the ``chieu_build_info`` metric
and the image's labels. A source tree run without being installed says so."""

from __future__ import annotations

import platform
from importlib import metadata

import discord

#: what a tree that was never installed (``python -m bot`` beside an uninstalled checkout) says
UNKNOWN = "0+unknown"


def version() -> str:
    try:
        return metadata.version("chieu")
    except metadata.PackageNotFoundError:
        return UNKNOWN


def describe() -> str:
    """``Chiếu 0.2.0 (Python 3.11.2, discord.py 2.7.1)``: the start-up line and --version."""
    return f"Chiếu {version()} (Python {platform.python_version()}, discord.py {discord.__version__})"
