"""The files of a SQLite database and who holds it.

A database ``chieu.sqlite3`` is more than its file: SQLite keeps ``chieu.sqlite3-wal`` (the
write-ahead log: commits not yet copied into the file), ``-shm`` (the log's index) and, out of
WAL mode, ``-journal`` beside it. Writing over any of them damages the database, so a backup
refuses them (:func:`is_part_of`).

Every process that opens the database (the bot, ``chieu backup`` does not need to) holds a
shared lock on ``chieu.sqlite3.lock`` beside it while it is open; ``chieu restore`` takes the
lock exclusively, so it refuses while a bot runs on the file, and a bot refuses to start while
a restore replaces it (:func:`hold`). ``flock`` locks, on a file of their own: they never meet
SQLite's own byte-range locks on the database file.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

#: files SQLite keeps beside a database, by suffix of its name
COMPANIONS = ("-wal", "-shm", "-journal")
LOCK_SUFFIX = ".lock"


class DatabaseInUse(RuntimeError):
    pass


class CannotOpen(RuntimeError):
    """The database's folder is missing, or this user may not write there (SQLite writes its
    companions beside the file)."""

    def __init__(self, path: str, exc: OSError) -> None:
        folder = Path(path).resolve().parent
        if not folder.is_dir():
            why = f"its folder {folder} does not exist"
        elif isinstance(exc, PermissionError):
            why = f"this user (uid {os.getuid()}) may not write in {folder}"
        else:
            why = exc.strerror or str(exc)
        super().__init__(f"cannot open the SQLite database {path}: {why}")


def is_file_database(path: str) -> bool:
    """A database on a file of its own (not ``:memory:`` nor a URI, which name no such file)."""
    return path != ":memory:" and not path.startswith("file:")


def is_part_of(candidate: str | os.PathLike[str], database: str | os.PathLike[str]) -> bool:
    """Whether ``candidate`` is the database, one of its companions, or any file in its folder
    whose name begins with the database's (SQLite's own files beside it are all named so)."""
    target, live = Path(candidate).resolve(), Path(database).resolve()
    if target == live or (target.exists() and live.exists() and os.path.samefile(target, live)):
        return True
    return target.parent == live.parent and target.name.startswith(live.name)


def hold(path: str, *, exclusive: bool = False) -> IO[bytes] | None:
    """Lock the database against a restore (shared: any number of openers) or against every
    opener (exclusive: a restore). The open lock file, to close when done; None for a database
    that is no file. :class:`DatabaseInUse` when the lock is taken the other way."""
    if not is_file_database(path):
        return None
    try:
        lock = open(f"{path}{LOCK_SUFFIX}", "ab")
    except OSError as exc:
        raise CannotOpen(path, exc) from None
    try:
        fcntl.flock(lock, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise DatabaseInUse(
            f"{path} is in use: a bot (or another command) has it open; stop it first" if exclusive else
            f"{path} is being restored (chieu restore): start the bot once the restore has ended") from None
    except BaseException:
        lock.close()
        raise
    return lock


def let_go(lock: IO[bytes] | None) -> None:
    if lock is not None:
        lock.close()  # (closing the file releases its flock)
