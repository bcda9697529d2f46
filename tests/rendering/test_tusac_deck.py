"""The Tứ Sắc deck: every face renders once, is distinct, and is tinted by its colour."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.games.tusac.sets import CODES, glyph
from rendering import BACK, card_sprite, get_deck, render_hand
from rendering.table import render_rows
from rendering.tusac import TINTS

DECK = get_deck("tusac")


def _pixels(img: Image.Image) -> list:
    get = getattr(img, "get_flattened_data", None) or img.getdata  # Pillow 12.1+ / older
    return list(get())


def _near(colour, tol: int = 40):
    def pred(px) -> bool:
        return px[3] > 200 and all(abs(a - b) <= tol for a, b in zip(px[:3], colour[:3]))
    return pred


def test_28_faces_and_back_render_at_size_and_are_cached():
    assert len(CODES) == 28 and DECK.codes() == list(CODES)
    for code in CODES + (BACK,):
        img = card_sprite(code, "tusac")
        assert img.mode == "RGBA" and img.size == DECK.card_size == (42, 96)
        assert card_sprite(code, "tusac") is img
    assert card_sprite(" rc ", "tusac") is card_sprite("RC", "tusac")


@pytest.mark.parametrize("bad", ["", "RX", "ZC", "AS", "RCC", "R"])
def test_unknown_codes_raise(bad):
    with pytest.raises(ValueError):
        card_sprite(bad, "tusac")


def test_every_face_is_distinct():
    faces = {card_sprite(code, "tusac").tobytes() for code in CODES}
    assert len(faces) == 28


def test_characters_follow_the_sides_of_the_board():
    assert "".join(glyph("R" + p) for p in "KAERCNP") == "帥仕相俥炮傌兵"
    assert "".join(glyph("Y" + p) for p in "KAERCNP") == "帥仕相俥炮傌兵"
    assert "".join(glyph("G" + p) for p in "KAERCNP") == "將士象車砲馬卒"
    assert "".join(glyph("W" + p) for p in "KAERCNP") == "將士象車砲馬卒"


@pytest.mark.parametrize("colour", "RYGW")
def test_faces_are_inked_in_their_colour_only(colour):
    for piece in "KCP":
        img = card_sprite(colour + piece, "tusac")
        pixels = _pixels(img)
        own = sum(map(_near(TINTS[colour][0]), pixels))
        assert own > 250, (colour + piece, own)  # frame, rings, two characters, the code
        for other in "RYGW".replace(colour, ""):
            assert sum(map(_near(TINTS[other][0], 25), pixels)) < own / 10, (colour + piece, other)


def test_the_character_is_drawn_in_the_disc():
    # the top disc's centre area holds ink of the character, not only the disc's fill
    for code in ("RK", "WP", "GN", "YE"):
        img = card_sprite(code, "tusac")
        disc = img.crop((10, 10, 32, 32))
        assert sum(map(_near(TINTS[code[0]][0]), _pixels(disc))) > 40, code


def test_hand_and_rows_render_with_the_deck():
    png = render_hand([["RR", "RC", "RN"], ["GN", "GN", "GN"], ["WA"]], marked=[4], selected=[6],
                      caption="trash 1 · khap 1", deck="tusac")
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.width >= 7 * 34
    png = render_rows([("Lan", [["YK", "YA", "YE"], ["WP", "GP", "RP"]], "value 3")], deck="tusac")
    assert Image.open(io.BytesIO(png)).format == "PNG"
