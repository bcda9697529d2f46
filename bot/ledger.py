"""The chip ledger: what a finished game pays in chips, and its settlement, one per game,
written in one transaction, idempotent.

The chips come from the engine's outcome here and nowhere else (:func:`settlement`,
:func:`entries`): the table's result message shows the same :class:`Settlement` the ledger
writes. Chips record who won what among friends; they are never money. Balances start at 0
and may go negative. AI seats take part in the settlement (so every game sums to zero) under
``user_id`` NULL and are left out of balances and leaderboards.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Protocol, Sequence

from .db import Database, Lease, now_iso
from .games.base import Note, Outcome

log = logging.getLogger(__name__)

#: called with the game's name after each settlement written (bot.metrics counts them)
SETTLED: list[Callable[[str], None]] = []

PERIODS: dict[str, timedelta | None] = {"week": timedelta(days=7), "month": timedelta(days=30), "all": None}


@dataclass(frozen=True)
class Entry:
    seat: int
    user_id: int | None
    name: str
    chips: int
    ga: int
    rank: int
    points: int | None
    won: bool
    detail: list[Note]
    rounds: int | None = None  # a match of several rounds: how many were played


class UnbalancedSettlement(ValueError):
    pass


@dataclass(frozen=True)
class Settlement:
    """What a finished game pays, in chips, exactly as the ledger records it: ``chips`` is each
    seat's net (by seat; gà included), ``stake`` the chips per stake unit, ``pot`` the chips a
    match played for a pot had in it (None for other games)."""

    stake: int
    chips: tuple[int, ...]
    pot: int | None = None


def settlement(outcome: Outcome, *, stake: int, ga_stake: int = 0) -> Settlement:
    """The chips the game's ``outcome`` pays each seat at ``stake`` chips per stake unit and
    ``ga_stake`` chips per gà point (Chắn; 0: gà moves no chips)."""
    won = outcome.chips(stake)
    ga = {result.seat: result.ga for result in outcome.results}
    return Settlement(stake, tuple(won[seat] + ga.get(seat, 0) * ga_stake for seat in range(len(won))),
                      None if outcome.pot is None else sum(outcome.pot) * stake)


class Player(Protocol):
    """Who sat at a seat: a person (``user_id``) or an AI seat (None), and the name played under."""

    @property
    def user_id(self) -> int | None: ...

    @property
    def name(self) -> str: ...


def entries(outcome: Outcome, paid: Settlement, players: Sequence[Player], *,
            rounds: int | None = None) -> list[Entry]:
    """The ledger's rows of a finished game: each seat's chips as ``paid`` (:func:`settlement`
    of the same outcome), with its gà, rank, points and notes from the outcome; ``rounds``: a
    match of several rounds, how many were played."""
    winners = set(outcome.winners)
    return [Entry(seat=r.seat, user_id=players[r.seat].user_id, name=players[r.seat].name, chips=paid.chips[r.seat],
                  ga=r.ga, rank=r.rank, points=r.points, won=r.seat in winners, detail=list(r.notes), rounds=rounds)
            for r in outcome.results]


async def settle(db: Database, *, game_id: int, guild_id: int, game: str, entries: list[Entry],
                 outcome: dict | None = None, lease: Lease | None = None) -> bool:
    """Write the game's settlement, and mark the game finished with ``outcome``, in one
    transaction; returns False (and changes nothing) if it was settled before. With ``lease``
    (several processes), only while it holds (else :class:`~bot.db.LeaseLost`)."""
    if sum(e.chips for e in entries) != 0 or sum(e.ga for e in entries) != 0:
        raise UnbalancedSettlement(f"settlement of game {game_id} does not sum to zero")
    at = now_iso()
    async with db.transaction():
        if lease is not None:
            await db.leases.check(lease)
        # The settlement's row is the claim: of two settlements of one game racing (two
        # processes, or a retry), the unique game_id lets one insert and the other insert
        # nothing (it waits for the first to commit or roll back), never both.
        inserted = await db.execute(
            "INSERT INTO settlements (game_id, guild_id, settled_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (game_id, guild_id, at))
        if inserted == 0:
            return False
        await db.executemany(
            "INSERT INTO ledger (game_id, guild_id, game, seat, user_id, name, chips, ga, rank, points, won,"
            " detail, at, rounds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, guild_id, game, e.seat, e.user_id, e.name, e.chips, e.ga, e.rank, e.points,
                 int(e.won), json.dumps(e.detail, ensure_ascii=False), at, e.rounds)
                for e in entries
            ],
        )
        await db.finish_game(game_id, "finished", outcome)
    # ids and chips only: a log line never shows a hand
    log.info("game %s (%s, server %s) finished and settled: chips by seat %s", game_id, game, guild_id,
             " ".join(f"{e.seat}:{e.chips:+d}" for e in entries))
    for listener in list(SETTLED):
        listener(game)
    return True


@dataclass(frozen=True)
class Balance:
    chips: int
    ga: int
    games: int
    wins: int


async def balance(db: Database, guild_id: int, user_id: int, *, game: str | None = None) -> Balance:
    where, params = _where(guild_id, game, "all", None)
    row = await db.fetchone(
        "SELECT COALESCE(SUM(chips), 0) AS chips, COALESCE(SUM(ga), 0) AS ga, COUNT(*) AS games,"
        f" COALESCE(SUM(won), 0) AS wins FROM ledger WHERE {where} AND user_id = ?",
        (*params, user_id),
    )
    assert row is not None  # (sums over no row are a row of zeros)
    return Balance(row["chips"], row["ga"], row["games"], row["wins"])


@dataclass(frozen=True)
class Window:
    """A stretch of the ledger's time (a season: :mod:`bot.seasons`): the games settled from
    ``since`` (included) until ``until`` (excluded); ``None``: from the first, or until now."""
    since: str | None = None
    until: str | None = None


ALL_TIME = Window()


def _where(guild_id: int, game: str | None, period: str, now: datetime | None,
           window: Window = ALL_TIME) -> tuple[str, list]:
    """The ledger rows of this server (of one game, within the period and the window), as SQL
    and its parameters. A period within a window is their overlap."""
    if period not in PERIODS:
        raise ValueError(f"period must be one of {', '.join(PERIODS)}")
    where, params = ["guild_id = ?"], [guild_id]  # type: list[str], list[Any]
    if game:
        where.append("game = ?")
        params.append(game)
    span = PERIODS[period]
    if span is not None:
        since = (now or datetime.now(timezone.utc)) - span
        where.append("at >= ?")
        params.append(since.isoformat(timespec="seconds"))
    if window.since is not None:
        where.append("at >= ?")
        params.append(window.since)
    if window.until is not None:
        where.append("at < ?")
        params.append(window.until)
    return " AND ".join(where), params


#: What a ranking counts, per game, as SQL over a ledger row.
MEASURES = {"chips": "chips", "ga": "ga", "wins": "won"}


@dataclass(frozen=True)
class Series:
    """Running totals over the settled games, in the order they were settled: ``at[k]`` is when
    game k was settled, ``totals[user_id][k]`` the player's total after it (games he did not
    play leave it as it was)."""
    at: list[str]
    totals: dict[int, list[int]]


async def running_totals(db: Database, guild_id: int, user_ids: list[int], *, game: str | None = None,
                         period: str = "all", by: str = "chips", now: datetime | None = None,
                         window: Window = ALL_TIME) -> Series:
    """The running totals of ``user_ids`` (chips, gà or wins, as :func:`leaderboard` ranks by) over
    the games any of them played here: a player's chips over time, or the top players' race.
    The last total of each is what :func:`balance` / :func:`leaderboard` say for the same filter."""
    if by not in MEASURES:
        raise ValueError("by must be chips, ga or wins")
    if not user_ids:
        return Series([], {})
    where, params = _where(guild_id, game, period, now, window)
    users = ", ".join("?" for _ in user_ids)
    rows = await db.fetchall(
        f"SELECT game_id, at, user_id, {MEASURES[by]} AS value FROM ledger"
        f" WHERE {where} AND user_id IN ({users}) ORDER BY at, game_id, seat",
        (*params, *user_ids),
    )
    at: list[str] = []
    totals: dict[int, list[int]] = {user: [] for user in user_ids}
    running = dict.fromkeys(user_ids, 0)
    last_game = None
    for row in rows:
        if row["game_id"] != last_game:
            if last_game is not None:
                for user in user_ids:
                    totals[user].append(running[user])
            at.append(row["at"])
            last_game = row["game_id"]
        running[row["user_id"]] += row["value"]
    if last_game is not None:
        for user in user_ids:
            totals[user].append(running[user])
    return Series(at, totals)


@dataclass(frozen=True)
class Standing:
    user_id: int
    name: str
    chips: int
    ga: int
    games: int
    wins: int
    rounds: int = 0  # rounds played in matches of several rounds


async def leaderboard(db: Database, guild_id: int, *, game: str | None = None, period: str = "all",
                      by: str = "chips", limit: int = 10, now: datetime | None = None,
                      window: Window = ALL_TIME) -> list[Standing]:
    if by not in MEASURES:
        raise ValueError("by must be chips, ga or wins")
    where, params = _where(guild_id, game, period, now, window)
    # The latest name a player played under is the one shown.
    rows = await db.fetchall(
        f"SELECT user_id, (SELECT name FROM ledger l2 WHERE l2.user_id = ledger.user_id ORDER BY l2.id DESC LIMIT 1)"
        f" AS name, SUM(chips) AS chips, SUM(ga) AS ga, COUNT(*) AS games, SUM(won) AS wins,"
        f" COALESCE(SUM(rounds), 0) AS rounds"
        f" FROM ledger WHERE {where} AND user_id IS NOT NULL GROUP BY user_id"
        f" ORDER BY {by} DESC, wins DESC, games ASC, user_id ASC LIMIT ?",
        (*params, limit),
    )
    return [Standing(r["user_id"], r["name"], r["chips"], r["ga"], r["games"], r["wins"], r["rounds"]) for r in rows]


@dataclass(frozen=True)
class HistoryItem:
    game_id: int
    game: str
    at: str
    rank: int
    players: int
    chips: int
    ga: int
    points: int | None
    detail: list[str]
    rounds: int | None = None


async def history(db: Database, guild_id: int, user_id: int, limit: int = 10) -> list[HistoryItem]:
    rows = await db.fetchall(
        "SELECT l.*, (SELECT COUNT(*) FROM ledger o WHERE o.game_id = l.game_id) AS players"
        " FROM ledger l WHERE l.guild_id = ? AND l.user_id = ? ORDER BY l.id DESC LIMIT ?",
        (guild_id, user_id, limit),
    )
    return [
        HistoryItem(r["game_id"], r["game"], r["at"], r["rank"], r["players"], r["chips"], r["ga"], r["points"],
                    json.loads(r["detail"]), r["rounds"])
        for r in rows
    ]
