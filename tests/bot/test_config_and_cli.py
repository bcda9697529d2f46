"""Configuration loading and the command line without a token."""

from __future__ import annotations

import pytest

from bot import __main__ as cli
from bot.config import load


def test_defaults_without_a_file(monkeypatch, tmp_path):
    monkeypatch.delenv("CHIEU_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    config = load()
    assert config.token is None and config.database == "chieu.sqlite3" and config.default_turn_seconds == 60


def test_file_then_environment_then_overrides(monkeypatch, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('token = "from-file"\ndatabase = "a.sqlite3"\ndefault_stake = 5\n')
    assert load(path).token == "from-file"
    monkeypatch.setenv("DISCORD_TOKEN", "from-env")
    config = load(path, database="b.sqlite3")
    assert (config.token, config.database, config.default_stake) == ("from-env", "b.sqlite3", 5)


def test_unknown_options_are_named(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("databse = 'typo.sqlite3'\n")
    with pytest.raises(ValueError, match="databse"):
        load(path)


def test_the_example_config_is_valid():
    from pathlib import Path
    load(Path(__file__).resolve().parents[2] / "config.example.toml")


def test_no_token_exits_with_instructions(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("CHIEU_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main([]) == 2
    message = capsys.readouterr().err
    assert "DISCORD_TOKEN" in message and "discord.com/developers" in message


def test_database_is_a_sqlite_path_or_a_postgresql_url():
    url = "postgresql://chieu:secret@db.example:5432/chieu"
    assert load(database=url).database == url
    assert load(database="data/chieu.sqlite3").database == "data/chieu.sqlite3"
    with pytest.raises(ValueError, match="postgresql://"):
        load(database="mysql://chieu@db/chieu")


def test_the_database_is_described_without_its_password():
    from bot.backends.postgres import PostgresBackend

    backend = PostgresBackend("postgresql://chieu:secret@db.example:5433/chieu", pool=None)
    assert backend.describe() == "PostgreSQL database chieu on db.example:5433"
    assert PostgresBackend("postgresql://chieu@/chieu?host=/run/postgresql", pool=None).describe() == \
        "PostgreSQL database chieu on /run/postgresql"


def test_a_process_running_some_shards_spends_their_share_of_the_rest_budget():
    assert load(shard_count=4).rest_calls_here == 40
    assert load(shard_count=4, shard_ids=[0, 1, 2, 3]).rest_calls_here == 40
    assert load(shard_count=4, shard_ids=[2]).rest_calls_here == 10
    assert load(shard_count=3, shard_ids=[0, 2], rest_calls_per_second=30).rest_calls_here == 20


def test_the_strong_ai_s_old_keys_are_accepted_with_a_warning(tmp_path, caplog):
    """A config file written for a version with the strong AI (removed in issue #37) still
    starts the bot: its keys are dropped, each with a warning, and ``strong`` means normal."""
    from bot.config import REMOVED_KEYS

    path = tmp_path / "config.toml"
    path.write_text('ai_level = "strong"\nai_workers = 3\nai_strong_budget_ms = 300\nai_strong_iterations = 20\n')
    with caplog.at_level("WARNING", logger="bot.config"):
        config = load(path)
    assert config.ai_level == "normal"
    assert set(REMOVED_KEYS) == {"ai_workers", "ai_strong_budget_ms", "ai_strong_iterations"}
    warned = [r.getMessage() for r in caplog.records]
    for key in REMOVED_KEYS:
        assert any(key in w and "no longer used" in w for w in warned), key
    assert any("'strong'" in w and "'normal'" in w for w in warned)
    assert not any(hasattr(config, key) for key in REMOVED_KEYS)



def test_the_local_person_has_a_name():
    """The local page's person was called "you": "you opens", "Chips of you". A name reads in
    every message, which write a seat's name in the third person."""
    from bot.local import DEFAULT_PEOPLE, LocalOptions

    assert LocalOptions().people == DEFAULT_PEOPLE
    assert all(name[:1].isupper() and name.lower() not in {"you", "me", "i"} for name in DEFAULT_PEOPLE)


def test_the_cli_and_the_local_mode_name_the_same_person():
    from bot import __main__ as cli
    from bot.local import DEFAULT_PEOPLE

    assert cli.DEFAULT_PEOPLE == DEFAULT_PEOPLE
