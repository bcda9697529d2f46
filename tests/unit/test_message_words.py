"""Words of the messages a whole game shows, in every language: one minus sign."""

from __future__ import annotations

import re

import pytest

from bot import i18n
from tests.support.message_texts import GAMES, texts_of_a_game

HYPHEN_BEFORE_DIGIT = re.compile(r"(?<![\w#<:])-\d")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_a_negative_number_has_the_minus_sign(game, lang):
    """"−10 → -10" mixed two signs in one line: every number shown is written with U+2212."""
    bad = sorted({text for text in texts_of_a_game(game, lang) if HYPHEN_BEFORE_DIGIT.search(text)})
    assert bad == [], "\n".join(bad[:8])
