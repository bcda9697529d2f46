"""Table / result images: one labelled row per player."""

from __future__ import annotations

import io

from PIL import Image

from rendering import render_rows, render_rows_async
from rendering.compose import THEME

ROWS = [
    ("Lan", [["AS", "2S", "3S"], ["5H", "5D", "5C"], ["9D", "TD", "JD"]], "ù", [2]),
    ("Đức", [["3H", "4H", "5H"], ["7C", "7D", "7S"], ["2S", "KD", "AC"]], "16 điểm"),
    ("Minh", [["AS", "3D", "5C", "7H", "9S", "JD", "KC", "2H", "4S"]], "Móm · 55 điểm"),
]


def _open(png: bytes) -> Image.Image:
    """The upload decoded, in RGB (it is a palette PNG)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.mode == "P"
    return img.convert("RGB")


def test_rows_render():
    img = _open(render_rows(ROWS, title="Kết quả ván 3"))
    assert img.width <= THEME.max_width
    assert img.width > img.height > 104 + 40  # landscape: the rows' panels side by side


def test_more_rows_make_a_bigger_picture_still_wider_than_tall():
    one = _open(render_rows(ROWS[:1]))
    three = _open(render_rows(ROWS))
    assert three.width * three.height > 2 * one.width * one.height
    assert one.width > one.height and three.width > three.height


def test_rows_with_empty_groups():
    rows = [("Empty", [], ""), ("Empty groups", [[], []], "nothing"),
            ("Gaps", [["AS"], [], ["2H", "3H"]], ""), ("", [["??", "??"]], "")]
    img = _open(render_rows(rows))
    assert img.width <= THEME.max_width
    _open(render_rows([]))
    _open(render_rows([], title="No one"))


def test_wide_rows_wrap():
    codes = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    img = _open(render_rows([("All", [[c] for c in codes], "52 singles")]))
    assert img.width <= THEME.max_width


async def test_async_rows_same_bytes():
    assert await render_rows_async(ROWS, title="t") == render_rows(ROWS, title="t")
