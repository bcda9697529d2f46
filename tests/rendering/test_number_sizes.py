"""The numbers that decide a game (points, totals, chips, ranks) are read on a phone: in every
game's result picture and round picture, shown 400 px wide (:data:`rendering.landscape.VIEW`),
every digit is at least 11 px tall; so are, in the live table picture, the seats' counts and
totals and the stock's count, from a game's start to its end, at 2 seats and at the most — and
a seat's numbers stand without words around them (a badge's glyph says what each is: issue #38).

Measured on the pixels: each line of text is recorded where the picture pastes it, the digits'
place in it is measured with the same font, and the picture scaled to 400 px wide is searched
for the ink of those digits."""

from __future__ import annotations

import random
import re
import pytest
from PIL import Image

import rendering.compose as compose
from bot import i18n, ledger
from bot.ai.levels import normal
from rendering.landscape import PICTURE_THEME
from rendering.table import rows_image
from rendering.table_picture import picture_names, table_picture_image
from rendering.text import measure
from tests.support.drawn import Pasted, record
from tests.support.picture_games import NAMES, OPTIONS, UIS, table_of

SHOWN_WIDTH = 400
MIN_DIGIT_PX = 11
DIGITS = re.compile(r"\d+")


@pytest.fixture
def drawn(monkeypatch):
    """Every line of text the pictures paste (its text, size and place) and every frame."""
    return record(monkeypatch)


@pytest.fixture
def pasted(drawn):
    return drawn.lines


def digit_heights(image: Image.Image, lines: list[Pasted]) -> list[tuple[str, str, float]]:
    """(line, digits, height in px) of each run of digits once ``image`` is shown
    :data:`SHOWN_WIDTH` px wide: the rows of the run's box where the ink is at least half as
    bright as the text (the felt is dark, the text light)."""
    scale = SHOWN_WIDTH / image.width
    shown = image.resize((SHOWN_WIDTH, round(image.height * scale)), Image.Resampling.BICUBIC).convert("L")
    felt = sum(PICTURE_THEME.background) / 3
    found = []
    for line in lines:
        for run in DIGITS.finditer(line.text):
            left = line.x + 1 + measure(line.text[:run.start()], line.size, line.bold)
            right = line.x + 1 + measure(line.text[:run.end()], line.size, line.bold)
            # a pixel in from each side: the neighbours (a bracket, a comma) are not the digits'
            box = (round(left * scale) + 1, int(line.y * scale), max(round(right * scale) - 1, round(left * scale) + 2),
                   int((line.y + line.height) * scale) + 1)
            crop = shown.crop(box)
            rows = [max((crop.getpixel((x, y)) for x in range(crop.width)), default=0) for y in range(crop.height)]
            threshold = felt + (min(PICTURE_THEME.muted) - felt) / 2
            ink = [y for y, value in enumerate(rows) if value >= threshold]
            found.append((line.text, run.group(), (ink[-1] - ink[0] + 1) if ink else 0))
    return found


def played(game: str, players: int, seed: int = 3):
    ui = UIS[game]()
    options = ui.engine_options(ui.table_options(OPTIONS.get(game, {}), stake=1))
    state = ui.game.new(players, seed=seed, options=options)
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)))
    return ui, state


def pictures(game: str, players: int, pasted: list[Pasted]):
    """("round k"/"result", image, lines of text pasted in it) of a seeded AI game."""
    ui, state = played(game, players)
    view, names = state.view(None), NAMES[:players]
    for index in range(len(view.get("round_results", ()))):
        pasted.clear()
        title = f"{ui.game.title} · table #42 · round {index + 1}"
        image = rows_image(ui.round_rows(view, names, index), title=title, deck=ui.deck)
        yield f"round {index + 1}", image, list(pasted)
    pasted.clear()
    paid = ledger.settlement(state.outcome(), stake=10)
    image = rows_image(ui.result_rows(view, names, paid), title=f"{ui.game.title} · table #42 · game 1", deck=ui.deck)
    yield "result", image, list(pasted)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("game", sorted(UIS))
def test_every_number_of_a_result_or_round_picture_is_11_px_tall_at_400_px(game, players, pasted):
    kinds = set()
    with i18n.language("en"):
        for kind, image, lines in pictures(game, players, pasted):
            kinds.add(kind.split()[0])
            heights = digit_heights(image, lines)
            if kind == "result":
                assert any(text.startswith("1. ") for text, _digits, _height in heights), "no rank was measured"
            small = [(text, digits, height) for text, digits, height in heights if height < MIN_DIGIT_PX]
            assert not small, (kind, image.size, small[:5])
    assert "result" in kinds and (("round" in kinds) == UIS[game]().game.multi_round)


def test_the_measure_finds_small_digits():
    """The measure itself: a caption at the old size, in a picture as wide as a result's, is
    found too small; the same digits large enough are not."""
    for size, wide in ((PICTURE_THEME.caption_size, False), (40, True)):
        lines = []
        image = Image.new("RGB", (900, 200), PICTURE_THEME.background)
        line = compose.text_line("total 1234 · +56 chips", size, False, PICTURE_THEME.muted)
        compose.paste_text(image, line, (20, 20))
        lines.append(Pasted("total 1234 · +56 chips", size, False, 20, 20, line.height))
        heights = [height for _text, _digits, height in digit_heights(image, lines)]
        assert len(heights) == 2 and all((height >= MIN_DIGIT_PX) == wide for height in heights), (size, heights)


# ---------------------------------------------------------------------------- the live table pictures

def table_views(game: str, players: int, seed: int = 5):
    """("early"/"middle"/"late", public view) of a seeded game, half the moves the AI's and half
    random (as tests/tables/test_hints.py plays them): at its start, halfway, and at its last
    move, when the most cards are on the table."""
    ui = UIS[game]()
    rng = random.Random(seed)
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(OPTIONS.get(game, {}),
                                                                                        stake=1)))
    views = []
    for _step in range(3000):
        if state.is_over:
            break
        views.append(state.view(None))
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(state.legal_actions(seat)))
    assert state.is_over
    return ui, [("early", views[2]), ("middle", views[len(views) // 2]), ("late", views[-1])]


def numbers_lines(lines: list[Pasted], names: list[str]) -> list[Pasted]:
    """The lines whose numbers decide the game: the seats' (cards, totals, points, khạp...) and
    the piles' captions (the stock's count), drawn regular; not the names (bold). A name in a
    caption ("discarded by AI 1") is blanked: its digits are not a count."""
    found = []
    for line in lines:
        if line.bold:
            continue
        text = line.text
        for name in names:
            text = text.replace(name, "_" * len(name))
        found.append(Pasted(text, line.size, line.bold, line.x, line.y, line.height, line.width))
    return found


NUMBER = re.compile(r"[+−-]?\d[\d.,]*")


@pytest.mark.parametrize("game,players", [(game, players) for game in sorted(UIS)
                                          for players in sorted({UIS[game].game.min_players,
                                                                 UIS[game].game.max_players})])
def test_every_count_and_total_of_a_table_picture_is_11_px_tall_at_400_px(game, players, drawn):
    table = table_of(game, players)
    names = picture_names(table.names())
    with i18n.language("en"):
        ui, views = table_views(game, players)
        for when, view in views:
            drawn.clear()
            image = table_picture_image(ui.table_picture(view, table.names(), table))
            lines = numbers_lines(drawn.lines, names)
            heights = digit_heights(image, lines)
            # each seat's count of cards in hand at least
            assert sum(1 for text, _digits, _height in heights if NUMBER.fullmatch(text)) >= players, (when, heights)
            small = [(text, digits, height) for text, digits, height in heights if height < MIN_DIGIT_PX]
            assert not small, (when, image.size, small[:5])
            # in a seat's box, numbers alone: "9", not "9 cards · 2 discards" (its glyph says what it is)
            worded = [line.text for line in lines
                      if drawn.frame_of(line) is not None and not NUMBER.fullmatch(line.text)]
            assert not worded, (when, worded[:5])
