"""``python -m benchmarks.load``: the command line of the load benchmark (see the package's
docstring). The bot runs without a token and with an empty configuration file; SimCord's settle
idle is shortened as in the tests."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.pop("DISCORD_TOKEN", None)
os.environ["CHIEU_CONFIG"] = str(ROOT / "tests" / "support" / "empty_config.toml")

from tests.support.simcord_speed import shorten_settle_idle  # noqa: E402

shorten_settle_idle()

import benchmarks.load  # noqa: E402
from benchmarks.load.processes import run_processes  # noqa: E402
from benchmarks.load.run import GAMES, main  # noqa: E402
from bot.ai.levels import LEVELS  # noqa: E402
from bot.backends import is_postgres  # noqa: E402


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load",
                                     description=benchmarks.load.__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--humans", type=int, choices=(1, 4), default=1,
                        help="people per table: 1 (and 3 AI seats) or 4")
    parser.add_argument("--game", choices=(*GAMES, "all"), default="phom",
                        help="the game of every table; all: the tables spread over the five games")
    parser.add_argument("--ai-delay", type=float, default=None,
                        help="the AI's pause before a move, seconds (default: the config's, 1 s)")
    parser.add_argument("--ai", choices=LEVELS, default="normal", help="the AI seats' level (default normal)")
    parser.add_argument("--think", type=float, default=5.0, help="mean think time before a click, seconds")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", help="a postgresql:// URL, or 'postgres' for a throwaway server as the tests "
                        "start one (default: a SQLite file)")
    parser.add_argument("--processes", type=int, default=1,
                        help="bot processes sharing the tables and one PostgreSQL database, each with its own "
                        "simulated Discord (PostgreSQL only)")
    parser.add_argument("--profile", help="write a cProfile of the measured window to this file (with --processes, "
                        "one file per process: FILE.0, FILE.1…)")
    parser.add_argument("--text-only", action="store_true",
                        help="tables without their picture (what the table picture costs, by difference)")
    parser.add_argument("--metrics", action="store_true",
                        help="the bot's metrics on, /metrics and /healthz scraped every 15 s "
                        "(their cost, by difference)")
    # what --processes gives each of its processes
    parser.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--raw-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.processes < 1 or args.processes > args.tables:
        parser.error(f"--processes must be between 1 and the number of tables ({args.tables})")
    if args.processes > 1 and args.database != "postgres" and not is_postgres(args.database or ""):
        parser.error("--processes above 1 needs PostgreSQL (--database postgres or a postgresql:// URL): "
                     "a SQLite database belongs to one process")
    return args


if __name__ == "__main__":
    arguments = parse_arguments()
    asyncio.run(run_processes(arguments) if arguments.processes > 1 else main(arguments))
