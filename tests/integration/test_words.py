"""Words, not codes: the lobby names its language; Quick Select picks an eat's cards where
eating is legal, and is off when no move takes a card."""

from __future__ import annotations

import pytest

from bot import i18n
from bot.games.french import FULL_DECK
from tests.support.simhelpers import Players, buttons, dm, enabled, private_texts, select_options, start_table, table_of


@pytest.mark.parametrize("lang,name", [("es", "Español"), ("vi", "Tiếng Việt"), ("en", "English")])
async def test_the_lobby_names_its_language(simcord_env, lang, name):
    players = Players(simcord_env, 1)
    await players.members[0].slash(players.channel, "phom new", language=lang)
    description = players.channel.last_message.embeds[0].description
    label = i18n.in_language(lang, "language")
    assert f"{label} **{name}**" in description, description
    assert f"**{lang}**" not in description


# Lan (seat 0) gets the first 10 cards, Minh the next 9: nothing of Minh's makes a phỏm with K♠.
LAN = ["KS", "7H", "KD", "QC", "2C", "9D", "JS", "4C", "TS", "3D"]
MINH = ["5H", "6H", "9C", "AS", "2S", "8D", "JD", "QD", "4H"]
PACK = LAN + MINH + [c for c in FULL_DECK if c not in LAN + MINH]


# Minh could eat Lan's K♠ with J♠ Q♠, but the best move keeps his Q♠ Q♥ Q♦ and draws.
LAN_2 = ["TD", "TH", "KS", "2S", "7D", "9S", "7S", "3C", "JC", "2C"]
MINH_2 = ["QD", "9D", "5H", "QH", "5D", "5S", "JS", "KC", "QS"]
PACK_2 = LAN_2 + MINH_2 + [c for c in FULL_DECK if c not in LAN_2 + MINH_2]


async def minh_after_lans_king(env, pack: list[str]):
    """Lan (seat 0) discards K♠ from ``pack``'s deal: Minh's turn. The players and the table."""
    players = await start_table(env, "phom", 2, 0, deck=pack)
    lan = players.members[0]
    await lan.user.select(dm(lan), ["KS"])
    await lan.user.click(dm(lan), label="Discard")
    return players, table_of(env)


async def test_quick_select_is_off_when_no_move_takes_a_card(simcord_env):
    players, table = await minh_after_lans_king(simcord_env, PACK)
    minh = players.members[1]
    assert table.state.legal_actions(1) == ["draw"]
    assert "Quick Select" not in buttons(dm(minh)) and "Draw" in enabled(dm(minh)), "nothing for it to pick"
    assert select_options(dm(minh)) == {}, "no Cards select when only Draw is possible"


async def test_a_quick_select_where_eat_is_legal_picks_the_eat(simcord_env):
    """Issue #41: Quick Select said "Nothing to select" where Minh could eat: it picks the eat's
    cards, silently, and Draw stays his to choose."""
    players, table = await minh_after_lans_king(simcord_env, PACK_2)
    minh = players.members[1]
    assert table.state.legal_actions(1) == ["draw", "eat JS QS"]

    told = await minh.user.click(dm(minh), label="Quick Select")
    assert private_texts(told) == []
    assert sorted(table.selection.get(1, [])) == ["JS", "QS"]
    assert "Draw" in enabled(dm(minh))
