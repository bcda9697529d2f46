"""The bot's storage, on SQLite (a file, the default) or PostgreSQL (a URL), with numbered
schema migrations that serve both (:mod:`bot.schema`).

Everything that must survive a restart lives here: tables and their seats, each game's deck
and action list (its record), the DM messages to edit, and the chip ledger; with several
processes, the leases and routed clicks too (:mod:`bot.leasing`: ``db.leases``, ``db.clicks``).
"""

from __future__ import annotations

import contextlib
import json
import logging
from datetime import datetime, timezone
from typing import Any, AsyncContextManager, ContextManager, Sequence

from .backends import Row, open_backend
from .leasing import DB_NOW, FENCE, Lease, LeaseLost, LeaseQueries, RoutedClicks, fence
from .schema import MIGRATIONS, statements
from .version import version

__all__ = ["Database", "Lease", "LeaseLost", "NewerSchema", "now_iso"]

log = logging.getLogger(__name__)

#: meta key: the version of Chiếu that last brought the schema up (named when an older one refuses it)
SCHEMA_WRITER = "schema_written_by"


class NewerSchema(RuntimeError):
    """The database's schema is newer than this version of Chiếu knows (it was upgraded by a
    later one): running on it could write what the newer version does not expect."""

    def __init__(self, found: int, known: int, written_by: str | None) -> None:
        self.found, self.known, self.written_by = found, known, written_by
        needs = f"Chiếu {written_by} or later" if written_by else "a later version of Chiếu"
        super().__init__(f"the database is at schema version {found}, newer than this Chiếu ({version()}) knows "
                         f"({known}): it needs {needs}; upgrade the bot, or restore a backup taken before the "
                         "upgrade (docs/operating.md, \"Upgrading\")")

# An open table: in a lobby or a game, or finished since ? (its Rematch button still works).
_OPEN = ("(tables.status IN ('lobby', 'playing') OR (tables.status = 'finished' AND EXISTS"
         " (SELECT 1 FROM games WHERE games.table_id = tables.id AND games.game_no = tables.game_no"
         " AND games.ended_at >= ?)))")

# A table an admin may close: in a lobby or a game, or its game over but not settled yet.
_CLOSABLE = ("(tables.status IN ('lobby', 'playing') OR (tables.status = 'finished' AND EXISTS"
             " (SELECT 1 FROM games WHERE games.table_id = tables.id AND games.game_no = tables.game_no"
             " AND games.status = 'playing')))")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Database:
    """The bot's storage: every query it makes, over SQLite or PostgreSQL (``bot.backends``).

    ``database`` is a SQLite file path or a ``postgresql://`` URL. ``async with
    db.transaction():`` encloses statements committed together or not at all (and never
    nested); a statement outside one commits by itself. Rows are :class:`bot.backends.Row`:
    ``row["col"]``, ``row[0]``, unpacking, the same on both engines. With several processes,
    their leases are ``leases`` and the clicks routed among them ``clicks``.
    """

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.leases = LeaseQueries(self)
        self.clicks = RoutedClicks(self, self.leases)

    @classmethod
    async def open(cls, database: str, *, lock_seconds: float | None = None) -> "Database":
        """The database, its schema brought up to date; ``lock_seconds``: see open_backend."""
        db = cls(await open_backend(database, lock_seconds=lock_seconds))
        try:
            await db.migrate()
        except BaseException:
            await db.close()
            raise
        return db

    def describe(self) -> str:
        return self.backend.describe()

    async def close(self) -> None:
        await self.backend.close()

    async def migrate(self) -> int:
        """Bring the schema up to date, one migration per transaction. Another process may be
        migrating the same database: the version is read again under the schema lock. A schema
        newer than this code knows is refused (:class:`NewerSchema`), naming the version of
        Chiếu that wrote it."""
        current = await self.backend.schema_version()
        if current > len(MIGRATIONS):
            raise NewerSchema(current, len(MIGRATIONS), await self.get_meta(SCHEMA_WRITER))
        while current < len(MIGRATIONS):
            async with self.transaction():
                await self.backend.lock_schema()
                current = await self.backend.schema_version()
                if current < len(MIGRATIONS):
                    for statement in statements(self.backend.ddl(MIGRATIONS[current])):
                        await self.execute(statement)
                    current += 1
                    await self.backend.set_schema_version(current)
                    await self.set_meta(SCHEMA_WRITER, version())
        return len(MIGRATIONS)

    def limited(self, seconds: float) -> ContextManager[None]:
        """Within the block, each statement of this task fails (a TimeoutError, a database
        failure) when the database takes longer than ``seconds`` to answer it, and nothing it
        wrote is committed: for an answer that must come in time (a click: Discord's 3 s)
        whatever the server does. SQLite (a local file) needs none."""
        limited = getattr(self.backend, "limited", None)
        return limited(seconds) if limited is not None else contextlib.nullcontext()

    def transaction(self) -> AsyncContextManager[None]:
        """All statements of the enclosed block, committed together or not at all."""
        return self.backend.transaction()

    def in_transaction(self) -> bool:
        return self.backend.in_transaction()

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one writing statement (inside the current transaction, or as its own); returns
        how many rows it changed (0 for an ``INSERT ... ON CONFLICT DO NOTHING`` that did nothing)."""
        return await self.backend.execute(sql, params)

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one ``INSERT`` into a table with an ``id`` column; returns the new row's id."""
        return await self.backend.insert(sql, params)

    async def executemany(self, sql: str, rows: list[Sequence[Any]]) -> None:
        """One statement over many rows: inside a transaction only."""
        await self.backend.executemany(sql, rows)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self.backend.fetchone(sql, params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self.backend.fetchall(sql, params)

    # ---- meta
    async def get_meta(self, key: str) -> str | None:
        row = await self.fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else row["value"]

    async def set_meta(self, key: str, value: str) -> None:
        await self.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # ---- players
    async def user_language(self, user_id: int) -> tuple[str, bool] | None:
        row = await self.fetchone("SELECT language, chosen FROM users WHERE user_id = ?", (user_id,))
        return None if row is None else (row["language"], bool(row["chosen"]))

    async def set_user_language(self, user_id: int, language: str, chosen: bool) -> None:
        await self.execute(
            "INSERT INTO users (user_id, language, chosen) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE"
            " SET language = excluded.language, chosen = excluded.chosen", (user_id, language, int(chosen)))

    async def user_notify(self, user_id: int) -> str | None:
        row = await self.fetchone("SELECT notify FROM users WHERE user_id = ?", (user_id,))
        return None if row is None else row["notify"]

    async def set_user_notify(self, user_id: int, mode: str, language: str) -> None:
        """``language``: the one to remember if the player is new to the bot."""
        await self.execute(
            "INSERT INTO users (user_id, language, notify) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE"
            " SET notify = excluded.notify", (user_id, language, mode))

    # ---- tables
    async def insert_table(self, *, guild_id: int, channel_id: int, game: str, options: dict,
                           host_id: int, seats: list[dict], guild_name: str | None = None) -> int:
        table_id = await self.insert(
            "INSERT INTO tables (guild_id, channel_id, game, options, host_id, status, seats, created_at, guild_name)"
            " VALUES (?, ?, ?, ?, ?, 'lobby', ?, ?, ?)",
            (guild_id, channel_id, game, json.dumps(options), host_id, json.dumps(seats), now_iso(), guild_name),
        )
        # (the operator's log: ids only, as every line about a table or a game)
        log.info("table %s opened: %s, server %s, channel %s, host %s", table_id, game, guild_id, channel_id, host_id)
        return table_id

    async def update_table(self, table_id: int, *, lease: Lease | None = None, **fields: Any) -> None:
        """Change a table's columns; with ``lease``, only while that lease holds (else
        :class:`LeaseLost`, and nothing changed)."""
        if not fields:
            return
        for key in ("options", "seats", "timeouts"):
            if key in fields:
                fields[key] = json.dumps(fields[key])
        sets = ", ".join(f"{key} = ?" for key in fields)
        if lease is None:
            await self.execute(f"UPDATE tables SET {sets} WHERE id = ?", (*fields.values(), table_id))
            return
        changed = await self.execute(f"UPDATE tables SET {sets} WHERE id = ? AND {FENCE}",
                                     (*fields.values(), table_id, *fence(lease)))
        if changed == 0:
            raise LeaseLost(f"table {table_id}: lease {lease.epoch} of {lease.holder} is gone")

    async def open_tables(self, finished_since: str) -> list[Row]:
        """Tables in a lobby or a game, and those whose last game ended since ``finished_since``
        (their Rematch button still works)."""
        return await self.fetchall(f"SELECT * FROM tables WHERE {_OPEN} ORDER BY id", (finished_since,))

    async def open_tables_in(self, channel_id: int) -> list[Row]:
        """The tables in a lobby or a game in a channel, whichever process drives them."""
        return await self.fetchall("SELECT id, status, host_id FROM tables WHERE channel_id = ?"
                                   " AND status IN ('lobby', 'playing') ORDER BY id", (channel_id,))

    async def open_table(self, table_id: int, finished_since: str) -> Row | None:
        """The table if it is open (as :meth:`open_tables` counts them)."""
        return await self.fetchone(f"SELECT * FROM tables WHERE id = ? AND {_OPEN}", (table_id, finished_since))

    async def get_table(self, table_id: int) -> Row | None:
        return await self.fetchone("SELECT * FROM tables WHERE id = ?", (table_id,))

    # ---- games and their records
    async def insert_game(self, *, table_id: int, game_no: int, guild_id: int, game: str,
                          seats: list[dict], options: dict, decks: list[list[str]], stake: int,
                          seed: int | None = None) -> int:
        """A new game with the packs dealt so far (one per round); call it inside a transaction."""
        game_id = await self.insert(
            "INSERT INTO games (table_id, game_no, guild_id, game, seats, options, seed, stake, status,"
            " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
            (table_id, game_no, guild_id, game, json.dumps(seats), json.dumps(options), seed, stake, now_iso()))
        await self.add_decks(game_id, 1, decks)
        log.info("game %s started at table %s: %s, %d seats", game_id, table_id, game, len(seats))
        return game_id

    async def add_decks(self, game_id: int, first_round: int, decks: list[list[str]]) -> None:
        for number, deck in enumerate(decks, start=first_round):
            await self.execute("INSERT INTO game_decks (game_id, round, deck) VALUES (?, ?, ?)",
                               (game_id, number, json.dumps(deck)))

    async def record(self, game_id: int) -> dict[str, Any]:
        """The stored record of a game (docs/rules/notation.md): a one-round game's ``deck``,
        or a match's ``decks`` and ``seed``; the caller knows which its game is."""
        row = await self.get_game(game_id)
        if row is None:
            raise LookupError(f"no game {game_id}")
        decks = [json.loads(r["deck"]) for r in await self.fetchall(
            "SELECT deck FROM game_decks WHERE game_id = ? ORDER BY round", (game_id,))]
        return {"game": row["game"], "version": 1, "options": json.loads(row["options"]), "seed": row["seed"],
                "decks": decks, "actions": await self.actions(game_id)}

    async def get_game(self, game_id: int) -> Row | None:
        return await self.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))

    async def current_game(self, table_id: int, game_no: int) -> Row | None:
        return await self.fetchone("SELECT * FROM games WHERE table_id = ? AND game_no = ?", (table_id, game_no))

    async def append_action(self, game_id: int, idx: int, seat: int, action: str,
                            turn_deadline: float | None = None, *, lease: Lease | None = None) -> None:
        """One move, with the deadline of the turn it starts: a single statement, so the busiest
        write of the bot holds the writer for one round trip. The primary key (game_id, idx)
        makes a second writer for the same step fail loudly; ``lease`` (several processes)
        makes a writer that no longer drives the table fail before it writes (LeaseLost)."""
        values = (game_id, idx, seat, action, now_iso(), turn_deadline)
        if lease is None:
            await self.execute(
                "INSERT INTO actions (game_id, idx, seat, action, at, turn_deadline) VALUES (?, ?, ?, ?, ?, ?)",
                values)
            return
        written = await self.execute(
            "INSERT INTO actions (game_id, idx, seat, action, at, turn_deadline) SELECT ?, ?, ?, ?, ?, ?"
            f" WHERE {FENCE}", (*values, *fence(lease)))
        if written == 0:
            raise LeaseLost(f"table {lease.table_id}: lease {lease.epoch} of {lease.holder} is gone")

    async def last_turn_deadline(self, game_id: int) -> float | None:
        row = await self.fetchone("SELECT turn_deadline FROM actions WHERE game_id = ? ORDER BY idx DESC LIMIT 1",
                                  (game_id,))
        return None if row is None else row["turn_deadline"]

    async def actions(self, game_id: int) -> list[tuple[int, str]]:
        rows = await self.fetchall("SELECT seat, action FROM actions WHERE game_id = ? ORDER BY idx", (game_id,))
        return [(row["seat"], row["action"]) for row in rows]

    async def finish_game(self, game_id: int, status: str, outcome: dict | None) -> None:
        await self.execute(
            "UPDATE games SET status = ?, ended_at = ?, outcome = ? WHERE id = ?",
            (status, now_iso(), None if outcome is None else json.dumps(outcome), game_id),
        )

    async def unsettled_games(self) -> list[Row]:
        """Games still 'playing' although their table has moved on (finished, or a later game)."""
        return await self.fetchall(
            "SELECT games.*, tables.options AS table_options FROM games JOIN tables ON tables.id = games.table_id"
            " WHERE games.status = 'playing' AND (tables.game_no != games.game_no OR tables.status != 'playing')")

    async def void_game(self, game_id: int, guild_id: int, closed_by: int) -> bool:
        """An admin closed the game before its settlement was written: it is void (aborted, no
        chip moves) and says who closed it; False (and nothing changed) if it was settled before.
        Its settlement's row is the claim, as in :func:`bot.ledger.settle`: of a close and a
        settlement racing, one inserts it and the other nothing, so the game is settled once or
        never, and a settlement retried later finds it claimed. Call it inside a transaction."""
        claimed = await self.execute(
            "INSERT INTO settlements (game_id, guild_id, settled_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (game_id, guild_id, now_iso()))
        if claimed == 0:
            return False
        await self.execute("UPDATE games SET status = 'aborted', ended_at = ?, outcome = NULL, closed_by = ?"
                           " WHERE id = ?", (now_iso(), closed_by, game_id))
        log.info("game %s void: closed by %s before its end", game_id, closed_by)
        return True

    async def set_game_seats(self, game_id: int, seats: list[dict]) -> None:
        """The seats of a game in play changed (an admin removed a player: the AI plays his seat)."""
        await self.execute("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game_id))

    async def server_tables(self, guild_id: int) -> list[Row]:
        """The server's tables in a lobby or a game (or whose game ended but is not settled yet),
        oldest first, with their current game's last move (``last_move``: its time, None before any)."""
        return await self.fetchall(
            "SELECT tables.*, (SELECT MAX(actions.at) FROM games JOIN actions ON actions.game_id = games.id"
            " WHERE games.table_id = tables.id AND games.game_no = tables.game_no) AS last_move"
            f" FROM tables WHERE guild_id = ? AND {_CLOSABLE} ORDER BY id", (guild_id,))

    async def closable_table(self, table_id: int) -> Row | None:
        """The table if an admin may close it (as :meth:`server_tables` lists them)."""
        return await self.fetchone(f"SELECT * FROM tables WHERE id = ? AND {_CLOSABLE}", (table_id,))

    async def closed_games(self, guild_id: int, user_id: int, limit: int = 10) -> list[Row]:
        """The games an admin closed (void) in which this person sat, newest first."""
        return await self.fetchall(
            "SELECT id, game, table_id, game_no, ended_at, closed_by FROM games"
            " WHERE guild_id = ? AND status = 'aborted'"
            " AND closed_by IS NOT NULL AND seats LIKE ? ORDER BY id DESC LIMIT ?",
            (guild_id, f'%"user_id": {int(user_id)},%', limit))

    async def set_result_message(self, game_id: int, message_id: int, *, lease: Lease | None = None) -> None:
        async with self.leases.fenced(lease):
            await self.execute("UPDATE games SET result_message_id = ? WHERE id = ?", (message_id, game_id))

    async def set_rounds_posted(self, game_id: int, count: int, *, lease: Lease | None = None) -> None:
        async with self.leases.fenced(lease):
            await self.execute("UPDATE games SET rounds_posted = ? WHERE id = ? AND rounds_posted < ?",
                               (count, game_id, count))

    async def games_to_show(self, table_id: int) -> list[Row]:
        """Games of a table whose result never reached Discord (not aborted), oldest first."""
        return await self.fetchall(
            "SELECT * FROM games WHERE table_id = ? AND result_message_id IS NULL AND status != 'aborted'"
            " ORDER BY game_no", (table_id,))

    async def save_hand_message(self, game_id: int, seat: int, channel_id: int, message_id: int, *,
                                lease: Lease | None = None) -> None:
        async with self.leases.fenced(lease):
            await self.execute(
                "INSERT INTO hand_messages (game_id, seat, channel_id, message_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, seat) DO UPDATE SET channel_id = excluded.channel_id,"
                " message_id = excluded.message_id",
                (game_id, seat, channel_id, message_id),
            )

    async def hand_messages(self, game_id: int) -> dict[int, tuple[int, int]]:
        rows = await self.fetchall("SELECT * FROM hand_messages WHERE game_id = ?", (game_id,))
        return {row["seat"]: (row["channel_id"], row["message_id"]) for row in rows}

    async def add_notice(self, table_id: int, seat: int, channel_id: int, message_id: int) -> None:
        await self.execute("INSERT INTO notices (message_id, table_id, seat, channel_id) VALUES (?, ?, ?, ?)"
                           " ON CONFLICT (message_id) DO NOTHING", (message_id, table_id, seat, channel_id))

    async def notice_gone(self, message_id: int) -> None:
        await self.execute("DELETE FROM notices WHERE message_id = ?", (message_id,))

    async def notices(self, table_id: int) -> list[tuple[int, int, int]]:
        """The table's turn notices still on Discord, oldest first: (seat, channel, message)."""
        rows = await self.fetchall("SELECT * FROM notices WHERE table_id = ? ORDER BY message_id", (table_id,))
        return [(row["seat"], row["channel_id"], row["message_id"]) for row in rows]

    # ---- server admins
    async def server_settings(self, guild_id: int) -> dict[str, Any]:
        """What a server's admins set (``{}``: nothing, every default the config's)."""
        row = await self.fetchone("SELECT settings FROM server_settings WHERE guild_id = ?", (guild_id,))
        return {} if row is None else json.loads(row["settings"])

    async def save_server_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        await self.execute("INSERT INTO server_settings (guild_id, settings) VALUES (?, ?) ON CONFLICT (guild_id)"
                           " DO UPDATE SET settings = excluded.settings", (guild_id, json.dumps(settings)))

    async def log_admin_action(self, guild_id: int, user_id: int, action: str, *, table_id: int | None = None,
                               detail: str = "") -> None:
        """One line of the server's audit log: who did what, when, to which table."""
        await self.insert("INSERT INTO admin_log (guild_id, user_id, action, table_id, detail, at)"
                          " VALUES (?, ?, ?, ?, ?, ?)", (guild_id, user_id, action, table_id, detail, now_iso()))

    async def admin_log(self, guild_id: int, limit: int = 15) -> list[Row]:
        """The server's last admin actions, newest first."""
        return await self.fetchall("SELECT * FROM admin_log WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
                                   (guild_id, limit))

    async def tables_to_adopt(self, holder: str, finished_since: str) -> list[int]:
        """Open tables (as :meth:`open_tables` counts them) that no live process drives: no
        lease, an expired one, or one in ``holder``'s name (a previous life of this process)."""
        rows = await self.fetchall(
            "SELECT tables.id FROM tables LEFT JOIN leases ON leases.table_id = tables.id"
            f" WHERE (leases.table_id IS NULL OR leases.expires_at < {DB_NOW} OR leases.holder = ?) AND {_OPEN}"
            " ORDER BY tables.id", (holder, finished_since))
        return [row["id"] for row in rows]


