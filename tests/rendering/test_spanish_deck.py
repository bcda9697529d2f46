"""The Spanish deck: every code renders, suits keep their colours, figures stand out, jokers
standing for a card show both facts, and the deck goes through the shared hand layout."""

from __future__ import annotations

import io
import time
from itertools import combinations

import pytest
from PIL import Image, ImageChops

from rendering import (BACK, back_sprite, card_sprite, get_deck, register_deck, render_hand,
                       warm_sprites)
from rendering.spanish import PALETTE, SpanishDeck

SPANISH = get_deck("spanish")
SUITS = "OCEB"
RANKS = [str(n) for n in range(1, 13)]
CODES = [r + s for s in SUITS for r in RANKS]
PACK_40 = [r + s for s in SUITS for r in RANKS if r not in ("8", "9")]


def _pixels(img: Image.Image):
    data = img.convert("RGBA").tobytes()  # getdata() is deprecated in Pillow 13
    return zip(data[0::4], data[1::4], data[2::4], data[3::4])


def _count(img: Image.Image, pred) -> int:
    return sum(1 for r, g, b, a in _pixels(img) if a > 200 and pred(r, g, b))


SUIT_COLOUR = {
    "O": lambda r, g, b: r > 180 and 130 < g < 215 and b < 90,                # gold
    "C": lambda r, g, b: r > 150 and g < 80 and b < 90,                       # red
    "E": lambda r, g, b: b > 140 and r < 90 and g < 130,                      # blue
    "B": lambda r, g, b: g > 90 and r < 90 and b < 110 and g > r + 40,        # green
}


def _purple(r, g, b):
    return 70 < r < 150 and g < 90 and b > 130


def _differing_pixels(a: Image.Image, b: Image.Image, threshold: int = 60) -> int:
    """Pixels whose colour differs noticeably (summed over RGB), not just by anti-aliasing."""
    diff = ImageChops.difference(a, b)
    return sum(1 for r, g, b_, _ in _pixels(diff) if r + g + b_ > threshold)


# ---------------------------------------------------------------------------- codes

def test_codes_are_the_48_cards_and_the_joker():
    codes = SPANISH.codes()
    assert sorted(codes) == sorted(CODES + ["JK"])
    assert len(set(codes)) == 49
    assert set(PACK_40) < set(codes)


@pytest.mark.parametrize("code, canonical", [
    ("1o", "1O"), ("12B", "12B"), (" 7e ", "7E"), ("10c", "10C"), ("11o", "11O"),
    ("jk", "JK"), (" Jk ", "JK"),
    ("jk=7o", "JK=7O"), (" JK = 12b ", "JK=12B"), ("jK=1E", "JK=1E"),
])
def test_normalize_accepts_any_case_and_spacing(code, canonical):
    assert SPANISH.normalize(code) == canonical


@pytest.mark.parametrize("bad", [
    "13O", "0C", "AS", "", "O", "1", "10", "01O", "1X", "5H", "TO", "12OO", "1 O",
    "JK=", "JK=JK", "JK=13O", "JK=5H", "JK=BACK", "JK=??", "7O=JK", "JK=7O=7O",
])
def test_normalize_refuses_what_is_not_a_spanish_card(bad):
    with pytest.raises(ValueError):
        SPANISH.normalize(bad)
    with pytest.raises(ValueError):
        card_sprite(bad, deck="spanish")


# ---------------------------------------------------------------------------- sprites

def test_every_code_and_the_back_render_at_card_size_and_are_cached():
    assert SPANISH.card_size == get_deck("french").card_size == (72, 104)
    for code in SPANISH.codes() + [BACK]:
        img = card_sprite(code, deck="spanish")
        assert img.mode == "RGBA" and img.size == SPANISH.card_size, code
        assert card_sprite(code.lower(), deck="spanish") is img
    assert back_sprite("spanish") is card_sprite("back", deck="spanish")
    assert back_sprite("spanish").tobytes() != back_sprite("french").tobytes()


def test_the_48_faces_are_pairwise_distinct():
    faces = {card_sprite(code, deck="spanish").tobytes() for code in CODES}
    assert len(faces) == 48


@pytest.mark.parametrize("suit", list(SUITS))
def test_each_suit_is_drawn_in_its_colour_and_no_other_suits(suit):
    for rank in RANKS:
        img = card_sprite(rank + suit, deck="spanish")
        assert _count(img, SUIT_COLOUR[suit]) > 150, rank + suit
        # gold is also the hilt, the cup's lip and the rey's crown; the other inks are not shared
        for other in "CEB":
            if other != suit:
                assert _count(img, SUIT_COLOUR[other]) < 10, (rank + suit, other)


@pytest.mark.parametrize("suit", list(SUITS))
def test_figures_differ_from_each_other_and_from_the_numeral_cards(suit):
    figures = [card_sprite(r + suit, deck="spanish") for r in ("10", "11", "12")]
    numerals = [card_sprite(str(n) + suit, deck="spanish") for n in range(1, 10)]
    for a, b in combinations(figures, 2):
        assert _differing_pixels(a, b) > 150
    for fig in figures:
        for num in numerals:
            assert _differing_pixels(fig, num) > 400

    # the tinted panel is what makes a figure stand out at a glance
    tint = PALETTE[suit][3][:3]

    def on_tint(r, g, b):
        return all(abs(x - y) <= 6 for x, y in zip((r, g, b), tint))

    for fig in figures:
        assert _count(fig, on_tint) > 800
    for num in numerals:
        assert _count(num, on_tint) < 150


def test_the_ace_is_one_large_pip():
    for suit in SUITS:
        ace = _count(card_sprite("1" + suit, deck="spanish"), SUIT_COLOUR[suit])
        two = _count(card_sprite("2" + suit, deck="spanish"), SUIT_COLOUR[suit])
        assert ace > two, suit


# ---------------------------------------------------------------------------- jokers

def test_the_joker_is_purple_and_differs_from_the_french_one():
    jk = card_sprite("JK", deck="spanish")
    assert _count(jk, _purple) > 300
    assert jk.tobytes() != card_sprite("JK").tobytes()


def test_a_stand_in_shows_the_joker_and_the_card_it_stands_for():
    jk7o = card_sprite("jk=7o", deck="spanish")
    assert jk7o is card_sprite("JK=7O", deck="spanish")
    assert jk7o.size == SPANISH.card_size and jk7o.mode == "RGBA"
    assert "JK=7O" not in SPANISH.codes()
    others = [card_sprite(c, deck="spanish") for c in ("JK", "7O", "JK=7C", "JK=6O")]
    assert len({img.tobytes() for img in [jk7o, *others]}) == 5
    # the strip a fan leaves visible carries the joker's purple and the coin's gold
    strip = jk7o.crop((0, 0, 26, SPANISH.card_size[1]))
    assert _count(strip, _purple) > 30
    assert _count(strip, SUIT_COLOUR["O"]) > 20
    assert _count(card_sprite("7O", deck="spanish").crop((0, 0, 26, 104)), _purple) == 0


# ---------------------------------------------------------------------------- layout

def test_a_seven_card_hand_with_a_joker_renders_like_a_french_one():
    groups = [["1O", "2O", "3O"], ["7C", "7E", "JK"], ["12B"]]
    png = render_hand(groups, deck="spanish", selected=[6], caption="Chinchón")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    french = Image.open(io.BytesIO(render_hand([["AS", "2S", "3S"], ["7H", "7D", "JK"], ["KC"]],
                                               selected=[6], caption="Chinchón")))
    assert img.size == french.size  # same card size and fan: hands mix in the shared layout
    png = render_hand([["4E", "JK=5E", "6E"], ["10B", "10C", "??"]], deck="spanish")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_warming_the_whole_deck(capsys):
    class Cold(SpanishDeck):
        name = "spanish-warm-test"

    register_deck(Cold())
    start = time.perf_counter()
    count = warm_sprites("spanish-warm-test")
    elapsed = time.perf_counter() - start
    assert count == 50  # 48 cards, the joker and the back
    with capsys.disabled():
        print(f"\nSpanish deck warm-up: {count} sprites in {elapsed * 1000:.0f} ms")
    fresh, registered = card_sprite("12E", "spanish-warm-test"), card_sprite("12E", "spanish")
    assert fresh.tobytes() == registered.tobytes()
