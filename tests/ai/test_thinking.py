"""The AI levels a table plays at (bot/ai/levels.py): easy and normal; a table, a server
setting or a config saved at ``strong`` (removed in issue #37) plays as normal."""

from __future__ import annotations

from bot.ai.levels import LEVELS, known_level, level_of


def test_the_levels_are_easy_and_normal():
    assert LEVELS == ("easy", "normal")


def test_a_table_saved_at_strong_plays_as_normal():
    assert level_of({"ai": "strong"}) == "normal"
    assert known_level("strong") == "normal"


def test_a_table_saved_without_a_level_or_at_an_unknown_one_plays_as_normal():
    assert level_of({}) == level_of({"ai": "hard"}) == level_of({"ai": ["easy"]}) == "normal"
    assert known_level("hard") is None
    assert level_of({"ai": "easy"}) == "easy"
