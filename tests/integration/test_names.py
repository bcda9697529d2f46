"""Members' names are any text: written into the bot's messages, a name never pings anyone
(``@everyone``, a role) nor acts as markdown (a fake line of a ranking); the pictures still
draw the name as it is. The bot's messages carry no mention permission but the one they mean."""

from __future__ import annotations

import json

import discord
import pytest

from tests.support.databases import both_backends
from tests.support.simhelpers import Players, buttons, let_the_clock_play, play_channel, private_texts, table_of

FAKE_LINE = "AI 1** · **+500 chips"
FAKE_LINE_SHOWN = r"AI 1\*\* · \*\*+500 chips"


@pytest.fixture
def simcord_bot(bot_factory):
    """A long pause between rounds: time to click Next round while others are still away."""
    return bot_factory(round_pause_seconds=600)


def member_named(players: Players, user: str, nick: str):
    member = players.guild.add_member(players.env.create_user(user), nick=nick)
    players.members.append(member)
    return member


def tricky_names(players: Players) -> dict[str, str]:
    """raw name -> how message text must show it: literally, pinging nobody."""
    role = players.guild.create_role("players", mentionable=True)
    return {"@everyone": "@\u200beveryone", f"<@&{role.id}>": f"<@\u200b&{role.id}>", FAKE_LINE: FAKE_LINE_SHOWN}


def stored(env, message):
    """The simulated Discord's copy of a message: what it was allowed to ping, whom it pinged."""
    return env.backend.get_message(message.channel_id if hasattr(message, "channel_id") else message.channel.id,
                                   message.id)


def pings_nobody(message) -> bool:
    policy = message.allowed_mentions
    return (not policy.everyone and policy.users == frozenset() and policy.roles == frozenset()
            and not message.mention_everyone and not message.ping_user_ids and not message.ping_role_ids)


def bot_messages(env):
    """Every message the bot wrote (in the guild and in DMs), as the simulated Discord keeps it
    (not Discord's own notices, such as the thread's "started a thread")."""
    return [m for channel in env.backend.messages.values() for m in channel.values()
            if m.author_id == env.bot.user.id and m.system_metadata is None]


def everything_sent(env) -> list[str]:
    """Every REST call the bot made (each message, each edit of it, each answer), as JSON text."""
    return [json.dumps(request.json, ensure_ascii=False) for request in env.http_requests if request.json]


@both_backends  # names stored and read back as they are, by either database
async def test_balance_shows_any_name_literally_and_pings_nobody(simcord_env):
    env = simcord_env
    players = Players(env, 0)
    for i, (raw, shown) in enumerate(tricky_names(players).items()):
        member = member_named(players, f"user{i}", raw)
        balance = await member.slash(players.channel, "balance")
        assert balance.response.content.startswith(f"**{shown}**: **±0 chips** · ")
        assert pings_nobody(stored(env, balance.response))
        history = await member.slash(players.channel, "history")
        assert history.response.embeds[0].title == f"Last games of {shown}"
        assert pings_nobody(stored(env, history.response))


async def test_a_match_shows_names_literally_and_pictures_draw_them_as_they_are(simcord_env, monkeypatch):
    env = simcord_env
    pictured: dict[str, list[list[str]]] = {"table_picture": [], "round_rows": [], "result_rows": []}
    ui_class = type(env.bot.tables.uis["concan"])  # the extension's own module, not an import of it
    for method in pictured:
        def spy(self, view, names, *args, _method=method, _original=getattr(ui_class, method)):
            pictured[_method].append(list(names))
            return _original(self, view, names, *args)
        monkeypatch.setattr(ui_class, method, spy)

    players = Players(env, 0)
    names = tricky_names(players)
    raw = list(names)
    for i, name in enumerate(raw):
        member_named(players, f"user{i}", name)
    host, *others = players.members
    await host.slash(players.channel, "concan new", rounds=2, turn_seconds=30)
    for member in others:
        await member.click(players.channel.last_message, label="Join")
    await host.click(players.channel.last_message, label="Add AI")  # "AI 1": no seat has that raw name
    lobby = players.channel.last_message
    assert lobby.embeds[0].fields[0].value == "\n".join(
        [f"{i + 1}. {names[name]}" for i, name in enumerate(raw)] + ["4. 🤖 AI 1 · normal"])  # (its level)
    env.bot.tables.lobby.dealing.next_seating = [0, 1, 2, 3]  # the lobby's order (Concan draws one otherwise)
    await host.click(lobby, label="Start")
    table = table_of(env)
    assert [seat.name for seat in table.seats] == raw + ["AI 1"]

    # nobody clicks: the clock plays the first round, then someone is ready for the next
    for _ in range(200):
        if any("Next round" in buttons(m) for m in play_channel(players).history()):
            break
        await env.advance_time(30)
    round_result = next(m for m in play_channel(players).history() if "Next round" in buttons(m))
    assert all(names[name] in round_result.embeds[0].fields[0].value for name in raw)
    ready = await others[0].click(round_result, label="Next round")
    (told,) = private_texts(ready)
    assert names[raw[0]] in told and names[raw[2]] in told
    await let_the_clock_play(players, turns=200)

    result = play_channel(players).last_message
    ranking = result.embeds[0].fields[0].value
    assert all(f"{names[name]}**" in ranking for name in raw)
    board = next(m for m in play_channel(players).history() if m.id == table.table_message_id)
    moves = next(f.value for f in board.embeds[0].fields if f.name == "Last moves")
    assert any(shown in moves for shown in names.values())

    leaders = (await host.slash(players.channel, "leaderboard")).response.embeds[0].description
    assert all(f"{names[name]}** — " in leaders for name in raw)  # the ledger keeps the raw names

    for sent in everything_sent(env):
        for name in raw:
            assert name not in sent, (name, sent)
    assert [m for m in bot_messages(env) if not pings_nobody(m)] == []

    # the pictures (table, rounds, result) got the names as they are
    assert pictured["table_picture"] and pictured["round_rows"] and pictured["result_rows"]
    assert all(given == raw + ["AI 1"] for calls in pictured.values() for given in calls)


async def test_the_closed_dms_notice_still_pings_its_player_and_nobody_else(simcord_env):
    env = simcord_env
    players = Players(env, 0)
    lan = member_named(players, "lan", "@everyone")
    env.inject_error("POST", f"/channels/{lan.user.dm_channel.id}/messages", status=403, code=50007, times=None)
    await lan.slash(players.channel, "phom new")
    await lan.click(players.channel.last_message, label="Add AI")
    await lan.click(players.channel.last_message, label="Start")
    (notice,) = [m for m in play_channel(players).history() if "can't send you a DM" in m.content]
    assert notice.content.startswith(f"<@{lan.id}>, ")
    copy = stored(env, notice)
    assert copy.ping_user_ids == [lan.id]
    assert not copy.allowed_mentions.everyone and copy.allowed_mentions.roles == frozenset()
    assert not copy.mention_everyone and not copy.ping_role_ids
    others = [m for m in bot_messages(env) if m.id != notice.id]
    assert others and all(pings_nobody(m) for m in others)


def test_the_bot_pings_nobody_unless_a_message_says_so(bot_factory):
    mentions = bot_factory().allowed_mentions
    assert mentions is not None and mentions.to_dict() == discord.AllowedMentions.none().to_dict()
