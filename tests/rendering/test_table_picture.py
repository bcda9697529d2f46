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
from rendering.table_picture import (ACTIVE, BOX_GAP, BOX_W, LABEL_PAD, Group, LabelledCardsBlock, Pile, Row,
                                     SeatBox, SeatsBlock, Section, TablePicture, picture_names, printable,
                                     render_table_picture, rows_grid, seat_panel, shadowed_sprite,
                                     table_picture_image)
from rendering.text import text_line
from tests.support.uploads import assert_close_upload


def picture(seats: int = 4, melds: int = 6, active: int = 1) -> TablePicture:
    cards = ["KH KS KD", "4C 5C JK=6C 7C", "9D TD JD QD KD AD", "2S 3S 4S", "8H 8S 8C JK=8D", "TC TD TS"]
    return TablePicture(
        title="Concan · table #3 · round 2/9",
        seats=tuple(SeatBox(f"Player {i}", f"{14 - i} cards · opened\ntotal {10 * i}", active=i == active)
                    for i in range(seats)),
        piles=(Pile("Stock", BACK, "42 cards"), Pile("Discard", "7C", "5 cards")),
        sections=(Section("Melds on the table",
                          tuple(Group(f"{i + 1} · Player {i % seats}", tuple(cards[i % 6].split()))
                                for i in range(melds))),),
    )


def test_renders_a_png_with_every_part():
    png = render_table_picture(picture())
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width > image.height > 300 and image.width <= 1100


def test_the_player_to_act_is_outlined():
    for active in (0, 2):
        seats = picture(active=active).seats
        block = SeatsBlock(seats, max_width=1068)
        assert block.per_row == 4
        image = Image.new("RGB", (block.width, block.height), THEME.background)
        block.draw(image, 0, 0)
        # the outline of the active seat's box: the box of seat k starts at k * (BOX_W + BOX_GAP)
        x = active * (BOX_W + BOX_GAP) + 60
        column = [image.getpixel((x, y)) for y in range(0, 4)]
        assert ACTIVE in column, active
        other = ((active + 1) % 4) * (BOX_W + BOX_GAP) + 60
        assert ACTIVE not in [image.getpixel((other, y)) for y in range(0, 4)]


def test_seats_are_set_in_balanced_rows():
    seats = picture(seats=6).seats
    assert SeatsBlock(seats, max_width=3 * BOX_W + 2 * BOX_GAP).per_row == 3
    assert SeatsBlock(seats, max_width=4 * BOX_W + 3 * BOX_GAP).per_row == 3  # 3 + 3 rather than 4 + 2
    assert SeatsBlock(seats[:4], max_width=3 * BOX_W + 2 * BOX_GAP).per_row == 2


def test_six_seats_fit_and_more_melds_make_a_bigger_picture():
    small = table_picture_image(picture(seats=6, melds=2))
    big = table_picture_image(picture(seats=6, melds=14))
    assert small.width <= 1400 and big.width <= 1600  # the words grow with the width (readable at 400 px)
    assert big.width * big.height > small.width * small.height
    # six seats' words, readable, leave no arrangement much wider than tall: none is much taller
    assert small.height <= 1.15 * small.width and big.height <= 1.15 * big.width


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
                        seats=tuple(SeatBox(r.label, "19 in hand", active=r.active) for r in rows),
                        piles=(Pile("Stock", BACK, "23 cards"), Pile("On offer", None)),
                        sections=(Section("Trash rows and pairs laid", rows=rows, empty="No card on the table yet."),),
                        deck=deck)


def test_rows_render_and_empty_rows_stay_small():
    trash = ("2V", "3W", "4S", "5V", "6W", "7S", "8V", "9W", "CC", "2S")
    full = tuple(Row(f"Player {i}", (Group("trash row", trash[:i + 7]), Group("laid", ("3V", "3V")),
                                     Group("", ("4W", "4S"))), active=i == 1) for i in range(4))
    some = (full[0], Row("Player 1", (Group("trash row", ()),)), full[2], Row("Player 3", ()))
    none = tuple(Row(r.label, (Group("trash row", ()),)) for r in full)
    big, mid, small = (table_picture_image(rows_picture(r)) for r in (full, some, none))
    assert big.width <= 1400 and big.width * big.height >= mid.width * mid.height > small.width * small.height
    assert small.height < big.height  # the seats' panels without cards
    assert all(image.width > image.height for image in (big, mid, small))


def test_the_player_to_act_is_outlined_and_his_name_highlighted():
    rows = tuple(Row(f"Player {i}", (Group("discards", ("2V", "3V")),), active=i == 2) for i in range(4))
    for i, row in enumerate(rows):
        panel = seat_panel(row, None, deck="tosom", inner=300, step=None)
        image = Image.new("RGB", (panel.width, panel.height), THEME.background)
        panel.draw(image, 0, 0)
        colours = {image.getpixel((x, y)) for x in range(panel.width) for y in range(0, 40)}
        assert (ACTIVE in colours) == (i == 2), i


def test_a_seats_panel_shows_its_box():
    seat = SeatBox("Lan", "9 cards · 2 discards\neaten 1", active=True)
    panel = seat_panel(Row("Lan", (Group("discards", ("2V",)),)), seat, deck="tosom", inner=400, step=None)
    head = panel.inner.parts[0][0]
    (_line, (_x, y)), = head.details
    assert y < head.name.height  # on the name's line
    narrow = seat_panel(Row("Lan", ()), seat, deck="tosom", inner=120, step=None).inner.parts[0][0]
    # the first fact on the name's line, the others under it, wrapped between facts
    (_line, (x, y)), *under = narrow.details
    assert x > 0 and y < narrow.name.height
    assert under and [xy[0] for _line, xy in under] == [0] * len(under)
    assert all(xy[1] >= narrow.name.height for _line, xy in under)


def test_rows_share_one_fan_step():
    long = Row("A", (Group("", tuple(["2V", "3V", "4V", "5V", "6V"] * 7)),))
    short = Row("B", (Group("", ("2W", "3W", "4W")),))
    grid = rows_grid((long, short), None, deck="tosom", panel_width=1068, columns=1)
    blocks = [panel.inner.parts[1][0] for panel in grid.cells]
    steps = {b.plan.step for b in blocks}
    assert len(steps) == 1 and steps.pop() == get_deck("tosom").fan_step[0]
    assert blocks[0].plan.rows == 2 and blocks[1].plan.slots[1].x == get_deck("tosom").fan_step[0]


def test_a_label_over_a_single_card_pushes_the_next_group():
    deck = get_deck("tosom")
    groups = (Group("trash row", ("6V",)), Group("laid", ("7W", "7W")), Group("", ("6W", "6W")))
    block = LabelledCardsBlock(groups, deck="tosom", max_width=1068)
    first, second, third = (next(s for s in block.plan.slots if s.index == i) for i in (0, 1, 3))
    label = block.labels[0][1]
    assert second.x >= first.x + label.width + LABEL_PAD > first.x + deck.card_size[0] + THEME.group_gap
    assert third.x - (second.x + block.plan.step) == deck.card_size[0] + THEME.group_gap  # no label: the usual gap
    size = PICTURE_THEME.index_size + 1
    assert [line.width for _, line in block.labels] == [text_line("trash row", size, True, THEME.marked).width,
                                                        text_line("laid", size, True, THEME.marked).width]


def test_labels_are_cut_rather_than_overflow_when_there_is_no_room():
    groups = tuple(Group("a very long label indeed", (code,)) for code in ("2V", "3V", "4V", "5V", "6V", "7V", "8V"))
    for width in (300, 120):  # 120: narrower than one label
        block = LabelledCardsBlock(groups, deck="tosom", max_width=width)
        assert block.width <= width and len(block.labels) == len(groups)
        labels = sorted(block.labels, key=lambda label: (label[0].row, label[0].x))
        for (slot, line), (following, _) in zip(labels, labels[1:] + [(None, None)]):
            assert slot.x + 2 + line.width <= width
            if following is not None and slot.row == following.row:
                assert slot.x + 2 + line.width + LABEL_PAD <= following.x


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
