"""/metrics and /healthz as an operator scrapes them, during games played through SimCord."""

from __future__ import annotations

import json
import socket

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import metrics

from tests.support.databases import both_backends
from tests.support.simhelpers import dm, quick_move, start_table


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def simcord_bot(bot_factory):
    return bot_factory(metrics_port=free_port(), health_retry_seconds=30)


async def get(bot, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{bot.config.metrics_port}{path}") as response:
            return response.status, await response.text()


async def scrape(bot) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics: (name, its labels sorted) -> value."""
    status, text = await get(bot, "/metrics")
    assert status == 200
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


@both_backends
async def test_the_counters_move_while_a_game_is_played(simcord_env, backend):
    env = simcord_env
    players = await start_table(env, "phom", 1, 3)
    (lan,) = players.members
    before = await scrape(env.bot)
    assert before["chieu_tables", (("game", "phom"), ("status", "playing"))] == 1
    assert before["chieu_tables", (("game", "chan"), ("status", "lobby"))] == 0
    for _ in range(3):
        assert await quick_move(lan.user, lambda: dm(lan)) == []
    await env.settle()
    after = await scrape(env.bot)

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after[key] - before.get(key, 0.0)

    assert moved("chieu_clicks_total", game="phom", kind="play") >= 3
    assert moved("chieu_click_seconds_count", kind="play") >= 3
    assert moved("chieu_click_seconds_bucket", kind="play", le="+Inf") >= 3
    assert moved("chieu_discord_calls_total", **{"class": "interaction"}) >= 3  # the answers to the clicks
    assert moved("chieu_discord_calls_total", **{"class": "global"}) >= 1  # the table message's edits
    assert moved("chieu_rest_budget_calls_total") >= 1
    assert moved("chieu_database_seconds_count", op="execute") >= 3  # each move written
    # SQLite: one process, no lease; PostgreSQL: the table's
    assert after["chieu_leases_held", ()] == (1 if backend == "postgres" else 0)
    # nothing names a table, a server or a user
    assert {label for name, labels in after for label, _ in labels} <= {"game", "status", "kind", "class", "op", "le", "shard", "level",
                                                                   "version", "python", "discord_py"}


@both_backends
async def test_healthz_says_when_the_database_stops_answering_and_when_it_is_back(simcord_env, monkeypatch):
    monkeypatch.setattr(metrics, "PROBE_KEPT", 0)  # (each request probes)
    env = simcord_env
    await start_table(env, "phom", 1, 3)
    status, text = await get(env.bot, "/healthz")
    assert status == 200, text
    # the database refuses every read (as the outage tests' stopped server does); a database
    # that hangs instead is tests/bot/test_metrics.py's (its timeout would run on SimCord's clock)
    backend = env.bot.db.backend._backend  # (the probe asks it straight: it is no traffic to time)
    answering = backend.fetchone

    async def failing(*args, **kwargs):
        raise ConnectionRefusedError("the database server is away")

    backend.fetchone = failing
    status, text = await get(env.bot, "/healthz")
    assert status == 503
    answer = json.loads(text)
    assert answer["healthy"] is False and answer["gateway"] == "ok" and "is away" in answer["database"]
    backend.fetchone = answering
    status, text = await get(env.bot, "/healthz")
    assert status == 200 and json.loads(text) == {"healthy": True, "gateway": "ok", "database": "ok", "outbox": "ok"}


async def test_healthz_says_when_a_message_keeps_failing(simcord_env):
    env = simcord_env
    # no DM can be opened (Discord failing), so nobody's hand reaches him
    env.inject_error("POST", "/users/@me/channels", status=503, times=None)
    (lan,) = (await start_table(env, "phom", 1, 3)).members
    assert (await get(env.bot, "/healthz"))[0] == 200
    await env.advance_time(40)  # longer than health_retry_seconds, retried all the while
    status, text = await get(env.bot, "/healthz")
    assert status == 503 and "a message has been failing for" in text
    sample = await scrape(env.bot)
    assert sample["chieu_outbox_retrying", ()] >= 1 and sample["chieu_outbox_oldest_failing_seconds", ()] > 30
    env.backend.faults.clear()  # Discord is back: the hand goes out at its next retry
    await env.advance_time(300)
    assert dm(lan) is not None
    status, text = await get(env.bot, "/healthz")
    assert status == 200, text
