"""Uploads: palette PNG in one palette per deck, small, close to the RGB drawing."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

from PIL import Image

from rendering import BACK, IMAGE_EXTENSION, IMAGE_FORMAT, register_deck, render_hand, render_rows
from rendering.encode import PALETTE_COLOURS, deck_palette, encode_picture
from rendering.hand import hand_image
from rendering.sprites import get_deck
from rendering.table import rows_image
from rendering.tusac import TuSacDeck
from tests.support.uploads import MEAN_DIFFERENCE, RARE_DIFFERENCE, assert_close_upload, upload_difference


def big_hand(deck: str) -> Image.Image:
    """Every card of ``deck`` once, in groups of 7: two rows ~540 px wide in Tứ Sắc's deck, as big as its hands get."""
    codes = get_deck(deck).codes()[:24]
    return hand_image([codes[k:k + 7] for k in range(0, len(codes), 7)], selected=[3], marked=[5, 6],
                      title="Bài của Nguyễn Đức — lượt bạn", caption="trash 3 · khạp 2 · ♥ Ù", deck=deck)


def test_the_format_is_named_in_one_place():
    assert (IMAGE_FORMAT, IMAGE_EXTENSION) == ("PNG", "png")
    assert Image.registered_extensions()["." + IMAGE_EXTENSION] == IMAGE_FORMAT


def test_big_hands_are_small_palette_pngs_close_to_their_drawing():
    for deck, bound in (("tusac", 36_000), ("tosom", 30_000), ("french", 30_000), ("spanish", 30_000)):
        image = big_hand(deck)
        data = encode_picture(image, deck)
        assert_close_upload(data, image)
        assert len(data) < bound, (deck, len(data))
    tusac = big_hand("tusac")
    assert tusac.width > 500 and tusac.height > 2 * 96  # the biggest hands, in two rows: 31 KB


def test_render_hand_and_render_rows_upload_the_encoded_drawing():
    groups = [["2S", "3S", "4S"], ["JK=5H", "KD"], [BACK]]
    data = render_hand(groups, marked=[1], selected=[3], title="Đức", caption="Móm · 55 điểm")
    assert data == encode_picture(hand_image(groups, marked=[1], selected=[3], title="Đức", caption="Móm · 55 điểm"),
                                  "french")
    assert_close_upload(data, hand_image(groups, marked=[1], selected=[3], title="Đức", caption="Móm · 55 điểm"))
    rows = [("Lan", [["RK", "RA"], ["GN"]], "+3 stakes", [1]), ("Hòa", [], "")]
    data = render_rows(rows, title="Kết quả", deck="tusac")
    assert_close_upload(data, rows_image(rows, title="Kết quả", deck="tusac"))


def test_the_bounds_catch_a_palette_without_the_pictures_colours():
    """The quality bounds can fail: Tứ Sắc's coloured cards in the French deck's palette."""
    image = big_hand("tusac")
    mean, rare = upload_difference(encode_picture(image, "french"), image)
    assert mean > MEAN_DIFFERENCE or rare > RARE_DIFFERENCE
    mean, rare = upload_difference(encode_picture(image, "tusac"), image)
    assert mean <= MEAN_DIFFERENCE and rare <= RARE_DIFFERENCE


def test_one_palette_per_deck_chosen_once():
    palette = deck_palette("tusac")
    assert deck_palette("tusac") is palette and deck_palette(get_deck("tusac")) is palette
    assert palette.mode == "P" and len(palette.getpalette()) <= 3 * PALETTE_COLOURS
    assert deck_palette("french") is not palette


def test_a_deck_registered_again_gets_its_own_palette():
    class Green(TuSacDeck):
        name = "tusac-palette-test"

        def draw_face(self, code):
            return self.canvas(fill=(0, 200, 0, 255)).finish()

    class Blue(Green):
        def draw_face(self, code):
            return self.canvas(fill=(0, 0, 230, 255)).finish()

    register_deck(Green())
    green = deck_palette("tusac-palette-test")
    register_deck(Blue())
    blue = deck_palette("tusac-palette-test")
    assert blue is not green
    image = hand_image([["RK", "RA"]], deck="tusac-palette-test")
    decoded = assert_close_upload(encode_picture(image, "tusac-palette-test"), image)
    colours = [colour for _, colour in decoded.convert("RGB").getcolors(1 << 16)]
    assert any(max(abs(a - b) for a, b in zip(colour, (0, 0, 230))) <= 3 for colour in colours)
    assert not any(max(abs(a - b) for a, b in zip(colour, (0, 200, 0))) <= 40 for colour in colours)


def test_a_fresh_deck_encodes_the_same_from_several_threads():
    class Fresh(TuSacDeck):
        name = "tusac-thread-palette-test"

    register_deck(Fresh())
    image = big_hand("tusac")
    with ThreadPoolExecutor(max_workers=4) as pool:
        uploads = list(pool.map(lambda _: encode_picture(image, "tusac-thread-palette-test"), range(8)))
    assert len(set(uploads)) == 1
    assert uploads[0] == encode_picture(image, "tusac")  # the same deck's look, the same palette
    assert Image.open(io.BytesIO(uploads[0])).mode == "P"
