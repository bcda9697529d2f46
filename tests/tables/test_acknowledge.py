"""The late acknowledgement of a click (bot/tables/core.py): it takes turns with the click's own
answer, so that the two never reach Discord together, but an answer stuck on its way does not
hold it past Discord's 3 s (issue #40)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import discord

from bot.tables import core


class Response:
    """An interaction's response as discord.py keeps it: done once Discord accepted one."""

    def __init__(self) -> None:
        self.deferred = 0
        self.done = False

    def is_done(self) -> bool:
        return self.done

    async def defer(self, **kwargs) -> None:
        self.deferred += 1
        self.done = True


def interaction() -> SimpleNamespace:
    return SimpleNamespace(id=1, type=discord.InteractionType.component, response=Response())


async def test_the_acknowledgement_waits_for_an_answer_on_its_way():
    click, lock = interaction(), asyncio.Lock()
    await lock.acquire()  # the answer is on its way
    acknowledging = asyncio.create_task(core.acknowledge(click, lock))
    await asyncio.sleep(0.01)
    assert not acknowledging.done() and click.response.deferred == 0
    click.response.done = True  # Discord accepted the answer
    lock.release()
    await asyncio.wait_for(acknowledging, 1)
    assert click.response.deferred == 0, "answered: nothing to acknowledge"


async def test_an_answer_stuck_on_its_way_does_not_hold_the_acknowledgement(monkeypatch):
    monkeypatch.setattr(core, "ANSWER_ON_ITS_WAY_SECONDS", 0.05)
    click, lock = interaction(), asyncio.Lock()
    await lock.acquire()  # the answer is on its way, and stays there
    await asyncio.wait_for(core.acknowledge(click, lock), 1)
    assert click.response.deferred == 1, "acknowledged in time, beside the stuck answer"
    assert lock.locked(), "the answer's turn is still its own"


async def test_nothing_on_its_way_acknowledges_at_once():
    click, lock = interaction(), asyncio.Lock()
    await asyncio.wait_for(core.acknowledge(click, lock), 1)
    assert click.response.deferred == 1 and not lock.locked()
