"""``chieu backup PATH``: a consistent copy of a live SQLite database, while the bot runs.

SQLite's online backup API copies every page inside one read transaction, so the copy is the
database as it was at one commit, even if the bot commits moves meanwhile (WAL lets it write
while the copy reads). The copy is written beside PATH and renamed over it only once it is
whole and passes SQLite's integrity check: an interrupted backup never leaves a half file
under the backup's name. The copy is one self-contained file (rollback journal, no ``-wal``),
ready to be put in place of the database by ``chieu restore`` (:mod:`bot.restore`; docs/operating.md, "Backups").

A backup can never hurt the live database: a target that is the database, one of the files
SQLite keeps beside it (``-wal``, ``-shm``, ``-journal``) or any file in its folder named after
it is refused (writing over the ``-wal`` corrupts the database); a target that is a folder gets
a file named after the database and the time; an interrupted copy leaves no ``.partial``.

PostgreSQL has its own tool for this: ``pg_dump`` (the message says how).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from datetime import datetime
from pathlib import Path

from .backends import is_postgres
from .config_rules import hide_password
from .sqlite_files import is_part_of

PG_DUMP_HINT = """\
The database is PostgreSQL: back it up with PostgreSQL's own tool, while the bot runs:
    pg_dump --format=custom --file=chieu.dump "{url}"
and restore into an empty database (bots stopped) with:
    pg_restore --no-owner --dbname="postgresql://..." chieu.dump
See docs/operating.md, "Backups"."""


class BackupError(RuntimeError):
    pass


def backup_target(source: str, target: str) -> Path:
    """The file the backup is written to: ``target``, or a file named after the database and
    the time inside it if it is a folder; BackupError if it is (part of) the live database."""
    final = Path(target)
    if final.is_dir():
        stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")
        final = final / f"{Path(source).stem}-{stamp}.sqlite3"
    if is_part_of(final, source):
        raise BackupError(f"{target} is the live database or one of its files (-wal, -shm, -journal, or named "
                          f"after it in its folder): writing there would damage it; choose another name or folder")
    if not final.parent.is_dir():
        raise BackupError(f"no folder {final.parent} for the backup")
    return final


def backup_sqlite(source: str, target: str) -> dict[str, int]:
    """Copy the SQLite file ``source`` to ``target`` (blocking: run it in a thread when an event
    loop must go on). Returns the copy's size in bytes, schema version and game count."""
    if is_postgres(source):
        raise BackupError(PG_DUMP_HINT.format(url=hide_password(source)))
    if not os.path.isfile(source):
        raise BackupError(f"no SQLite file {source}")
    final = backup_target(source, target)
    partial = final.with_name(f".{final.name}.partial")
    partial.unlink(missing_ok=True)
    # read-only: the backup can never change the live database (as_uri escapes "?" and "#")
    src = sqlite3.connect(f"{Path(source).resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(partial)
        try:
            # pages=-1: every page in one step, inside one read transaction. Stepping a few
            # pages at a time would let each commit of the bot (another connection) restart
            # the copy from scratch, which on a busy table might never end.
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
            (check,) = dst.execute("PRAGMA integrity_check").fetchone()
            if check != "ok":
                raise BackupError(f"the copy failed SQLite's integrity check: {check}")
            (version,) = dst.execute("PRAGMA user_version").fetchone()
            (games,) = dst.execute("SELECT COUNT(*) FROM games").fetchone() if version else (0,)
        finally:
            dst.close()
        os.replace(partial, final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    return {"bytes": final.stat().st_size, "schema_version": version, "games": games, "path": str(final)}


async def backup_database(source: str, target: str) -> dict[str, int]:
    """:func:`backup_sqlite` in a worker thread: the event loop (a bot, a test) goes on."""
    return await asyncio.to_thread(backup_sqlite, source, target)


def run(source: str, target: str, say=print) -> None:
    started = time.perf_counter()
    found = backup_sqlite(source, target)
    say(f"backed up {source} to {found['path']}: {found['bytes'] / 1e6:.1f} MB, schema version "
        f"{found['schema_version']}, {found['games']} games, in {time.perf_counter() - started:.1f} s")
