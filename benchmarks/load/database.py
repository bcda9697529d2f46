"""The load benchmark's database: a SQLite file (the default), a throwaway PostgreSQL server's
database ("postgres", as the tests start one), or the one given, which must hold no table yet.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from bot.db import Database


@contextlib.asynccontextmanager
async def database_for(choice: str | None, tmp: Path, *, check_unused: bool = True):
    """The database of a run (``--database``): its URL or path, for as long as the run lasts
    (``check_unused``: a database given must hold no table; the processes of ``--processes``
    share one their parent checked)."""
    if choice != "postgres":
        if choice and check_unused:
            await refuse_a_used_database(choice)
        yield choice or str(tmp / "load.sqlite3")
        return
    from tests.support.databases import PostgresServer, postgres_bindir

    bindir = postgres_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries for --database postgres: pass a URL")
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server.url(await server.create_database())
    finally:
        server.stop()


async def refuse_a_used_database(database: str) -> None:
    """Stop unless ``database`` holds no table: the bot would adopt the open tables of an
    earlier run, whose servers are in no simulated Discord of this one."""
    db = await Database.open(database)
    try:
        (count,) = await db.fetchone("SELECT COUNT(*) FROM tables")
    finally:
        await db.close()
    if count:
        raise SystemExit(f"--database {database} already holds tables ({count}: an earlier run's?): "
                         "give an empty database, or 'postgres' for a throwaway one")
