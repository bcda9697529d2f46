"""Landscape pictures: blocks side by side, panels in a grid, and the choice among layouts.

Discord shows an embed's image in at most about 400 × 300 px (desktop; a phone shows it across
the message, about as wide), scaled down to fit. So the table, round and result pictures are
drawn for that size: each is tried at a few widths (:func:`widths_for`: the widest shows its
cards large enough at 400 px), its per-player parts in panels in a grid, its words sized for
the width (:func:`readable_size`: their numbers read once shown :data:`VIEW` wide), and
:func:`best` picks the arrangement that keeps its numbers, is landscape, and shows its cards
the largest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

from PIL import Image, ImageDraw

from .compose import THEME, Block, Theme
from .fonts import FONT_LOCK, font

__all__ = ["DIGIT_PX", "PICTURE_THEME", "SIZES", "VIEW", "Beside", "Column", "Grid", "Loss", "Panel", "best",
           "column_counts", "draw_picture", "readable_size", "widths_for"]

#: The box Discord shows an embed image in (desktop), px.
VIEW = (400, 300)

#: The theme of the pictures shown in a channel (table, round, result): the hand's, with
#: larger text, as they are shown scaled down.
PICTURE_THEME = replace(THEME, title_size=22, label_size=20, caption_size=17, index_size=13, raise_px=20)


#: How tall a digit must look, px, when a picture is shown :data:`VIEW` wide: the numbers that
#: decide a game (points, totals, chips, ranks) are read on a phone at that width. A little
#: above 11 px, as scaling down blurs a glyph's edges.
DIGIT_PX = 12


@lru_cache(maxsize=1)
def _digit_em() -> float:
    """The height of the pictures' font's digits, in em (measured once, large: exact enough)."""
    with FONT_LOCK:
        left, top, right, bottom = font(200).getbbox("0123456789", anchor="ls")
    return (bottom - top) / 200


#: the font sizes a picture's words are set in, about 10 % apart: few sizes, few fonts to load
#: and glyphs to measure (the layouts tried are each set at the size their width needs)
SIZES = (16, 18, 20, 22, 24, 27, 30, 33, 36, 40, 44, 48, 53, 58, 64, 70, 77, 85)


@lru_cache(maxsize=512)
def readable_size(width: int, view: int = VIEW[0]) -> int:
    """The smallest of :data:`SIZES` whose digits are :data:`DIGIT_PX` tall in a picture
    ``width`` px wide shown ``view`` px wide."""
    need = DIGIT_PX / min(1.0, view / max(1, width)) / _digit_em()
    return next((size for size in SIZES if size >= need), math.ceil(need))


class Column(Block):
    """Blocks one below the other; each is given with the gap above it."""

    def __init__(self, parts: Iterable[tuple[Block | None, int]]):
        self.parts = []
        for block, gap in parts:
            if block is not None:
                self.parts.append((block, gap if self.parts else 0))
        self.width = max((b.width for b, _ in self.parts), default=0)
        self.height = sum(b.height + g for b, g in self.parts)

    def draw(self, canvas, x, y):
        for block, gap in self.parts:
            y += gap
            block.draw(canvas, x, y)
            y += block.height


class Beside(Block):
    """Blocks side by side, tops aligned, ``gap`` px apart."""

    def __init__(self, parts: Iterable[Block | None], gap: int):
        self.parts = [b for b in parts if b is not None and b.width]
        self.gap = gap
        self.width = sum(b.width for b in self.parts) + gap * max(0, len(self.parts) - 1)
        self.height = max((b.height for b in self.parts), default=0)

    def draw(self, canvas, x, y):
        for block in self.parts:
            block.draw(canvas, x, y)
            x += block.width + self.gap


class Panel(Block):
    """A block in a rounded frame (outlined in ``outline``, ``line`` px); a grid draws every
    panel of a row as tall, and every panel as wide, as the largest."""

    PAD = 8

    def __init__(self, inner: Block, *, outline, line: int = 1, theme: Theme = THEME):
        self.inner = inner
        self.outline = outline
        self.line = line
        self.theme = theme
        self.width = inner.width + 2 * self.PAD
        self.height = inner.height + 2 * self.PAD

    def draw_in(self, canvas, x, y, width, height):
        ImageDraw.Draw(canvas).rounded_rectangle((x, y, x + width - 1, y + height - 1), radius=8,
                                                 outline=self.outline, width=self.line)
        self.inner.draw(canvas, x + self.PAD, y + self.PAD)

    def draw(self, canvas, x, y):
        self.draw_in(canvas, x, y, self.width, self.height)


class Grid(Block):
    """Cells in rows of ``columns``, left to right then top to bottom, each cell as wide as the
    widest and as tall as the tallest of its row (panels are framed to that size)."""

    def __init__(self, cells: Sequence[Block], columns: int, gap: int = 10):
        self.cells = list(cells)
        self.columns = max(1, min(columns, len(self.cells))) if self.cells else 1
        self.gap = gap
        self.cell_w = max((c.width for c in self.cells), default=0)
        rows = [self.cells[i:i + self.columns] for i in range(0, len(self.cells), self.columns)]
        self.row_h = [max(c.height for c in row) for row in rows]
        self.width = self.columns * self.cell_w + (self.columns - 1) * gap if self.cells else 0
        self.height = sum(self.row_h) + gap * max(0, len(rows) - 1)

    def draw(self, canvas, x, y):
        top = y
        for r, height in enumerate(self.row_h):
            for k, cell in enumerate(self.cells[r * self.columns:(r + 1) * self.columns]):
                cx = x + k * (self.cell_w + self.gap)
                if isinstance(cell, Panel):
                    cell.draw_in(canvas, cx, top, self.cell_w, height)
                else:
                    cell.draw(canvas, cx, top)
            top += height + self.gap


def column_counts(count: int, most: int = 6) -> list[int]:
    """How many columns ``count`` panels may be set in: up to ``most``, the last line short of
    at most one panel (4 panels: 1, 2 or 4 columns, not 3 + 1)."""
    return [c for c in range(1, min(most, count) + 1) if count % c == 0 or count % c >= c - 1] or [1]


def shown_scale(width: int, height: int, view: tuple[int, int] = VIEW) -> float:
    """How much a ``width`` × ``height`` picture is scaled to be shown in ``view`` (at most 1)."""
    return min(1.0, view[0] / max(1, width), view[1] / max(1, height))


class Loss(NamedTuple):
    """What a picture's headers leave out: numbers (a badge's, a row's first fact with one), and the rest."""
    numbers: int = 0
    other: int = 0

    def __add__(self, other):
        return Loss(self.numbers + other.numbers, self.other + other.other)


#: the widths a picture is tried at, as parts of the widest that shows its cards large enough
WIDTH_STEPS = (0.6, 0.7, 0.8, 0.9, 1.0, 1.15, 1.3, 1.5)


def widths_for(card_h: int, card_px: float) -> list[int]:
    """The widths to try a picture at whose cards are ``card_h`` px tall: the widest that
    shows them ``card_px`` tall when the picture is shown :data:`~rendering.landscape.VIEW`
    wide, narrower ones (larger cards, smaller text), and a few wider ones (when nothing fits)."""
    most = VIEW[0] * card_h / card_px
    return sorted({round(most * step) for step in WIDTH_STEPS})


def best(arrangements, card_h: int, card_px: float, min_aspect: float, theme=PICTURE_THEME) -> Block:
    """Of ``arrangements`` ((block, the width its text is sized for) of a whole picture's
    content, drawn with the theme's padding around it), the one to draw: its text no smaller
    than its width needs; then the one that leaves out the fewest numbers (``block.lost``: a
    :class:`Loss`); then landscape (width / height at least ``min_aspect``: Discord shows the
    whole of it); then its cards at least ``card_px`` tall shown 400 px wide (or as near as can
    be, by 2 px); then the one that leaves out the least of the rest; then the one whose
    cards are shown largest in an embed (:data:`~rendering.landscape.VIEW`); ties go to the
    smaller picture. The arrangements come narrowest first: the search stops when the rest
    cannot do better."""
    chosen, chosen_key = None, None
    pad = theme.padding
    for block, sized_for in arrangements:
        bound = card_h * min(1.0, VIEW[0] / sized_for)  # the cards of this width and wider are no larger
        if chosen_key is not None and chosen_key[:3] == (True, 0, True) and (
                min(bound, card_px) // 2 < chosen_key[3]
                or chosen_key[3:5] == (card_px // 2, 0) and bound < chosen_key[5]):
            break  # (the widths tried grow: none of the rest can do better)
        width, height = max(theme.min_width, block.width + 2 * pad), block.height + 2 * pad
        card = card_h * min(1.0, VIEW[0] / width)
        lost = getattr(block, "lost", Loss())
        key = (width <= sized_for, -lost.numbers, width >= min_aspect * height, min(card, card_px) // 2, -lost.other,
               card_h * shown_scale(width, height), -width * height)
        if chosen_key is None or key > chosen_key:
            chosen, chosen_key = block, key
    assert chosen is not None, "no arrangement"
    return chosen


def draw_picture(block: Block, theme: Theme = THEME, *, canvas_for: Callable[[int, int], Image.Image] | None = None,
                 min_width: int = 0) -> tuple[Image.Image, int, int]:
    """``block`` drawn with the theme's padding on the felt: (canvas, width, height), the picture
    being the canvas's top left ``width`` × ``height`` corner (a new image unless ``canvas_for``
    gives one, e.g. a thread's reused canvas)."""
    pad = theme.padding
    width = max(min_width, block.width + 2 * pad)
    height = block.height + 2 * pad
    canvas = canvas_for(width, height) if canvas_for else Image.new("RGB", (width, height), theme.background)
    if canvas_for:
        canvas.paste(theme.background, (0, 0, width, height))
    block.draw(canvas, pad, pad)
    return canvas, width, height
