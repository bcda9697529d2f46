"""The database engines behind :class:`bot.db.Database`: SQLite (a file path, the default) or
PostgreSQL (a ``postgresql://`` URL), one small module each.

``bot.db`` keeps the API, the schema and the queries, written once in SQL both engines accept,
with ``?`` placeholders. A backend only runs them: it owns the connections, turns ``?`` into
what its driver wants, makes ``transaction()`` atomic (all or nothing, one connection held for
its duration), says which schema version the database is at, adapts the schema's few
engine-specific words (``ddl``), and returns every row as a :class:`Row`.

Both backends offer the same coroutines: ``execute`` (rowcount), ``insert`` (the new row's
``id``), ``executemany``, ``fetchone``, ``fetchall``, ``transaction``, ``lock_schema``,
``schema_version``, ``set_schema_version``, ``close``; and ``ddl(script)``.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Callable

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(database: str) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL, rather than a SQLite path."""
    return database.startswith(POSTGRES_SCHEMES)


class PostgresMissing(RuntimeError):
    pass


async def open_backend(database: str, *, lock_seconds: float | None = None):
    """``lock_seconds`` (PostgreSQL): the longest a session may keep a transaction idle (its
    process stalled) or wait for a lock before the server ends it (see PostgresBackend.open)."""
    if is_postgres(database):
        try:
            from .postgres import PostgresBackend
        except ImportError as exc:  # asyncpg comes with the `postgres` extra
            raise PostgresMissing(f"a postgresql:// database needs asyncpg ({exc}): "
                                  "pip install 'chieu[postgres]'") from None

        return await PostgresBackend.open(database, lock_seconds=lock_seconds)
    from .sqlite import SqliteBackend

    return await SqliteBackend.open(database)


def call_later(delay: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
    """The event loop's ``call_later``, for a deadline on the database (a click's statements):
    real time, always; a test whose Discord runs on a simulated clock puts the real one here."""
    return asyncio.get_running_loop().call_later(delay, callback)


def database_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database failing (unreachable, restarting, timing out, refusing a
    write) rather than a bug: what a person is told to retry in a moment."""
    import sqlite3

    import aiohttp

    if isinstance(exc, aiohttp.ClientError):  # Discord's connection, not the database's
        return False
    failures: tuple[type[BaseException], ...] = (OSError, TimeoutError, sqlite3.Error)
    try:
        import asyncpg
    except ImportError:  # SQLite only
        pass
    else:
        failures += (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError)
    return isinstance(exc, failures)


class Row(tuple):
    """One result row, the same on every engine: a tuple (index it, unpack it, compare it
    with a tuple) whose columns are also read by name, ``row["col"]``; ``keys()`` names them,
    so ``dict(row)`` works too. A name given twice (``a.*, b.*``) reads the first."""

    __slots__ = ()
    _names: tuple[str, ...] = ()
    _index: dict[str, int] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                key = self._index[key]
            except KeyError:
                raise KeyError(f"no column {key!r} in {self._names}") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)

    def __repr__(self) -> str:
        return "Row(" + ", ".join(f"{name}={value!r}" for name, value in zip(self._names, self)) + ")"


@functools.lru_cache(maxsize=1024)
def row_type(names: tuple[str, ...]) -> type[Row]:
    """The Row class of a result with these columns (one per query shape, made once)."""
    index: dict[str, int] = {}
    for number, name in enumerate(names):
        index.setdefault(name, number)
    return type("Row", (Row,), {"__slots__": (), "_names": names, "_index": index})
