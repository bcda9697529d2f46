"""bot.metrics without Discord: the classes of calls, 429s, a database that hangs, the names
(base units, ``_ratio``, ``_total``; an unknown value absent, not 0), the build's version, and
the Grafana dashboard and alerting rules, which may only name metrics the bot exports."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from bot import metrics
from bot.config import load
from bot.metrics import GLOBAL, INTERACTION, Metrics, TimedBackend, _State, call_class
from bot.tables.budget import Budget
from bot.tables.gauges import gauges
from bot.tables.leases import Leases

ROOT = Path(__file__).resolve().parents[2]


def stub_bot(fetchone=None):
    """What the metrics read of a bot: its gateway, database and table service."""
    async def answered(sql, params=()):
        return (1,)

    core = SimpleNamespace(tables={}, uis={"phom": None, "chan": None}, budget=Budget(40), unsettled=set(),
                           leases=SimpleNamespace(epochs={}, adopted=0, lost=0))
    service = SimpleNamespace(gauges=lambda: gauges(core))
    return SimpleNamespace(is_closed=lambda: False, is_ready=lambda: True, latency=0.05,
                           shards={0: SimpleNamespace(is_closed=lambda: False)},
                           db=SimpleNamespace(fetchone=fetchone or answered), tables=service)


def exported(bot) -> set[str]:
    """The names of every sample the bot's /metrics shows."""
    found = Metrics("127.0.0.1", 1, 600)
    found.games(bot.tables.gauges().games)
    found.registry.register(_State(bot))
    text = generate_latest(found.registry).decode()
    return {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}


def test_interaction_answers_are_told_from_globally_limited_calls_in_full_urls_too():
    api = "https://discord.com/api/v10"
    assert call_class("POST", f"{api}/interactions/1/tok/callback") == INTERACTION
    assert call_class("PATCH", f"{api}/webhooks/123/tok/messages/@original?wait=true") == INTERACTION
    assert call_class("PATCH", f"{api}/channels/1/messages/2") == GLOBAL
    assert call_class("GET", f"{api}/webhooks/123") == GLOBAL  # (a bot-authorised webhook call)


async def test_each_429_discord_answers_is_counted_by_class():
    counted = Metrics("127.0.0.1", 1, 600)
    (answered,) = counted.http_trace().on_request_end

    async def answer(method, url, status):
        await answered(None, None, SimpleNamespace(method=method, url=url, response=SimpleNamespace(status=status)))

    await answer("PATCH", "https://discord.com/api/v10/channels/1/messages/2", 429)
    await answer("PATCH", "https://discord.com/api/v10/channels/1/messages/2", 200)
    await answer("POST", "https://discord.com/api/v10/interactions/1/tok/callback", 429)
    value = counted.registry.get_sample_value
    assert value("chieu_discord_rate_limited_total", {"class": "global"}) == 1
    assert value("chieu_discord_rate_limited_total", {"class": "interaction"}) == 1


async def test_a_database_that_hangs_is_unhealthy_after_the_timeout(monkeypatch):
    monkeypatch.setattr(metrics, "DATABASE_SECONDS", 0.05)
    monkeypatch.setattr(metrics, "PROBE_KEPT", 0)  # (each health check probes)

    async def hangs(sql, params=()):
        await asyncio.Event().wait()

    checked = Metrics("127.0.0.1", 1, 600)
    checked.bot = stub_bot(hangs)
    healthy, checks = await checked.health()
    assert not healthy and checks == {"gateway": "ok", "database": "no answer within 0.05 s", "outbox": "ok"}
    checked.bot = stub_bot()
    assert await checked.health() == (True, {"gateway": "ok", "database": "ok", "outbox": "ok"})


async def test_a_flood_of_health_checks_is_one_probe_and_its_word_stands_a_second(monkeypatch):
    asked = []

    async def slow(sql, params=()):
        asked.append(sql)
        await asyncio.sleep(0.05)
        return (1,)

    checked = Metrics("127.0.0.1", 1, 600)
    checked.bot = stub_bot(slow)
    answers = await asyncio.gather(*(checked.health() for _ in range(50)))
    assert all(healthy for healthy, _ in answers) and len(asked) == 1, "one probe for them all"
    assert (await checked.health())[0] and len(asked) == 1, "its word stands"
    monkeypatch.setattr(metrics, "PROBE_KEPT", 0)
    assert (await checked.health())[0] and len(asked) == 2, "then the next check probes again"


async def test_database_calls_are_timed_by_kind_of_operation():
    class Backend:
        title = "SQLite"

        async def fetchone(self, sql, params=()):
            return (1,)

        async def execute(self, sql, params=()):
            return 1

        insert = executemany = fetchall = execute

        def transaction(self):
            return asyncio.Lock()  # (an async context manager)

    counted = Metrics("127.0.0.1", 1, 600)
    timed = TimedBackend(Backend(), counted.database_seconds)
    assert await timed.fetchone("SELECT 1") == (1,)
    async with timed.transaction():
        await timed.execute("UPDATE x SET y = 1")
    assert timed.title == "SQLite"
    value = counted.registry.get_sample_value
    assert value("chieu_database_seconds_count", {"op": "fetchone"}) == 1
    assert value("chieu_database_seconds_count", {"op": "execute"}) == 1
    assert value("chieu_database_seconds_count", {"op": "transaction"}) == 1
    assert value("chieu_database_seconds_count", {"op": "fetchall"}) == 0


def test_metrics_are_off_unless_a_port_is_given():
    assert load().metrics_port == 0 and load().metrics_host == "127.0.0.1"
    with pytest.raises(ValueError, match="metrics_port"):
        load(metrics_port=70000)


def test_the_dashboard_names_only_metrics_the_bot_exports():
    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    names = exported(stub_bot())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", ())]
    assert len(queries) >= 10
    named = {name for query in queries for name in re.findall(r"\b(?:chieu|process)_[a-z_]+", query)}
    assert named and named <= names, named - names
    titles = " ".join(panel["title"].lower() for panel in dashboard["panels"])
    for subject in ("tables", "latency", "budget", "outbox", "leases"):
        assert subject in titles


async def test_leases_not_renewed_in_time_are_counted_lost():
    class LeaseQueries:
        async def renew(self, holder, held, seconds):
            return {1}, set()  # table 2's lease is gone

    class Db:
        leases = LeaseQueries()

    leases = Leases(Db(), enabled=True, holder="a", seconds=10)
    leases.epochs = {1: 5, 2: 5}
    assert await leases.renew() == {2}
    assert leases.lost == 1 and leases.epochs == {1: 5}


def samples(bot, metrics_object=None) -> dict[tuple[str, tuple], float]:
    found = metrics_object or Metrics("127.0.0.1", 1, 600)
    found.games(bot.tables.gauges().games)
    found.registry.register(_State(bot))
    text = generate_latest(found.registry).decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_names_say_their_unit_and_an_unknown_latency_is_absent_not_zero():
    from bot.version import version

    bot = stub_bot()
    bot.shards[1] = SimpleNamespace(is_closed=lambda: True)
    found = samples(bot)
    names = {name for name, _ in found}
    assert "chieu_rest_budget_fill_ratio" in names and "chieu_rest_budget_calls_per_second" in names
    assert not {"chieu_rest_budget_fill", "chieu_rest_budget_rate"} & names
    assert found["chieu_gateway_latency_seconds", ()] == 0.05
    assert found["chieu_shard_connected", (("shard", "0"),)] == 1
    assert found["chieu_shard_connected", (("shard", "1"),)] == 0
    build = next(labels for name, labels in found if name == "chieu_build_info")
    assert dict(build)["version"] == version() and found["chieu_build_info", build] == 1
    assert found["chieu_games_settled_total", (("game", "phom"),)] == 0
    connecting = stub_bot()
    connecting.latency, connecting.is_ready = float("inf"), lambda: False
    assert "chieu_gateway_latency_seconds" not in {name for name, _ in samples(connecting)}


async def test_settled_games_and_logged_errors_are_counted(tmp_path):
    import logging

    from bot import ledger
    from bot.db import Database

    counted = Metrics("127.0.0.1", 1, 600)
    db = await Database.open(str(tmp_path / "chieu.sqlite3"))
    bot = stub_bot()
    bot.db, bot.http = db, SimpleNamespace(request=None)
    try:
        ledger.SETTLED.append(counted.settled)
        logging.getLogger().addHandler(counted._log_counter)
        table = await db.insert_table(guild_id=1, channel_id=2, game="phom", options={}, host_id=3, seats=[])
        async with db.transaction():
            game = await db.insert_game(table_id=table, game_no=1, guild_id=1, game="phom", seats=[], options={},
                                        decks=[["AS"]], stake=1)
        entries = [ledger.Entry(seat=seat, user_id=None, name="AI", chips=chips, ga=0, rank=seat + 1, points=None,
                                won=seat == 0, detail=[]) for seat, chips in enumerate((2, -2))]
        assert await ledger.settle(db, game_id=game, guild_id=1, game="phom", entries=entries)
        assert not await ledger.settle(db, game_id=game, guild_id=1, game="phom", entries=entries)
        logging.getLogger("bot.tables").error("a table task failed")
    finally:
        ledger.SETTLED.remove(counted.settled)
        logging.getLogger().removeHandler(counted._log_counter)
        await db.close()
    value = counted.registry.get_sample_value
    assert value("chieu_games_settled_total", {"game": "phom"}) == 1, "once, however often it is settled"
    assert value("chieu_log_messages_total", {"level": "ERROR"}) == 1


async def test_a_health_probe_is_not_counted_as_database_traffic():
    class Backend:
        async def fetchone(self, sql, params=()):
            return (1,)

        execute = insert = executemany = fetchall = fetchone

    counted = Metrics("127.0.0.1", 1, 600)
    bot = stub_bot()
    counted._plain_backend = Backend()
    bot.db = SimpleNamespace(backend=TimedBackend(Backend(), counted.database_seconds))
    bot.db.fetchone = bot.db.backend.fetchone
    counted.bot = bot
    assert (await counted.health())[0]
    assert counted.registry.get_sample_value("chieu_database_seconds_count", {"op": "fetchone"}) == 0


def test_the_dashboard_chooses_processes_by_instance_and_shows_which_are_up():
    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    assert "chieu_build_info, instance" in variables["instance"]["definition"]
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", ())]
    assert all('instance=~"$instance"' in query for query in queries), "every panel follows the choice"
    assert not any('job="chieu"' in query for query in queries)
    assert any(query.startswith("up{") for query in queries)


def test_the_alerting_rules_are_valid_and_name_only_exported_metrics():
    import shutil
    import subprocess

    import yaml

    path = ROOT / "deploy" / "alerts.yml"
    rules = [rule for group in yaml.safe_load(path.read_text())["groups"] for rule in group["rules"]]
    names = exported(stub_bot()) | {"chieu_leases_lost_total"}
    named = {name for rule in rules for name in re.findall(r"\bchieu_[a-z_]+", rule["expr"])}
    assert named <= names, named - names
    alerts = {rule["alert"] for rule in rules}
    assert {"ChieuDown", "ChieuGatewayDisconnected", "ChieuOutboxFailing", "ChieuSettlementsPending",
            "ChieuRestBudgetSaturated", "ChieuLeaseFlapping"} <= alerts
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus)")
    checked = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and "SUCCESS" in checked.stdout, checked.stdout + checked.stderr
