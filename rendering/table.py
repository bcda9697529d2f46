"""Several labelled hands in one picture: the end-of-game showdown and the public table."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from . import _async
from .compose import CardsBlock, HeaderBlock, TextBlock, common_step
from .encode import encode_picture
from .landscape import (PICTURE_THEME, VIEW, Column, Grid, Panel, choose, column_counts, draw_picture, panel_widths,
                        readable_size)
from .sprites import Deck, get_deck

__all__ = ["one_line_width", "render_rows", "render_rows_async", "rows_image"]

Row = tuple  # (label, groups, caption) or (label, groups, caption, marked)

PANEL_MIN, PANEL_MAX = 240, 900  # a player's panel, px
GRID_GAP = 10


def one_line_width(groups: Sequence[Sequence[str]], deck: Deck, gap: int) -> int:
    """The width of ``groups`` fanned on one line at the deck's tightest step."""
    sizes = [len(g) for g in groups if g]
    card_w, step = deck.card_size[0], deck.fan_step[0]
    return sum(card_w + step * (n - 1) for n in sizes) + gap * max(0, len(sizes) - 1) if sizes else card_w


def _panel(row: Row, deck: Deck, inner: int, step: int, theme) -> Panel:
    label, groups, caption = row[0], row[1], row[2]
    marked: Collection[int] = row[3] if len(row) > 3 else ()
    header = HeaderBlock(label, caption, max_width=inner, theme=theme) if label or caption else None
    # no groups: words only (a match's score board); an empty group: an empty slot (no card left)
    cards = CardsBlock(groups, deck=deck, marked=marked, show_index=False, reserve_raise=False,
                       reserve_bar=bool(marked), step=step, max_width=inner, theme=theme) if groups else None
    return Panel(Column([(header, 0), (cards, 8)]), outline=theme.empty_slot, theme=theme)


TITLE_MIN = 360  # the title's room when the panels are narrower


def readable_theme(width: int):
    """The theme of a picture at most ``width`` px wide (padding included): its words and
    numbers (points, totals, chips, ranks) large enough to read when the picture is shown
    :data:`~rendering.landscape.VIEW` wide (:func:`~rendering.landscape.readable_size`)."""
    size = readable_size(width)
    theme = PICTURE_THEME
    return replace(theme, caption_size=max(theme.caption_size, size), label_size=max(theme.label_size, size + 1),
                   title_size=max(theme.title_size, size + 2))


def _layouts(rows: Sequence[Row], title: str, deck: Deck):
    """Every arrangement tried: panels of a few widths, in 1 to 3 columns, each with its text
    as large as its width needs (:func:`readable_theme`)."""
    base = PICTURE_THEME
    if not rows:
        yield Column([(TextBlock(title, base.title_size, base.text, bold=True, max_width=600) if title else None, 0)])
        return
    natural = max(one_line_width(r[1], deck, base.group_gap) for r in rows)
    # wider panels too, where the words would take many lines (their size grows with the width)
    words = max(HeaderBlock(r[0], r[2], max_width=4000, theme=readable_theme(PANEL_MAX)).width for r in rows)
    widths = set(panel_widths(natural + 2 * Panel.PAD, PANEL_MIN, PANEL_MAX, lines=(1, 1.5, 2, 3, 4)))
    widths |= {w for w in panel_widths(words + 2 * Panel.PAD, PANEL_MIN, PANEL_MAX, lines=(1, 1.5, 2, 3))
               if w > max(widths)}
    for width in sorted(widths):
        inner = width - 2 * Panel.PAD
        step = common_step([r[1] for r in rows], deck, inner, base.group_gap)  # the rows line up
        for columns in column_counts(len(rows)):
            # the widest this layout may be: its text is sized for it
            most = max(columns * width + (columns - 1) * GRID_GAP, TITLE_MIN) + 2 * base.padding
            theme = readable_theme(most)
            grid = Grid([_panel(row, deck, inner, step, theme) for row in rows], columns, GRID_GAP)
            head = TextBlock(title, theme.title_size, theme.text, bold=True,
                             max_width=max(grid.width, TITLE_MIN)) if title else None
            yield Column([(head, 0), (grid, 10)])


def rows_image(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french"):
    """The rows as a PIL image (see :func:`render_rows`)."""
    block = choose(_layouts(rows, title, get_deck(deck)), PICTURE_THEME.padding, sized_text=True)
    return draw_picture(block, PICTURE_THEME, min_width=PICTURE_THEME.min_width)[0]


def render_rows(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french") -> bytes:
    """The upload bytes (:func:`rendering.encode.encode_picture`) of one labelled row of cards per entry of ``rows``.

    Each row is ``(label, groups, caption)``: a bold label and a muted caption above the
    row's card groups (fanned, gaps between groups), in a framed panel. An optional fourth
    element gives the row's marked (eaten) positions, underlined as in
    :func:`rendering.hand.render_hand`. Rows share one fan step so they line up. Empty rows
    show an empty card slot. The panels are set in a grid (1 to 3 columns) chosen so the
    picture is wider than tall and shown as large as can be in an embed
    (:func:`rendering.landscape.choose`).
    """
    return encode_picture(rows_image(rows, title=title, deck=deck), deck)


async def render_rows_async(rows: Sequence[Row], *, title: str = "",
                            deck: str | Deck = "french") -> bytes:
    """:func:`render_rows` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_rows, rows, title=title, deck=deck)
