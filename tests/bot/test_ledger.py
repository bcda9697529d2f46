"""The chip ledger: the chips a finished game pays, computed from its outcome; one transaction per
settlement, zero-sum, idempotent, queryable."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from bot import ledger
from bot.db import Database
from bot.games.base import Outcome, SeatResult, pot_outcome
from tests.support.databases import both_backends

GUILD = 7



@pytest.fixture
async def db(database):
    db = await Database.open(database)
    yield db
    await db.close()


async def a_game(db: Database, table_id: int = 1, game_no: int = 1) -> int:
    return await db.insert_game(table_id=table_id, game_no=game_no, guild_id=GUILD, game="phom",
                                seats=[], options={}, decks=[[]], stake=10)


async def a_table(db: Database) -> int:
    return await db.insert_table(guild_id=GUILD, channel_id=1, game="phom", options={}, host_id=1, seats=[])


def entries(chips: list[int], ga: list[int] | None = None) -> list[ledger.Entry]:
    ga = ga or [0] * len(chips)
    users = [101, 102, None, 104]
    return [ledger.Entry(seat=i, user_id=users[i], name=f"p{i}", chips=c, ga=g, rank=1 if c > 0 else 2,
                         points=None, won=c > 0, detail=[]) for i, (c, g) in enumerate(zip(chips, ga))]


@both_backends
async def test_settling_twice_changes_nothing(db):
    game_id = await a_game(db, await a_table(db))
    assert await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries([30, -10, -20]))
    assert not await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom",
                                   entries=entries([30, -10, -20]))
    assert (await ledger.balance(db, GUILD, 101)).chips == 30
    assert len(await db.fetchall("SELECT * FROM ledger")) == 3


@both_backends
async def test_an_unbalanced_settlement_writes_nothing(db):
    game_id = await a_game(db, await a_table(db))
    with pytest.raises(ledger.UnbalancedSettlement):
        await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries([30, -10, -10]))
    with pytest.raises(ledger.UnbalancedSettlement):
        await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom",
                            entries=entries([0, 0, 0], ga=[1, 0, 0]))
    assert await db.fetchall("SELECT * FROM settlements") == []
    assert await db.fetchall("SELECT * FROM ledger") == []


@both_backends
async def test_a_failure_inside_the_transaction_rolls_everything_back(db):
    game_id = await a_game(db, await a_table(db))
    bad = entries([30, -30]) + [entries([0, 0, 0])[0]]  # seat 0 twice violates UNIQUE (game_id, seat)
    with pytest.raises(Exception):
        await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=bad)
    assert await db.fetchall("SELECT * FROM settlements") == []
    assert await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries([30, -30]))


@both_backends
async def test_balances_may_go_negative_and_boards_skip_ai_seats(db):
    table = await a_table(db)
    for no, chips in enumerate(([30, -10, -20, 0], [-50, 20, 10, 20]), start=1):
        game_id = await a_game(db, table, no)
        await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries(chips))
    assert (await ledger.balance(db, GUILD, 101)) == ledger.Balance(chips=-20, ga=0, games=2, wins=1)
    board = await ledger.leaderboard(db, GUILD)
    assert [(s.user_id, s.chips) for s in board] == [(104, 20), (102, 10), (101, -20)]
    assert await ledger.leaderboard(db, GUILD + 1) == []
    wins = await ledger.leaderboard(db, GUILD, by="wins")
    assert wins[0].wins == 1
    assert [h.chips for h in await ledger.history(db, GUILD, 101)] == [-50, 30]


@both_backends
async def test_periods_count_only_recent_games(db):
    game_id = await a_game(db, await a_table(db))
    await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries([5, -5]))
    later = datetime.now(timezone.utc) + timedelta(days=8)
    assert await ledger.leaderboard(db, GUILD, period="week", now=later) == []
    assert len(await ledger.leaderboard(db, GUILD, period="month", now=later)) == 2
    with pytest.raises(ValueError):
        await ledger.leaderboard(db, GUILD, period="year")


async def settle_games(db, games: list[tuple[str, list[int]]]) -> None:
    """Settle one game per (game, chips of seats 101, 102, AI, 104), in order, at the same second."""
    table = await a_table(db)
    for no, (game, chips) in enumerate(games, start=1):
        game_id = await a_game(db, table, no)
        await ledger.settle(db, game_id=game_id, guild_id=GUILD, game=game, entries=entries(chips))


@both_backends
async def test_running_totals_follow_each_game_in_the_order_it_was_settled(db):
    await settle_games(db, [("phom", [30, -10, -20]), ("chan", [-50, 20, 10, 20]), ("phom", [5, -5])])
    series = await ledger.running_totals(db, GUILD, [101, 102, 104])
    assert len(series.at) == 3
    assert series.totals == {101: [30, -20, -15], 102: [-10, 10, 5], 104: [0, 20, 20]}
    # each ends where the balance and the leaderboard say, for any filter
    board = await ledger.leaderboard(db, GUILD)
    assert {s.user_id: s.chips for s in board} == {user: totals[-1] for user, totals in series.totals.items()}
    phom = await ledger.running_totals(db, GUILD, [101], game="phom")
    assert phom.totals == {101: [30, 35]}
    assert (await ledger.balance(db, GUILD, 101, game="phom")).chips == 35
    assert (await ledger.balance(db, GUILD, 101, game="chan")) == ledger.Balance(chips=-50, ga=0, games=1, wins=0)
    wins = await ledger.running_totals(db, GUILD, [102], by="wins")
    assert wins.totals == {102: [0, 1, 1]}


@both_backends
async def test_running_totals_of_nobody_or_of_no_game_are_empty(db):
    assert await ledger.running_totals(db, GUILD, []) == ledger.Series([], {})
    assert await ledger.running_totals(db, GUILD, [101]) == ledger.Series([], {101: []})
    await settle_games(db, [("phom", [30, -30])])
    later = datetime.now(timezone.utc) + timedelta(days=8)
    assert (await ledger.running_totals(db, GUILD, [101], period="week", now=later)).totals == {101: []}
    assert (await ledger.running_totals(db, GUILD, [101], period="month", now=later)).totals == {101: [30]}
    assert (await ledger.running_totals(db, GUILD + 1, [101])).totals == {101: []}
    with pytest.raises(ValueError):
        await ledger.running_totals(db, GUILD, [101], by="points")


# ---- what a game pays: computed here from the engine's outcome, shown and written alike

def three_seats() -> Outcome:
    """Seat 0 wins 2 stake units and 1 gà point; seat 2 pays a unit and the gà point."""
    return Outcome(winner=0, results=[
        SeatResult(seat=0, rank=1, points=3, payout=2, ga=1, notes=["ù"]),
        SeatResult(seat=1, rank=2, points=9, payout=-1),
        SeatResult(seat=2, rank=3, points=12, payout=-1, ga=-1, notes=["cháy"]),
    ])


def test_the_chips_of_a_game_come_from_its_outcome_at_the_tables_stakes():
    paid = ledger.settlement(three_seats(), stake=10, ga_stake=3)
    assert paid == ledger.Settlement(stake=10, chips=(23, -10, -13), pot=None)
    assert ledger.settlement(three_seats(), stake=10).chips == (20, -10, -10), "no gà stake: gà moves no chips"


def test_a_shared_pot_is_paid_in_chips_the_odd_chip_to_the_earlier_seat():
    outcome = pot_outcome(3, paid=[1, 1, 1], winners=[2, 0], ranks=[1, 3, 1])
    paid = ledger.settlement(outcome, stake=5)
    assert paid.pot == 15 and paid.chips == (3, -5, 2) and sum(paid.chips) == 0


def test_the_ledgers_rows_carry_the_settlements_chips_and_the_outcomes_ranks():
    players = [SimpleNamespace(user_id=101, name="Lan"), SimpleNamespace(user_id=None, name="AI 1"),
               SimpleNamespace(user_id=104, name="Đức")]
    outcome = three_seats()
    rows = ledger.entries(outcome, ledger.settlement(outcome, stake=10, ga_stake=3), players, rounds=4)
    assert rows == [
        ledger.Entry(seat=0, user_id=101, name="Lan", chips=23, ga=1, rank=1, points=3, won=True, detail=["ù"],
                     rounds=4),
        ledger.Entry(seat=1, user_id=None, name="AI 1", chips=-10, ga=0, rank=2, points=9, won=False, detail=[],
                     rounds=4),
        ledger.Entry(seat=2, user_id=104, name="Đức", chips=-13, ga=-1, rank=3, points=12, won=False,
                     detail=["cháy"], rounds=4),
    ]


@both_backends
async def test_what_is_written_is_what_the_settlement_says(db):
    outcome = three_seats()
    paid = ledger.settlement(outcome, stake=10, ga_stake=3)
    players = [SimpleNamespace(user_id=101, name="Lan"), SimpleNamespace(user_id=None, name="AI 1"),
               SimpleNamespace(user_id=104, name="Đức")]
    game_id = await a_game(db, await a_table(db))
    assert await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="chan",
                               entries=ledger.entries(outcome, paid, players))
    written = await db.fetchall("SELECT seat, chips FROM ledger WHERE game_id = ? ORDER BY seat", (game_id,))
    assert tuple(row["chips"] for row in written) == paid.chips
    assert (await ledger.balance(db, GUILD, 104)).chips == -13
