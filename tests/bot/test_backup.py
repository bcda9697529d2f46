"""``chieu backup PATH``: SQLite's online backup of a live database — a whole, consistent,
self-contained copy while another connection is writing; PostgreSQL is pointed to pg_dump."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from bot import __main__ as cli
from bot.backup import backup_sqlite
from bot.db import Database


async def make_database(path) -> None:
    db = await Database.open(str(path))
    await db.set_meta("commands_digest", "abc")
    await db.close()


async def test_a_copy_taken_while_a_write_is_open_is_whole_and_has_only_committed_rows(tmp_path):
    source, target = tmp_path / "chieu.sqlite3", tmp_path / "backups" / "copy.sqlite3"
    target.parent.mkdir()
    await make_database(source)
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', 'x')")
    copied = threading.Event()
    thread = threading.Thread(target=lambda: (backup_sqlite(str(source), str(target)), copied.set()))
    thread.start()
    thread.join(10)
    assert copied.is_set(), "the backup waited for the bot's open transaction"
    writer.execute("COMMIT")
    writer.close()

    copy = sqlite3.connect(target)
    keys = {key for (key,) in copy.execute("SELECT key FROM meta")}
    assert "commands_digest" in keys and "uncommitted" not in keys
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    copy.close()
    assert not (tmp_path / "backups" / "copy.sqlite3-wal").exists()
    assert [p.name for p in target.parent.iterdir()] == ["copy.sqlite3"], "no partial file left"


def test_the_command(tmp_path, capsys):
    source = tmp_path / "chieu.sqlite3"
    asyncio.run(make_database(source))
    target = tmp_path / "copy.sqlite3"
    assert cli.main(["backup", str(target), "--database", str(source)]) == 0
    assert f"backed up {source} to {target}" in capsys.readouterr().out
    assert cli.main(["backup", str(target), "--database", str(source)]) == 0, "an older backup is replaced"

    assert cli.main(["backup", str(source), "--database", str(source)]) == 1
    assert "is the live database" in capsys.readouterr().err
    assert cli.main(["backup", str(target), "--database", str(tmp_path / "missing.sqlite3")]) == 1
    assert "no SQLite file" in capsys.readouterr().err
    assert cli.main(["backup", str(tmp_path / "nowhere" / "copy.sqlite3"), "--database", str(source)]) == 1
    assert "no folder" in capsys.readouterr().err

    odd = tmp_path / "a #1?.sqlite3"  # characters a URI would read otherwise
    odd.write_bytes(source.read_bytes())
    before = set(tmp_path.iterdir())
    assert cli.main(["backup", str(tmp_path / "odd-copy.sqlite3"), "--database", str(odd)]) == 0
    made = {p.name for p in set(tmp_path.iterdir()) - before} - {f"{odd.name}-wal", f"{odd.name}-shm"}
    assert made == {"odd-copy.sqlite3"}, "no other database made"
    with sqlite3.connect(tmp_path / "odd-copy.sqlite3") as copy:
        assert copy.execute("SELECT value FROM meta WHERE key = 'commands_digest'").fetchone() == ("abc",)


def test_postgresql_is_pointed_to_pg_dump_without_showing_the_password(tmp_path, capsys):
    url = "postgresql://chieu:s3cret@db:5432/chieu"
    assert cli.main(["backup", str(tmp_path / "x"), "--database", url]) == 1
    err = capsys.readouterr().err
    assert "pg_dump" in err and "pg_restore" in err and "s3cret" not in err and "chieu:***@db:5432" in err
    assert not (tmp_path / "x").exists()
