"""No word of a seat's detail is cut off in a table picture ("2 jokers annou…"): details wrap.
Only a name too long for its box may end in an ellipsis. Every game, 2 to 6 seats, every language."""

from __future__ import annotations

import pytest

import rendering.table_picture as table_picture
from bot import i18n
from tests.rendering.games import CASES, NAMES, pictures_of_a_game


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


def test_a_long_detail_wraps_inside_its_box():
    box = table_picture.SeatBox(name="Lan", detail="2 comodines anunciados · abrió con 57 · 9 cartas en la mano")
    block = table_picture.SeatsBlock((box,), max_width=600)
    words = " ".join(block.details[0]).split()
    assert words == box.detail.split()
    assert len(block.details[0]) > 1
