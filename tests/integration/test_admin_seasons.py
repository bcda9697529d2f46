"""/admin season start: after a confirmation, the final board of the season that ends is posted
where it was asked, and /leaderboard counts the new season's games; earlier seasons (and all
time) can still be named; the ledger itself is never touched. Refused, with nothing changed, to
whoever may not administer the server, and for a forged button or one from another server."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import count

import pytest

from bot import ledger, seasons
from tests.support.databases import both_backends
from tests.integration.test_admin import admin_command
from tests.support.simhelpers import Players, click_many, custom_id, settle, tampered_click


@pytest.fixture
def clock(monkeypatch):
    """The ledger's and the seasons' clock, a minute later at each reading: every game and
    every season start in a second of its own (both are written to the second)."""
    start = datetime.now(timezone.utc) - timedelta(days=1)
    ticks = count()

    def now_iso() -> str:
        return (start + timedelta(minutes=next(ticks))).isoformat(timespec="seconds")

    monkeypatch.setattr(ledger, "now_iso", now_iso)
    monkeypatch.setattr(seasons, "now_iso", now_iso)


async def ledger_snapshot(env) -> list[tuple]:
    return [tuple(row) for row in await env.bot.db.fetchall("SELECT * FROM ledger ORDER BY id")]


async def season_log(env, guild_id: int) -> list[str]:
    return [row["detail"] for row in await env.bot.db.admin_log(guild_id) if row["action"] == "season"]


async def start_season(admin, channel, name: str):
    """/admin season start, then its confirmation: what it asked, and the public message posted
    (the final board)."""
    asked = await admin.slash(channel, "admin season start", name=name)
    question = asked.response.content
    assert asked.ephemeral and f"Start season **{name}**?" in question
    done = await admin.click(asked.response, label="Start the season")
    assert done.response.content == f"Season **{name}** started." and done.response.components == []
    posted = channel.last_message
    assert posted.content == f"<@{admin.id}> started season **{name}**."
    return question, posted


def board_lines(answer) -> list[str]:
    return answer.response.embeds[0].description.splitlines()


@both_backends
async def test_a_new_season_counts_only_its_games_and_the_earlier_ones_stay(simcord_env, clock):
    env = simcord_env
    players = Players(env, 3)
    lan, minh, duc = players.members
    gid, channel = players.guild.id, players.channel
    admin = players.admin()
    await settle(env, gid, "phom", {lan: 30, minh: -30})
    await settle(env, gid, "chan", {lan: 10, minh: -10})

    # the first season: the final board is all time until now, with its chart (two games)
    question, final = await start_season(admin, channel, "Spring")
    assert "The board of all time is posted here as its final board" in question
    embed = final.embeds[0]
    assert embed.title == "Final board — all time, before season Spring"
    assert embed.description.splitlines() == ["**1. lan** — +40 chips · 2 wins in 2 games",
                                              "**2. minh** — −40 chips · 0 wins in 2 games"]
    (chart,) = final.attachments
    assert embed.image.url == f"attachment://{chart.filename}"
    assert chart.description.endswith(": lan +40, minh −40.")
    assert await season_log(env, gid) == ["Spring"]

    empty = await lan.slash(channel, "leaderboard")
    assert empty.response.embeds[0].title == "Leaderboard — all games, season Spring, by chips"
    assert board_lines(empty) == ["No games finished yet."]

    await settle(env, gid, "phom", {duc: 25, minh: -25})
    spring = await lan.slash(channel, "leaderboard")
    assert board_lines(spring) == ["**1. duc** — +25 chips · 1 win in 1 game",
                                   "**2. minh** — −25 chips · 0 wins in 1 game"]
    before = await ledger_snapshot(env)

    question, final = await start_season(admin, channel, "Summer")
    assert "The board of season **Spring** is posted here" in question
    assert final.embeds[0].title == "Final board — season Spring"
    assert final.embeds[0].description.splitlines() == board_lines(spring)
    assert final.attachments == []  # one game is no race
    assert await season_log(env, gid) == ["Summer", "Spring"]

    assert board_lines(await lan.slash(channel, "leaderboard")) == ["No games finished yet."]
    # the earlier season by its name (as typed), its part of a period, and all time
    again = await lan.slash(channel, "leaderboard", season="spring")
    assert again.response.embeds[0].title == "Leaderboard — all games, season Spring, by chips"
    assert board_lines(again) == board_lines(spring)
    week = await lan.slash(channel, "leaderboard", season="Spring", period="week", game="phom")
    assert week.response.embeds[0].title == "Leaderboard — Phỏm, season Spring, this week, by chips"
    assert board_lines(week) == board_lines(spring)
    everything = await lan.slash(channel, "leaderboard", season="*")
    assert everything.response.embeds[0].title == "Leaderboard — all games, all time, by chips"
    assert [line.split(" · ")[0] for line in board_lines(everything)] == [
        "**1. lan** — +40 chips", "**2. duc** — +25 chips", "**3. minh** — −65 chips"]
    unknown = await lan.slash(channel, "leaderboard", season="Winter")
    assert unknown.ephemeral and unknown.response.content == "This server has no season named Winter."
    choices = await lan.autocomplete(channel, "leaderboard", "season", "")
    assert [(c["name"], c["value"]) for c in choices] == [("all time", "*"), ("Summer", "Summer"),
                                                          ("Spring", "Spring")]
    assert [c["name"] for c in await lan.autocomplete(channel, "leaderboard", "season", "spr")] == ["Spring"]

    # /balance stays all time; the ledger is as it was
    assert (await lan.slash(channel, "balance")).response.content.startswith(f"**{lan.name}**: **+40 chips**")
    assert await ledger_snapshot(env) == before


async def test_refused_to_a_member_who_may_not_administer_and_nothing_changes(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    gid, channel = players.guild.id, players.channel
    # the server granted /admin to lan on the Integrations page, but he has no Manage Server
    players.guild.set_command_permissions(int(admin_command(env)["id"]), {lan: True})

    refused = await lan.slash(channel, "admin season start", name="Spring")
    assert refused.ephemeral and "Only this server's admins" in refused.response.content
    assert refused.response.components == []
    assert await seasons.seasons(env.bot.db, gid) == [] and await env.bot.db.admin_log(gid) == []

    # the admin's confirmation button, clicked by lan: refused too
    admin = players.admin()
    asked = await admin.slash(channel, "admin season start", name="Spring")
    somewhere = await lan.send(channel, "hello")
    click = await tampered_click(env, lan, somewhere, custom_id(asked.response, "Start the season"))
    assert click.ephemeral and "Only this server's admins" in click.response.content
    assert await seasons.seasons(env.bot.db, gid) == [] and await env.bot.db.admin_log(gid) == []


async def test_a_forged_button_or_one_from_another_server_changes_nothing(simcord_env):
    env = simcord_env
    players, elsewhere = Players(env, 1), Players(env, 1)
    gid, channel = players.guild.id, players.channel
    admin, other_admin = players.admin(), elsewhere.admin("olga")
    asked = await admin.slash(channel, "admin season start", name="Spring")
    confirm = custom_id(asked.response, "Start the season")
    assert confirm == f"chieu:server:{gid}:season:0:Spring"

    there = await other_admin.send(elsewhere.channel, "hello")
    here = await admin.send(channel, "hello")
    (forged,) = await click_many(env, [(admin, here, confirm)])  # not on the message: Discord's check
    clicks = [forged,
              await tampered_click(env, other_admin, there, confirm),  # this server's button, in another
              await tampered_click(env, admin, here, f"chieu:server:{gid}:season:x:Spring"),
              await tampered_click(env, admin, here, f"chieu:server:{gid}:nothing:0:Spring"),
              await tampered_click(env, admin, here, f"chieu:server:{gid}:season")]
    for click in clicks:
        assert click.ephemeral and click.response.content == "That control is not valid."
    for guild in (gid, elsewhere.guild.id):
        assert await seasons.seasons(env.bot.db, guild) == [] and await env.bot.db.admin_log(guild) == []

    # the real click starts it; the same confirmation clicked again does nothing
    await admin.click(asked.response, label="Start the season")
    again = await tampered_click(env, admin, here, confirm)
    assert again.response.content == "This server already has a season named Spring."
    assert [season.name for season in await seasons.seasons(env.bot.db, gid)] == ["Spring"]
    assert await season_log(env, gid) == ["Spring"]
