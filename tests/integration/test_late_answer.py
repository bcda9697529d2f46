"""A click still unanswered after ACKNOWLEDGE_SECONDS is acknowledged (deferred) by a task of its
own; if the handler's own answer is already on its way to Discord at that moment, the two must
not both reach Discord, which accepts the first and refuses the second (40060): the
acknowledgement waits for the answer and then finds nothing to do (issue #40)."""

from __future__ import annotations

import asyncio

import pytest

from bot import backends
from bot.tables import core

from tests.support.callbacks import watch_callbacks
from tests.support.simhelpers import buttons, dm, play_channel, start_table


@pytest.fixture
def acknowledgement_during_the_answer(monkeypatch):
    """The moment of the race, made certain: the acknowledgement's timer fires just as the
    handler's first response to the click leaves for Discord, and the response waits a few
    turns of the event loop before it arrives. Returns what reached Discord: (callback type,
    refused or not) per interaction callback."""
    timers: list = []
    real_call_later = backends.call_later

    def call_later(delay, callback):
        if delay != core.ACKNOWLEDGE_SECONDS:
            return real_call_later(delay, callback)
        handle = asyncio.get_running_loop().call_later(3600, lambda: None)  # fired by hand below
        timers.append((handle, callback))
        return handle

    monkeypatch.setattr(backends, "call_later", call_later)

    async def fire_the_timer(route, kind):
        if kind in (4, 7):
            for handle, callback in timers:
                if not handle.cancelled():
                    handle.cancel()
                    callback()  # the 1.5 s are up now
            timers.clear()
            for _ in range(20):  # the acknowledgement, if it does not wait, reaches Discord first
                await asyncio.sleep(0)

    return watch_callbacks(monkeypatch, fire_the_timer)


async def test_a_hand_click_answered_as_it_is_acknowledged(simcord_env, acknowledgement_during_the_answer):
    """Auto-arrange in a DM: the hand's edit is the click's one answer, not refused."""
    players = await start_table(simcord_env, "phom", 1, 1, seed=1)
    lan = players.members[0]
    before = dm(lan)
    reached = acknowledgement_during_the_answer
    reached.clear()
    result = await lan.user.click(before, label="Auto-arrange")
    assert reached == [(7, False)], reached  # one answer: the edit (7), accepted
    assert result.acknowledged and not result.deferred
    assert not simcord_env.errors


async def test_a_refusal_answered_as_it_is_acknowledged(simcord_env, acknowledgement_during_the_answer):
    """A stranger's My hand: the refusal is the click's one answer, and he sees it."""
    players = await start_table(simcord_env, "phom", 1, 1, seed=1)
    stranger = players.outsider("hoa")
    table_message = next(m for m in reversed(play_channel(players).history()) if "My hand" in buttons(m))
    reached = acknowledgement_during_the_answer
    reached.clear()
    result = await stranger.click(table_message, label="My hand")
    assert reached == [(4, False)], reached  # one answer: the private message (4), accepted
    assert result.response is not None and "not playing at this table" in result.response.content
    assert not simcord_env.errors
