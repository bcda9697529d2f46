"""A process that dies while a game ends (between its settlement and the save that it
finished) leaves its result shown at most once: the process that takes the table after it
(restarted, or adopting) shows what never reached Discord, and nothing that did (issue #40),
even a post Discord took whose message id the process died before writing down (its nonce:
the stub Discord answers a nonce it saw with the earlier message, as Discord does)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.databases import both_backends
from tests.support.simhelpers import until
from tests.support.stubdiscord import close_service, headless_service, open_table, quiet_pictures


def result_posts(*services) -> int:
    return sum(1 for service in services for call in service.bot.calls
               if call["op"] == "post" and "— result" in (call.get("title") or ""))


async def crash(service) -> None:
    """The process dies: its tasks end where they are, nothing more is written or shown."""
    await service.core.close()
    await service.db.close()


@both_backends
@pytest.mark.parametrize("phase", ["settled", "result posted", "result shown", "finished"])
async def test_a_crash_while_a_game_ends_shows_its_result_once(database, monkeypatch, phase):
    quiet_pictures(monkeypatch)
    first = await headless_service(database, "a", ai_delay_seconds=0)
    await first.restore()
    reached = asyncio.Event()
    saving = first.core.save_table

    async def save_table(table, **fields):
        if fields.get("status") == "finished" and phase != "finished":
            reached.set()
            await asyncio.Event().wait()  # it dies before the finish is saved
        await saving(table, **fields)
        if fields.get("status") == "finished":
            reached.set()

    first.core.save_table = save_table
    if phase == "settled":  # it dies before its outbox posts the result
        first.results.show_result = lambda *args, **kwargs: None
    if phase == "result posted":  # it dies after Discord took the result, before remembering it
        async def set_result_message(*args, **kwargs):
            await asyncio.Event().wait()

        first.core.db.set_result_message = set_result_message
    table = await open_table(first, "phom", ai=4)
    await asyncio.wait_for(reached.wait(), 60)

    async def settled() -> bool:
        (count,) = await first.db.fetchone("SELECT COUNT(*) FROM settlements")
        return count == 1

    async def result_recorded() -> bool:
        row = await first.db.fetchone("SELECT result_message_id FROM games WHERE id = ?", (table.game_id,))
        return row["result_message_id"] is not None

    async def result_posted() -> bool:
        return result_posts(first) == 1

    await until("the game settled", settled, 20)
    if phase == "result posted":
        await until("the result posted", result_posted, 20)
        assert not await result_recorded()
    elif phase != "settled":
        await until("the result recorded", result_recorded, 20)
    assert result_posts(first) == (0 if phase == "settled" else 1)
    await crash(first)

    second = await headless_service(database, "a", ai_delay_seconds=0)
    try:
        await second.restore()

        async def finished() -> bool:
            row = await second.db.fetchone("SELECT status FROM games WHERE id = ?", (table.game_id,))
            return row["status"] == "finished" and await result_recorded_in(second)

        async def result_recorded_in(service) -> bool:
            row = await service.db.fetchone("SELECT result_message_id FROM games WHERE id = ?", (table.game_id,))
            return row["result_message_id"] is not None

        await until("the game finished", finished, 20)
        await asyncio.sleep(0.5)  # (whatever else the outbox would post)
        assert result_posts(first, second) == 1, "the result shown once"
        (count,) = await second.db.fetchone("SELECT COUNT(*) FROM settlements")
        assert count == 1
    finally:
        await close_service(second)
