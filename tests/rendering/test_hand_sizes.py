"""Hands sized for a phone (issue #17): every hand of every game, at its largest, fits
~600 px (never over 640), its cards numbered 1..n in reading order, and the Chinese
characters of Chắn and Tứ Sắc cards at least 14 px tall once the picture is shown 400 px wide.

The hands are the real ones: each cog's ``hand_image`` on seat views of seeded AI games
(:mod:`tests.support.hands`), so every group shape the games produce is laid out.
"""

from __future__ import annotations

import functools

import pytest

from rendering.fonts import FONT_LOCK, cjk_font
from rendering.hand import HAND_THEME, hand_image, hand_plan
from rendering.sprites import SCALE, get_deck
from tests.support.hands import GAMES, largest_hands, shape, ui_of

#: The widest a hand picture may be, px; the layout aims at ~600.
MAX_WIDTH = 640
#: What a phone shows of a picture's width, px.
PHONE = 400
#: The least height of a card's Chinese character at that width, px.
MIN_GLYPH = 14
#: Each Chinese deck's characters and the font size its sprites draw them at
#: (rendering/tusac.py: the piece; rendering/tosom.py: the suit under the numeral).
GLYPHS = {"tusac": ("帥仕相俥炮傌兵將士象車砲馬卒", 24), "tosom": ("萬文索", 28)}


@functools.cache
def largest(game: str):
    return largest_hands(game)


def _reading_order(plan) -> list[int]:
    return [s.index for s in sorted(plan.slots, key=lambda s: (s.row, s.x))]


def _glyph_height(deck: str) -> float:
    """The shortest of the deck's characters, ink top to bottom, in sprite px."""
    chars, size = GLYPHS[deck]
    with FONT_LOCK:
        f = cjk_font(round(size * SCALE))
        heights = [f.getbbox(c, anchor="ls")[3] - f.getbbox(c, anchor="ls")[1] for c in chars]
    return min(heights) / SCALE


@pytest.mark.parametrize("game", list(GAMES))
def test_every_largest_hand_fits_a_phone(game):
    ui = ui_of(game)
    deck = get_deck(ui.deck)
    pad = HAND_THEME.padding
    images = largest(game)
    assert images and sum(shape(images[0])) >= {"chan": 20, "tusac": 21, "concan": 15, "phom": 10,
                                                 "chinchon": 8, "chinchon-spanish": 8}[game]
    for image in images:
        plan = hand_plan(image.groups, deck)
        n = sum(shape(image))
        assert plan.width + 2 * pad <= MAX_WIDTH, (shape(image), plan.width)
        assert _reading_order(plan) == list(range(n)), shape(image)
        assert plan.rows <= 3, (shape(image), plan.rows)
        # groups stay whole: a group spans rows only when it alone is wider than a row
        row_of = [s.row for s in plan.slots]
        start = 0
        for size in shape(image):
            rows = set(row_of[start:start + size])
            whole = deck.card_size[0] + plan.step * (size - 1)
            assert len(rows) == 1 or whole > plan.width, (shape(image), size)
            start += size
    for image in images[:3]:  # the real pictures, caption and title included
        picture = hand_image(image.groups, marked=image.marked, selected=image.selected,
                             caption=image.caption, title=image.title, deck=deck)
        assert picture.width <= MAX_WIDTH
        assert picture.height <= 720, (shape(image), picture.size)


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("arrangement", ["singles", "pairs", "one group"])
def test_extreme_group_shapes_fit(game, arrangement):
    """The game's most cards and one more, as lone cards, as pairs and as one group (a hand
    as dealt)."""
    deck = get_deck(ui_of(game).deck)
    n = sum(shape(largest(game)[0])) + 1
    codes = (deck.codes() * 3)[:n]
    groups = {"singles": [[c] for c in codes], "pairs": [codes[k:k + 2] for k in range(0, n, 2)],
              "one group": [codes]}[arrangement]
    plan = hand_plan(groups, deck)
    assert plan.width + 2 * HAND_THEME.padding <= MAX_WIDTH
    assert _reading_order(plan) == list(range(n))
    assert plan.rows <= 3
    picture = hand_image(groups, selected=[0], marked=[n - 1], deck=deck)
    assert picture.width <= MAX_WIDTH


@pytest.mark.parametrize("game,deck", [("tusac", "tusac"), ("chan", "tosom")])
def test_characters_readable_at_phone_width(game, deck):
    image = largest(game)[0]
    picture = hand_image(image.groups, marked=image.marked, selected=image.selected,
                         caption=image.caption, title=image.title, deck=deck)
    shown = _glyph_height(deck) * min(1.0, PHONE / picture.width)
    assert shown >= MIN_GLYPH, (picture.size, round(shown, 1))
