"""The bot's tables seen from outside by the load benchmark: which have work in flight, the
drain after the clicks stop, and the games settled, stuck or left unsettled (of this process's
simulated servers only: several processes may share the database)."""

from __future__ import annotations

import asyncio
import sys
import time

from benchmarks.load.meters import RestCounter


def winding_up(table) -> bool:
    """The table has work in flight: a move being applied, a message its outbox has still to
    show, a settlement, a game over whose table has not finished yet."""
    if table.lock.locked() or table.finishing:
        return True
    if table.presenter is not None and table.presenter.pending():
        return True
    return table.status == "playing" and table.state is not None and table.state.is_over


def ai_to_move(table) -> bool:
    """An AI seat (or the AI standing in for someone) moves next, without anyone clicking."""
    state = table.state
    return table.status == "playing" and state is not None and not state.is_over and \
        any(table.seats[seat].auto for seat in state.to_act)


async def drain(bot, rest: RestCounter, limit: float) -> tuple[float, int]:
    """Wait until no table has work in flight or an AI seat to move and no REST call came for
    half a second, at most ``limit`` seconds (AI seats may play on for ever once every person
    is out of a match); then, however long it takes, until no table is winding up a move or a
    game. Returns the time it took and the tables where AI seats still play."""
    start = time.perf_counter()
    while True:
        await asyncio.sleep(0.1)
        tables = list(bot.tables.tables.values())
        if time.perf_counter() - start < limit + 60 and (
                any(winding_up(table) for table in tables) or time.perf_counter() - rest.last_call < 0.5):
            continue  # (a minute more at most: then what is still winding up counts as stuck)
        playing_on = sum(ai_to_move(table) for table in tables)
        if not playing_on or time.perf_counter() - start >= limit:
            for table in tables:
                if winding_up(table):
                    pending = [key for key, slot in (table.presenter.slots.items() if table.presenter else ())
                               if slot.dirty and not slot.done]
                    print(f"  table {table.id} still winding up: lock {table.lock.locked()}, finishing "
                          f"{table.finishing}, status {table.status}, messages to show {pending}", file=sys.stderr)
            return time.perf_counter() - start, playing_on


def servers_here(bot) -> tuple[str, tuple[int, ...]]:
    """The condition on ``guild_id`` that keeps the rows of this bot's simulated servers, and
    its parameters: with several processes on one database, the others' tables are theirs to
    count."""
    guilds = tuple(guild.id for guild in bot.guilds)
    return f"guild_id IN ({', '.join('?' * len(guilds))})", guilds


async def settled_count(bot) -> int:
    here, guilds = servers_here(bot)
    (count,) = await bot.db.fetchone(f"SELECT COUNT(*) FROM settlements WHERE {here}", guilds)
    return count


async def stuck_and_unsettled(bot) -> tuple[int, int]:
    stuck = sum(1 for t in bot.tables.tables.values()
                if t.status == "playing" and t.state is not None and t.state.is_over)
    here, guilds = servers_here(bot)
    (unsettled,) = await bot.db.fetchone(
        "SELECT COUNT(*) FROM games WHERE status != 'finished' AND id NOT IN (SELECT game_id FROM settlements)"
        f" AND (SELECT status FROM tables WHERE tables.id = games.table_id) != 'playing' AND {here}", guilds)
    return stuck, unsettled
