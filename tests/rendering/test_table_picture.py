"""The table as a picture: seats around it, piles, labelled groups of cards."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
import time

from PIL import Image, ImageChops

from rendering import BACK
from rendering.compose import THEME
from rendering.encode import encode_picture
from rendering.sprites import card_shadow, card_sprite, get_deck
from rendering.landscape import PICTURE_THEME
from rendering.badges import Badge
from rendering.layout import ACTIVE, Header, Style
from rendering.table_picture import (Group, Pile, Row, SeatBox, Section, TablePicture, glyphs_used, picture_names,
                                     printable, render_table_picture, seat_panel, shadowed_sprite,
                                     table_picture_image)
from tests.support.uploads import assert_close_upload


def picture(seats: int = 4, melds: int = 6, active: int = 1) -> TablePicture:
    cards = ["KH KS KD", "4C 5C JK=6C 7C", "9D TD JD QD KD AD", "2S 3S 4S", "8H 8S 8C JK=8D", "TC TD TS"]
    return TablePicture(
        title="Concan · table #3 · round 2/9",
        seats=tuple(SeatBox(f"Player {i}", f"{14 - i} cards · opened\ntotal {10 * i}", active=i == active,
                            badges=(Badge("hand", str(14 - i)), Badge("opened"), Badge("total", str(10 * i))))
                    for i in range(seats)),
        piles=(Pile("Stock", BACK, "42 cards"), Pile("Discard", "7C", "5 cards")),
        sections=(Section("Melds on the table",
                          tuple(Group(str(i + 1), tuple(cards[i % 6].split()))
                                for i in range(melds))),),
    )


def test_renders_a_png_with_every_part():
    png = render_table_picture(picture())
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width >= 1.25 * image.height and image.width <= 1000


def panel_image(seat: SeatBox, row: Row | None = None, inner: int = 400) -> Image.Image:
    panel = seat_panel(seat, row, deck="tosom", style=Style(30), inner=inner, step=None)
    image = Image.new("RGB", (panel.width, panel.height), THEME.background)
    panel.draw(image, 0, 0)
    return image


def test_the_player_to_act_is_outlined():
    for active in (False, True):
        image = panel_image(SeatBox("Lan", active=active, badges=(Badge("hand", "9"),)))
        assert (ACTIVE in [image.getpixel((60, y)) for y in range(0, 4)]) == active


def test_a_seats_header_is_one_line_its_numbers_after_its_name():
    style = Style(30)
    badges = (Badge("hand", "9"), Badge("total", "75"), Badge("jokers", "2"))
    header = Header("Lan", badges, (), style=style, width=400, colour=(255, 255, 255))
    assert header.items and len(header.items) == 3 and header.height == header.line_h and not header.cut
    # narrower: the name is shortened first, then the glyphs alone, then the last numbers are left out
    narrow = Header("Nguyễn Thị Minh Khai", badges + (Badge("opened"),), (), style=style, width=300,
                    colour=(255, 255, 255))
    assert narrow.cut and narrow.width <= 300 and narrow.height == narrow.line_h
    assert [item.glyph for _kind, item, _w in narrow.items] == ["hand", "total", "jokers"]
    tiny = Header("Nguyễn Thị Minh Khai", badges, (), style=style, width=200, colour=(255, 255, 255))
    assert tiny.width <= 200 and tiny.lost.numbers == 3 - len(tiny.items)


def test_six_seats_fit_and_more_melds_make_a_bigger_picture():
    small = table_picture_image(picture(seats=6, melds=2))
    big = table_picture_image(picture(seats=6, melds=14))
    assert small.width <= 1100 and big.width <= 1300  # (14 melds of 3 to 6 cards: a heavy table)
    assert big.width * big.height > small.width * small.height
    assert small.width >= 1.25 * small.height and big.width >= 1.25 * big.height


def test_the_glyphs_a_picture_shows_are_named_for_its_legend():
    assert glyphs_used(picture()) == ["hand", "total", "opened"]
    rows = (Row("Lan", (Group("", ("2V",), glyph="discards"), Group("", ("3V", "4V"), (1,)))),)
    assert glyphs_used(TablePicture(title="t", seats=(SeatBox("Lan"),), sections=(Section("", rows=rows),))) == \
        ["discards", "eaten"]


def test_an_empty_section_says_so():
    empty = TablePicture(title="t", sections=(Section("Melds", (), empty="No meld yet"),))
    assert table_picture_image(empty).height < table_picture_image(picture()).height


def test_render_time_is_printed():
    render_table_picture(picture())  # warm
    times = []
    for _ in range(5):
        start = time.perf_counter()
        render_table_picture(picture())
        times.append((time.perf_counter() - start) * 1000)
    print(f"table picture (4 seats, 6 melds): {sorted(times)[2]:.1f} ms median")


# ---------------------------------------------------------------------------- rows of players

def rows_picture(rows: tuple[Row, ...], deck: str = "tosom") -> TablePicture:
    return TablePicture(title="Chắn · table #1",
                        seats=tuple(SeatBox(r.label, "19 in hand", active=r.active, badges=(Badge("hand", "19"),))
                                    for r in rows),
                        piles=(Pile("Stock", BACK, "23 cards"), Pile("On offer", None)),
                        sections=(Section("Trash rows and pairs laid", rows=rows, empty="No card on the table yet."),),
                        deck=deck)


def test_rows_render_and_empty_rows_stay_small():
    trash = ("2V", "3W", "4S", "5V", "6W", "7S", "8V", "9W", "CC", "2S")
    full = tuple(Row(f"Player {i}", (Group("", trash[:i + 7], glyph="discards"), Group("", ("3V", "3V")),
                                     Group("", ("4W", "4S"))), active=i == 1) for i in range(4))
    some = (full[0], Row("Player 1", (Group("", (), glyph="discards"),)), full[2], Row("Player 3", ()))
    none = tuple(Row(r.label, (Group("", (), glyph="discards"),)) for r in full)
    big, mid, small = (table_picture_image(rows_picture(r)) for r in (full, some, none))
    assert big.width <= 1100 and big.width * big.height >= mid.width * mid.height > small.width * small.height
    assert small.height < big.height  # the seats' panels without cards
    assert all(image.width >= 1.25 * image.height for image in (big, mid, small))


def test_the_player_to_act_is_outlined_and_his_name_highlighted():
    for i in range(4):
        image = panel_image(SeatBox(f"Player {i}", active=i == 2), Row(f"Player {i}", (Group("", ("2V", "3V")),)))
        colours = {image.getpixel((x, y)) for x in range(image.width) for y in range(0, 40)}
        assert (ACTIVE in colours) == (i == 2), i


def test_a_seats_panel_shows_its_row_under_its_header():
    seat = SeatBox("Lan", "9 cards", active=True, badges=(Badge("hand", "9"),))
    panel = seat_panel(seat, Row("Lan", (Group("", ("2V",)),)), deck="tosom", style=Style(30), inner=400, step=None)
    (head, _), (cards, _) = panel.inner.parts
    assert isinstance(head, Header) and cards.plan.slots[0].code == "2V"
    alone = seat_panel(seat, None, deck="tosom", style=Style(30), inner=400, step=None)
    assert len(alone.inner.parts) == 1 and alone.height < panel.height


def test_copies_are_fanned_closer():
    """A Tứ Sắc khạp (three copies of a card) shows the edges of the copies: they take little room."""
    from rendering.layout import Cards
    style = Style(30)
    copies = Cards((("2V", "2V", "2V"), ("3W", "4W", "5W")), deck="tosom", width=2000, style=style, step=32)
    xs = [slot.x for slot in copies.plan.slots]
    assert xs[1] - xs[0] == xs[2] - xs[1] < 32 and xs[4] - xs[3] == 32


def test_names_lose_what_no_font_can_draw():
    assert printable("🤖 AI 1") == "🤖 AI 1"  # Noto Emoji
    assert printable("Hòa 🌸 ") == "Hòa 🌸"
    assert printable("محمد · 李小龍") == "محمد · 李小龍"
    assert printable("Nguyễn Đức") == "Nguyễn Đức"
    assert printable("♠ Ace ♥") == "♠ Ace ♥"  # suits are drawn as shapes
    assert printable("\ue000 Lan\U0010fffd") == "Lan"  # private-use characters: no font has them
    assert printable("\ue000") == ""
    assert picture_names(["🤖 AI 1", "\ue000\ue001", "Lan"]) == ["🤖 AI 1", "Seat 2", "Lan"]


def test_the_upload_is_the_drawn_picture_in_the_decks_palette():
    """The bytes are the picture drawn on the thread's canvas (its top left corner only), as a
    palette PNG close to the RGB drawing, a fraction of its size."""
    # 32 KB (718 × 716 px); 73 KB (1497 × 1359 px: the words are sized for the width)
    for p, bound in ((picture(), 40_000), (picture(seats=6, melds=14), 90_000)):
        image = table_picture_image(p)
        png = render_table_picture(p)
        assert png == encode_picture(image, p.deck)
        assert_close_upload(png, image)
        assert len(png) < bound, len(png)


def test_a_card_over_its_shadow_in_one_paste_looks_the_same():
    for deck_name, code in (("french", "QH"), ("tosom", "CC"), ("tusac", "RK"), ("french", "JK=5H"), ("french", BACK)):
        deck = get_deck(deck_name)
        one = Image.new("RGB", (160, 180), THEME.background)
        two = one.copy()
        image, dx, dy = shadowed_sprite(code, deck)
        one.paste(image, (40 - dx, 30 - dy), image)
        shadow, margin = card_shadow(deck)
        sdx, sdy = THEME.shadow_offset
        two.paste((0, 0, 0), (40 - margin + sdx, 30 - margin + sdy), shadow)
        sprite = card_sprite(code, deck)
        two.paste(sprite, (40, 30), sprite)
        assert max(hi for _, hi in ImageChops.difference(one, two).getextrema()) <= 1, code


def test_threads_draw_on_their_own_canvas():
    """Each rendering thread keeps its own canvas: pictures rendered at once come out as alone."""
    pictures = [picture(seats=s, melds=m, active=a) for s, m, a in ((4, 6, 1), (6, 14, 3), (2, 2, 0), (4, 0, 2))]
    pictures.append(TablePicture(title="Tall", sections=(Section("Rows", rows=tuple(
        Row(f"P{i}", (Group("x", ("2V", "3V")),)) for i in range(9))),), deck="tosom"))
    alone = [render_table_picture(p) for p in pictures]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(render_table_picture, pictures * 6))
    assert together == alone * 6
    big, small = (Image.open(io.BytesIO(png)) for png in (alone[1], alone[2]))
    assert small.size < big.size  # a small picture after a big one: only its own corner of the canvas
    assert render_table_picture(pictures[2]) == alone[2]


def test_a_deck_registered_again_is_drawn_with_its_new_sprites():
    from rendering import register_deck
    from rendering.french import FrenchDeck

    class Plain(FrenchDeck):
        name = "french-shadow-test"

    class Red(Plain):
        def draw_face(self, code):
            return self.canvas(fill=(220, 0, 0, 255)).finish()

    register_deck(Plain())
    before, _, _ = shadowed_sprite("QS", get_deck("french-shadow-test"))
    assert shadowed_sprite("QS", get_deck("french-shadow-test"))[0] is before  # cached
    register_deck(Red())
    after, dx, dy = shadowed_sprite("QS", get_deck("french-shadow-test"))
    assert after is not before and after.getpixel((dx + 36, dy + 52))[:3] == (220, 0, 0)
