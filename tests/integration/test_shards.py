"""Shards: the bot is an AutoShardedBot; a table in a server of the second shard is played from
DMs (which Discord delivers to shard 0) like any other; /about says which shards this process
runs and how many tables it drives; the config refuses shard settings processes cannot agree on."""

from __future__ import annotations

import pytest

from bot.config import load
from bot.version import UNKNOWN, version
from tests.support.simhelpers import dm, enabled, quick_move, start_table, table_of


@pytest.fixture
def simcord_bot(bot_factory):
    return bot_factory(shard_count=2)


async def test_a_table_on_the_second_shard_is_played_from_its_dms(simcord_env):
    env = simcord_env
    assert env.bot.shard_count == 2 and sorted(env.bot.shards) == [0, 1]
    players = await start_table(env, "phom", 1, 1, seed=5, shard_id=1)
    lan = players.members[0]
    table = table_of(env)
    assert env.bot.get_guild(table.guild_id).shard_id == 1
    version = table.version
    while lan.user.id not in [table.seats[s].user_id for s in table.state.to_act]:
        await env.advance_time(5)
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert table.version > version and table.state.record()["actions"]
    assert enabled(dm(lan)) is not None


async def test_about_names_the_shards_the_database_and_the_tables_driven_here(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, seed=5, shard_id=1)
    player = await players.members[0].slash(players.channel, "about")
    assert player.ephemeral and player.response.embeds[0].title == "Chiếu"
    assert not player.response.embeds[0].fields  # the process's details are for the server's admins
    result = await players.admin().slash(players.channel, "about")
    assert result.ephemeral
    fields = {field.name: field.value for field in result.response.embeds[0].fields}
    assert fields["Shards"] == "0, 1 of 2"
    assert fields["This server's shard"] == "1"
    assert fields["Tables driven here"] == "1"
    assert fields["Database"] in ("SQLite", "PostgreSQL")
    assert fields["Version"] == version() != UNKNOWN  # the installed package's
    assert str(env.bot.config.database) not in str(result.response.embeds[0].to_dict())


@pytest.mark.parametrize("options,error", [
    ({"shard_ids": [0]}, r"shard_ids = \[0\]: needs shard_count"),
    ({"shard_count": 2, "shard_ids": [2]}, r"shard_ids = \[2\]: must be distinct shard numbers from 0 to 1"),
    ({"shard_count": 2, "shard_ids": [1, 1]}, "distinct"),
    ({"shard_count": 0}, "shard_count = 0: must be a whole number from 1"),
])
def test_shard_settings_processes_cannot_agree_on_are_refused(options, error):
    with pytest.raises(ValueError, match=error):
        load(**options)


def test_by_default_discord_decides_the_shards():
    config = load()
    assert config.shard_count is None and config.shard_ids is None


def test_the_database_url_may_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHIEU_DATABASE", "postgresql://chieu:secret@db/chieu")
    assert load(database="ignored.sqlite3").database == "ignored.sqlite3"  # an explicit override wins
    assert load().database == "postgresql://chieu:secret@db/chieu"
