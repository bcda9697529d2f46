"""Backups that cannot hurt and ``chieu restore``: a backup refuses every file that is part of
the live database (writing over its ``-wal`` corrupts it) and leaves no ``.partial``; a restore
checks the backup (integrity, a schema this version knows) and refuses while a bot has the
database open; the bot refuses a schema newer than it knows, naming the version it needs."""

from __future__ import annotations

import asyncio
import os
import sqlite3

import pytest

from bot import __main__ as cli
from bot import backup as backup_module
from bot.backup import BackupError, backup_sqlite
from bot.db import SCHEMA_WRITER, Database, NewerSchema
from bot.restore import RestoreError, restore
from bot.schema import MIGRATIONS
from bot.sqlite_files import DatabaseInUse, hold, let_go


async def make_database(path, **meta) -> None:
    db = await Database.open(str(path))
    for key, value in {"commands_digest": "abc", **meta}.items():
        await db.set_meta(key, value)
    await db.close()


def integrity(path) -> str:
    with sqlite3.connect(path) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.mark.parametrize("name", ["chieu.sqlite3", "chieu.sqlite3-wal", "chieu.sqlite3-shm", "chieu.sqlite3-journal",
                                  "chieu.sqlite3.old", "link-to-the-database"])
async def test_a_backup_refuses_every_file_of_the_live_database(tmp_path, name):
    source = tmp_path / "chieu.sqlite3"
    await make_database(source)
    bot = await Database.open(str(source))  # the bot runs: its -wal and -shm are there
    try:
        await bot.set_meta("after", "a write in the log")
        if name == "link-to-the-database":
            (tmp_path / name).symlink_to(source)
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
        with pytest.raises(BackupError, match="is the live database or one of its files"):
            backup_sqlite(str(source), str(tmp_path / name))
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before, "nothing written"
        assert await bot.get_meta("after") == "a write in the log"
    finally:
        await bot.close()
    assert integrity(source) == "ok"


async def test_a_folder_gets_a_file_named_after_the_database_and_nothing_partial_is_left(tmp_path, monkeypatch):
    source, folder = tmp_path / "chieu.sqlite3", tmp_path / "backups"
    folder.mkdir()
    await make_database(source)
    found = backup_sqlite(str(source), str(folder))
    (made,) = folder.iterdir()
    assert made.name.startswith("chieu-") and made.suffix == ".sqlite3" and str(made) == found["path"]
    assert integrity(made) == "ok"

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(backup_module.os, "replace", fail)  # the last step fails
    with pytest.raises(OSError, match="disk full"):
        backup_sqlite(str(source), str(folder / "second.sqlite3"))
    assert [p.name for p in folder.iterdir()] == [made.name], "no .partial left"


async def test_restore_puts_the_backup_in_place_and_keeps_what_it_replaced(tmp_path, capsys):
    live, backup = tmp_path / "chieu.sqlite3", tmp_path / "backup.sqlite3"
    await make_database(live, when="at the backup")
    backup_sqlite(str(live), str(backup))
    bot = await Database.open(str(live))
    await bot.set_meta("when", "after the backup")
    writer = sqlite3.connect(live)  # a -wal left beside the file, as by a bot killed
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE meta SET value = 'in the log' WHERE key = 'when'")
    await bot.close()

    assert cli.main(["restore", str(backup), "--database", str(live)]) == 0
    writer.close()
    assert "restored" in capsys.readouterr().out
    db = await Database.open(str(live))
    assert await db.get_meta("when") == "at the backup"
    await db.close()
    (aside,) = tmp_path.glob("chieu.sqlite3.before-restore-*")
    assert "chieu.sqlite3" in os.listdir(aside) and backup.exists(), "nothing deleted, the backup kept"


async def test_restore_refuses_while_a_bot_has_the_database_open(tmp_path):
    live, backup = tmp_path / "chieu.sqlite3", tmp_path / "backup.sqlite3"
    await make_database(live)
    backup_sqlite(str(live), str(backup))
    bot = await Database.open(str(live))
    try:
        with pytest.raises(DatabaseInUse, match="in use"):
            restore(str(backup), str(live))
    finally:
        await bot.close()
    assert not list(tmp_path.glob("*.before-restore-*")) and not list(tmp_path.glob(".*restoring"))
    restore(str(backup), str(live), say=lambda _: None)  # the bot stopped: it goes through


async def test_a_bot_does_not_start_while_a_restore_holds_the_database(tmp_path):
    live = tmp_path / "chieu.sqlite3"
    lock = hold(str(live), exclusive=True)
    try:
        with pytest.raises(DatabaseInUse, match="being restored"):
            await Database.open(str(live))
    finally:
        let_go(lock)


async def test_restore_refuses_a_newer_schema_a_damaged_file_and_no_database(tmp_path, capsys):
    live, newer = tmp_path / "chieu.sqlite3", tmp_path / "newer.sqlite3"
    await make_database(live)
    await make_database(newer)
    with sqlite3.connect(newer) as connection:
        connection.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
        connection.execute("UPDATE meta SET value = '9.9.9' WHERE key = ?", (SCHEMA_WRITER,))
    with pytest.raises(RestoreError, match=f"schema version {len(MIGRATIONS) + 1}, newer.*Chiếu 9.9.9 or later"):
        restore(str(newer), str(live))
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    assert cli.main(["restore", str(damaged), "--database", str(live)]) == 1
    assert "restore:" in capsys.readouterr().err
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()
    with pytest.raises(RestoreError, match="no Chiếu database"):
        restore(str(empty), str(live))
    assert integrity(live) == "ok" and not list(tmp_path.glob("*.before-restore-*"))


async def test_the_bot_refuses_a_schema_newer_than_it_knows_and_names_the_version_it_needs(tmp_path):
    path = tmp_path / "chieu.sqlite3"
    await make_database(path)
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
        connection.execute("UPDATE meta SET value = '0.9.0' WHERE key = ?", (SCHEMA_WRITER,))
    with pytest.raises(NewerSchema, match=r"schema version \d+, newer than this Chiếu .* needs Chiếu 0\.9\.0"):
        await Database.open(str(path))
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS) + 1,), "left as it was"


def test_copy_database_only_reads_its_source(tmp_path):
    """(It migrates a snapshot: a source mounted read-only, as in compose, can be copied.)"""
    from bot.copy_database import _snapshot

    source = tmp_path / "chieu.sqlite3"
    asyncio.run(make_database(source))
    with sqlite3.connect(source) as connection:
        connection.execute("PRAGMA user_version=3")  # an old schema the copy must bring up to date
    before = source.read_bytes()
    _snapshot(str(source), str(tmp_path / "snapshot.sqlite3"))
    assert source.read_bytes() == before
    assert sqlite3.connect(tmp_path / "snapshot.sqlite3").execute("PRAGMA user_version").fetchone() == (3,)
