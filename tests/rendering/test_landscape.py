"""Every table, round and result picture is wider than tall (Discord shows an embed image in at
most about 400 × 300 px: a tall one is shown small), for every game at 2, 4 and 6 seats. A table
picture's words are sized for its width (its numbers read at 400 px wide): with six seats' or
four players' words, it may be square, never much taller than wide."""

from __future__ import annotations

import pytest

from tests.support.picture_games import CASES, pictures_of_a_game

VIEW = (400, 300)  # the box Discord shows an embed image in


def shown_scale(width: int, height: int) -> float:
    return min(1.0, VIEW[0] / width, VIEW[1] / height)


@pytest.mark.parametrize("game,players", CASES)
def test_every_picture_is_wider_than_tall(game, players):
    kinds = set()
    for kind, image in pictures_of_a_game(game, players):
        kinds.add(kind)
        assert image.width > image.height or (kind == "table" and image.height <= 1.15 * image.width), \
            (kind, image.size)
        assert image.width <= 1400, (kind, image.size)
    assert {"table", "result"} <= kinds


def test_the_pictures_are_shown_larger_than_before():
    """The Phỏm table at 4 seats was 734 × 867 px: shown at 254 × 300 in an embed. (Its words,
    sized to read at 400 px wide, make it at least 682 × 601: shown 340 × 300.)"""
    images = [image for kind, image in pictures_of_a_game("phom", 4) if kind == "table"]
    for image in images:
        scale = shown_scale(*image.size)
        assert image.width * scale >= 290 and (image.width * scale) * (image.height * scale) > 1.2 * 254 * 300, \
            image.size
    assert len(images) > 3
