"""Words of the messages a whole game shows, in every language: one minus sign, the buy-back
said once."""

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


#: the stem every way of saying "bought back" shares, in each language
BOUGHT_BACK = {"en": "bought back", "es": "reenganch", "vi": "mua vào lại"}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_buy_back_is_said_once(lang):
    """"… bought back in at 10 · bought back": a seat's line at the round pause says it once."""
    texts = list(texts_of_a_game("chinchon", lang, seed=11))
    assert any(BOUGHT_BACK[lang] in text for text in texts), "no buy-back in this game: pick another seed"
    twice = sorted({line for text in texts for line in text.splitlines() if line.count(BOUGHT_BACK[lang]) > 1})
    assert twice == [], "\n".join(twice[:5])
