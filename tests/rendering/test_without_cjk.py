"""An install without the ``cjk`` extra (no Noto Sans CJK: 32 MB spared) draws every picture:
Chinese, Japanese and Korean letters are left out of names, a name of nothing else shows as its
seat ("Seat 6"), never as boxes or "???"; the cards' own Chinese characters are still drawn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot import i18n
from bot.tables.model import Seat, Table
from rendering import fonts

ROOT = Path(__file__).resolve().parents[2]

WITHOUT_CJK = """
from rendering import fonts, render_hand
from rendering.fonts import has_glyph
from tests.support.picture_games import NAMES, pictures_of_a_game, table_of

assert not fonts.has_cjk() and not any("CJK-VF" in p.name for p in fonts.CHAIN), fonts.chain_names()
assert not has_glyph("李") and has_glyph("萬") and has_glyph("🌸") and has_glyph("م")
names = table_of("concan", 6).picture_names()
assert names == NAMES[:5] + ["Seat 6"], names
pictures = list(pictures_of_a_game("concan", 6))
assert {kind for kind, _ in pictures} == {"table", "round", "result"}
assert render_hand([["2V", "3W", "CC"]], deck="tosom")[:4] == b"\\x89PNG"  # Chắn's cards: 萬 文
print("ok", len(pictures))
"""


def test_pictures_without_the_cjk_extra():
    env = dict(os.environ, CHIEU_RENDER_FONT="no-cjk", PYTHONPATH=str(ROOT))
    ran = subprocess.run([sys.executable, "-c", WITHOUT_CJK], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("ok")


def test_the_pictures_names_keep_what_the_fonts_draw():
    table = Table(id=1, guild_id=1, channel_id=1, game="phom", options={}, host_id=1, status="playing",
                  seats=[Seat(1, "Lan \ue000"), Seat(2, "\ue000\ue001"), Seat(3, "李小龍 🐉")])
    assert table.picture_names() == ["Lan", "Seat 2", "李小龍 🐉" if fonts.has_cjk() else "🐉"]
    with i18n.language("vi"):
        assert table.picture_names()[1] == "Ghế 2"
    with i18n.language("es"):
        assert table.picture_names()[1] == "Asiento 2"


def test_the_table_picture_gets_the_pictures_names():
    """Concan's table picture showed an empty name where no font draws a seat's name."""
    from bot.tables import messages
    from cogs.concan import ConcanUI

    ui = ConcanUI()
    table = Table(id=1, guild_id=1, channel_id=1, game="concan", options={}, host_id=1, status="playing",
                  seats=[Seat(1, "\ue000"), Seat(2, "Lan")])
    table.state = ui.game.new(2, seed=1, options=ui.engine_options(ui.table_options({}, stake=1)))
    assert [seat.name for seat in messages.table_picture(table, ui).seats] == ["Seat 1", "Lan"]
