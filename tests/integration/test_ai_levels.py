"""AI levels at the table (issue #28): ``/<game> new ai:easy|normal|strong`` (default: the
server's, else the config's), stored with the table (a restart keeps it), told with each AI seat
in the lobby, the table's text and its picture; the AI standing in for a person who is away plays
at the table's level; the strong AI thinks off the event loop, during the AI's pause."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import pytest

from bot.games import strong_ai
from bot.tables import messages, thinking
from tests.support.simhelpers import (Players, custom_id, dm, emit_component, let_the_clock_play, play_channel, quick_move,
                              start_table, table_of, until)


@pytest.fixture
def spy(monkeypatch):
    """Every level's decision recorded as (level, seat), the moves unchanged; the strong AI's
    search in threads (a monkeypatched search does not reach a worker process)."""
    calls: list[tuple[str, int]] = []
    for level in ("easy", "normal"):
        real = getattr(thinking, level)

        def recorded(game, view, real=real, level=level):
            calls.append((level, view["seat"]))
            return real(game, view)

        monkeypatch.setattr(thinking, level, recorded)
    real_strong = strong_ai.choose

    def strong(game, view, **kwargs):
        calls.append(("strong", view["seat"]))
        return real_strong(game, view, **kwargs)

    monkeypatch.setattr(strong_ai, "choose", strong)
    monkeypatch.setattr(thinking, "process_pool", lambda workers: concurrent.futures.ThreadPoolExecutor(workers))
    return calls


def players_field(message) -> str:
    return next(f.value for f in message.embeds[0].fields if f.name in ("Players", "Người chơi"))


async def test_the_ai_option_is_stored_and_each_ai_seat_says_its_level(simcord_env, spy):
    env = simcord_env
    players = await start_table(env, "phom", 1, 2, seed=4, level="strong")
    table = table_of(env)
    assert table.options["ai"] == "strong"
    lobby = players.channel.history()[0]
    assert players_field(lobby).splitlines()[1:] == ["2. 🤖 AI 1 · strong", "3. 🤖 AI 2 · strong"]
    ui = env.bot.tables.ui_of(table)
    boxes = messages.table_picture(table, ui).seats
    assert [(box.name, box.detail.split("\n")[0]) for box in boxes][1:] == [("AI 1", "strong"), ("AI 2", "strong")]
    assert "strong" not in boxes[0].detail
    lan = players.members[0]
    await quick_move(lan.user, lambda: dm(lan))  # Lan discards: the AI seats think, in the pool
    assert table.version >= 3 and {level for level, _seat in spy} == {"strong"}
    shown = next(m for m in play_channel(players).history() if m.id == table.table_message_id)
    assert [field.name for field in shown.embeds[0].fields][1:3] == ["🤖 AI 1 · strong", "🤖 AI 2 · strong"]


async def test_a_lobby_in_vietnamese_names_the_level_in_vietnamese(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await lan.slash(players.channel, "chan new", ai="easy", language="vi")
    await lan.click(players.channel.last_message, label="Thêm máy")
    assert "🤖 AI 1 · dễ" in players_field(players.channel.last_message)


async def test_the_servers_default_level_applies_and_a_tables_own_wins(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    admin = players.admin()
    await lan.slash(players.channel, "phom new")
    assert table_of(env).options["ai"] == "normal"  # neither the table nor the server says: the config

    saved = await admin.slash(players.channel, "admin settings", ai_level="easy")
    assert "AI level: **easy**" in saved.response.embeds[0].description
    assert await env.bot.db.server_settings(players.guild.id) == {"ai_level": "easy"}
    await minh.slash(players.channel, "tusac new")
    await minh.slash(players.channel, "chan new")  # (his lobby is open: refused, nothing new)
    levels = sorted(table.options["ai"] for table in env.bot.tables.tables.values())
    assert levels == ["easy", "normal"]

    duc = players.outsider("duc")
    await duc.slash(players.channel, "concan new", ai="strong")
    assert max(env.bot.tables.tables.values(), key=lambda t: t.id).options["ai"] == "strong"
    reset = await admin.slash(players.channel, "admin settings", reset="ai_level")
    assert "AI level: **normal** (default)" in reset.response.embeds[0].description


async def test_a_person_who_is_away_is_played_at_the_tables_level(simcord_env, spy):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, seed=11, level="easy")
    await let_the_clock_play(players, turns=40)
    assert table_of(env).seats[0].away, "Lan timed out and went away"
    assert {level for level, _seat in spy} == {"easy"}
    assert {seat for _level, seat in spy} == {0, 1}, "the AI seat and Lan's, both easy"


async def test_a_timeout_move_at_a_strong_table_is_searched_outside_the_tables_lock(simcord_env, monkeypatch):
    """Lan's time runs out at a strong table: the AI's search for her move (up to its budget)
    runs while the table's lock is free, so the table's other clicks are not held up by it (it
    ran inside the lock); the move searched is the one played (else it would be searched again,
    inside the lock)."""
    env = simcord_env
    monkeypatch.setattr(thinking, "process_pool", lambda workers: concurrent.futures.ThreadPoolExecutor(workers))
    held = []  # (seat, the table's lock held while its search ran)

    def search(game, view, **kwargs):
        table = next(iter(env.bot.tables.tables.values()))
        held.append((view["seat"], table.lock.locked()))
        return thinking.normal(game, view)

    monkeypatch.setattr(strong_ai, "choose", search)
    players = await start_table(env, "phom", 1, 1, seed=11, level="strong")
    await let_the_clock_play(players, turns=40)
    lans = [locked for seat, locked in held if seat == 0]
    assert lans, "Lan timed out: her moves were searched"
    assert not any(lans), f"{sum(lans)} of {len(lans)} of Lan's searches ran inside the table's lock"
    assert {seat for seat, _locked in held} == {0, 1}


async def test_a_game_restored_after_a_restart_plays_on_at_the_same_level(simcord_env, bot_factory, spy):
    env = simcord_env
    patient = {"away_after_timeouts": 1000}
    env.bot.tables.config = env.bot.config.with_overrides(**patient)
    players = await start_table(env, "chan", 1, 2, seed=3, level="easy")
    await env.advance_time(60)
    before = table_of(env)
    assert before.status == "playing" and before.version > 0
    spy.clear()

    await env.restart_bot(bot_factory(**patient))
    after = table_of(env)
    assert after is not before and after.options["ai"] == "easy"
    for _ in range(3):
        await env.advance_time(60)
    assert after.version > before.version and spy and {level for level, _seat in spy} == {"easy"}
    boxes = messages.table_picture(after, env.bot.tables.ui_of(after)).seats
    assert [box.detail.split("\n")[0] for box in boxes][1:] == ["easy", "easy"]


async def test_a_slow_search_at_one_table_does_not_delay_a_click_at_another(simcord_env, monkeypatch):
    """The strong AI of table A thinks for 1.2 s (in its worker); Minh clicks at table B as the
    search starts, and his click is answered at once (searching on the event loop, it waited for
    the search)."""
    env = simcord_env
    loop = asyncio.get_running_loop()
    monkeypatch.setattr(thinking, "process_pool", lambda workers: concurrent.futures.ThreadPoolExecutor(workers))
    searching = []

    def slow(game, view, **kwargs):
        searching.append(time.perf_counter())
        if len(searching) == 1:  # Minh clicks now (whenever the loop can take the click in)
            loop.call_soon_threadsafe(emit_component, env, minh.user, dm(minh), custom_id(dm(minh), "Quick Select"))
        time.sleep(1.2 if len(searching) == 1 else 0)
        return thinking.normal(game, view)

    monkeypatch.setattr(strong_ai, "choose", slow)
    minh = (await start_table(env, "phom", 1, 1, seed=5, level="normal")).members[0]
    lan = (await start_table(env, "phom", 1, 1, seed=2, level="strong")).members[0]
    table_b, table_a = (env.bot.tables.tables[n] for n in sorted(env.bot.tables.tables))
    handled = {}
    handle = env.bot.tables.handle

    async def timed(interaction, control, values, **kwargs):
        await handle(interaction, control, values, **kwargs)
        handled[control.table_id] = time.perf_counter()

    monkeypatch.setattr(env.bot.tables, "handle", timed)
    await lan.user.click(dm(lan), label="Quick Select")
    version = table_a.version
    # emitted, not settled: settling waits for the search
    emit_component(env, lan.user, dm(lan), custom_id(dm(lan), "Discard"))
    await until("Minh's click answered", lambda: asyncio.sleep(0, table_b.id in handled), 10)
    assert handled[table_b.id] - searching[0] < 0.9, "Minh's click waited for table A's search"
    assert table_a.version == version + 1, "table A's AI is still thinking"  # (Lan's discard applied)
    await env.settle()
    assert table_a.version > version + 1  # its moves landed once the searches were back


async def test_the_strong_ai_thinks_during_its_pause(simcord_env, monkeypatch):
    """Its move lands at the end of the AI's pause (0.6 s), not after the pause and the search
    (0.5 s more)."""
    env = simcord_env
    env.bot.tables.config = env.bot.config.with_overrides(ai_delay_seconds=0.6)
    monkeypatch.setattr(thinking, "process_pool", lambda workers: concurrent.futures.ThreadPoolExecutor(workers))

    def search(game, view, **kwargs):
        time.sleep(0.5)
        return thinking.normal(game, view)

    monkeypatch.setattr(strong_ai, "choose", search)
    lan = (await start_table(env, "phom", 1, 1, seed=2, level="strong")).members[0]
    moved = []
    apply = env.bot.tables._apply

    async def timed(table, seat, action, **kwargs):
        events = await apply(table, seat, action, **kwargs)
        moved.append((seat, time.perf_counter()))
        return events

    monkeypatch.setattr(env.bot.tables, "_apply", timed)
    await lan.user.click(dm(lan), label="Quick Select")
    await lan.user.click(dm(lan), label="Discard")
    await until("the AI's move", lambda: asyncio.sleep(0, len(moved) >= 2), 10)
    (person, discarded), (ai, answered) = moved[:2]
    assert (person, ai) == (0, 1)
    assert 0.6 <= answered - discarded < 1.0  # pause + search would be 1.1 s at least


async def test_a_strong_table_whose_pool_fails_plays_on_as_normal(simcord_env, monkeypatch, caplog):
    env = simcord_env

    class Broken(concurrent.futures.Executor):
        def submit(self, fn, *args, **kwargs):
            raise concurrent.futures.process.BrokenProcessPool("a worker was killed")

    monkeypatch.setattr(thinking, "process_pool", lambda workers: Broken())
    lan = (await start_table(env, "phom", 1, 1, seed=2, level="strong")).members[0]
    table = table_of(env)
    assert await quick_move(lan.user, lambda: dm(lan)) == []  # Lan discards; the AI draws and discards
    assert table.version == 3 and env.bot.tables.thinking.fallbacks == 2
    warned = [r for r in caplog.records if "normal AI plays instead" in r.getMessage()]
    assert len(warned) == 1  # logged once
