"""Line charts of chips over time: a line per player in its colour, small PNGs, readable on a
phone, and a picture (not an error) for no point or one."""

from __future__ import annotations

import asyncio
import io
import random
import threading

import pytest
from PIL import Image

from rendering import chart as chart_module
from rendering.chart import (COLOURS, NUMBER_SIZE, WIDTH, Chart, Line, chart_image, nice_ticks, render_chart,
                             render_chart_async)
from rendering.text import text_line

PHONE = 400  # px: how wide Discord shows the picture on a phone


def walk(points: int, seed: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    values = [0]
    for _ in range(points - 1):
        values.append(values[-1] + rng.randint(-400, 400))
    return tuple(values)


def race(players: int, points: int) -> Chart:
    return Chart(title="Leaderboard — all games, all time, by chips",
                 lines=tuple(Line(f"Một cái tên rất dài {i}", walk(points, i), note="+12,345")
                             for i in range(players)),
                 start="03/11/2026", end="27/11/2026", axis=f"{points} games")


def colours_drawn(image: Image.Image) -> set[tuple[int, int, int]]:
    """Which of the lines' colours appear (a line is 3 px wide: its middle keeps its colour)."""
    found = {colour for _count, colour in image.getcolors(maxcolors=1 << 16)}
    return {colour for colour in COLOURS if colour in found}


@pytest.mark.parametrize("players,points", [(1, 12), (5, 60), (5, 3000)])
def test_a_chart_is_a_small_png_of_fixed_width(players, points):
    data = render_chart(race(players, points))
    assert len(data) <= 60_000
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == WIDTH and 300 <= image.height <= 600


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_each_player_has_a_line_of_his_own_colour(players):
    image = chart_image(race(players, 30))
    legend_rows = -(-players // 2) if players > 1 else 0
    plot = image.crop((0, 0, WIDTH, image.height - chart_module.PAD - legend_rows * (NUMBER_SIZE + 14)))
    assert colours_drawn(plot) == set(COLOURS[:players])  # the lines, not only their legend
    assert colours_drawn(image) == set(COLOURS[:players])


def test_the_legend_names_each_player_when_there_are_several():
    # one line: no legend (the title names the player), so the picture is shorter
    one, three, five = (chart_image(race(n, 10)).height for n in (1, 3, 5))
    assert one < three < five


def test_no_point_is_a_picture_saying_so_and_one_point_is_a_dot():
    empty = chart_image(Chart("Chips of Lan — all games", (), empty="No games finished yet."))
    assert empty.width == WIDTH and colours_drawn(empty) == set()
    assert colours_drawn(chart_image(Chart("Chips of Lan", (Line("Lan", ()),)))) == set()
    dot = chart_image(Chart("Chips of Lan", (Line("Lan", (30,)),)))
    assert colours_drawn(dot) == {COLOURS[0]}
    flat = chart_image(Chart("Chips of Lan", (Line("Lan", (0, 0, 0)),)))
    assert colours_drawn(flat) == {COLOURS[0]}


def test_digits_are_eleven_px_tall_on_a_phone():
    line = text_line("0123456789", NUMBER_SIZE, False, (255, 255, 255))
    mask = line.layers[0][1]
    scale = PHONE / WIDTH
    shown = mask.resize((round(mask.width * scale), round(mask.height * scale)), Image.Resampling.LANCZOS)
    top, bottom = shown.point(lambda v: 255 if v > 96 else 0).getbbox()[1::2]
    assert bottom - top >= 11


def test_ticks_are_round_numbers_around_zero():
    assert nice_ticks(-1800, 2300) == [-2000, -1000, 0, 1000, 2000, 3000]
    assert nice_ticks(0, 37) == [0, 10, 20, 30, 40]
    assert nice_ticks(5, 7) == [0, 2, 4, 6, 8]  # zero is always on the axis
    assert nice_ticks(0, 0) == [-1, 0, 1]
    for low, high in [(-12345, 99999), (-3, 0), (0, 1_000_000), (-7, 7)]:
        ticks = nice_ticks(low, high)
        assert ticks[0] <= min(low, 0) and ticks[-1] >= max(high, 0) and 0 in ticks and len(ticks) <= 6


def test_years_of_games_draw_the_same_envelope_in_few_points():
    values = walk(20_000, 7)
    points = chart_module._envelope(values, 500)
    assert len(points) <= 2 * 500 + 2
    assert points[0] == (0, 0) and points[-1] == (len(values) - 1, values[-1])
    assert {v for _k, v in points} >= {min(values), max(values)}
    assert [k for k, _v in points] == sorted(k for k, _v in points)


def test_the_async_render_runs_off_the_event_loop(monkeypatch):
    threads = []
    draw = chart_module.render_chart

    def spy(chart):
        threads.append(threading.current_thread().name)
        return draw(chart)

    monkeypatch.setattr(chart_module, "render_chart", spy)
    data = asyncio.run(render_chart_async(race(2, 5)))
    assert data == draw(race(2, 5)) and threads[0].startswith("chieu-render")
