"""A click whose message is deleted before its answer (a moderator deletes the lobby, a DM is
gone): the answer that would edit the message fails with Unknown Message, and the click must
still be acknowledged, not left as "This interaction failed"; the outbox shows the message
again (found by the two-process chaos run, seed 7: a click never answered)."""

from __future__ import annotations

import pytest

from tests.support.callbacks import watch_callbacks
from tests.support.simhelpers import Players, dm, start_table


@pytest.fixture
def deleted_as_answered(simcord_env, monkeypatch):
    """The clicked message is deleted just before the click's answer edits it (callback type 7).
    Returns what reached Discord: (callback type, refused or not) per interaction callback."""
    backend = simcord_env.backend

    async def delete_the_message(route, kind):
        if kind == 7:
            record = backend.interactions[int(route.url.split("/")[-3])]
            backend.delete_message(record.channel_id, record.source_message_id)

    return watch_callbacks(monkeypatch, delete_the_message)


async def test_a_lobby_deleted_as_a_player_joins(simcord_env, deleted_as_answered):
    players = Players(simcord_env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new", stake=5)
    lobby = players.channel.last_message
    deleted_as_answered.clear()
    result = await minh.click(lobby, label="Join")
    assert deleted_as_answered == [(7, True), (6, False)]  # the edit refused, then acknowledged
    assert result.acknowledged
    await simcord_env.advance_time(10)
    shown = players.channel.last_message
    assert shown.id != lobby.id and "minh" in shown.embeds[0].fields[0].value  # the lobby again, joined


async def test_a_hand_deleted_as_it_is_clicked(simcord_env, deleted_as_answered):
    players = await start_table(simcord_env, "phom", 1, 1, seed=1)
    lan = players.members[0]
    before = dm(lan)
    deleted_as_answered.clear()
    result = await lan.user.click(before, label="Auto-arrange")
    assert deleted_as_answered == [(7, True), (6, False)]
    assert result.acknowledged
    await simcord_env.advance_time(10)
    assert dm(lan) is not None and dm(lan).id != before.id  # the hand shown again
