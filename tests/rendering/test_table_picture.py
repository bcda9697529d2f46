"""The table as a picture: seats around it, piles, labelled groups of cards."""

from __future__ import annotations

import io
import time

from PIL import Image

from rendering import BACK
from rendering.table_picture import (ACTIVE, Group, Pile, SeatBox, Section, TablePicture, render_table_picture,
                                     table_picture_image)


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
    assert image.format == "PNG" and 600 < image.width <= 1100 and image.height > 300


def test_the_player_to_act_is_outlined():
    for active in (0, 2):
        image = table_picture_image(picture(active=active))
        # the outline of the active seat's box: the box of seat k starts at 16 + k * 178
        x = 16 + active * 178 + 60
        column = [image.getpixel((x, y)) for y in range(40, 70)]
        assert ACTIVE in column, active
        other = 16 + ((active + 1) % 4) * 178 + 60
        assert ACTIVE not in [image.getpixel((other, y)) for y in range(40, 70)]


def test_six_seats_fit_and_more_melds_make_a_taller_picture():
    small = table_picture_image(picture(seats=6, melds=2))
    big = table_picture_image(picture(seats=6, melds=14))
    assert small.width <= 1100 and big.width <= 1100 and big.height > small.height


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
