"""Words, not codes: the lobby names its language."""

from __future__ import annotations

import pytest

from bot import i18n
from tests.simhelpers import Players


@pytest.mark.parametrize("lang,name", [("es", "Español"), ("vi", "Tiếng Việt"), ("en", "English")])
async def test_the_lobby_names_its_language(simcord_env, lang, name):
    players = Players(simcord_env, 1)
    await players.members[0].slash(players.channel, "phom new", language=lang)
    description = players.channel.last_message.embeds[0].description
    label = i18n.in_language(lang, "language")
    assert f"{label} **{name}**" in description, description
    assert f"**{lang}**" not in description
