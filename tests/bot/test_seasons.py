"""Seasons: named stretches of a server's ledger (the ledger itself is never written), started
once per confirmation even when it is clicked twice at the same instant."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from itertools import count

import pytest

from bot import ledger, seasons
from bot.db import Database
from bot.tables.controls import AdminId, parse_admin
from tests.support.databases import both_backends
from tests.bot.test_ledger import GUILD, a_game, a_table, entries

ADMIN = 900


@pytest.fixture
async def db(database):
    db = await Database.open(database)
    yield db
    await db.close()


@pytest.fixture
def clock(monkeypatch):
    """The ledger's and the seasons' clock, a minute later at each reading."""
    start = datetime.now(timezone.utc) - timedelta(days=1)
    ticks = count()

    def now_iso() -> str:
        return (start + timedelta(minutes=next(ticks))).isoformat(timespec="seconds")

    monkeypatch.setattr(ledger, "now_iso", now_iso)
    monkeypatch.setattr(seasons, "now_iso", now_iso)


async def settled(db: Database, chips: list[int]) -> None:
    game_id = await a_game(db, await a_table(db))
    assert await ledger.settle(db, game_id=game_id, guild_id=GUILD, game="phom", entries=entries(chips))


def totals(rows: list[ledger.Standing]) -> dict[int, int]:
    return {row.user_id: row.chips for row in rows}


@both_backends
async def test_a_season_is_the_games_settled_until_the_next_one_starts(db, clock):
    await settled(db, [30, -30])
    spring = await seasons.start(db, GUILD, "  Spring ", ADMIN, after=None)
    assert spring.name == "Spring" and spring.ended_at is None
    await settled(db, [-5, 5])
    await settled(db, [-5, 5])
    rows = await db.fetchall("SELECT * FROM ledger ORDER BY id")
    summer = await seasons.start(db, GUILD, "Summer", ADMIN, after=spring.id)
    await settled(db, [1, -1])

    spring, summer = await seasons.seasons(db, GUILD)
    assert spring.ended_at == summer.started_at and summer.ended_at is None
    assert totals(await ledger.leaderboard(db, GUILD, window=spring.window)) == {101: -10, 102: 10}
    assert totals(await ledger.leaderboard(db, GUILD, window=summer.window)) == {101: 1, 102: -1}
    assert totals(await ledger.leaderboard(db, GUILD)) == {101: 21, 102: -21}
    series = await ledger.running_totals(db, GUILD, [101], window=spring.window)
    assert series.totals == {101: [-5, -10]}
    assert seasons.named(await seasons.seasons(db, GUILD), "SPRING") == spring
    # the ledger rows are the same rows: a season start only adds a season
    assert (await db.fetchall("SELECT * FROM ledger ORDER BY id"))[:len(rows)] == rows
    assert [row["detail"] for row in await db.admin_log(GUILD)] == ["Summer", "Spring"]


@both_backends
async def test_a_confirmation_clicked_twice_at_once_starts_one_season(db):
    both = await asyncio.gather(*(seasons.start(db, GUILD, "Spring", ADMIN, after=None) for _ in range(2)))
    assert sorted(season is None for season in both) == [False, True]
    assert [season.name for season in await seasons.seasons(db, GUILD)] == ["Spring"]
    assert len(await db.admin_log(GUILD)) == 1
    # a stale confirmation (the season it ends is no longer the current one), or a name taken
    assert await seasons.start(db, GUILD, "Summer", ADMIN, after=None) is None
    (spring,) = await seasons.seasons(db, GUILD)
    assert await seasons.start(db, GUILD, "spring", ADMIN, after=spring.id) is None
    assert len(await db.admin_log(GUILD)) == 1


def test_a_season_confirmation_fits_in_a_custom_id():
    name = "Mùa xuân: giải vô địch năm 2027 của server"[:seasons.NAME_LIMIT]
    control = AdminId(2 ** 63 - 1, "season", f"{2 ** 40}:{name}")
    assert len(str(control)) <= 100
    assert parse_admin(str(control).split(":", 1)[1]) == control
