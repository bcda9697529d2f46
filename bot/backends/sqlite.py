"""SQLite through aiosqlite: WAL, one writer connection shared by every table, one reader.

Writes are serialised by an asyncio lock: a transaction holds it from ``BEGIN IMMEDIATE`` to
``COMMIT``, and a single statement outside a transaction takes it for its own autocommit, so
another table's move can neither land inside someone's transaction nor be rolled back with
it. Reads outside a transaction go to the reader connection (WAL lets it read committed data
while a write is under way), so leaderboards never wait for a settlement; reads inside a
transaction use the writer and see its own writes.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator, Sequence

import aiosqlite

from . import Row, row_type
from ..sqlite_files import hold, let_go


class SqliteBackend:
    name = "sqlite"
    title = "SQLite"  # what /about shows (never the file's path)

    def __init__(self, path: str, writer: aiosqlite.Connection, reader: aiosqlite.Connection | None = None) -> None:
        self.path = path
        self.writer = writer
        self.reader = reader or writer
        self._write_lock = asyncio.Lock()
        self._transaction_task: asyncio.Task | None = None
        self._hold = None  # the shared lock against a restore (bot.sqlite_files)

    @classmethod
    async def open(cls, path: str) -> "SqliteBackend":
        # isolation_level=None: we issue BEGIN ourselves so that a transaction is exactly
        # what `transaction()` encloses, nothing more.
        held = hold(path)
        try:
            writer = await aiosqlite.connect(path, isolation_level=None)
        except BaseException:
            let_go(held)
            raise
        backend = cls(path, writer)
        backend._hold = held
        try:
            await backend.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a commit survives a crash of the bot; only a power cut can lose the
            # last commits. FULL would fsync every move.
            await backend.execute("PRAGMA synchronous=NORMAL")
            await backend.execute("PRAGMA foreign_keys=ON")
            await backend.execute("PRAGMA busy_timeout=5000")
            if path != ":memory:" and not path.startswith("file::memory:"):
                reader = await aiosqlite.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
                await reader.execute("PRAGMA busy_timeout=5000")
                backend.reader = reader
        except BaseException:
            await backend.close()
            raise
        return backend

    def describe(self) -> str:
        return f"SQLite file {self.path}"

    async def close(self) -> None:
        try:
            if self.reader is not self.writer:
                await self.reader.close()
            await self.writer.close()
        finally:
            let_go(self._hold)
            self._hold = None

    # ---- the schema
    @staticmethod
    def ddl(script: str) -> str:
        """The migrations are written in SQLite's words: run as they are."""
        return script

    async def lock_schema(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds the only write lock."""

    async def schema_version(self) -> int:
        (version,) = await self.fetchone("PRAGMA user_version")
        return version

    async def set_schema_version(self, number: int) -> None:
        await self.execute(f"PRAGMA user_version={int(number)}")

    # ---- transactions
    def in_transaction(self) -> bool:
        return self._transaction_task is not None and self._transaction_task is asyncio.current_task()

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        if self.in_transaction():
            raise RuntimeError("transactions do not nest")
        async with self._write_lock:
            self._transaction_task = asyncio.current_task()
            try:
                await self._run("BEGIN IMMEDIATE")
                try:
                    yield
                    await self._run("COMMIT")
                except BaseException:
                    # SQLite rolls a transaction back by itself on some errors (a full disk),
                    # and a COMMIT that failed leaves it open: close what is open, and let the
                    # error that matters through (never a second failure of ROLLBACK)
                    if self.writer.in_transaction:
                        await self._run("ROLLBACK")
                    raise
            finally:
                self._transaction_task = None

    # ---- statements
    async def _run(self, sql: str, params: Sequence[Any] = ()) -> tuple[int | None, int]:
        # Every cursor is closed at once: an open cursor would block COMMIT.
        async with self.writer.execute(sql, params) as cur:
            return cur.lastrowid, cur.rowcount

    async def _write(self, sql: str, params: Sequence[Any]) -> tuple[int | None, int]:
        if self.in_transaction():
            return await self._run(sql, params)
        async with self._write_lock:
            return await self._run(sql, params)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return (await self._write(sql, params))[1]

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        return (await self._write(sql, params))[0]

    async def executemany(self, sql: str, rows: list[Sequence[Any]]) -> None:
        if not self.in_transaction():
            raise RuntimeError("executemany belongs inside a transaction")
        async with self.writer.executemany(sql, rows):
            pass

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        conn = self.writer if self.in_transaction() else self.reader
        async with conn.execute(sql, params) as cur:
            values = await cur.fetchall()
            if not values:
                return []
            make = row_type(tuple(column[0] for column in cur.description))
            return [make(v) for v in values]

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        conn = self.writer if self.in_transaction() else self.reader
        async with conn.execute(sql, params) as cur:
            values = await cur.fetchone()
            if values is None:
                return None
            return row_type(tuple(column[0] for column in cur.description))(values)
