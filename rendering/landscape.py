"""Landscape pictures: blocks side by side, panels in a grid, and the choice among layouts.

Discord shows an embed's image in at most about 400 × 300 px (desktop; a phone shows it across
the message, about as wide), scaled down to fit. A tall picture is shown small, so the table,
round and result pictures are laid out wider than tall: their per-player parts become panels
in a grid, and :func:`choose` picks, among a few arrangements (columns, panel widths), the one
shown largest in that box, :data:`VIEW`, that is wider than tall. The round and result pictures
size their words for each arrangement's width (:func:`readable_size`), so their numbers stay
readable when shown :data:`VIEW` wide.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from .compose import THEME, Block, Theme
from .fonts import FONT_LOCK, font

__all__ = ["DIGIT_PX", "MAX_WIDTH", "PICTURE_THEME", "SIZES", "VIEW", "Beside", "Column", "Grid", "Panel", "choose",
           "column_counts", "draw_picture", "panel_widths", "readable_size"]

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


@dataclass(frozen=True)
class Choice:
    block: Block
    width: int  # the whole picture, padding included
    height: int


#: The widest picture chosen while a narrower one will do (scaled to 400 px, wider is illegible).
MAX_WIDTH = 1100


def choose(candidates: Iterable[Block], pad: int, max_width: int = MAX_WIDTH, *, sized_text: bool = False) -> Block:
    """The candidate (a whole picture's content, drawn with ``pad`` px around it) shown
    largest in :data:`VIEW` among those wider than tall, preferring those at most
    ``max_width`` px wide; when none is wider than tall, the widest for its height. Ties go to
    the smaller picture.

    ``sized_text``: the candidates' words are sized for their width (:func:`readable_size`),
    so a wider one reads as well: when none is wider than tall, the first choice is then the
    least tall for its width, whatever its width (its words are shown the largest in
    :data:`VIEW`)."""
    best: Choice | None = None

    def key(c: Choice):
        landscape = c.width > c.height
        fit = (min(1.0, c.width / max(1, c.height)),) if sized_text else ()
        return fit + (landscape, c.width <= max_width,
                      shown_scale(c.width, c.height) if landscape else c.width / max(1, c.height),
                      -c.width * c.height)

    for block in candidates:
        choice = Choice(block, block.width + 2 * pad, block.height + 2 * pad)
        if best is None or key(choice) > key(best):
            best = choice
    assert best is not None, "no candidate layout"
    return best.block


def panel_widths(natural: int, low: int, high: int, lines: Iterable[float] = (1, 1.5, 2, 3)) -> list[int]:
    """Widths for panels whose content is ``natural`` px wide on one line: the widths that
    show it on about each number of ``lines``, within [``low``, ``high``], without repeats."""
    widths = sorted({max(low, min(high, int(natural / n) + 8)) for n in lines})
    return widths or [low]


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
