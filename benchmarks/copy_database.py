"""How long ``chieu copy-database`` takes: a SQLite database of N settled games (made through
the Database and ledger APIs: a table each, its deck, 40 moves, four hand messages, a
settlement of four seats) copied into an empty PostgreSQL database.

    .venv/bin/python -m benchmarks.copy_database --games 3000
    .venv/bin/python -m benchmarks.copy_database --games 3000 --url postgresql://chieu@/bench?host=/tmp

Without --url it starts a throwaway PostgreSQL server (as the tests do: tests/support/databases.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from pathlib import Path

from bot import ledger
from bot.copy_database import copy_database
from bot.db import Database, now_iso
from bot.games.french import FULL_DECK

MOVES = 40


async def make_games(path: str, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    db = await Database.open(path)
    try:
        for number in range(games):
            seats = [{"user_id": 1000 + rng.randrange(40), "name": f"p{s}"} for s in range(4)]
            table = await db.insert_table(guild_id=1 + number % 7, channel_id=10 + number % 30, game="phom",
                                          options={"stake": 1}, host_id=seats[0]["user_id"], seats=seats)
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            async with db.transaction():
                game = await db.insert_game(table_id=table, game_no=1, guild_id=1 + number % 7, game="phom",
                                            seats=seats, options={}, decks=[deck], stake=1, seed=number)
                await db.executemany(
                    "INSERT INTO actions (game_id, idx, seat, action, at, turn_deadline) VALUES (?, ?, ?, ?, ?, ?)",
                    [(game, idx, idx % 4, f"discard {deck[idx]}", now_iso(), 1.78e9 + idx) for idx in range(MOVES)])
                for seat in range(4):
                    await db.save_hand_message(game, seat, 500 + seat, 10**17 + number * 4 + seat)
            chips = [rng.randrange(-20, 21) for _ in range(3)]
            chips.append(-sum(chips))
            await ledger.settle(db, game_id=game, guild_id=1 + number % 7, game="phom", outcome={"winner": 0},
                                entries=[ledger.Entry(seat=s, user_id=seats[s]["user_id"], name=seats[s]["name"],
                                                      chips=c, ga=0, rank=s + 1, points=s * 7, won=s == 0,
                                                      detail=["ù"] if s == 0 else [])
                                         for s, c in enumerate(chips)])
            await db.update_table(table, status="finished", game_no=1)
    finally:
        await db.close()


async def main(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "games.sqlite3")
        started = time.perf_counter()
        await make_games(path, args.games)
        print(f"made {args.games} games in {time.perf_counter() - started:.1f} s "
              f"({os.path.getsize(path) / 1e6:.1f} MB of SQLite)")
        server = None
        url = args.url
        if url is None:
            from tests.support.databases import PostgresServer, postgres_bindir

            bindir = postgres_bindir()
            if bindir is None:
                raise SystemExit("no PostgreSQL binaries: pass --url")
            server = PostgresServer(bindir)
            server.start()
            url = server.url(await server.create_database())
        try:
            started = time.perf_counter()
            copied = await copy_database(path, url, say=print)
            elapsed = time.perf_counter() - started
            print(f"copy-database: {args.games} games, {sum(copied.values())} rows in {elapsed:.2f} s")
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--url", help="an empty PostgreSQL database (default: a throwaway server)")
    asyncio.run(main(parser.parse_args()))
