"""``chieu restore BACKUP``: put a backup (``chieu backup``) in place of the SQLite database.

It refuses while a bot (or any command) has the database open (:func:`bot.sqlite_files.hold`:
the lock is held for the whole restore, so no bot starts meanwhile either), and refuses a
backup that fails SQLite's integrity check, is no Chiếu database, or whose schema is newer than
this version of Chiếu knows (it names the version that wrote it). A backup of an older schema
is restored as it is: the bot's next start brings it up to date.

Nothing is deleted: the database and the files SQLite kept beside it (a ``-wal`` beside a
restored file would be replayed into it) are moved aside, to ``<name>.before-restore-<time>``,
and the backup is copied (never moved: it stays a backup) to a file beside the database, then
renamed over it once whole.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Callable

from .backends import is_postgres
from .db import SCHEMA_WRITER
from .schema import MIGRATIONS
from .sqlite_files import COMPANIONS, hold, let_go
from .version import version

PG_RESTORE_HINT = """\
The database is PostgreSQL: restore a pg_dump into a new, empty database with
    pg_restore --no-owner --dbname="postgresql://..." chieu.dump
then point `database` (or CHIEU_DATABASE) at it. See docs/operating.md, "Backups"."""


class RestoreError(RuntimeError):
    pass


def check_backup(backup: str) -> dict[str, int | str]:
    """The backup's schema version and game count, if it is a whole Chiếu database this
    version can run on; else RestoreError saying why."""
    if not os.path.isfile(backup):
        raise RestoreError(f"no file {backup}")
    try:
        connection = sqlite3.connect(f"{Path(backup).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise RestoreError(f"{backup} cannot be opened: {exc}") from None
    try:
        (check,) = connection.execute("PRAGMA integrity_check").fetchone()
        if check != "ok":
            raise RestoreError(f"{backup} fails SQLite's integrity check: {check}")
        (schema,) = connection.execute("PRAGMA user_version").fetchone()
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if schema == 0 or not {"meta", "tables", "games"} <= tables:
            raise RestoreError(f"{backup} is no Chiếu database (schema version {schema}, no games)")
        if schema > len(MIGRATIONS):
            row = connection.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_WRITER,)).fetchone()
            needs = f"Chiếu {row[0]} or later" if row else "a later version of Chiếu"
            raise RestoreError(f"{backup} is at schema version {schema}, newer than this Chiếu ({version()}) knows "
                               f"({len(MIGRATIONS)}): restore it with {needs}")
        (games,) = connection.execute("SELECT COUNT(*) FROM games").fetchone()
    except sqlite3.DatabaseError as exc:
        raise RestoreError(f"{backup} is not a SQLite database ({exc})") from None
    finally:
        connection.close()
    return {"schema_version": schema, "games": games}


def restore(backup: str, database: str, *, say: Callable[[str], None] = print) -> Path | None:
    """Put ``backup`` in place of ``database``; the folder the old files were moved to (None if
    there was no database yet)."""
    if is_postgres(database):
        raise RestoreError(PG_RESTORE_HINT)
    if Path(backup).resolve() == Path(database).resolve():
        raise RestoreError(f"{backup} is the database itself")
    found = check_backup(backup)
    lock = hold(database, exclusive=True)
    try:
        live = Path(database)
        partial = live.with_name(f".{live.name}.restoring")
        shutil.copyfile(backup, partial)
        try:
            with open(partial, "rb") as fh:
                os.fsync(fh.fileno())
            aside = _move_aside(live)
            os.replace(partial, live)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    finally:
        let_go(lock)
    say(f"restored {backup} to {database}: schema version {found['schema_version']} (this Chiếu knows "
        f"{len(MIGRATIONS)}; a start brings it up to date), {found['games']} games"
        + (f"; the database it replaced is in {aside}" if aside else ""))
    return aside


def _move_aside(live: Path) -> Path | None:
    """The database and its companions, moved into a folder beside it; None if none existed."""
    present = [path for path in (live, *(live.with_name(live.name + suffix) for suffix in COMPANIONS))
               if path.exists()]
    if not present:
        return None
    aside = live.with_name(f"{live.name}.before-restore-{datetime.now().strftime('%Y-%m-%d-%H%M%S')}")
    aside.mkdir()
    for path in present:
        os.replace(path, aside / path.name)
    return aside
