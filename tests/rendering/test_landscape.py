"""Cards first (issue #38): the table, round and result pictures are seen about 400 px wide (a
phone; Discord's embed shows at most 400 × 300 px), so they are drawn for that size. Over seeded
games of all five games, at 2 seats and at the most, from the deal to the end (Phỏm with gửi,
Concan at 6), and their rounds and results:

- the cards are the largest thing: a card (a strip in Chắn and Tứ Sắc) is at least 46 px tall
  once a table picture of up to 4 seats is shown 400 px wide, 38 px at 5 or 6 seats, 40 px in a
  round or result picture;
- landscape: a table picture at least 1.25 times as wide as tall, a round or result picture 1.1;
- every result shows the cards that decided it, in every game (the winner's hand, the losers'
  counted cards);
- small: a table picture uploads in 45 KB at the median, 90 KB at most.

(Every card is drawn at its sprite's size: its height shown is the sprite's, scaled as the
picture is.)"""

from __future__ import annotations

import statistics
from functools import lru_cache

import pytest
from PIL import Image

from bot.ai.levels import normal
from rendering import get_deck
from rendering.table_picture import render_table_picture
from tests.support.picture_games import CASES, UIS, result_rows_of_a_game, seeded_pictures, table_of

SHOWN = 400


def card_shown(game: str, image: Image.Image) -> float:
    """How tall the game's cards are once ``image`` is shown :data:`SHOWN` px wide."""
    return get_deck(UIS[game].deck).card_size[1] * min(1.0, SHOWN / image.width)


@lru_cache(maxsize=None)
def pictures(game: str, players: int) -> list[tuple[str, str, Image.Image]]:
    return [(kind, when, draw()) for kind, when, draw in seeded_pictures(game, players)]


@pytest.mark.parametrize("game,players", CASES)
def test_the_cards_are_large_once_shown_400_px_wide(game, players):
    small = []
    for kind, when, image in pictures(game, players):
        least = (46 if players <= 4 else 38) if kind == "table" else 40
        if card_shown(game, image) < least:
            small.append((kind, when, image.size, round(card_shown(game, image), 1)))
    assert not small, small


@pytest.mark.parametrize("game,players", CASES)
def test_every_picture_is_landscape(game, players):
    kinds, tall = set(), []
    for kind, when, image in pictures(game, players):
        kinds.add(kind)
        if image.width < (1.25 if kind == "table" else 1.1) * image.height:
            tall.append((kind, when, image.size, round(image.width / image.height, 2)))
    assert not tall, tall
    assert {"table", "result"} <= kinds


@pytest.mark.parametrize("game,players", CASES)
def test_every_result_shows_the_cards_that_decided_it(game, players):
    """Every seat's row of the result has cards (Chinchón and Concan: a match's score board
    showed none): the hand it ended with; in Tứ Sắc a loser's cards that count (khạp, trash,
    Quan and Khui)."""
    rows = result_rows_of_a_game(game, players)
    assert len(rows) == players
    without = [row[0] for row in rows if not any(group for group in row[1])]
    # (in Concan, who went out in the last round has no card left)
    assert len(without) <= (1 if game == "concan" else 0), without
    result = [image for kind, _when, image in pictures(game, players) if kind == "result"]
    assert result and card_shown(game, result[0]) >= 40


@lru_cache(maxsize=None)
def mid_game_sizes(game: str) -> list[int]:
    """The upload size of the table picture of each position of two seeded 4-seat games."""
    ui, table = UIS[game](), table_of(game, 4)
    sizes = []
    for seed in (1, 2):
        state = ui.game.new(4, seed=seed, options=ui.engine_options(ui.table_options({}, stake=1)))
        move = 0
        while not state.is_over:
            if move % 5 == 0:
                sizes.append(len(render_table_picture(ui.table_picture(state.view(None), table.picture_names(),
                                                                       table))))
            seat = state.to_act[0]
            state.apply(seat, normal(state.name, state.view(seat)))
            move += 1
    return sizes


def test_table_pictures_are_small():
    sizes = [size for game in UIS for size in mid_game_sizes(game)]
    assert statistics.median(sizes) <= 45 * 1024 and max(sizes) <= 90 * 1024, \
        (statistics.median(sizes) / 1024, max(sizes) / 1024)


def test_a_table_picture_is_shown_whole_and_large():
    """In Discord's 400 × 300 box, a 4-seat Phỏm table fills the width: at 734 × 867 px it was
    shown 254 × 300 (and at 1,388 px wide its cards were 31 px tall)."""
    tables = [(when, image) for kind, when, image in pictures("phom", 4) if kind == "table"]
    for when, image in tables:
        scale = min(1.0, 400 / image.width, 300 / image.height)
        assert image.width * scale >= 375, (when, image.size)
    assert len(tables) > 2
