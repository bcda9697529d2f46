"""A player's private hand as a picture (sent by DM): a palette PNG, see :mod:`rendering.encode`.

Sized for a phone, which shows a picture about 400 px wide: the hand is laid out within
:data:`HAND_WIDTH` px (:data:`HAND_THEME`), in as few rows as fit, the rows balanced (the
narrowest width that needs no more rows), groups kept whole unless one alone is wider than a
row. A narrower picture is shrunk less: a 21-card Tứ Sắc hand in two rows is ~550 px wide
instead of ~1,090, its characters shown ~16 px tall at 400 px instead of ~8.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from . import _async
from .compose import THEME, CardPlan, CardsBlock, Stack, TextBlock, inner_width, plan_cards, render_stack
from .encode import encode_picture
from .sprites import Deck, get_deck

__all__ = ["HAND_WIDTH", "HAND_THEME", "hand_plan", "render_hand", "render_hand_async", "hand_image"]

#: The widest a hand picture gets, px (padding included): shown 400 px wide, it keeps 2/3 of its size at least.
HAND_WIDTH = 600
#: The hand's theme: :data:`rendering.compose.THEME` within :data:`HAND_WIDTH`, with the
#: position numbers (what the select menu names) and the text a little larger, as the
#: picture is shown at 2/3 of its size or more.
HAND_THEME = replace(THEME, max_width=HAND_WIDTH, index_size=15, caption_size=17, title_size=20)


def hand_plan(groups: Sequence[Sequence[str]], deck: str | Deck = "french",
              theme=HAND_THEME) -> CardPlan:
    """Where the hand's cards go (:func:`rendering.compose.plan_cards` within the theme's
    width): one row at the most generous fan step that fits, else rows at the deck's tightest
    step (each card still shows its face), balanced, so they are as narrow as they get."""
    return plan_cards(groups, get_deck(deck), inner_width(theme), theme.group_gap)


def hand_image(groups: Sequence[Sequence[str]], *, marked: Collection[int] = (),
               selected: Collection[int] = (), caption: str = "", title: str = "",
               deck: str | Deck = "french", show_index: bool = True, index_base: int = 1):
    """The hand as a PIL image (see :func:`render_hand`)."""
    theme = HAND_THEME
    max_w = inner_width(theme)
    stack = Stack()
    if title:
        stack.add(TextBlock(title, theme.title_size, theme.text, bold=True, max_width=max_w, theme=theme))
    stack.add(CardsBlock(groups, deck=deck, marked=marked, selected=selected,
                         show_index=show_index, index_base=index_base, reserve_raise=True,
                         reserve_bar=True, max_width=max_w,
                         theme=theme),
              gap=4)
    if caption:
        stack.add(TextBlock(caption, theme.caption_size, theme.muted, max_width=max_w, theme=theme), gap=8)
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
    default, so the first card reads "1"). Wraps to rows within :data:`HAND_WIDTH` px.
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
