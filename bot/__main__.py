"""``python -m bot`` (``chieu``): start Chiếu with DISCORD_TOKEN and optional config.toml;
``chieu --local`` runs it without Discord, on a page in the browser (:mod:`bot.local`);
``chieu copy-database SQLITE [URL]`` copies a SQLite database into PostgreSQL;
``chieu backup PATH`` copies the live SQLite database to PATH."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import discord

from . import config as config_module
from .app import create_bot
from .local import DEFAULT_PEOPLE

#: the local mode's own SQLite file (never the production database unless --database says so)
LOCAL_DATABASE = "data/local.sqlite3"

NO_TOKEN = """\
Chiếu needs a Discord bot token and none was found.

  1. Open https://discord.com/developers/applications, create an application,
     open its "Bot" page and click "Reset Token" to get the token.
  2. Start the bot with it in the environment:   DISCORD_TOKEN=... bash scripts/start
     (or put `token = "..."` in an untracked config.toml).

See README.md, "Creating the Discord application", for the invite link and permissions.

To try Chiếu first without Discord (no token, no account), play in your browser:
    bash scripts/start --local"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chieu", description="Run the Chiếu Discord bot.")
    parser.add_argument("--config", help="path to a config.toml (default: ./config.toml if present)")
    local = parser.add_argument_group("local mode (no Discord: a simulated server on a page in your browser)")
    local.add_argument("--local", action="store_true", help="run without Discord, on a page served on 127.0.0.1")
    local.add_argument("--people", default=",".join(DEFAULT_PEOPLE), metavar="NAMES",
                       help=f"comma-separated names of the local people, for a hot-seat game "
                            f"(default: {', '.join(DEFAULT_PEOPLE)})")
    local.add_argument("--port", type=int, default=0, help="the page's port on 127.0.0.1 (default: any free one)")
    local.add_argument("--database", metavar="PATH", dest="local_database",  # (not backup's --database)
                       help=f"the local mode's own SQLite file (default: {LOCAL_DATABASE})")
    local.add_argument("--no-browser", action="store_true", help="print the page's address without opening it")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    copy = commands.add_parser(
        "copy-database", help="copy a SQLite database into an empty PostgreSQL database",
        description="Copy a SQLite database (schema by the migrations, then every row, in one transaction) "
                    "into an empty PostgreSQL database. Stop the bot first.")
    copy.add_argument("sqlite", help="the SQLite file, e.g. chieu.sqlite3")
    copy.add_argument("url", nargs="?",
                      help="postgresql://user:password@host:5432/dbname (default: `database` in the config)")
    backup = commands.add_parser(
        "backup", help="copy the SQLite database to a file while the bot runs",
        description="Copy the SQLite database (`database` in the config, or CHIEU_DATABASE) to PATH with "
                    "SQLite's online backup API: a consistent copy while the bot runs. PostgreSQL: use pg_dump.")
    backup.add_argument("path", help="the backup file to write, e.g. backups/chieu-2026-11-28.sqlite3")
    backup.add_argument("--database", help="the SQLite file to back up (default: `database` in the config)")
    args = parser.parse_args(argv)
    config = config_module.load(args.config)
    if args.command == "copy-database":
        return copy_database(args.sqlite, args.url or config.database)
    if args.command == "backup":
        return backup_database(args.database or config.database, args.path)
    if args.local:
        return run_local(config, args)
    if not config.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    bot = create_bot(config)
    # discord.py's own logging setup: coloured console output at the configured level.
    discord.utils.setup_logging(level=logging.getLevelName(config.log_level.upper()))
    bot.run(config.token, log_handler=None)
    return 0


def run_local(config: config_module.Config, args: argparse.Namespace) -> int:
    try:
        from .local import LocalOptions, serve
    except ImportError as exc:  # SimCord comes with the local extra only
        print(f"The local mode needs the `local` extra ({exc}): bash scripts/start --local installs it.",
              file=sys.stderr)
        return 2
    people = tuple(dict.fromkeys(name.strip() for name in args.people.split(",") if name.strip())) or DEFAULT_PEOPLE
    options = LocalOptions(people=people, database=args.local_database or LOCAL_DATABASE, port=args.port,
                           open_browser=not args.no_browser)
    logging.basicConfig(level=logging.getLevelName(config.log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("discord", "aiohttp.access"):  # the simulated gateway's login chatter
        logging.getLogger(noisy).setLevel(logging.ERROR)
    asyncio.run(serve(config, options))
    return 0


def copy_database(source: str, target: str) -> int:
    import asyncpg

    from .copy_database import CopyError, copy_database as copy

    try:
        asyncio.run(copy(source, target, say=print))
    except (CopyError, OSError, asyncpg.PostgresError) as exc:
        print(f"copy-database: {exc}", file=sys.stderr)
        return 1
    return 0


def backup_database(source: str, target: str) -> int:
    import sqlite3

    from .backup import BackupError, run

    try:
        run(source, target)
    except (BackupError, OSError, sqlite3.Error) as exc:
        print(f"backup: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
