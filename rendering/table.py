"""Several labelled hands in one picture: a round's result and a game's (the cards that decided
them, a seat's numbers on one line over its cards), with the boxes of :mod:`rendering.layout`
and the choice of :mod:`rendering.table_picture`'s pictures (:func:`rendering.landscape.best`)."""

from __future__ import annotations

from collections.abc import Sequence

from . import _async
from .encode import encode_picture
from .landscape import PICTURE_THEME, Column, Grid, Loss, best, column_counts, draw_picture, readable_size, widths_for
from .layout import Box, Cards, Header, Style, Text, common_step, facts
from .sprites import Deck, get_deck

__all__ = ["CARD_PX", "MIN_ASPECT", "render_rows", "render_rows_async", "rows_image"]

Row = tuple  # (label, groups, caption) or (label, groups, caption, marked)

#: How tall a card is, at least, once a round or result picture is shown 400 px wide (+1: a margin).
CARD_PX = 41
#: The least width / height of a round or result picture.
MIN_ASPECT = 1.1
GAP = 12


def _bars(groups: Sequence[Sequence[str]], marked) -> tuple[tuple[int, ...], ...]:
    """The positions ``marked`` in the flat run of ``groups``, per group."""
    bars, start = [], 0
    marked = set(marked)
    for group in groups:
        bars.append(tuple(k for k in range(len(group)) if start + k in marked))
        start += len(group)
    return tuple(bars)


def _panel(row: Row, deck: Deck, style: Style, inner: int, step: int | None) -> Box:
    label, groups, caption = row[0], [tuple(g) for g in row[1]], row[2]
    marked = row[3] if len(row) > 3 else ()
    header = Header(label, (), facts(caption), style=style, width=inner, colour=style.theme.text, deck=deck.name,
                    two_lines=True)
    parts: list = [(header, 0)]
    cards = Cards(tuple(groups), deck=deck.name, width=inner, style=style, step=step,
                  bars=_bars(groups, marked)) if any(groups) else None
    if cards is not None:
        parts.append((cards, 6))
    box = Box(Column(parts), theme=style.theme)
    box.lost = header.lost + Loss(0, cards.splits if cards is not None else 0)
    return box


def _arrangements(rows: Sequence[Row], title: str, deck: Deck):
    """(block, the width its text is sized for) of each arrangement tried: a few widths, the
    panels in 1 to 6 columns, or the first (the winner's) across the picture over the others
    in columns."""
    theme = PICTURE_THEME
    filled = [[tuple(g) for g in r[1] if g] for r in rows]
    least = deck.card_size[0] + deck.fan_step[0]
    for width in widths_for(deck.card_size[1], CARD_PX):
        style = Style(readable_size(width))
        content = width - 2 * theme.padding
        head = Text(title, style.size, True, theme.text, content) if title else None
        shapes = [(0, columns) for columns in column_counts(max(1, len(rows)))]
        shapes += [(1, columns) for columns in column_counts(len(rows) - 1)] if len(rows) > 2 else []
        for lead, columns in shapes:
            inner = (content - (columns - 1) * GAP) // columns - 2 * Box.PAD
            if rows and inner < max(least, 3 * style.size):
                continue
            step = common_step(filled, deck, inner, theme.group_gap)
            first = [_panel(rows[0], deck, style, content - 2 * Box.PAD, step)] if lead else []
            panels = [_panel(row, deck, style, inner, step) for row in rows[lead:]]
            grid = Grid(panels, columns, GAP) if panels else None
            for panel in first:  # as wide as the grid under it
                panel.width = max(panel.width, grid.width if grid else 0)
            block = Column([(head, 0)] + [(p, GAP) for p in first] + [(grid, GAP)])
            block.lost = sum((p.lost for p in first + panels), Loss())
            yield block, width


def rows_image(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french"):
    """The rows as a PIL image (see :func:`render_rows`)."""
    d = get_deck(deck)
    block = best(_arrangements(rows, title, d), d.card_size[1], CARD_PX, MIN_ASPECT)
    return draw_picture(block, PICTURE_THEME, min_width=PICTURE_THEME.min_width)[0]


def render_rows(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french") -> bytes:
    """The upload bytes (:func:`rendering.encode.encode_picture`) of one labelled row of cards per entry of ``rows``.

    Each row is ``(label, groups, caption)``: in a framed panel, a line with the bold label and
    the caption's facts (" · ": "27 points · +4 chips"; as many as fit, the embed says them all),
    over the row's card groups (fanned, gaps between groups). An optional fourth element gives
    the row's marked positions, underlined as in :func:`rendering.hand.render_hand`. Rows
    share one fan step so they line up; a row without cards is its line alone. The panels are
    set in a grid (the first, the winner's, maybe across the picture over it) whose columns and
    width are chosen so the cards are shown large and the picture wider than tall
    (:func:`rendering.landscape.best`).
    """
    return encode_picture(rows_image(rows, title=title, deck=deck), deck)


async def render_rows_async(rows: Sequence[Row], *, title: str = "",
                            deck: str | Deck = "french") -> bytes:
    """:func:`render_rows` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_rows, rows, title=title, deck=deck)
