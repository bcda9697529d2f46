"""Run by scripts/check-image inside the built image (``python3 - < scripts/image_game.py``):
every cog imports, and a seeded AI game of each game plays to its end on a SQLite database as
the bot stores it (each move a row), is rebuilt from the database as a restart rebuilds it,
settles once, zero-sum, and draws its pictures (a Chinese name among the players); then
``chieu backup`` copies the open database. Exits non-zero on the first thing that fails."""

from __future__ import annotations

import asyncio
import importlib
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from bot import ledger
from bot.ai.levels import normal
from bot.app import EXTENSIONS
from bot.db import Database
from bot.tables.adapter import GameUI
from bot.tables.model import Seat, Table
from bot.version import version
from rendering import fonts
from rendering.table import render_rows
from rendering.table_picture import table_picture_image

NAMES = ["Lan", "李小龍", "🤖 AI 1", "Hòa"]
OPTIONS = {"chinchon": {"target": 20}, "concan": {"rounds": 1}}  # short matches


def game_uis() -> dict[str, GameUI]:
    uis = {}
    for name in EXTENSIONS:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, GameUI) and value is not GameUI \
                    and value.__module__ == module.__name__:
                uis[value.game.name] = value()
    return uis


async def play(db: Database, ui: GameUI, number: int) -> str:
    game = ui.game
    players = max(2, game.min_players)
    table = Table(id=number, guild_id=1, channel_id=1, game=game.name, options={}, host_id=100, status="playing",
                  seats=[Seat(100 + k, NAMES[k]) for k in range(players)])
    options = ui.engine_options(ui.table_options(OPTIONS.get(game.name, {}), stake=1))
    state = game.new(players, seed=number, options=options)
    record = state.record()
    table_id = await db.insert_table(guild_id=1, channel_id=number, game=game.name, options={}, host_id=100,
                                     seats=table.seats_json())
    async with db.transaction():
        game_id = await db.insert_game(table_id=table_id, game_no=1, guild_id=1, game=game.name,
                                       seats=table.seats_json(), options=record["options"], stake=1,
                                       decks=record["decks"] if game.multi_round else [record["deck"]],
                                       seed=record.get("seed"))
    moves = 0
    while not state.is_over:
        seat = state.to_act[0]
        action = normal(state.name, state.view(seat))
        state.apply(seat, action)
        await db.append_action(game_id, moves, seat, action)
        moves += 1
        assert moves < 20000, f"{game.name}: no end"
    if game.multi_round:
        stored = len(record["decks"])
        await db.add_decks(game_id, stored + 1, state.record()["decks"][stored:])  # rounds count from 1

    stored = await db.record(game_id)  # rebuilt as a restarted bot rebuilds it
    if not game.multi_round:
        stored = {**stored, "deck": stored["decks"][0]}
        del stored["decks"], stored["seed"]
    assert game.replay(stored).record() == state.record(), f"{game.name}: the stored game replays otherwise"

    outcome = state.outcome()
    outcome.check_balanced()
    chips = ledger.settlement(outcome, stake=1).chips
    entries = [ledger.Entry(seat=r.seat, user_id=100 + r.seat, name=NAMES[r.seat], chips=chips[r.seat], ga=r.ga,
                            rank=r.rank, points=r.points, won=r.seat in outcome.winners, detail=r.notes)
               for r in outcome.results]
    for _ in range(2):  # a second settlement of the same game changes nothing
        await ledger.settle(db, game_id=game_id, guild_id=1, game=game.name, entries=entries,
                            outcome=state.view(None)["outcome"])
    rows = await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?", (game_id,))
    assert len(rows) == players and sum(r["chips"] for r in rows) == 0, f"{game.name}: ledger {rows}"

    final = state.view(None)
    table.state = state
    picture = ui.table_picture(final, table.picture_names(), table)
    size = table_picture_image(picture).size if picture is not None else None
    png = render_rows(ui.result_rows(final, table.picture_names(), ledger.settlement(outcome, stake=1)),
                      title=f"{game.title} · result", deck=ui.deck)
    assert png[:4] == b"\x89PNG"
    return f"{game.name}: {players} players, {moves} moves, chips {list(chips)}, table picture {size}"


async def main() -> int:
    import bot

    installed = Path(bot.__file__).resolve()
    assert "site-packages" in installed.parts, f"the game runs the installed package, not {installed}"
    print(f"package: {installed.parent} (installed), Chiếu {version()}")
    uis = game_uis()
    assert sorted(uis) == ["chan", "chinchon", "concan", "phom", "tusac"], sorted(uis)
    print(f"cogs import: {', '.join(EXTENSIONS)}")
    print(f"fonts: {len(fonts.CHAIN)} faces, Chinese names drawn: {fonts.has_cjk()}")
    assert fonts.has_cjk(), "Noto Sans CJK (Debian's fonts-noto-cjk) is in the image"
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(str(Path(folder) / "chieu.sqlite3"))
        try:
            for number, ui in enumerate(uis.values(), start=1):
                print(await play(db, ui, number))
            (settled,) = await db.fetchone("SELECT COUNT(*) FROM settlements")
            assert settled == len(uis), settled
            print(f"{len(uis)} games played to their end on SQLite, each settled once")
            # chieu backup, while the database is open
            copy = Path(folder) / "backup.sqlite3"
            backup = subprocess.run(["chieu", "backup", str(copy), "--database", str(Path(folder) / "chieu.sqlite3")],
                                    capture_output=True, text=True, check=True)
            print(backup.stdout.strip().replace(folder, "/tmp/..."))
            with sqlite3.connect(copy) as restored:
                assert restored.execute("SELECT COUNT(*) FROM settlements").fetchone() == (settled,)
        finally:
            await db.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
