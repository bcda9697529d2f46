"""A configuration that says what is wrong: every key is checked at start against its type and
range, each fault is one line naming the key, the value and what is allowed (exit status 2, no
traceback); unknown keys are named with a guess; ``chieu check-config`` shows the effective
configuration, secrets masked; a refused token or Discord out of reach is one line too."""

from __future__ import annotations

import dataclasses
import logging
import socket

import discord
import pytest
from aiohttp import web

from bot import __main__ as cli
from bot.config import Config, load
from bot.config_rules import RULES, ConfigError
from bot.version import UNKNOWN, version

#: for each key, a value of the wrong type and one out of range (TOML as an operator writes it)
BAD_VALUES = {
    "token": ['5', '""'],
    "database": ['5', '"mysql://chieu@db/chieu"', '""'],
    "log_level": ['"verbose"', '10'],
    "log_format": ['"xml"', 'true'],
    "sync_commands": ['"sometimes"', 'false'],
    "dev_guild_id": ['"123"', '0'],
    "default_stake": ['"5"', '0', '1.5'],
    "default_turn_seconds": ['"60"', '0'],
    "min_turn_seconds": ['"15"', '-1'],
    "max_turn_seconds": ['"600"', '100000000'],
    "ai_delay_seconds": ['"fast"', '-0.5', '61'],
    "hands_by_dm": ['"yes"', '1'],
    "threads_allowed": ['"no"', '0'],
    "ai_level": ['"hard"', '2'],
    "away_after_timeouts": ['"2"', '0'],
    "max_tables_per_channel": ['"5"', '0'],
    "lobby_timeout_seconds": ['"900"', '0'],
    "round_pause_seconds": ['"10"', '-1'],
    "table_edit_seconds": ['"2.5"', '-1'],
    "notify_quiet_seconds": ['"20"', '-1'],
    "rest_calls_per_second": ['"40"', '0'],
    "shard_count": ['"2"', '0'],
    "shard_ids": ['"0"', '["a"]'],
    "lease_seconds": ['"10"', '0.5', '4000'],
    "instance_name": ['5', f'"{"x" * 101}"'],
    "metrics_port": ['"9108"', '70000', '-1'],
    "metrics_host": ['9108', '""'],
    "health_retry_seconds": ['"600"', '0'],
}
CASES = [(key, value) for key, values in BAD_VALUES.items() for value in values]


def test_every_key_has_a_rule_and_bad_values_to_try():
    fields = {field.name for field in dataclasses.fields(Config)} - {"extra"}
    assert fields <= set(RULES), f"keys no rule checks: {fields - set(RULES)}"
    assert fields <= set(BAD_VALUES), f"keys this test does not try: {fields - set(BAD_VALUES)}"


@pytest.mark.parametrize("key,value", CASES, ids=[f"{key}={value[:12]}" for key, value in CASES])
def test_each_bad_value_is_one_line_naming_the_key_the_value_and_what_is_allowed(key, value, tmp_path, capsys,
                                                                                    monkeypatch):
    if key not in {field.name for field in dataclasses.fields(Config)}:
        pytest.skip(f"{key} is no longer a key")
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("CHIEU_DATABASE", raising=False)
    path = tmp_path / "config.toml"
    path.write_text(f"{key} = {value}\n")
    assert cli.main(["--config", str(path)]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    shown = '"***"' if key == "token" else value
    assert lines[0].startswith(f"{path}: {key} = {shown}: must") or \
        lines[0].startswith(f"{path}: {key} = {shown}: needs"), lines[0]


def test_the_faults_of_a_file_are_all_said_at_once(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text('metrics_port = "9108"\nai_delay_seconds = "fast"\nlog_level = "verbose"\nmetric_host = "x"\n')
    assert cli.main(["--config", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        f"{path}: unknown key 'metric_host' (did you mean 'metrics_host'?)",
        f'{path}: metrics_port = "9108": must be a whole number from 0 (off) to 65535',
        f'{path}: ai_delay_seconds = "fast": must be a number of seconds from 0 to 60',
        f'{path}: log_level = "verbose": must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL',
    ]


def test_turn_seconds_out_of_order_and_values_across_keys(tmp_path):
    with pytest.raises(ConfigError, match=r"default_turn_seconds = 10: must be from min_turn_seconds"):
        load(default_turn_seconds=10, min_turn_seconds=15)


@pytest.mark.parametrize("text,said", [
    (None, "no such file"),
    ("x = [\n", "not valid TOML"),
])
def test_a_missing_or_broken_file_is_one_line(text, said, tmp_path, capsys):
    path = tmp_path / "config.toml"
    if text is not None:
        path.write_text(text)
    assert cli.main(["--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and said in err and str(path) in err


def test_the_environment_is_checked_too(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHIEU_CONFIG", raising=False)
    monkeypatch.setenv("CHIEU_DATABASE", "mysql://chieu:secret@db/chieu")
    assert cli.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err == 'CHIEU_DATABASE: database = "mysql://chieu:***@db/chieu": must be a SQLite file path or a ' \
                  'postgresql:// URL'


def test_check_config_prints_the_effective_configuration_with_secrets_masked(monkeypatch, tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text('token = "in-the-file"\nmetrics_port = 9108\n')
    monkeypatch.setenv("CHIEU_DATABASE", "postgresql://chieu:s3cret@db:5432/chieu")
    assert cli.main(["check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "in-the-file" not in out and "s3cret" not in out
    assert 'token = "***"' in out and f"# {path}" in out
    assert "metrics_port = 9108" in out and 'database = "postgresql://chieu:***@db:5432/chieu"' in out
    assert "# CHIEU_DATABASE" in out and "log_level = \"INFO\"" in out
    path.write_text("metrics_port = 70000\n")
    assert cli.main(["check-config", str(path)]) == 2
    assert "metrics_port = 70000: must" in capsys.readouterr().err


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Chiếu {version()} (Python ") and version() != UNKNOWN


@pytest.fixture
def logging_kept():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_discord_out_of_reach_is_one_line(monkeypatch, tmp_path, capsys, logging_kept):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHIEU_CONFIG", raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", "a.b.c")
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{_free_port()}/api/v10")  # nobody there
    assert cli.main([]) == 1
    err = capsys.readouterr().err.strip()  # (after the log's "logging in")
    assert err.splitlines()[-1].startswith("chieu: cannot reach Discord") and "Traceback" not in err


def test_a_refused_token_is_one_line(monkeypatch, tmp_path, capsys, logging_kept):
    import asyncio
    import threading

    port = _free_port()
    ready, done = threading.Event(), threading.Event()

    def serve() -> None:  # Discord, as it answers a wrong token
        async def main() -> None:
            async def who_am_i(request: web.Request) -> web.Response:
                return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)

            app = web.Application()
            app.router.add_get("/api/v10/users/@me", who_am_i)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", port).start()
            ready.set()
            while not done.is_set():
                await asyncio.sleep(0.05)
            await runner.cleanup()
        asyncio.run(main())

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        ready.wait(10)
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("CHIEU_CONFIG", raising=False)
        monkeypatch.setenv("DISCORD_TOKEN", "wrong.token.here")
        monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
        assert cli.main([]) == 2
    finally:
        done.set()
        thread.join(10)
    err = capsys.readouterr().err.strip()
    assert err.splitlines()[-1].startswith("Discord refused the token") and "Traceback" not in err
