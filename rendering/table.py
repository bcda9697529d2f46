"""Several labelled hands in one picture: the end-of-game showdown and the public table."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from . import _async
from .compose import (THEME, CardsBlock, HeaderBlock, Separator, Stack, TextBlock, common_step, inner_width,
                      render_stack)
from .encode import encode_picture
from .sprites import Deck, get_deck

__all__ = ["render_rows", "render_rows_async", "rows_image"]

Row = tuple  # (label, groups, caption) or (label, groups, caption, marked)


def rows_image(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french"):
    """The rows as a PIL image (see :func:`render_rows`)."""
    theme = THEME
    max_w = inner_width(theme)
    d = get_deck(deck)
    stack = Stack()
    if title:
        stack.add(TextBlock(title, theme.title_size, theme.text, bold=True, max_width=max_w))
    step = common_step([r[1] for r in rows], d, max_w, theme.group_gap)
    for i, row in enumerate(rows):
        label, groups, caption = row[0], row[1], row[2]
        marked: Collection[int] = row[3] if len(row) > 3 else ()
        if i > 0 or title:
            stack.add(Separator(theme=theme), gap=12)
        if label or caption:
            stack.add(HeaderBlock(label, caption, max_width=max_w, theme=theme), gap=10)
        stack.add(CardsBlock(groups, deck=d, marked=marked, show_index=False,
                             reserve_raise=False, reserve_bar=bool(marked), step=step,
                             max_width=max_w),
                  gap=8)
    return render_stack(stack, theme)


def render_rows(rows: Sequence[Row], *, title: str = "", deck: str | Deck = "french") -> bytes:
    """The upload bytes (:func:`rendering.encode.encode_picture`) of one labelled row of cards per entry of ``rows``.

    Each row is ``(label, groups, caption)``: a bold label and a muted caption above the
    row's card groups (fanned, gaps between groups). An optional fourth element gives the
    row's marked (eaten) positions, underlined as in :func:`rendering.hand.render_hand`.
    Rows share one fan step so they line up. Empty rows show an empty card slot.
    """
    return encode_picture(rows_image(rows, title=title, deck=deck), deck)


async def render_rows_async(rows: Sequence[Row], *, title: str = "",
                            deck: str | Deck = "french") -> bytes:
    """:func:`render_rows` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_rows, rows, title=title, deck=deck)
