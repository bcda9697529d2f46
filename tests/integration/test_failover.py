"""Failover with real processes: three bot processes (tests/support/failover_worker.py) share one
PostgreSQL database; the driver of some tables is SIGKILLed in mid-game, the driver of others
is frozen (SIGSTOP) past its lease and then thawed. The tables are adopted within the lease
and every game finishes exactly as its record says, settled once, zero-sum, with no move lost
or written twice and none written by a process that no longer held the table's lease; the
thawed process shows nothing more of the tables it lost.

What this covers: leases (take, renewal, expiry in the database's clock, fencing by epoch),
adoption by real separate processes (restore of one table: the game replayed from the record,
its timers — AI delays, the pause between two rounds — resumed), settlement exactly once, and
the outbox of the adopter showing the results. What it stubs: Discord's REST side
(tests/support/stubdiscord.py; posts and edits succeed in memory) — nothing in failover depends on
Discord, and a process cannot share simcord's in-memory Discord with another; clicks and their
routing between processes are tested with simcord (tests/integration/test_routing.py). The
seats are AI (the games move on their own, with a short pause before each move).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from bot.config import load
from bot.db import Database
from tests.support.simhelpers import until
from tests.support.stubdiscord import StubDiscord, game_uis

ROOT = Path(__file__).resolve().parents[2]
LEASE = 2.0
OPENS = {"w1": ["phom:4", "chan:4"], "w2": ["chinchon:3", "concan:3"], "w3": ["tusac:4", "phom:3"]}


class Worker:
    def __init__(self, name: str, url: str, folder: Path, opens: list[str], *extra: str) -> None:
        self.name = name
        self.events_path = folder / f"{name}.jsonl"
        self.log_path = folder / f"{name}.log"
        command = [sys.executable, "-m", "tests.support.failover_worker", url, name, str(self.events_path),
                   "--lease", str(LEASE), "--ai-delay", "0.06", *[f"--open={o}" for o in opens], *extra]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CHIEU_CONFIG": str(ROOT / "tests" / "support" / "empty_config.toml")}
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def events(self) -> list[dict]:
        if not self.events_path.exists():
            return []
        found = []
        for line in self.events_path.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:  # the line a SIGKILL cut short
                pass
        return found

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(number)

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


async def test_killed_and_frozen_drivers_are_replaced_and_every_game_ends_once(postgres_server, tmp_path):
    name = await postgres_server.create_database()
    url = postgres_server.url(name)
    db = await Database.open(url)  # the schema, before the processes start
    workers: dict[str, Worker] = {}
    try:
        workers = {n: Worker(n, url, tmp_path, opens) for n, opens in OPENS.items()}
        w1, w2, w3 = workers.values()

        async def holders() -> dict[int, str]:
            return {r["table_id"]: r["holder"] for r in await db.fetchall("SELECT table_id, holder FROM leases")}

        async def moves() -> dict[int, int]:
            return {r["table_id"]: r["n"] for r in await db.fetchall(
                "SELECT games.table_id, COUNT(*) AS n FROM actions JOIN games ON games.id = actions.game_id"
                " GROUP BY games.table_id")}

        async def all_under_way() -> bool:
            for w in workers.values():
                assert w.process.poll() is None, f"{w.name} exited:\n{w.log_path.read_text()[-3000:]}"
            held, played = await holders(), await moves()
            return len(held) == 6 and all(played.get(t, 0) >= 3 for t in held)

        await until("six tables under way", all_under_way, 60)
        held = await holders()
        of = {w: sorted(t for t, h in held.items() if h == w) for w in workers}
        assert all(len(tables) == 2 for tables in of.values()), f"each process drives its own tables: {of}"

        # 1. w1 dies: w2 and w3 adopt its tables once its leases expire
        w1.signal(signal.SIGKILL)
        took = await until("w1's tables adopted", lambda: _held_by_others(holders, of["w1"], {"w1"}), 4 * LEASE)
        print(f"adopted {took:.2f} s after the kill")
        assert took <= LEASE + LEASE / 3 + 2.5, f"adopted {took:.1f} s after the kill (lease {LEASE} s)"

        # 2. w2 freezes past its lease: w3 adopts whatever w2 drives; thawed, w2 stops driving it
        w2.signal(signal.SIGSTOP)
        frozen = await holders()
        w2_tables = sorted(t for t, h in frozen.items() if h == "w2")
        took = await until("w2's tables adopted", lambda: _held_by_others(holders, w2_tables, {"w1", "w2"}),
                           4 * LEASE)
        print(f"adopted {took:.2f} s after the freeze")
        assert took <= LEASE + LEASE / 3 + 2.5, f"adopted {took:.1f} s after the freeze (lease {LEASE} s)"
        w2.signal(signal.SIGCONT)
        thawed = time.time()

        async def all_finished() -> bool:
            rows = await db.fetchall("SELECT status, result_message_id FROM games")
            return len(rows) == 6 and all(r["status"] == "finished" and r["result_message_id"] for r in rows)

        await until("every game finished and its result shown", all_finished, 45)
        await asyncio.sleep(LEASE)  # w2 has found out by now (its renewal fails)
        for w in (w2, w3):
            w.stop()

        events = {w.name: w.events() for w in workers.values()}
        lost_by_w2 = {e["table"] for e in events["w2"] if e["ev"] == "lost"}
        assert set(w2_tables) <= lost_by_w2, "the thawed process stopped driving the tables it lost"
        spoke = [e for e in events["w2"] if e["ev"] in ("post", "edit", "delete") and e["table"] in w2_tables
                 and e["at"] > thawed]
        assert not spoke, f"the thawed process showed nothing more of the tables it lost: {spoke[:3]}"
        print("Discord calls for w2's tables after the thaw:",
              {w: sum(1 for e in found if e["ev"] in ("post", "edit", "delete") and e.get("table") in w2_tables
                      and e["at"] > thawed) for w, found in events.items()})
        await _check_every_game(db, events, w2_tables)
    finally:
        for w in workers.values():
            if w.process.poll() is None:
                w.stop()
        await db.close()
        await postgres_server.drop_database(name)


async def test_a_driver_stalled_inside_a_fenced_write_with_a_frozen_clock_lets_go_in_time(postgres_server,
                                                                                             tmp_path):
    """w1 stops itself inside a fenced write (its lease row share-locked, the transaction
    open), while Discord refuses its calls (its outbox has retries pending), and its clock does
    not count the stall. w2 adopts its tables within lease × 4/3 (the server ends the stalled
    transaction); thawed, w1 makes no Discord call for them: it asks the database first."""
    name = await postgres_server.create_database()
    url = postgres_server.url(name)
    db = await Database.open(url)
    workers: dict[str, Worker] = {}
    try:
        workers = {"w1": Worker("w1", url, tmp_path, ["phom:4", "chan:4"], "--frozen-clock"),
                   "w2": Worker("w2", url, tmp_path, ["chinchon:3"])}
        w1, w2 = workers.values()

        async def holders() -> dict[int, str]:
            return {r["table_id"]: r["holder"] for r in await db.fetchall("SELECT table_id, holder FROM leases")}

        async def under_way() -> bool:
            for w in workers.values():
                assert w.process.poll() is None, f"{w.name} exited:\n{w.log_path.read_text()[-3000:]}"
            played = {r["table_id"]: r["n"] for r in await db.fetchall(
                "SELECT games.table_id, COUNT(*) AS n FROM actions JOIN games ON games.id = actions.game_id"
                " GROUP BY games.table_id")}
            return len(played) == 3 and all(n >= 3 for n in played.values())

        await until("three tables under way", under_way, 60)
        w1.signal(signal.SIGUSR1)

        async def stalled() -> bool:
            return any(e["ev"] == "stall" for e in w1.events())

        await until("w1 stalled inside a fenced write", stalled, 20)
        stall = next(e for e in w1.events() if e["ev"] == "stall")
        mine = sorted(t for t, h in (await holders()).items() if h == "w1")
        assert stall["table"] in mine and len(mine) == 2
        assert any(e["ev"] == "refused" for e in w1.events()), "its outbox had retries pending"

        await until("w1's tables adopted", lambda: _held_by_others(holders, mine, {"w1"}), 30)
        takes = {e["table"]: e["at"] for e in w2.events() if e["ev"] == "drive" and e["table"] in mine}
        took = max(takes.values()) - stall["at"]
        assert took <= LEASE * 4 / 3 + 1.0, f"adopted {took:.2f} s after the stall (lease {LEASE} s)"
        w1.signal(signal.SIGCONT)
        await until("w1 thawed", lambda: _has(w1, "thaw"), 10)
        await asyncio.sleep(8)  # its retries come due (5–7.5 s by its clock), its renewals run
        for w in workers.values():
            w.stop()

        after = {w.name: [e for e in w.events() if e["ev"] in ("post", "edit", "delete", "refused")
                          and e.get("table") in takes and e["at"] > takes[e["table"]]] for w in workers.values()}
        print(f"adopted {took:.2f} s after the stall; Discord calls for the adopted tables after the takeover:",
              {name: len(calls) for name, calls in after.items()})
        assert after["w1"] == [], f"w1 spoke for tables it lost: {after['w1'][:3]}"
        assert after["w2"], "w2 shows the tables it adopted"
        assert {e["table"] for e in w1.events() if e["ev"] == "lost"} >= set(mine)
    finally:
        for w in workers.values():
            if w.process.poll() is None:
                w.stop()
        await db.close()
        await postgres_server.drop_database(name)


async def _has(worker: Worker, ev: str) -> bool:
    return any(e["ev"] == ev for e in worker.events())


async def _held_by_others(holders, tables: list[int], dead: set[str]) -> bool:
    held = await holders()
    return all(held.get(t) not in dead | {None} for t in tables)


async def _check_every_game(db: Database, events: dict[str, list[dict]], w2_tables: list[int]) -> None:
    from bot.tables.service import TableService

    service = TableService(StubDiscord(load(database="unused.sqlite3")), db)
    for ui in game_uis():
        service.register(ui)
    games = await db.fetchall("SELECT * FROM games ORDER BY id")
    # settled exactly once, zero-sum, every seat in the ledger
    (settlements,) = await db.fetchone("SELECT COUNT(*) FROM settlements")
    assert settlements == len(games) == 6
    for game in games:
        rows = await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?", (game["id"],))
        assert len(rows) == len(json.loads(game["seats"])) and sum(r["chips"] for r in rows) == 0
        # the record replays to the outcome stored with the settlement
        state = await service.core.stored_state(game["id"])
        assert state.is_over and json.loads(game["outcome"]) == json.loads(json.dumps(state.view(None)["outcome"]))
        idx = [r["idx"] for r in await db.fetchall("SELECT idx FROM actions WHERE game_id = ? ORDER BY idx",
                                                   (game["id"],))]
        assert idx == list(range(len(idx))), f"game {game['id']}: moves {idx}"

    # who wrote what: every move once, each under the lease that drove the table at that move
    drives: dict[int, list[tuple[int, int, str]]] = defaultdict(list)  # table -> (epoch, from move, by)
    written: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for name, found in events.items():
        for e in found:
            if e["ev"] == "drive":
                drives[e["table"]].append((e["epoch"], e["version"], name))
            elif e["ev"] == "move":
                written[e["game"], e["idx"]].append({**e, "by": name})
    assert all(len(w) == 1 for w in written.values()), "no move written twice"
    for (game_id, idx), (move,) in written.items():
        table = move["table"]
        epoch, start, by = max(d for d in drives[table] if d[1] <= idx)  # the latest take before this move
        assert (move["by"], move["epoch"]) == (by, epoch), \
            f"table {table} move {idx} written by {move['by']} at epoch {move['epoch']}, driven by {by} at {epoch}"
    for game in games:
        count = len(await db.fetchall("SELECT idx FROM actions WHERE game_id = ?", (game["id"],)))
        unlogged = [i for i in range(count) if (game["id"], i) not in written]
        # only w1 may have written a move without living to log it
        assert len(unlogged) <= 1, f"game {game['id']}: moves {unlogged} written by nobody that says so"
    assert any(len({d[2] for d in takes}) > 1 for takes in drives.values()), "some tables changed hands"
    for table in w2_tables:
        assert len({d[2] for d in drives[table]}) >= 2, f"table {table} adopted after w2 froze"
    results = defaultdict(int)  # (the result of each round of a match, then of the game)
    for found in events.values():
        for e in found:
            if e["ev"] == "post" and "— result" in (e.get("title") or ""):
                results[e["title"]] += 1
    assert set(results.values()) == {1}, f"each result shown once: {dict(results)}"
    assert len([title for title in results if re.search(r"game \d+ — result$", title)]) == 6
