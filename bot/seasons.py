"""A server's seasons: named stretches of its chip ledger (issue #27).

The ledger is never rewritten: a season is only where it starts (``seasons.started_at``), and
it runs until the server's next season starts; before the first, there is only "all time". A
game belongs to the season during which it was settled (its ledger rows' ``at``); both are
written to the second, so a game settled in the very second a season starts counts in the
new season.
"""

from __future__ import annotations

from dataclasses import dataclass

from .db import Database, now_iso
from .ledger import ALL_TIME, Window

#: A season's name, at most this long: it travels in its confirmation button's custom id
#: (Discord allows 100 characters there) and in the leaderboard's title.
NAME_LIMIT = 40


@dataclass(frozen=True)
class Season:
    id: int
    name: str
    started_at: str
    started_by: int
    ended_at: str | None = None  # when the next season started; None: it is the current one

    @property
    def window(self) -> Window:
        return Window(self.started_at, self.ended_at)


def clean_name(name: str) -> str:
    """A season's name as stored: one line, its spaces trimmed."""
    return " ".join(name.split())


async def seasons(db: Database, guild_id: int) -> list[Season]:
    """The server's seasons, oldest first (the last is the current one)."""
    rows = await db.fetchall("SELECT * FROM seasons WHERE guild_id = ? ORDER BY started_at, id", (guild_id,))
    ends = [row["started_at"] for row in rows[1:]] + [None]
    return [Season(row["id"], row["name"], row["started_at"], row["started_by"], end)
            for row, end in zip(rows, ends)]


async def current(db: Database, guild_id: int) -> Season | None:
    """The season the server plays in now (None: it never started one)."""
    known = await seasons(db, guild_id)
    return known[-1] if known else None


def named(known: list[Season], name: str) -> Season | None:
    """The season of that name (as typed: spaces and case do not matter)."""
    wanted = clean_name(name).casefold()
    return next((season for season in known if season.name.casefold() == wanted), None)


async def start(db: Database, guild_id: int, name: str, user_id: int, *, after: int | None) -> Season | None:
    """Start season ``name``, the server's current season being ``after`` (its id; None: the
    server had none), and log it (one ``admin_log`` line), together. Returns the new season,
    or None when nothing changed: another season started since (a second click of the same
    confirmation, or another admin was first) or the name is taken."""
    name = clean_name(name)
    async with db.transaction():
        known = await seasons(db, guild_id)
        now = known[-1] if known else None
        if (now.id if now else None) != after or named(known, name):
            return None
        # started_at is never before the current season's start (a clock stepping back would
        # otherwise put the new season first)
        started_at = max(now_iso(), now.started_at) if now else now_iso()
        # the unique name also stops a second click racing this one on PostgreSQL
        inserted = await db.execute(
            "INSERT INTO seasons (guild_id, name, started_at, started_by) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (guild_id, name, started_at, user_id))
        if not inserted:
            return None
        await db.log_admin_action(guild_id, user_id, "season", detail=name)
    return named(await seasons(db, guild_id), name)


def window_of(season: Season | None) -> Window:
    return season.window if season else ALL_TIME
