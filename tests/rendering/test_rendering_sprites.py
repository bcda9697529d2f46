"""Card sprites: every code renders once, is cached, and has the right colours."""

from __future__ import annotations

import pytest
from PIL import Image

from rendering import BACK, back_sprite, card_sprite, get_deck, register_deck, render_hand
from rendering.french import FrenchDeck
from rendering.sprites import Deck

FRENCH = get_deck("french")
CODES = [r + s for s in "SHDC" for r in "A23456789TJQK"]


def test_52_codes_back_and_joker_render_and_are_cached():
    assert len(set(CODES)) == 52
    for code in CODES + ["JK", BACK]:
        img = card_sprite(code)
        assert img.mode == "RGBA"
        assert img.size == FRENCH.card_size == (72, 104)
        assert card_sprite(code) is img
    assert back_sprite() is card_sprite(BACK) is card_sprite("back")


def test_aliases_share_the_cached_sprite():
    assert card_sprite("as") is card_sprite("AS")
    assert card_sprite("10D") is card_sprite("TD")
    assert card_sprite(" kc ") is card_sprite("KC")


@pytest.mark.parametrize("bad", ["", "1S", "AX", "ZZ", "11H", "A"])
def test_unknown_codes_raise(bad):
    with pytest.raises(ValueError):
        card_sprite(bad)


def test_unknown_deck_raises():
    with pytest.raises(KeyError):
        card_sprite("AS", deck="nope")


def test_faces_are_mostly_opaque_with_rounded_transparent_corners():
    img = card_sprite("7C")
    alpha = img.getchannel("A")
    assert alpha.getpixel((0, 0)) < 40            # rounded corner
    assert alpha.getpixel((36, 52)) == 255         # body
    assert img.getpixel((20, 80))[:3] == pytest.approx((253, 253, 250), abs=6)  # white face


def _count(img: Image.Image, pred) -> int:
    img = img.convert("RGBA")
    get = getattr(img, "get_flattened_data", None) or img.getdata  # Pillow 12.1+ / older
    return sum(1 for px in get() if px[3] > 200 and pred(px))


def _red(px):
    r, g, b, _ = px
    return r > 150 and g < 90 and b < 90


def _dark(px):
    r, g, b, _ = px
    return r < 80 and g < 80 and b < 80


@pytest.mark.parametrize("rank", list("A5TQ"))
def test_red_suits_are_red_and_black_suits_dark(rank):
    for suit in "HD":
        img = card_sprite(rank + suit)
        assert _count(img, _red) > 150, rank + suit
        assert _count(img, _dark) < 10, rank + suit
    for suit in "SC":
        img = card_sprite(rank + suit)
        assert _count(img, _dark) > 150, rank + suit
        assert _count(img, _red) == 0, rank + suit


def test_centre_pip_colour():
    assert _red(card_sprite("5H").getpixel((36, 52)))
    assert _red(card_sprite("5D").getpixel((36, 52)))
    assert _dark(card_sprite("5S").getpixel((36, 54)))
    assert _dark(card_sprite("5C").getpixel((36, 54)))


class _TinyDeck(Deck):
    """A whole deck in a dozen lines: what a new game's sprite module has to provide."""

    name = "tiny-test"
    card_size = (40, 60)
    fan_step = (16, 24)

    def normalize(self, code):
        c = code.strip().upper()
        if c in ("R", "G"):
            return c
        raise ValueError(code)

    def codes(self):
        return ["R", "G"]

    def draw_face(self, code):
        cv = self.canvas()
        colour = (200, 0, 0, 255) if code == "R" else (0, 150, 0, 255)
        cv.draw.ellipse(cv.box(8, 18, 32, 42), fill=colour)
        return cv.finish()

    def draw_back(self):
        return self.canvas(fill=(20, 20, 120, 255)).finish()


def test_a_new_deck_is_a_small_subclass():
    deck = _TinyDeck()
    register_deck(deck)
    assert card_sprite("r", deck="tiny-test").size == (40, 60)
    png = render_hand([["R", "G"], ["??"]], deck="tiny-test", selected=[0])
    assert png.startswith(b"\x89PNG")


def test_sprites_fill_safely_from_threads():
    from concurrent.futures import ThreadPoolExecutor

    class Fresh(FrenchDeck):
        name = "french-thread-test"

    register_deck(Fresh())
    codes = CODES[:20]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda c: card_sprite(c, "french-thread-test"), codes * 3))
    for code, img in zip(codes * 3, results):
        assert img is card_sprite(code, "french-thread-test")
    # the same pixels as the registered French deck draws
    assert card_sprite("QS", "french-thread-test").tobytes() == card_sprite("QS").tobytes()


# ------------------------------------------------------------ a joker standing for a card

def _purple(px):
    r, g, b, _ = px
    return 70 < r < 150 and g < 90 and b > 130


@pytest.mark.parametrize("code, canonical", [
    ("JK=5H", "JK=5H"), ("jk=10h", "JK=TH"), (" Jk = qs ", "JK=QS"), ("jk=as", "JK=AS"),
])
def test_stand_in_codes_normalise_the_represented_card(code, canonical):
    assert FRENCH.normalize(code) == canonical
    assert card_sprite(code) is card_sprite(canonical)


@pytest.mark.parametrize("bad", ["JK=", "=5H", "JK=JK", "JK=1H", "5H=5H", "QK=5H", "JK=5H=5H",
                                 "JK=BACK", "JK=??", "JK=7O"])
def test_stand_in_codes_refuse_what_is_not_a_joker_as_a_plain_card(bad):
    with pytest.raises(ValueError):
        card_sprite(bad)


def test_stand_ins_are_drawn_on_first_use_but_not_listed():
    assert not any("=" in code for code in FRENCH.codes())
    img = card_sprite("JK=5H")
    assert img.mode == "RGBA" and img.size == FRENCH.card_size
    assert card_sprite("jk=5h") is img
    # the face-down card is still the face-down card
    assert card_sprite("back") is back_sprite() is card_sprite(BACK)


def test_a_stand_in_differs_from_the_joker_the_card_and_other_stand_ins():
    faces = [card_sprite(c).tobytes() for c in ("JK=5H", "JK", "5H", "JK=5D", "JK=6H")]
    assert len(set(faces)) == len(faces)


def test_a_stand_in_shows_the_joker_and_the_card_in_the_corner_a_fan_leaves_visible():
    strip = (0, 0, 26, FRENCH.card_size[1])
    red = card_sprite("JK=5H").crop(strip)
    assert _count(red, _purple) > 30           # the joker's star and frame
    assert _count(red, _red) > 40              # the 5 and the heart
    black = card_sprite("JK=5S").crop(strip)
    assert _count(black, _dark) > 40
    assert _count(black, _red) == 0
    assert _count(card_sprite("5H").crop(strip), _purple) == 0
