"""The one SQLite connection under concurrency: tables finishing at the same moment while
others write their moves (issue: 7 of 32 settlements were lost with "cannot start a
transaction within a transaction")."""

from __future__ import annotations

import asyncio

import pytest

from bot import ledger
from bot.db import Database
from tests.support.databases import both_backends

GUILD = 7


pytestmark = both_backends


@pytest.fixture
async def db(database):
    db = await Database.open(database)
    yield db
    await db.close()


async def new_game(db: Database, table_id: int, game_no: int) -> int:
    return await db.insert_game(table_id=table_id, game_no=game_no, guild_id=GUILD, game="phom",
                                seats=[], options={}, decks=[[]], stake=1)


def entries_for(game_id: int) -> list[ledger.Entry]:
    chips = [3 * game_id, -game_id, -2 * game_id]
    return [ledger.Entry(seat=i, user_id=100 + i, name=f"p{i}", chips=c, ga=0, rank=i + 1, points=None,
                         won=i == 0, detail=[]) for i, c in enumerate(chips)]


async def test_thirty_games_settle_exactly_once_while_other_tables_write_moves(db):
    table = await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])
    finishing = [await new_game(db, table, no) for no in range(1, 31)]
    playing = [await new_game(db, table, no) for no in range(31, 41)]
    moves_each = 40

    async def settle(game_id: int) -> bool:
        return await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries_for(game_id),
                                   outcome={"winner": 0})

    async def broken_settlement(game_id: int) -> None:
        # seat 0 twice breaks UNIQUE (game_id, seat) inside the transaction: it must roll back
        # alone, taking nobody else's moves or settlements with it.
        bad = entries_for(game_id)[:2] + [entries_for(game_id)[0]]
        bad = bad[:2] + [ledger.Entry(**{**bad[2].__dict__, "chips": 0 - bad[0].chips - bad[1].chips})]
        with pytest.raises(Exception):
            await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=bad)

    async def play(game_id: int) -> None:
        for idx in range(moves_each):
            await db.append_action(game_id, idx, idx % 4, "draw")
            await asyncio.sleep(0)

    # every finishing game is settled twice at once (a retry racing the first attempt), and
    # some settlements fail, all while ten other tables write their moves
    results = await asyncio.gather(
        *(settle(g) for g in finishing), *(play(g) for g in playing), *(settle(g) for g in reversed(finishing)),
        *(broken_settlement(g) for g in playing[:5]))
    settled = results[:30] + results[40:70]
    assert sum(settled) == 30, "each game settles exactly once"

    rows = await db.fetchall("SELECT game_id, SUM(chips) AS total, COUNT(*) AS seats FROM ledger GROUP BY game_id")
    assert {r["game_id"] for r in rows} == set(finishing)
    assert all(r["total"] == 0 and r["seats"] == 3 for r in rows)
    assert len(await db.fetchall("SELECT * FROM settlements")) == 30
    for game_id in finishing:
        assert (await db.get_game(game_id))["status"] == "finished"
    for game_id in playing:
        assert len(await db.actions(game_id)) == moves_each, "no move is lost"
        assert (await db.get_game(game_id))["status"] == "playing"


async def test_a_transaction_sees_its_own_writes_and_others_wait(db):
    order = []

    async def writer() -> None:
        async with db.transaction():
            await db.set_meta("k", "inside")
            assert await db.get_meta("k") == "inside"
            order.append("tx-start")
            await asyncio.sleep(0.01)
            order.append("tx-end")

    async def other() -> None:
        await asyncio.sleep(0)
        await db.set_meta("k", "other")
        order.append("other")

    await asyncio.gather(writer(), other())
    assert order == ["tx-start", "tx-end", "other"]
    assert await db.get_meta("k") == "other"


async def test_reads_do_not_wait_for_a_transaction(db):
    await db.set_meta("k", "before")
    release = asyncio.Event()
    inside = asyncio.Event()

    async def long_transaction() -> None:
        async with db.transaction():
            await db.set_meta("k", "uncommitted")
            inside.set()
            await release.wait()

    task = asyncio.create_task(long_transaction())
    await inside.wait()
    # a leaderboard query is answered from committed data while the transaction is open
    assert await asyncio.wait_for(db.get_meta("k"), 1) == "before"
    release.set()
    await task
    assert await db.get_meta("k") == "uncommitted"
