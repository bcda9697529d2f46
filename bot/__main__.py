"""``python -m bot`` (``chieu``): start Chiếu with DISCORD_TOKEN and optional config.toml;
``chieu --local`` runs it without Discord, on a page in the browser (:mod:`bot.local`);
``chieu copy-database SQLITE [URL]`` copies a SQLite database into PostgreSQL;
``chieu backup PATH`` copies the live SQLite database to PATH, ``chieu restore BACKUP`` puts a
backup back; ``chieu check-config [PATH]`` checks a configuration and shows it.

What goes wrong where an operator can fix it (the config, the token, Discord out of reach, the
database's file) is said in one line each, without a traceback: exit status 2 for what the
operator must change, 1 for what may pass by itself."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys

from . import config as config_module
from .config_rules import ConfigError
from .version import describe as describe_version

log = logging.getLogger("bot")

#: the local mode's own SQLite file (never the production database unless --database says so)
LOCAL_DATABASE = "data/local.sqlite3"
#: the person at the local page when --people names nobody (bot.local.DEFAULT_PEOPLE: that
#: module, and discord with it, is imported only for the local mode)
DEFAULT_PEOPLE = ("Lan",)

NO_TOKEN = """\
Chiếu needs a Discord bot token and none was found.

  1. Open https://discord.com/developers/applications, create an application,
     open its "Bot" page and click "Reset Token" to get the token.
  2. Start the bot with it in the environment:   DISCORD_TOKEN=... bash scripts/start
     (or put `token = "..."` in an untracked config.toml).

See README.md, "Creating the Discord application", for the invite link and permissions.

To try Chiếu first without Discord (no token, no account), play in your browser:
    bash scripts/start --local"""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chieu", description="Run the Chiếu Discord bot.")
    parser.add_argument("--version", action="version", version=describe_version())
    parser.add_argument("--config", help="path to a config.toml (default: $CHIEU_CONFIG, or ./config.toml if present)")
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
                    "SQLite's online backup API: a consistent copy while the bot runs. PATH may be a folder "
                    "(the copy is named after the database and the time); it may not be the database or a "
                    "file beside it named after it. PostgreSQL: use pg_dump.")
    backup.add_argument("path", help="the backup file to write, e.g. backups/chieu-2026-11-28.sqlite3")
    backup.add_argument("--database", help="the SQLite file to back up (default: `database` in the config)")
    restore = commands.add_parser(
        "restore", help="put a backup in place of the SQLite database (the bot stopped)",
        description="Check BACKUP (SQLite's integrity check, a Chiếu schema this version knows) and put it in "
                    "place of the database; the database it replaces, with its -wal and -shm, is moved aside. "
                    "Refused while a bot has the database open.")
    restore.add_argument("backup", help="the backup file, e.g. backups/chieu-2026-11-28.sqlite3")
    restore.add_argument("--database", help="the SQLite file to replace (default: `database` in the config)")
    check = commands.add_parser(
        "check-config", help="check a configuration and print it, secrets masked (exit 2 if it is wrong)",
        description="Load the configuration as the bot would (PATH, or --config, $CHIEU_CONFIG, ./config.toml; "
                    "then DISCORD_TOKEN and CHIEU_DATABASE) and print every key's value and where it came from.")
    check.add_argument("path", nargs="?", help="the config.toml to check")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "check-config":
        from .config_show import check_config

        return check_config(args.path or args.config)
    try:
        config = config_module.load(args.config)
    except ConfigError as exc:
        print("\n".join(exc.lines), file=sys.stderr)
        return 2
    if args.command == "copy-database":
        return copy_database(args.sqlite, args.url or config.database)
    if args.command == "backup":
        return backup_database(args.database or config.database, args.path)
    if args.command == "restore":
        return restore_database(args.backup, args.database or config.database)
    if args.local:
        return run_local(config, args)
    if not config.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    from . import logs

    logs.setup(config.log_level, config.log_format)
    return run_bot(config)


def run_bot(config: config_module.Config) -> int:
    """The bot until Discord ends it or a stop signal (bot.stopping), then a clean stop: 0.
    A refused token, Discord out of reach or a database that cannot be used: one line."""
    import discord

    from .backends import PostgresMissing
    from .db import NewerSchema
    from .leasing import NameInUse
    from .sqlite_files import CannotOpen, DatabaseInUse

    try:
        return asyncio.run(_run_until_stopped(config))
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN or `token`): copy it again from the developer "
              "portal's Bot page (Reset Token)", file=sys.stderr)
        return 2
    except (NewerSchema, DatabaseInUse, CannotOpen, PostgresMissing, NameInUse) as exc:
        print(f"chieu: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:
        print(f"chieu: the SQLite database {config.database}: {exc}", file=sys.stderr)
        return 1
    except (OSError, discord.GatewayNotFound, discord.ConnectionClosed, discord.DiscordServerError,
            asyncio.TimeoutError) as exc:
        print(f"chieu: cannot reach Discord or the database: {_one_line(exc)}", file=sys.stderr)
        return 1


async def _run_until_stopped(config: config_module.Config) -> int:
    from .app import create_bot
    from .stopping import on_stop_signals, say_stopped

    bot = create_bot(config)
    stop = asyncio.Event()
    why: list[str] = []
    on_stop_signals(lambda name: (why.append(name), stop.set()))
    async with bot:
        running = asyncio.create_task(bot.start(config.token), name="bot")
        stopped = asyncio.create_task(stop.wait(), name="stop signal")
        await asyncio.wait((running, stopped), return_when=asyncio.FIRST_COMPLETED)
        if running.done():  # (it ended by itself: a failure, raised here)
            stopped.cancel()
            running.result()
            return 0
        report = await bot.stop_cleanly(why[0])
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    say_stopped(report, why[0])
    return 0


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


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
    from .backends import PostgresMissing
    from .copy_database import CopyError, copy_database as copy
    from .db import NewerSchema
    from .sqlite_files import CannotOpen, DatabaseInUse

    failures: tuple[type[BaseException], ...] = (CopyError, OSError, sqlite3.Error, NewerSchema, CannotOpen,
                                                 DatabaseInUse, PostgresMissing)
    try:
        import asyncpg
    except ImportError:
        pass
    else:
        failures += (asyncpg.PostgresError,)
    try:
        asyncio.run(copy(source, target, say=print))
    except failures as exc:
        print(f"copy-database: {_one_line(exc)}", file=sys.stderr)
        return 1
    return 0


def backup_database(source: str, target: str) -> int:
    from .backup import BackupError, run

    try:
        run(source, target)
    except BackupError as exc:
        print(f"backup: {exc}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as exc:
        print(f"backup: {_one_line(exc)}", file=sys.stderr)
        return 1
    return 0


def restore_database(backup: str, database: str) -> int:
    from .restore import RestoreError, restore
    from .sqlite_files import CannotOpen, DatabaseInUse

    try:
        restore(backup, database)
    except (RestoreError, DatabaseInUse, CannotOpen) as exc:
        print(f"restore: {exc}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as exc:
        print(f"restore: {_one_line(exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
