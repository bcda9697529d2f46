"""The bot's storage, on SQLite (a file, the default) or PostgreSQL (a URL), with numbered
schema migrations that serve both.

Everything that must survive a restart lives here: tables and their seats, each game's deck
and action list (its record), the DM messages to edit, and the chip ledger.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, AsyncContextManager, AsyncIterator, Sequence

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
    # 7: several processes on one PostgreSQL database (issue #19). A table is driven by the
    # process that holds its lease (renewed before expires_at, in the database's clock); each
    # new take raises the epoch, the fencing token every write of the table checks. A click that
    # reached a process which does not drive its table waits in routed_clicks for the driver
    # (the interaction's id is the key: applied at most once). Unused on SQLite (one process).
    """
    CREATE TABLE leases (
        table_id INTEGER PRIMARY KEY REFERENCES tables (id),
        holder TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX leases_holder ON leases (holder);
    CREATE TABLE routed_clicks (
        interaction_id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL,
        sender TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at REAL NOT NULL,
        taken_by TEXT
    );
    CREATE INDEX routed_clicks_table ON routed_clicks (table_id, taken_by);
    """,
]


# Every table of the schema, each after the tables it references (the order a copy fills them in).
TABLES = ("meta", "users", "tables", "games", "game_decks", "actions", "hand_messages", "settlements", "ledger",
          "leases", "routed_clicks")

# PostgreSQL's clock, in the seconds since 1970 that leases count in: every process compares
# leases with the one clock of the database, never with its own (see bot/tables/driving.py).
DB_NOW = "extract(epoch from clock_timestamp())"
# Routed clicks and their answers travel on this LISTEN/NOTIFY channel.
ROUTES_CHANNEL = "chieu_routes"


class LeaseLost(RuntimeError):
    """A write for a table this process no longer drives (another process took its lease):
    nothing was written."""


@dataclass(frozen=True)
class Lease:
    """A process's hold on a table: ``epoch`` grows with each new take (never repeating), so a
    write fenced by it fails once anyone (this process included) has taken the table again."""

    table_id: int
    holder: str
    epoch: int

# A new epoch: more than the lease's last one, and the database's clock in milliseconds when
# that is more, so that epochs never come back, even for a lease whose row was deleted (a day
# after it expired).
_EPOCH = f"CAST({DB_NOW} * 1000 AS BIGINT)"

# An open table: in a lobby or a game, or finished since ? (its Rematch button still works).
_OPEN = ("(tables.status IN ('lobby', 'playing') OR (tables.status = 'finished' AND EXISTS"
         " (SELECT 1 FROM games WHERE games.table_id = tables.id AND games.game_no = tables.game_no"
         " AND games.ended_at >= ?)))")

# The condition a fenced write adds: the lease row is still this holder's at this epoch, and
# stays so until the write commits (FOR SHARE: a take waits for the write, then sees the lease
# it must respect).
_FENCE = "EXISTS (SELECT 1 FROM leases WHERE table_id = ? AND holder = ? AND epoch = ? FOR SHARE)"


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
        changed = await self.execute(f"UPDATE tables SET {sets} WHERE id = ? AND {_FENCE}",
                                     (*fields.values(), table_id, *_fence(lease)))
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
            f" WHERE {_FENCE}", (*values, *_fence(lease)))
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

    async def set_result_message(self, game_id: int, message_id: int, *, lease: Lease | None = None) -> None:
        async with self.fenced(lease):
            await self.execute("UPDATE games SET result_message_id = ? WHERE id = ?", (message_id, game_id))

    async def set_rounds_posted(self, game_id: int, count: int, *, lease: Lease | None = None) -> None:
        async with self.fenced(lease):
            await self.execute("UPDATE games SET rounds_posted = ? WHERE id = ? AND rounds_posted < ?",
                               (count, game_id, count))

    async def games_to_show(self, table_id: int) -> list[Row]:
        """Games of a table whose result never reached Discord (not aborted), oldest first."""
        return await self.fetchall(
            "SELECT * FROM games WHERE table_id = ? AND result_message_id IS NULL AND status != 'aborted'"
            " ORDER BY game_no", (table_id,))

    async def save_hand_message(self, game_id: int, seat: int, channel_id: int, message_id: int, *,
                                lease: Lease | None = None) -> None:
        async with self.fenced(lease):
            await self.execute(
                "INSERT INTO hand_messages (game_id, seat, channel_id, message_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, seat) DO UPDATE SET channel_id = excluded.channel_id,"
                " message_id = excluded.message_id",
                (game_id, seat, channel_id, message_id),
            )

    async def hand_messages(self, game_id: int) -> dict[int, tuple[int, int]]:
        rows = await self.fetchall("SELECT * FROM hand_messages WHERE game_id = ?", (game_id,))
        return {row["seat"]: (row["channel_id"], row["message_id"]) for row in rows}

    # ---- leases (PostgreSQL: several processes share the database; bot/tables/driving.py)
    async def take_lease(self, table_id: int, holder: str, seconds: float) -> int | None:
        """Take the table's lease for ``seconds`` if nobody holds it, it expired, or it is
        ``holder``'s already (a restarted process of the same name): the new epoch, or None
        when a live lease of another process stands. One statement: of two processes taking
        the same lease, the row lock lets one win and shows the other the winner's lease."""
        row = await self.fetchone(
            f"INSERT INTO leases (table_id, holder, epoch, expires_at) VALUES (?, ?, {_EPOCH}, {DB_NOW} + ?)"
            " ON CONFLICT (table_id) DO UPDATE SET holder = excluded.holder,"
            f" epoch = GREATEST(leases.epoch + 1, {_EPOCH}), expires_at = excluded.expires_at"
            f" WHERE leases.holder = excluded.holder OR leases.expires_at < {DB_NOW}"
            " RETURNING epoch", (table_id, holder, seconds))
        return None if row is None else row["epoch"]

    async def renew_leases(self, holder: str, held: dict[int, int], seconds: float) -> set[int]:
        """Extend the leases ``held`` (table -> epoch) that are still this holder's at that
        epoch; returns the tables renewed (the others are lost)."""
        if not held:
            return set()
        rows = await self.fetchall(
            f"UPDATE leases SET expires_at = {DB_NOW} + ? FROM unnest(?::bigint[], ?::bigint[]) AS mine (id, epoch)"
            " WHERE leases.table_id = mine.id AND leases.epoch = mine.epoch AND leases.holder = ?"
            " RETURNING leases.table_id", (seconds, list(held), list(held.values()), holder))
        return {row["table_id"] for row in rows}

    async def release_leases(self, holder: str, held: dict[int, int]) -> None:
        """Give these leases up (a clean stop, a closed table): another process may take them at
        once. The rows stay, expired, so that the next take's epoch is still above theirs."""
        if held:
            await self.execute(
                f"UPDATE leases SET expires_at = {DB_NOW} - 1 FROM unnest(?::bigint[], ?::bigint[]) AS mine (id, epoch)"
                " WHERE leases.table_id = mine.id AND leases.epoch = mine.epoch AND leases.holder = ?",
                (list(held), list(held.values()), holder))

    async def lease_of(self, table_id: int) -> Row | None:
        """The table's lease: ``holder``, ``epoch`` and ``live`` (not expired)."""
        return await self.fetchone(
            f"SELECT holder, epoch, expires_at > {DB_NOW} AS live FROM leases WHERE table_id = ?", (table_id,))

    async def check_lease(self, lease: Lease) -> None:
        """Inside a transaction: the lease holds, and holds until the transaction ends; else LeaseLost."""
        if await self.fetchone(f"SELECT 1 WHERE {_FENCE}", _fence(lease)) is None:
            raise LeaseLost(f"table {lease.table_id}: lease {lease.epoch} of {lease.holder} is gone")

    @contextlib.asynccontextmanager
    async def fenced(self, lease: Lease | None) -> AsyncIterator[None]:
        """The enclosed writes, only while ``lease`` holds: one transaction that checks it first
        (a taker waits for its commit), else LeaseLost and nothing written. Without a lease (one
        process, nothing to fence), the writes run as they are."""
        if lease is None:
            yield
            return
        async with self.transaction():
            await self.check_lease(lease)
            yield

    async def tables_to_adopt(self, holder: str, finished_since: str) -> list[int]:
        """Open tables (as :meth:`open_tables` counts them) that no live process drives: no
        lease, an expired one, or one in ``holder``'s name (a previous life of this process)."""
        rows = await self.fetchall(
            "SELECT tables.id FROM tables LEFT JOIN leases ON leases.table_id = tables.id"
            f" WHERE (leases.table_id IS NULL OR leases.expires_at < {DB_NOW} OR leases.holder = ?) AND {_OPEN}"
            " ORDER BY tables.id", (holder, finished_since))
        return [row["id"] for row in rows]

    async def forget_leases(self, dead_for: float) -> None:
        """Leases nobody renewed for ``dead_for`` seconds (their tables closed long ago)."""
        await self.execute(f"DELETE FROM leases WHERE expires_at < {DB_NOW} - ?", (dead_for,))

    # ---- routed clicks (a click that reached a process which does not drive its table)
    async def route_click(self, interaction_id: int, table_id: int, sender: str, payload: str,
                          to: str) -> bool:
        """Leave the click for its table's driver and tell it (``NOTIFY``, sent at commit);
        False if this interaction was routed already."""
        async with self.transaction():
            added = await self.execute(
                "INSERT INTO routed_clicks (interaction_id, table_id, sender, payload, created_at)"
                f" VALUES (?, ?, ?, ?, {DB_NOW}) ON CONFLICT DO NOTHING",
                (interaction_id, table_id, sender, payload))
            if added:
                await self.notify({"kind": "click", "to": to, "id": interaction_id, "table": table_id})
        return bool(added)

    async def claim_click(self, interaction_id: int, lease: Lease) -> Row | None:
        """Take a routed click to apply it, only as the table's driver (fenced by its lease)
        and only once: its ``payload`` and ``sender``, or None (taken already, or not ours)."""
        return await self.fetchone(
            "UPDATE routed_clicks SET taken_by = ? WHERE interaction_id = ? AND table_id = ? AND taken_by IS NULL"
            f" AND {_FENCE} RETURNING payload, sender",
            (lease.holder, interaction_id, lease.table_id, *_fence(lease)))

    async def waiting_clicks(self, table_ids: list[int], within: float) -> list[Row]:
        """Routed clicks for these tables that nobody took, younger than ``within`` seconds."""
        if not table_ids:
            return []
        return await self.fetchall(
            "SELECT interaction_id, table_id FROM routed_clicks WHERE taken_by IS NULL"
            f" AND table_id = ANY(?::bigint[]) AND created_at > {DB_NOW} - ? ORDER BY interaction_id",
            (table_ids, within))

    async def forget_clicks(self, older_than: float) -> None:
        await self.execute(f"DELETE FROM routed_clicks WHERE created_at < {DB_NOW} - ?", (older_than,))

    async def notify(self, message: dict) -> None:
        """A message to every process listening on the routes channel (with the transaction it is in)."""
        await self.execute("SELECT pg_notify(?, ?)", (ROUTES_CHANNEL, json.dumps(message)))

    async def listen(self, callback) -> Any:
        """A connection of its own (outside the pool) that calls ``callback(message)`` for each
        message on the routes channel; close it with ``await connection.close()``."""
        return await self.backend.listen(ROUTES_CHANNEL, lambda payload: callback(json.loads(payload)))


def _fence(lease: Lease) -> tuple[int, str, int]:
    return lease.table_id, lease.holder, lease.epoch
