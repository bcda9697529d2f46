"""``python -m bot``: start Chiếu with DISCORD_TOKEN and optional config.toml."""

from __future__ import annotations

import argparse
import logging
import sys

import discord

from . import config as config_module
from .app import create_bot

NO_TOKEN = """\
Chiếu needs a Discord bot token and none was found.

  1. Open https://discord.com/developers/applications, create an application,
     open its "Bot" page and click "Reset Token" to get the token.
  2. Start the bot with it in the environment:   DISCORD_TOKEN=... bash scripts/start
     (or put `token = "..."` in an untracked config.toml).

See README.md, "Creating the Discord application", for the invite link and permissions."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chieu", description="Run the Chiếu Discord bot.")
    parser.add_argument("--config", help="path to a config.toml (default: ./config.toml if present)")
    args = parser.parse_args(argv)
    config = config_module.load(args.config)
    if not config.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    bot = create_bot(config)
    # discord.py's own logging setup: coloured console output at the configured level.
    discord.utils.setup_logging(level=logging.getLevelName(config.log_level.upper()))
    bot.run(config.token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
