"""The Tổ Tôm deck: every kind renders, is cached, red cards are stamped red."""

from __future__ import annotations

import pytest

from bot.games.tosom import KINDS, RED_KINDS
from rendering import BACK, card_sprite, get_deck, render_hand


def red_pixels(img) -> int:
    data = img.convert("RGBA").tobytes()  # getdata() is deprecated in Pillow 13
    pixels = zip(data[0::4], data[1::4], data[2::4], data[3::4])
    return sum(1 for r, g, b, a in pixels if a > 200 and r > 150 and g < 90 and b < 90)


def test_every_kind_renders_tall_and_cached():
    deck = get_deck("tosom")
    assert deck.card_size[1] > 2 * deck.card_size[0]
    assert len(KINDS) == 25
    for code in list(KINDS) + [BACK]:
        img = card_sprite(code, deck="tosom")
        assert img.size == deck.card_size and img.mode == "RGBA"
        assert card_sprite(code.lower(), deck="tosom") is img


def test_faces_are_distinct():
    faces = {card_sprite(code, deck="tosom").tobytes() for code in KINDS}
    assert len(faces) == 25


def test_red_cards_are_red():
    for code in KINDS:
        reds = red_pixels(card_sprite(code, deck="tosom"))
        if code in RED_KINDS:
            assert reds > 150, code
        else:
            assert reds < 20, code


@pytest.mark.parametrize("bad", ["", "1V", "TW", "AS", "CCC", "2X"])
def test_unknown_codes_raise(bad):
    with pytest.raises(ValueError):
        card_sprite(bad, deck="tosom")


def test_hand_renders_with_duplicates():
    png = render_hand([["2V", "2V"], ["8V", "8W"], ["CC"]], caption="2 chắn / 1 cạ / 1 rác", deck="tosom")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
