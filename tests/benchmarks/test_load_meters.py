"""The load benchmark measures the bot from outside: the pauses of the bot's table modules are
timed through ``asyncio.sleep`` (anyone else's sleep is the standard one, untouched), a click is
timed at the table service's public entry, and a used database is refused."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from benchmarks.load.database import database_for, refuse_a_used_database
from benchmarks.load.meters import BotSleeps, ClickTimer
from bot.db import Database


def sleeper_of(module: str):
    """A coroutine function defined in ``module`` (as the bot's would be) that sleeps."""
    namespace = {"__name__": module, "asyncio": asyncio}
    exec("async def nap(seconds):\n    await asyncio.sleep(seconds)\n", namespace)
    return namespace["nap"]


async def test_the_pauses_of_the_bots_table_modules_are_timed_and_no_one_elses():
    sleeps = BotSleeps(ai_delay=0.02)
    original = asyncio.sleep
    sleeps.install()
    try:
        await sleeper_of("bot.tables.play")(0.02)  # the AI's pause
        await sleeper_of("bot.tables.outbox")(0.01)  # a frame held
        await sleeper_of("discord.client")(0.01)
        await asyncio.sleep(0.01)
        await sleeper_of("bot.tables.play")(0)
    finally:
        sleeps.uninstall()
    assert asyncio.sleep is original
    assert len(sleeps.ai_pauses) == 1 and sleeps.ai_pauses[0] >= 0.02
    assert len(sleeps.overslept) == 2


async def test_a_click_is_done_when_the_services_handle_returns_and_the_service_is_left_as_it_was():
    class Service:
        async def handle(self, interaction, control, values, *, routed=False):
            await asyncio.sleep(0.01)
            return routed

    service = Service()
    timer = ClickTimer(SimpleNamespace(tables=service))
    timer.install()
    done = timer.expect("token-1")
    assert await service.handle(SimpleNamespace(token="token-1"), None, [], routed=True) is True
    assert done.done() and not timer.waiting
    timer.uninstall()
    assert "handle" not in vars(service)


async def test_a_database_that_holds_tables_is_refused(tmp_path):
    path = str(tmp_path / "used.sqlite3")
    await refuse_a_used_database(path)  # a new one is fine
    db = await Database.open(path)
    try:
        await db.insert_table(guild_id=1, channel_id=2, game="phom", options={}, host_id=3, seats=[],
                              guild_name="g")
    finally:
        await db.close()
    with pytest.raises(SystemExit, match="already holds tables"):
        await refuse_a_used_database(path)
    with pytest.raises(SystemExit):
        async with database_for(path, tmp_path):
            pass
    async with database_for(path, tmp_path, check_unused=False) as database:
        assert database == path
