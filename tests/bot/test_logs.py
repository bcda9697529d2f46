"""The operator's log: one JSON object per line with log_format = "json"; plain text (no
colour codes) when standard error is no terminal; INFO lines for a table opened and a game
started, finished and settled, with ids and chips only (never a card)."""

from __future__ import annotations

import json
import logging

import pytest

from bot import ledger, logs
from bot.db import Database


@pytest.fixture
def root_kept():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


def test_json_lines(root_kept, capsys):
    logs.setup("INFO", "json")
    logging.getLogger("bot.app").info("ready: %d tables", 3)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("bot.tables").exception("a table task failed")
    logging.getLogger("bot.app").debug("not at INFO")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(line["level"], line["logger"], line["message"]) for line in lines] == [
        ("INFO", "bot.app", "ready: 3 tables"), ("ERROR", "bot.tables", "a table task failed")]
    assert "ValueError: boom" in lines[1]["exception"] and lines[0]["time"].endswith("+00:00")


def test_text_lines_have_no_colour_codes_off_a_terminal(root_kept, capsys):
    logs.setup("WARNING", "text")
    logging.getLogger("bot.app").warning("a warning")
    logging.getLogger("bot.app").info("not at WARNING")
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith("WARNING  bot.app a warning") and "\x1b[" not in line


async def test_a_table_and_a_game_are_logged_by_id_from_opening_to_settlement(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    db = await Database.open(str(tmp_path / "chieu.sqlite3"))
    try:
        table = await db.insert_table(guild_id=11, channel_id=12, game="phom", options={}, host_id=13, seats=[])
        async with db.transaction():
            game = await db.insert_game(table_id=table, game_no=1, guild_id=11, game="phom", seats=[{}, {}],
                                        options={}, decks=[["AS", "2S", "3S"]], stake=1)
        entries = [ledger.Entry(seat=seat, user_id=None, name="AI", chips=chips, ga=0, rank=seat + 1, points=None,
                                won=seat == 0, detail=["A♠ 2♠ 3♠"]) for seat, chips in enumerate((5, -5))]
        await ledger.settle(db, game_id=game, guild_id=11, game="phom", entries=entries)
    finally:
        await db.close()
    said = [record.getMessage() for record in caplog.records if record.levelno == logging.INFO]
    assert f"table {table} opened: phom, server 11, channel 12, host 13" in said
    assert f"game {game} started at table {table}: phom, 2 seats" in said
    assert f"game {game} (phom, server 11) finished and settled: chips by seat 0:+5 1:-5" in said
    assert not any("AS" in line or "♠" in line for line in said), "no card in the log"
