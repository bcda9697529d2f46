"""A clean stop with real processes: the real ``chieu`` command (tests/support/offline_bot.py: Discord
replaced by a stand-in on this machine that answers every message 503) drives games on
PostgreSQL; SIGTERM in mid-game makes it exit 0 within the bound (bot.stopping), its leases
given up and its unshown messages handed over, and a second process adopts its tables at its
next beat, without waiting for the leases to run out. On SQLite the stop closes the database:
its write-ahead log is folded into the file. And while a bot stops, a click is answered that it
is restarting (SimCord)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from bot.db import Database
from bot.stopping import STOP_SECONDS
from tests.support.simhelpers import play_channel, start_table, table_of, until
from tests.support.stubdiscord import close_service, headless_service, open_table, quiet_pictures

ROOT = Path(__file__).resolve().parents[2]
LEASE = 15.0
#: the process's own exit after the stop (the interpreter's shutdown) on a loaded machine
EXIT_MARGIN = 2.0


class Bot:
    """``chieu`` (through tests/support/offline_bot.py) in a process of its own."""

    def __init__(self, name: str, folder: Path, database: str) -> None:
        self.name = name
        self.config = folder / f"{name}.toml"
        self.config.write_text(f'database = "{database}"\ninstance_name = "{name}"\nlease_seconds = {LEASE}\n'
                               'ai_delay_seconds = 0.3\nsync_commands = "never"\ntable_edit_seconds = 0.2\n'
                               'round_pause_seconds = 1\n')
        self.log_path = folder / f"{name}.log"
        self.log = open(self.log_path, "wb")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "offline.token.test"}
        env.pop("CHIEU_DATABASE", None)
        command = [sys.executable, "-m", "tests.support.offline_bot", "--config", str(self.config)]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def said(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        assert self.process.poll() is None, f"{self.name} exited:\n{self.said()[-3000:]}"
        return True

    async def stop(self, number: int = signal.SIGTERM) -> tuple[int, float]:
        """Send the signal; the exit status and how long the process took to end."""
        sent = time.monotonic()
        self.process.send_signal(number)
        while self.process.poll() is None and time.monotonic() - sent < 30:
            await asyncio.sleep(0.05)
        took = time.monotonic() - sent
        if self.process.poll() is None:
            self.process.kill()
        self.log.close()
        return self.process.wait(), took

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()


async def test_sigterm_mid_game_exits_0_in_time_gives_the_leases_up_and_another_process_adopts_at_once(
        postgres_server, tmp_path, monkeypatch):
    name = await postgres_server.create_database()
    url = postgres_server.url(name)
    db = await Database.open(url)
    bots: list[Bot] = []
    try:
        # two games dealt by a process that then stops (its leases given up), for a to take
        quiet_pictures(monkeypatch)  # (undone after the test)
        opener = await headless_service(url, "opener", lease_seconds=LEASE)
        tables = [(await open_table(opener, game, ai=4)).id for game in ("phom", "chan")]
        await close_service(opener)

        async def holders() -> dict[int, tuple[str, bool]]:
            rows = await db.fetchall("SELECT table_id, holder, expires_at > extract(epoch from clock_timestamp())"
                                     " AS live FROM leases")
            return {row["table_id"]: (row["holder"], row["live"]) for row in rows}

        async def moves() -> int:
            return (await db.fetchone("SELECT COUNT(*) AS n FROM actions"))["n"]

        a = Bot("a", tmp_path, url)
        bots.append(a)

        async def a_plays() -> bool:
            held = await holders()
            return a.alive() and all(held.get(t) == ("a", True) for t in tables) and await moves() >= 6

        await until("a drives both games", a_plays, 60)
        b = Bot("b", tmp_path, url)
        bots.append(b)
        async def b_is_up() -> bool:
            return b.alive() and "drives 0 tables" in b.said()

        await until("b is up", b_is_up, 60)
        played = await moves()
        await asyncio.sleep(1)
        assert await moves() > played, "the games are in play when a is stopped"

        status, took = await a.stop(signal.SIGTERM)
        stopped_at = time.monotonic()
        print(f"a exited {status} {took:.2f} s after SIGTERM")
        assert status == 0, a.said()[-3000:]
        assert took <= STOP_SECONDS + EXIT_MARGIN, f"a took {took:.1f} s to stop"
        said = a.said()
        assert "Traceback" not in said, said[-3000:]
        report = re.search(r"stopped \(SIGTERM\) in [\d.]+ s: (\d+) leases given up, (\d+) messages left", said)
        assert report is not None, said[-3000:]
        assert int(report[1]) == len(tables)
        assert int(report[2]) > 0, "Discord answered 503 throughout: what a could not show is handed over"
        held = await holders()
        assert all(held[t] == ("a", False) or held[t][0] == "b" for t in tables), f"a's leases given up: {held}"

        async def b_adopted() -> bool:
            held = await holders()
            return b.alive() and all(held.get(t) == ("b", True) for t in tables)

        await until("b adopts a's tables", b_adopted, LEASE)
        adopted = time.monotonic() - stopped_at
        print(f"b adopted a's tables {adopted:.2f} s after a's exit (lease {LEASE:g} s, beat {LEASE / 3:g} s)")
        assert adopted <= LEASE / 3 + 3, f"adopted {adopted:.1f} s after the stop: it waited for the leases"
        played = await moves()
        async def b_plays_on() -> bool:
            return await moves() > played

        await until("b plays on", b_plays_on, 20)

        status, took = await b.stop(signal.SIGINT)
        assert status == 0 and took <= STOP_SECONDS + EXIT_MARGIN, b.said()[-3000:]
        assert not any(live for _, live in (await holders()).values()), "no lease left live"
    finally:
        for bot in bots:
            bot.kill()
        await db.close()
        await postgres_server.drop_database(name)


async def test_sigterm_on_sqlite_closes_the_database(tmp_path, monkeypatch):
    path = tmp_path / "chieu.sqlite3"
    quiet_pictures(monkeypatch)  # (undone after the test)
    opener = await headless_service(str(path), "opener")
    await open_table(opener, "phom", ai=4)
    await close_service(opener)
    played = _sqlite_moves(path)
    bot = Bot("solo", tmp_path, str(path))
    try:
        async def plays_on() -> bool:
            return bot.alive() and _sqlite_moves(path) > played

        await until("the game plays on in the bot", plays_on, 60)
        assert (tmp_path / "chieu.sqlite3-wal").exists(), "open: the write-ahead log is beside the file"
        status, took = await bot.stop(signal.SIGTERM)
    finally:
        bot.kill()
    assert status == 0 and took <= STOP_SECONDS + EXIT_MARGIN, bot.said()[-3000:]
    assert not (tmp_path / "chieu.sqlite3-wal").exists(), "closed: the log folded into the file"
    assert "stopped (SIGTERM)" in bot.said()


async def test_while_the_bot_stops_a_click_is_answered_that_it_is_restarting(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 3, seed=5)
    table = table_of(env)
    version = table.version
    env.bot.refuse_clicks()
    host = players.members[0]
    result = await host.click(play_channel(players).last_message, label="My hand")
    assert result.ephemeral and result.response.content == "Chiếu is restarting: try again in a moment."
    command = await host.slash(players.channel, "about")
    assert command.response.content == "Chiếu is restarting: try again in a moment."
    assert table.version == version


def _sqlite_moves(path: Path) -> int:
    import sqlite3

    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    finally:
        connection.close()  # (an open reader would keep the log beside the file)
