"""Line charts of chips over time (/balance, /leaderboard), in the look of the table pictures:
the felt, the seat boxes' panel, Noto Sans through :mod:`rendering.text`.

A chart is plain data (:class:`Chart`), its strings already in the asker's language; each
:class:`Line` is one player's running total, a point per settled game (the caller puts the 0
the total starts from first). The x axis is the games in the order they were settled, every
game one step, so an evening of ten games is not squeezed into one pixel of a month.

The picture is :data:`WIDTH` px wide and its text large: Discord shows it about 400 px wide on
a phone, where a digit must still be 11 px tall (:data:`NUMBER_SIZE` is chosen for that).
Lines are drawn at twice the size and reduced (Pillow draws lines without anti-aliasing).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from . import _async
from .compose import THEME
from .encode import COMPRESS_LEVEL, IMAGE_FORMAT
from .layout import fit, printable
from .text import measure, paste_text, text_line, wrap

__all__ = ["COLOURS", "NUMBER_SIZE", "WIDTH", "Chart", "Line", "chart_image", "nice_ticks", "render_chart",
           "render_chart_async", "signed"]

#: The picture's width, px; its height follows from the legend's lines.
WIDTH = 600
#: Axis numbers and legend, px: Noto Sans digits are 0.7 em tall, 12 px at 400 px wide.
NUMBER_SIZE = 26
TITLE_SIZE = 28
PLOT_HEIGHT = 250
PAD = 16
PANEL = (36, 88, 63)  # the seat boxes' fill (rendering.table_picture.BOX_FILL)
GRID = (58, 112, 86)
ZERO = (120, 160, 138)
#: One colour per line, told apart on the felt (the first is the active seat's amber).
COLOURS = ((255, 200, 60), (110, 190, 255), (255, 130, 130), (205, 160, 255), (255, 255, 255),
           (140, 230, 200))
SUPERSAMPLE = 2
#: Colours of the palette PNG: the felt, the text and the lines, anti-aliased.
PNG_COLOURS = 96


def signed(value: int) -> str:
    """``+12`` / ``−12`` / ``0``: the default way of writing an axis number."""
    return f"{'+' if value > 0 else '−' if value < 0 else ''}{abs(value):,}"


@dataclass(frozen=True)
class Line:
    label: str  # the player's name, as it is (the picture draws what it can of it)
    values: tuple[int, ...]  # the running total at each step, the first usually 0
    note: str = ""  # after the name in the legend: "+120 chips"


@dataclass(frozen=True)
class Chart:
    title: str
    lines: tuple[Line, ...]
    start: str = ""  # under the left end of the x axis: the first game's date
    end: str = ""  # under the right end: the last game's date
    axis: str = ""  # under the middle: "12 games"
    empty: str = "—"  # shown instead of the plot when no line has a point
    number: Callable[[int], str] = field(default=signed, compare=False)  # an axis number in the asker's language


def nice_ticks(low: int, high: int, most: int = 5) -> list[int]:
    """Round numbers (1, 2 or 5 × 10ⁿ apart) spanning ``low``..``high``, at most ``most`` + 1 of them,
    always including 0 when the range does."""
    low, high = min(low, 0), max(high, 0)
    if low == high:  # all zero: the line in the middle
        low, high = -1, 1
    power = 10 ** max(0, math.floor(math.log10(max(1, (high - low) / most))))
    for step in (m * p for p in (power, power * 10) for m in (1, 2, 5)):  # the finest that is few enough
        first, last = math.floor(low / step) * step, math.ceil(high / step) * step
        if (last - first) // step <= most:
            break
    return list(range(first, last + 1, step))


def _legend_rows(chart: Chart) -> list[list[int]]:
    """The legend's rows of line indices: none for a single line (the title names it), two a
    row when they fit."""
    if len(chart.lines) < 2:
        return []
    return [list(range(i, min(i + 2, len(chart.lines)))) for i in range(0, len(chart.lines), 2)]


def chart_image(chart: Chart) -> Image.Image:
    """The chart as an RGB image, :data:`WIDTH` px wide."""
    theme = THEME
    # the title wraps onto a second line rather than lose its end ("…, by chips"); a third is cut
    wrapped = wrap(printable(chart.title), TITLE_SIZE, True, WIDTH - 2 * PAD)
    if len(wrapped) > 2:
        wrapped = (wrapped[0], fit(" ".join(wrapped[1:]), TITLE_SIZE, True, WIDTH - 2 * PAD))
    titles = [text_line(t, TITLE_SIZE, True, theme.text) for t in wrapped]
    row_h = NUMBER_SIZE + 14
    points = max((len(line.values) for line in chart.lines), default=0)
    legend = _legend_rows(chart) if points else []
    top = PAD + sum(t.height for t in titles) + 10
    plot_top = top + NUMBER_SIZE // 2  # room for the top tick's label
    plot_bottom = plot_top + PLOT_HEIGHT
    axis_bottom = plot_bottom + 8 + row_h
    height = axis_bottom + len(legend) * row_h + PAD
    image = Image.new("RGB", (WIDTH, height), theme.background)
    draw = ImageDraw.Draw(image)
    for k, title in enumerate(titles):
        paste_text(image, title, (PAD, PAD + sum(t.height for t in titles[:k])))
    draw.rounded_rectangle((PAD, top, WIDTH - PAD - 1, axis_bottom - 6), radius=8, fill=PANEL,
                           outline=theme.separator)
    if points == 0:
        empty = text_line(fit(chart.empty, NUMBER_SIZE, False, WIDTH - 4 * PAD), NUMBER_SIZE, False, theme.muted)
        paste_text(image, empty, ((WIDTH - empty.width) // 2, (top + axis_bottom - empty.height) // 2))
        return image

    values = [v for line in chart.lines for v in line.values]
    ticks = nice_ticks(min(values), max(values))
    labels = [text_line(chart.number(t), NUMBER_SIZE, False, theme.muted) for t in ticks]
    left = PAD + 10 + max(label.width for label in labels) + 8
    right = WIDTH - PAD - 18
    low, high = ticks[0], ticks[-1]

    def y_of(value: float) -> float:
        return plot_bottom - (value - low) / (high - low) * PLOT_HEIGHT

    def x_of(step: int) -> float:
        return (left + right) / 2 if points == 1 else left + step * (right - left) / (points - 1)

    for tick, label in zip(ticks, labels):
        y = round(y_of(tick))
        draw.line((left, y, right, y), fill=ZERO if tick == 0 else GRID, width=2 if tick == 0 else 1)
        paste_text(image, label, (left - 8 - label.width, y - label.baseline + NUMBER_SIZE * 7 // 20))

    _draw_lines(image, chart, x_of, y_of, (left - 6, plot_top - 6, right + 6, plot_bottom + 6))

    _x_labels(image, chart, left, right, plot_bottom + 8)
    _legend(image, chart, legend, axis_bottom + 4, row_h)
    return image


def _x_labels(image: Image.Image, chart: Chart, left: int, right: int, y: int) -> None:
    """Under the x axis: the first game's date at the left, the last's at the right, how many
    games between them."""
    theme = THEME
    start = text_line(fit(chart.start, NUMBER_SIZE, False, (right - left) // 3), NUMBER_SIZE, False, theme.muted)
    end = text_line(fit(chart.end, NUMBER_SIZE, False, (right - left) // 3), NUMBER_SIZE, False, theme.muted)
    # the middle label has what the dates leave, centred between them
    room = right - left - 2 * max(start.width if chart.start else 0, end.width if chart.end else 0) - 16
    middle = text_line(fit(chart.axis, NUMBER_SIZE, False, room), NUMBER_SIZE, False, theme.text)
    if chart.start:
        paste_text(image, start, (left, y))
    if chart.end:
        paste_text(image, end, (right - end.width, y))
    if chart.axis:
        paste_text(image, middle, ((left + right - middle.width) // 2, y))


def _legend(image: Image.Image, chart: Chart, rows: list[list[int]], top: int, row_h: int) -> None:
    """Each line's colour, its player's name (cut to fit) and his total, two a row."""
    theme = THEME
    draw = ImageDraw.Draw(image)
    column = (WIDTH - 2 * PAD) // 2
    for r, row in enumerate(rows):
        y = top + r * row_h
        for c, index in enumerate(row):
            line = chart.lines[index]
            x = PAD + c * column
            colour = COLOURS[index % len(COLOURS)]
            mid = y + NUMBER_SIZE // 2 + 3
            draw.line((x + 4, mid, x + 30, mid), fill=colour, width=5)
            note = text_line(line.note, NUMBER_SIZE, True, colour) if line.note else None
            room = column - 40 - (note.width + 8 if note else 0) - 8
            name = text_line(fit(line.label, NUMBER_SIZE, False, room), NUMBER_SIZE, False, theme.text)
            paste_text(image, name, (x + 38, y))
            if note:
                paste_text(image, note, (x + 38 + name.width + 8, y))


def _draw_lines(image: Image.Image, chart: Chart, x_of, y_of, box: tuple[int, int, int, int]) -> None:
    """The lines (last drawn first, so the leader's is on top), at :data:`SUPERSAMPLE` × the size
    over ``box`` and reduced: smooth edges."""
    s = SUPERSAMPLE
    x0, y0, x1, y1 = box
    layer = image.crop(box).resize(((x1 - x0) * s, (y1 - y0) * s), Image.Resampling.NEAREST)
    draw = ImageDraw.Draw(layer)
    dots = max(len(line.values) for line in chart.lines) <= 40
    columns = x1 - x0
    for index in reversed(range(len(chart.lines))):
        line = chart.lines[index]
        colour = COLOURS[index % len(COLOURS)]
        xy = [((x_of(k) - x0) * s, (y_of(v) - y0) * s) for k, v in _envelope(line.values, columns)]
        if len(xy) > 1:
            # round joints (a pie slice each, in Python) only where a corner can be seen
            draw.line(xy, fill=colour, width=3 * s, joint="curve" if len(xy) <= 60 else None)
        if dots or len(xy) == 1:
            r = 4 * s
            for x, y in xy if dots else xy[-1:]:
                draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    image.paste(layer.reduce(s), (x0, y0))


def _envelope(values: tuple[int, ...], columns: int) -> list[tuple[int, int]]:
    """``values`` as (step, value) points; with more than two a pixel column, only each column's
    lowest and highest (in their order) and the last: the same line, drawn in a time that does
    not grow with years of games."""
    if len(values) <= 2 * columns:
        return list(enumerate(values))
    points = [(0, values[0])]
    size = len(values) / columns
    for c in range(columns):
        a, b = round(c * size), round((c + 1) * size)
        if a >= b:
            continue
        low, high = min(values[a:b]), max(values[a:b])
        k_low, k_high = values.index(low, a, b), values.index(high, a, b)
        points += sorted({(k_low, low), (k_high, high)})
    points.append((len(values) - 1, values[-1]))
    return points


def render_chart(chart: Chart) -> bytes:
    """The chart as upload bytes: a palette PNG (a few dozen colours are all it has). Thread-safe."""
    image = chart_image(chart).quantize(PNG_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    image.save(buf, format=IMAGE_FORMAT, compress_level=COMPRESS_LEVEL)
    return buf.getvalue()


async def render_chart_async(chart: Chart) -> bytes:
    """:func:`render_chart` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_chart, chart)
