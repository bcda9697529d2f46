"""Shared fixtures: bots built exactly as production builds them, on a temporary database."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_asyncio

from bot.app import create_bot
from bot.config import load
from tests.support.simclock import long_timers_virtual
from tests.support.simcord_speed import shorten_settle_idle
from tests.support.simhelpers import seed_deals, warm_every_deck
from tests.support.databases import backend, database, postgres_server  # noqa: F401 (fixtures)

# Tests never read a developer's config.toml or token.
os.environ.pop("DISCORD_TOKEN", None)
os.environ.pop("CHIEU_DATABASE", None)
_EMPTY_CONFIG = Path(__file__).parent / "support" / "empty_config.toml"
os.environ["CHIEU_CONFIG"] = str(_EMPTY_CONFIG)

# CI explores the same examples on every run (a red CI must mean a change broke something);
# local runs keep drawing new random examples, which is how edge cases get found.
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

shorten_settle_idle()
long_timers_virtual()


@pytest.fixture(scope="session", autouse=True)
def warm_card_sprites() -> None:
    """Every deck's sprites drawn once for the whole run (they are cached per process), before
    the first bot starts: its own warm-up then takes milliseconds, not the seconds a loaded
    machine needs, which overran SimCord's 5 s settle in whichever test came first."""
    warm_every_deck()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The SQLite file of a test on SQLite (``database`` is its path then)."""
    return tmp_path / "chieu.sqlite3"


@pytest_asyncio.fixture
async def bot_factory(database: str, request, monkeypatch):
    """Builds bots on the same database (a restart needs a new bot object); closes them all.
    The database is the test's SQLite file, or its PostgreSQL database under ``both_backends``.
    Deals and drawn seatings are seeded by the test's name (and the bot's number), so a test
    plays the same games on every run: a red CI means a change broke something."""
    bots = []
    # A bot built again is the same process restarted (SimCord never stops the first): one name
    # for them all unless a test names its processes, and no renewal period's wait at start to
    # see whether another live process uses it (tests/integration/test_leases.py tests that).
    from bot.tables.leases import Leases

    async def trusted(leases: Leases) -> None:
        return None

    monkeypatch.setattr(Leases, "refuse_a_shared_name", trusted)

    def build(**overrides):
        # SimCord needs a sharded bot's shard count (Discord tells a real one at login)
        options = {"database": database, "ai_delay_seconds": 0, "table_edit_seconds": 0, "shard_count": 1,
                   # the budget counts real seconds, which simulated games do not wait for
                   "rest_calls_per_second": 1e6,
                   # PostgreSQL: leases renewed every 20 simulated seconds (not 3), which hours of
                   # simulated play would otherwise spend in renewals; one process holds them all
                   "lease_seconds": 60, "instance_name": "test", **overrides}
        bot = create_bot(load(**options))
        seed_deals(bot, f"{request.node.nodeid} #{len(bots)}")
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        await bot.release()


@pytest.fixture
def simcord_bot(bot_factory):
    return bot_factory()
