"""``chieu copy-database SQLITE [POSTGRESQL-URL]``: move a SQLite database into PostgreSQL.

The target gets its schema from the migrations (the same history as the source, whose
snapshot is brought up to date first, as the bot's start would: the source file itself is only
read, so it may be mounted read-only), then every table's rows, in the order
that keeps foreign keys valid and with their ids, all in one transaction: a copy that fails
leaves the target as empty as it was. Identity sequences are then advanced past the copied
ids. The target must hold no row yet; stop the bot while copying.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Callable

from .backends import is_postgres
from .db import SCHEMA_WRITER, Database
from .schema import TABLES

BATCH = 5000


class CopyError(RuntimeError):
    pass


async def copy_database(source: str, target: str, *, say: Callable[[str], None] = lambda _: None) -> dict[str, int]:
    """Copy ``source`` (a SQLite path) into ``target`` (an empty PostgreSQL database); returns
    the rows copied per table."""
    if is_postgres(source) or not is_postgres(target):
        raise CopyError("copy-database copies a SQLite file into a postgresql:// database")
    if not os.path.isfile(source):
        raise CopyError(f"no SQLite file {source}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chieu-copy-") as folder:
        snapshot = str(Path(folder) / "source.sqlite3")
        _snapshot(source, snapshot)
        src = await Database.open(snapshot)
        try:
            dst = await Database.open(target)
            try:
                return await _copy(src, dst, say, started)
            finally:
                await dst.close()
        finally:
            await src.close()


def _snapshot(source: str, copy: str) -> None:
    """The source, copied whole into ``copy`` without writing beside it (read-only; a file whose
    folder this user may not write, e.g. mounted read-only, is read as immutable: the bot is
    stopped, as copy-database asks)."""
    uri = Path(source).resolve().as_uri()
    for mode in ("mode=ro", "immutable=1"):
        try:
            src = sqlite3.connect(f"{uri}?{mode}", uri=True)
            try:
                dst = sqlite3.connect(copy)
                try:
                    src.backup(dst)
                finally:
                    dst.close()
            finally:
                src.close()
            return
        except sqlite3.OperationalError:
            if mode == "immutable=1":
                raise


async def _copy(src: Database, dst: Database, say: Callable[[str], None], started: float) -> dict[str, int]:
    version = await src.backend.schema_version()
    if version != await dst.backend.schema_version():
        raise CopyError(f"the source is at schema version {version}, newer than this version of Chiếu knows")
    tables = {r["name"] for r in await src.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")}
    unknown = tables - set(TABLES) - {"sqlite_sequence", "sqlite_stat1"}
    if unknown:
        raise CopyError(f"the source has tables this version does not know: {', '.join(sorted(unknown))}")
    for table in TABLES:
        # (the migrations that made the target's schema wrote which version made it)
        mine = f" WHERE key != '{SCHEMA_WRITER}'" if table == "meta" else ""
        if await dst.fetchone(f"SELECT 1 FROM {table}{mine} LIMIT 1") is not None:
            raise CopyError(f"the target is not empty (table {table} has rows): copy into a new database")
    say(f"copying {src.describe()} into {dst.describe()}")
    copied: dict[str, int] = {}
    async with dst.transaction():
        await dst.execute("DELETE FROM meta WHERE key = ?", (SCHEMA_WRITER,))  # the source's comes along
        for table in TABLES:
            columns = [r["name"] for r in await src.fetchall(f"PRAGMA table_info({table})")]
            select = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?"
            last, count = -(2**63), 0
            while True:
                rows = await src.fetchall(select, (last, BATCH))
                if not rows:
                    break
                await dst.backend.copy_rows(table, columns, [row[1:] for row in rows])
                last, count = rows[-1][0], count + len(rows)
            copied[table] = count
            say(f"  {table}: {count} rows")
        await dst.backend.advance_identities()
    say(f"copied {sum(copied.values())} rows in {time.perf_counter() - started:.1f} s")
    return copied
