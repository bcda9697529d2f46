"""No word of a seat's detail is cut off in a table picture ("2 jokers annou…"): details wrap.
Only a name too long for its box may end in an ellipsis. Every game, 2 to 6 seats, every language."""

from __future__ import annotations

import pytest

import rendering.table_picture as table_picture
from bot import i18n
from tests.support.picture_games import CASES, NAMES, pictures_of_a_game


@pytest.mark.parametrize("lang", sorted(i18n.LANGUAGES))
@pytest.mark.parametrize("game,players", CASES)
def test_no_seat_detail_is_cut(game, players, lang, monkeypatch):
    fit = table_picture._fit.__wrapped__
    cut: list[str] = []

    def recording_fit(text, size, bold, width):
        fitted = fit(text, size, bold, width)
        if fitted != table_picture.printable(text):
            cut.append(text)
        return fitted

    monkeypatch.setattr(table_picture, "_fit", recording_fit)
    table_picture._labelled.cache_clear()
    with i18n.language(lang):
        pictures = [kind for kind, _image in pictures_of_a_game(game, players)]
    assert "table" in pictures
    assert [text for text in cut if text not in NAMES] == []


def test_a_long_detail_wraps_inside_its_box_between_its_facts():
    box = table_picture.SeatBox(name="Lan", detail="2 comodines anunciados · abrió con 57 · 9 cartas en la mano")
    block = table_picture.SeatsBlock((box,), max_width=600)
    assert " · ".join(block.details[0]) == box.detail  # each line whole facts: none is cut
    assert len(block.details[0]) > 1


@pytest.mark.parametrize("detail,lines", [
    # the facts of two lines ran together: "7 cards total 10"
    ("7 cards\ntotal 10", ["7 cards", "total 10"]),
    # a fact cut at a line's end: "... not" / "opened total 100" for a seat that never opened
    ("14 cards · not opened\ntotal 100 · 2 jokers announced", ["14 cards", "not opened", "total 100",
                                                               "2 jokers announced"]),
])
def test_each_fact_of_a_seat_line_is_separate_and_whole(detail, lines):
    block = table_picture.SeatsBlock((table_picture.SeatBox(name="Lan", detail=detail),), max_width=600)
    facts = [fact for line in block.details[0] for fact in line.split(" · ")]
    assert facts == lines, block.details[0]
