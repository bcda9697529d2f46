"""A player's private hand as a picture (sent by DM): a palette PNG, see :mod:`rendering.encode`."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from . import _async
from .compose import THEME, CardsBlock, Stack, TextBlock, inner_width, render_stack
from .encode import encode_picture
from .sprites import Deck

__all__ = ["render_hand", "render_hand_async", "hand_image"]


def hand_image(groups: Sequence[Sequence[str]], *, marked: Collection[int] = (),
               selected: Collection[int] = (), caption: str = "", title: str = "",
               deck: str | Deck = "french", show_index: bool = True, index_base: int = 1):
    """The hand as a PIL image (see :func:`render_hand`)."""
    theme = THEME
    max_w = inner_width(theme)
    stack = Stack()
    if title:
        stack.add(TextBlock(title, theme.title_size, theme.text, bold=True, max_width=max_w))
    stack.add(CardsBlock(groups, deck=deck, marked=marked, selected=selected,
                         show_index=show_index, index_base=index_base, reserve_raise=True,
                         reserve_bar=True, max_width=max_w),
              gap=4)
    if caption:
        stack.add(TextBlock(caption, theme.caption_size, theme.muted, max_width=max_w), gap=8)
    return render_stack(stack, theme)


def render_hand(groups: Sequence[Sequence[str]], *, marked: Collection[int] = (),
                selected: Collection[int] = (), caption: str = "", title: str = "",
                deck: str | Deck = "french", show_index: bool = True,
                index_base: int = 1) -> bytes:
    """The upload bytes of a hand (:func:`rendering.encode.encode_picture`).

    ``groups``: the arranged cards (e.g. phỏm first, then leftovers), shown as fans separated
    by gaps. ``marked``/``selected``: flat 0-based positions in the concatenation of the
    groups; selected cards are raised and outlined, marked (eaten) cards underlined in amber.
    Each card gets its position printed under it, counted from ``index_base`` (1 by
    default, so the first card reads "1"). Wraps to several rows past ~1100 px.
    Pure and thread-safe; raises ``ValueError`` for a card code the deck does not know.
    """
    return encode_picture(hand_image(groups, marked=marked, selected=selected, caption=caption,
                                     title=title, deck=deck, show_index=show_index,
                                     index_base=index_base), deck)


async def render_hand_async(groups: Sequence[Sequence[str]], *, marked: Collection[int] = (),
                            selected: Collection[int] = (), caption: str = "", title: str = "",
                            deck: str | Deck = "french", show_index: bool = True,
                            index_base: int = 1) -> bytes:
    """:func:`render_hand` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_hand, groups, marked=marked, selected=selected,
                            caption=caption, title=title, deck=deck, show_index=show_index,
                            index_base=index_base)
