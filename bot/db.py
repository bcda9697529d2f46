"""The bot's storage, on SQLite (a file, the default) or PostgreSQL (a URL), with numbered
schema migrations that serve both.

Everything that must survive a restart lives here: tables and their seats, each game's deck
and action list (its record), the DM messages to edit, and the chip ledger.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, AsyncContextManager, Sequence

from .backends import Row, open_backend

# Each entry upgrades the schema by one version; never edit a released entry, append a new one.
# They serve both engines: written as SQLite runs them, in SQL PostgreSQL accepts too once
# ``PostgresBackend.ddl`` has put its own words for the few that differ (INTEGER is BIGINT,
# REAL is DOUBLE PRECISION, ``id INTEGER PRIMARY KEY`` an identity column). A new migration
# keeps to what both accept (ALTER TABLE ADD/DROP COLUMN, ON CONFLICT, no PRAGMA).
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        thread_id INTEGER,
        lobby_message_id INTEGER,
        table_message_id INTEGER,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        host_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
        seats TEXT NOT NULL,
        game_no INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
    );
    CREATE INDEX tables_open ON tables (status);
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables (id),
        game_no INTEGER NOT NULL,
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        seats TEXT NOT NULL,
        options TEXT NOT NULL,
        deck TEXT NOT NULL,
        stake INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'aborted')),
        started_at TEXT NOT NULL,
        ended_at TEXT,
        outcome TEXT,
        UNIQUE (table_id, game_no)
    );
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games (id),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, idx)
    );
    CREATE TABLE hand_messages (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seat INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE TABLE settlements (
        game_id INTEGER PRIMARY KEY REFERENCES games (id),
        guild_id INTEGER NOT NULL,
        settled_at TEXT NOT NULL
    );
    CREATE TABLE ledger (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES settlements (game_id),
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        name TEXT NOT NULL,
        chips INTEGER NOT NULL,
        ga INTEGER NOT NULL DEFAULT 0,
        rank INTEGER NOT NULL,
        points INTEGER,
        won INTEGER NOT NULL,
        detail TEXT NOT NULL,
        at TEXT NOT NULL,
        UNIQUE (game_id, seat)
    );
    CREATE INDEX ledger_user ON ledger (guild_id, user_id, at);
    """,
    # 2: what a restart must not forget: the turn's deadline and each seat's timeouts in a
    # row, when a lobby expires, and whether a finished game's result reached the table.
    """
    ALTER TABLE tables ADD COLUMN turn_deadline REAL;
    ALTER TABLE tables ADD COLUMN timeouts TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE tables ADD COLUMN lobby_expires_at REAL;
    ALTER TABLE games ADD COLUMN result_message_id INTEGER;
    ALTER TABLE actions ADD COLUMN turn_deadline REAL;
    CREATE INDEX tables_lobby_host ON tables (channel_id, host_id, status);
    """,
    # 3: matches of several rounds. A record grows a pack each round, so packs get a table of
    # their own (every game's first pack moves there); the seed replays reshuffles and undealt
    # rounds. Tables remember the pause between rounds and how many round results they posted;
    # the ledger, how many rounds a match lasted.
    """
    CREATE TABLE game_decks (
        game_id INTEGER NOT NULL REFERENCES games (id),
        round INTEGER NOT NULL,
        deck TEXT NOT NULL,
        PRIMARY KEY (game_id, round)
    );
    INSERT INTO game_decks (game_id, round, deck) SELECT id, 1, deck FROM games;
    ALTER TABLE games DROP COLUMN deck;
    ALTER TABLE games ADD COLUMN seed INTEGER;
    ALTER TABLE tables ADD COLUMN pause_until REAL;
    ALTER TABLE tables ADD COLUMN rounds_posted INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE ledger ADD COLUMN rounds INTEGER;
    """,
    # 4: languages. A player's (from his last interaction, or chosen with /settings), and the
    # server a table is in, named in his DMs.
    """
    CREATE TABLE users (
        user_id INTEGER PRIMARY KEY,
        language TEXT NOT NULL,
        chosen INTEGER NOT NULL DEFAULT 0
    );
    ALTER TABLE tables ADD COLUMN guild_name TEXT;
    """,
    # 5: what a game showed belongs to the game (a rematch must not lose or repeat it): how many
    # of its round results reached Discord moves from its table to the game itself.
    """
    ALTER TABLE games ADD COLUMN rounds_posted INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET rounds_posted = (SELECT tables.rounds_posted FROM tables WHERE tables.id = games.table_id)
        WHERE game_no = (SELECT tables.game_no FROM tables WHERE tables.id = games.table_id);
    """,
    # 6: how a player is told it is his turn: 'dm' (a new DM), 'mention' (in the table's thread), 'off'.
    """
    ALTER TABLE users ADD COLUMN notify TEXT NOT NULL DEFAULT 'dm';
    """,
]


# Every table of the schema, each after the tables it references (the order a copy fills them in).
TABLES = ("meta", "users", "tables", "games", "game_decks", "actions", "hand_messages", "settlements", "ledger")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def statements(script: str) -> list[str]:
    return [statement for statement in script.split(";") if statement.strip()]


class Database:
    """The bot's storage: every query it makes, over SQLite or PostgreSQL (``bot.backends``).

    ``database`` is a SQLite file path or a ``postgresql://`` URL. ``async with
    db.transaction():`` encloses statements committed together or not at all (and never
    nested); a statement outside one commits by itself. Rows are :class:`bot.backends.Row`:
    ``row["col"]``, ``row[0]``, unpacking, the same on both engines.
    """

    def __init__(self, backend) -> None:
        self.backend = backend

    @classmethod
    async def open(cls, database: str) -> "Database":
        db = cls(await open_backend(database))
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
        migrating the same database: the version is read again under the schema lock."""
        version = await self.backend.schema_version()
        while version < len(MIGRATIONS):
            async with self.transaction():
                await self.backend.lock_schema()
                version = await self.backend.schema_version()
                if version < len(MIGRATIONS):
                    for statement in statements(self.backend.ddl(MIGRATIONS[version])):
                        await self.execute(statement)
                    version += 1
                    await self.backend.set_schema_version(version)
        return len(MIGRATIONS)

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
        return await self.insert(
            "INSERT INTO tables (guild_id, channel_id, game, options, host_id, status, seats, created_at, guild_name)"
            " VALUES (?, ?, ?, ?, ?, 'lobby', ?, ?, ?)",
            (guild_id, channel_id, game, json.dumps(options), host_id, json.dumps(seats), now_iso(), guild_name),
        )

    async def update_table(self, table_id: int, **fields: Any) -> None:
        if not fields:
            return
        for key in ("options", "seats", "timeouts"):
            if key in fields:
                fields[key] = json.dumps(fields[key])
        sets = ", ".join(f"{key} = ?" for key in fields)
        await self.execute(f"UPDATE tables SET {sets} WHERE id = ?", (*fields.values(), table_id))

    async def open_tables(self, finished_since: str) -> list[Row]:
        """Tables in a lobby or a game, and those whose last game ended since ``finished_since``
        (their Rematch button still works)."""
        return await self.fetchall(
            "SELECT * FROM tables WHERE status IN ('lobby', 'playing') OR (status = 'finished' AND EXISTS"
            " (SELECT 1 FROM games WHERE games.table_id = tables.id AND games.game_no = tables.game_no"
            " AND games.ended_at >= ?)) ORDER BY id", (finished_since,))

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
        return game_id

    async def add_decks(self, game_id: int, first_round: int, decks: list[list[str]]) -> None:
        for number, deck in enumerate(decks, start=first_round):
            await self.execute("INSERT INTO game_decks (game_id, round, deck) VALUES (?, ?, ?)",
                               (game_id, number, json.dumps(deck)))

    async def record(self, game_id: int) -> dict[str, Any]:
        """The stored record of a game (shared/rules/notation.md): a one-round game's ``deck``,
        or a match's ``decks`` and ``seed``; the caller knows which its game is."""
        row = await self.get_game(game_id)
        decks = [json.loads(r["deck"]) for r in await self.fetchall(
            "SELECT deck FROM game_decks WHERE game_id = ? ORDER BY round", (game_id,))]
        return {"game": row["game"], "version": 1, "options": json.loads(row["options"]), "seed": row["seed"],
                "decks": decks, "actions": await self.actions(game_id)}

    async def get_game(self, game_id: int) -> Row | None:
        return await self.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))

    async def current_game(self, table_id: int, game_no: int) -> Row | None:
        return await self.fetchone("SELECT * FROM games WHERE table_id = ? AND game_no = ?", (table_id, game_no))

    async def append_action(self, game_id: int, idx: int, seat: int, action: str,
                            turn_deadline: float | None = None) -> None:
        """One move, with the deadline of the turn it starts: a single statement, so the busiest
        write of the bot holds the writer for one round trip. The primary key (game_id, idx)
        makes a second writer for the same step fail loudly."""
        await self.execute(
            "INSERT INTO actions (game_id, idx, seat, action, at, turn_deadline) VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, idx, seat, action, now_iso(), turn_deadline),
        )

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

    async def set_result_message(self, game_id: int, message_id: int) -> None:
        await self.execute("UPDATE games SET result_message_id = ? WHERE id = ?", (message_id, game_id))

    async def set_rounds_posted(self, game_id: int, count: int) -> None:
        await self.execute("UPDATE games SET rounds_posted = ? WHERE id = ? AND rounds_posted < ?",
                           (count, game_id, count))

    async def games_to_show(self, table_id: int) -> list[Row]:
        """Games of a table whose result never reached Discord (not aborted), oldest first."""
        return await self.fetchall(
            "SELECT * FROM games WHERE table_id = ? AND result_message_id IS NULL AND status != 'aborted'"
            " ORDER BY game_no", (table_id,))

    async def save_hand_message(self, game_id: int, seat: int, channel_id: int, message_id: int) -> None:
        await self.execute(
            "INSERT INTO hand_messages (game_id, seat, channel_id, message_id) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (game_id, seat) DO UPDATE SET channel_id = excluded.channel_id,"
            " message_id = excluded.message_id",
            (game_id, seat, channel_id, message_id),
        )

    async def hand_messages(self, game_id: int) -> dict[int, tuple[int, int]]:
        rows = await self.fetchall("SELECT * FROM hand_messages WHERE game_id = ?", (game_id,))
        return {row["seat"]: (row["channel_id"], row["message_id"]) for row in rows}
