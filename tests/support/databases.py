"""The tests' databases: a SQLite file, or a database on a real PostgreSQL server that the
tests start themselves.

The server is started once per session (only if some test asks for PostgreSQL), from the
binaries found on PATH (``initdb`` and ``postgres``) or in ``/usr/lib/postgresql/<version>/bin``
(where Debian's package puts them), into a temporary folder, listening on a unix socket in
that folder only (no TCP port). Run as root, it runs as the ``postgres`` user (PostgreSQL
refuses root). Every test gets a new, empty database, dropped after it.

Without the binaries, PostgreSQL tests are skipped, saying so; in CI (``CI`` set) they fail:
``.ci/run`` installs Debian's ``postgresql`` package when they are missing.

A test runs on both engines with ``@both_backends`` (or ``pytestmark = both_backends``):
the ``backend`` fixture is then "sqlite" or "postgres", and ``database`` (the string the
bot's ``database`` option takes) is a file in ``tmp_path`` or the test's own PostgreSQL URL.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from itertools import count
from pathlib import Path

import pytest

BACKENDS = ("sqlite", "postgres")
both_backends = pytest.mark.parametrize("backend", BACKENDS, indirect=True)

SUPERUSER = "chieu"


def postgres_bindir() -> Path | None:
    """Where ``initdb`` and ``postgres`` are: PATH first, then the newest Debian install."""
    initdb, postgres = shutil.which("initdb"), shutil.which("postgres")
    if initdb and postgres:
        return Path(initdb).resolve().parent
    for bindir in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name),
                         reverse=True):
        if os.access(Path(bindir) / "initdb", os.X_OK) and os.access(Path(bindir) / "postgres", os.X_OK):
            return Path(bindir)
    return None


class PostgresServer:
    """A throwaway PostgreSQL cluster in a temporary folder, trusting local connections."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        # not under pytest's tmp_path: its folders are private to root, and the server may run
        # as another user
        self.dir = Path(tempfile.mkdtemp(prefix="chieu-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.user = None
        if os.geteuid() == 0:
            name = "postgres" if _user_exists("postgres") else "nobody"
            self.user = pwd.getpwnam(name)
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.process: subprocess.Popen | None = None
        self._names = count(1)

    def _as_user(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def start(self, timeout: float = 60) -> None:
        """Start the server: on a new cluster the first time, on the same data after :meth:`halt`."""
        if not self.data.exists():
            subprocess.run([str(self.bindir / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                            "--no-sync", "--encoding=UTF8", "--locale=C"],
                           check=True, capture_output=True, cwd=self.dir, **self._as_user())
        server = [str(self.bindir / "postgres"), "-D", str(self.data), "-k", str(self.dir),
                  "-c", "listen_addresses=", "-c", "max_connections=300",
                  # a test database never has to survive a crash of the machine
                  "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        with open(self.log, "wb") as log:
            # The server outlives no test session, even one that is killed: a watchdog shell
            # stops it (fast shutdown) when its stdin, a pipe from this process, closes.
            self.process = subprocess.Popen(
                ["sh", "-c", 'exec 3<&0; "$@" & pid=$!; (cat <&3 >/dev/null; kill -INT $pid) & wait $pid',
                 "watchdog", *server],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir, **self._as_user())
        deadline = time.monotonic() + timeout
        pid_file = self.data / "postmaster.pid"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited with {self.process.returncode}:\n{self.log.read_text()}")
            # the 8th line of postmaster.pid says 'ready' once the server accepts connections
            lines = pid_file.read_text().splitlines() if pid_file.exists() else []
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return
            time.sleep(0.05)
        raise RuntimeError(f"postgres did not start in {timeout} s:\n{self.log.read_text()}")

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.dir}"

    async def create_database(self) -> str:
        import asyncpg

        name = f"test_{os.getpid()}_{next(self._names)}"
        conn = await asyncpg.connect(self.url("postgres"))
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return name

    async def drop_database(self, name: str) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.url("postgres"))
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def halt(self) -> None:
        """Stop the server (a fast shutdown: open connections are cut), keeping its data."""
        if self.process is not None:
            self.process.stdin.close()  # the watchdog stops the server
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def _pids(self) -> list[int]:
        """The server's processes: the postmaster (postmaster.pid's first line) and its children."""
        main = int((self.data / "postmaster.pid").read_text().split()[0])
        children = []
        for status in glob.glob("/proc/[0-9]*/status"):
            try:
                fields = dict(line.split(":\t", 1) for line in Path(status).read_text().splitlines() if ":\t" in line)
            except OSError:
                continue  # ended meanwhile
            if int(fields.get("PPid", "0").strip()) == main:
                children.append(int(fields["Pid"].strip()))
        return [main, *children]

    def freeze(self) -> None:
        """Make the server hang (SIGSTOP of every process of it), as a paused container, a
        frozen VM or a storage stall does: connections stay open, nothing is answered."""
        self._frozen = self._pids()
        for pid in self._frozen:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """The hung server goes on (SIGCONT) where it stopped."""
        for pid in getattr(self, "_frozen", []):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._frozen = []

    def stop(self) -> None:
        """Stop the server and remove the cluster."""
        self.thaw()
        self.halt()
        shutil.rmtree(self.dir, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def required_bindir() -> Path:
    """The PostgreSQL binaries; the test is skipped without them (failed in CI)."""
    bindir = postgres_bindir()
    if bindir is None:
        reason = ("PostgreSQL server binaries (initdb, postgres) not found on PATH nor in "
                  "/usr/lib/postgresql/*/bin: install them (Debian: apt-get install postgresql)")
        if os.environ.get("CI"):
            pytest.fail(reason + "; CI must run the PostgreSQL tests (.ci/run installs the package)",
                        pytrace=False)
        pytest.skip(reason)
    return bindir


@pytest.fixture(scope="session")
def postgres_server():
    server = PostgresServer(required_bindir())
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def backend(request) -> str:
    """"sqlite" unless the test is parametrized over both (``both_backends``)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
async def database(backend: str, tmp_path: Path, request):
    """The ``database`` option of the test's bot: a SQLite file, or a fresh PostgreSQL database."""
    if backend == "sqlite":
        yield str(tmp_path / "chieu.sqlite3")
        return
    server = request.getfixturevalue("postgres_server")
    name = await server.create_database()
    try:
        yield server.url(name)
    finally:
        await server.drop_database(name)
