"""The database's schema: the numbered migrations that build it, on SQLite and on PostgreSQL
alike (``bot.db.Database.migrate`` runs them), and its tables in the order a copy fills them."""

from __future__ import annotations

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
    # the turn notices on Discord (posted, not yet deleted): a restart deletes those no longer true
    """
    CREATE TABLE notices (
        message_id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables (id),
        seat INTEGER NOT NULL,
        channel_id INTEGER NOT NULL
    );
    CREATE INDEX notices_table ON notices (table_id);
    """,
    # server admins (issue #27): a server's settings (JSON), the log of every admin action, seasons
    """
    CREATE TABLE server_settings (
        guild_id INTEGER PRIMARY KEY,
        settings TEXT NOT NULL
    );
    CREATE TABLE admin_log (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        action TEXT NOT NULL,
        table_id INTEGER,
        detail TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX admin_log_guild ON admin_log (guild_id, id);
    CREATE TABLE seasons (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        started_at TEXT NOT NULL,
        started_by INTEGER NOT NULL
    );
    CREATE INDEX seasons_guild ON seasons (guild_id, started_at);
    """,
    # a server's seasons are told apart by name (/leaderboard season:<name>); the index also
    # makes a second click of a season's confirmation insert nothing, on both engines
    """
    CREATE UNIQUE INDEX seasons_name ON seasons (guild_id, name);
    """,
    # /admin tables, Close: who closed a table (and its game, voided: no chip moves for it)
    """
    ALTER TABLE tables ADD COLUMN closed_by INTEGER;
    ALTER TABLE games ADD COLUMN closed_by INTEGER;
    """,
    # each operator's instance_name with its last sign of life (the database's clock): a second
    # process started under a name in use is refused, leases or not
    """
    CREATE TABLE instances (name TEXT PRIMARY KEY, seen_at REAL NOT NULL);
    """,
]


# Every table of the schema, each after the tables it references (the order a copy fills them in).
TABLES = ("meta", "users", "tables", "games", "game_decks", "actions", "hand_messages", "settlements", "ledger",
          "leases", "routed_clicks", "notices", "server_settings", "admin_log", "seasons",
          "instances")


def statements(script: str) -> list[str]:
    return [statement for statement in script.split(";") if statement.strip()]
