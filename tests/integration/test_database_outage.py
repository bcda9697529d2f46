"""PostgreSQL goes away under a running bot (restarted for an upgrade, or failing over) and
comes back: the process cannot renew its leases, so it stops driving its tables (nothing of
theirs is written or shown meanwhile); once the server is back it takes them again, rebuilt
from the database, and every game goes on and ends, settled once and zero-sum, each move
written once. The table services run without Discord (tests/stubdiscord.py)."""

from __future__ import annotations

import asyncio
import json

from tests.databases import PostgresServer, required_bindir
from tests.simhelpers import until
from tests.stubdiscord import close_service, headless_service, open_table, quiet_pictures

LEASE = 2.0


async def test_a_database_restart_mid_game_loses_no_table(monkeypatch):
    quiet_pictures(monkeypatch)
    server = PostgresServer(required_bindir())  # its own server: this test stops it
    server.start()
    service = None
    try:
        url = server.url(await server.create_database())
        service = await headless_service(url, "a", lease_seconds=LEASE, ai_delay_seconds=0.05,
                                         round_pause_seconds=1, table_edit_seconds=0.2)
        await service.restore()
        opened = [await open_table(service, "phom", ai=4), await open_table(service, "chinchon", ai=3, target=40)]
        ids = [table.id for table in opened]

        async def under_way() -> bool:
            return all(table.version >= 3 for table in opened)

        await until("both games under way", under_way, 20)

        server.halt()
        # no renewal can reach the server: within the lease the process stops driving both
        async def let_go() -> bool:
            return all(table.dropped for table in opened) and service.driven_count() == 0

        await until("the tables let go", let_go, 3 * LEASE)
        shown = len(service.bot.calls)
        await asyncio.sleep(LEASE)
        assert len(service.bot.calls) == shown, "nothing shown for tables nobody drives"

        server.start()

        async def all_finished() -> bool:
            try:
                rows = await service.db.fetchall("SELECT status FROM games")
            except Exception:  # the pool's connections died with the server: the next ones work
                return False
            return len(rows) == 2 and all(row["status"] == "finished" for row in rows)

        await until("both games finished", all_finished, 60)
        assert sorted(service.tables) == ids, "the process took its tables back"

        db = service.db
        (settled,) = await db.fetchone("SELECT COUNT(*) FROM settlements")
        assert settled == 2
        for game in await db.fetchall("SELECT * FROM games"):
            chips = [row["chips"] for row in await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?",
                                                                (game["id"],))]
            assert len(chips) == len(json.loads(game["seats"])) and sum(chips) == 0
            moves = [row["idx"] for row in await db.fetchall(
                "SELECT idx FROM actions WHERE game_id = ? ORDER BY idx", (game["id"],))]
            assert moves == list(range(len(moves)))
            state = await service.stored_state(game["id"])
            assert state.is_over, "the record replays to the end"
    finally:
        if service is not None:
            await close_service(service)
        server.stop()
