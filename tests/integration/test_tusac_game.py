"""Whole Tứ Sắc games through Discord: timers, Quick Select, refusals, helpers, forced claims."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ai.levels import normal
from bot.games.base import Event
from bot.games.tusac.game import GAME
from bot.games.tusac.sets import trash_count
from cogs.tusac import TuSacUI
from tests.support.simhelpers import (buttons, dm, enabled, game_over, ledger_rows, let_the_clock_play, play_channel,
                              private_texts, start_table, table_of)
from tests.support.tusac_decks import build_deck

MOVES = ("Win!", "Eat", "Discard", "Discard!!!", "Draw", "Pass")  # tried in this order after Quick Select


def last_moves(players) -> str:
    table_message = next(m for m in reversed(play_channel(players).history()) if m.embeds and m.embeds[0].fields)
    return table_message.embeds[0].fields[-1].value


async def test_timer_drives_one_human_and_three_ai_to_a_settled_end(simcord_env):
    env = simcord_env
    players = await start_table(env, "tusac", 1, 3, stake=10, turn_seconds=60)
    (lan,) = players.members
    table = table_of(env)
    assert dm(lan).attachments[0].filename == "hand.png"
    assert "trash " in dm(lan).content and "khap " in dm(lan).content
    await let_the_clock_play(players, turns=20)
    rows = await ledger_rows(env, table.game_id)
    outcome = table.state.outcome()
    assert len(rows) == 4 and sum(r["chips"] for r in rows) == 0
    assert [r["chips"] for r in rows] == [outcome.results[r["seat"]].payout * 10 for r in rows]
    result = play_channel(players).last_message
    assert "result" in result.embeds[0].title
    assert result.attachments and result.attachments[0].filename == "result.png"
    if outcome.winner is not None:
        assert "hand value" in result.embeds[0].description
        assert trash_count(table.state.private[outcome.winner]) == 0


async def test_a_game_played_only_with_quick_select(simcord_env):
    env = simcord_env
    players = await start_table(env, "tusac", 1, 3)
    (lan,) = players.members
    moves = 0
    while not game_over(players):
        await lan.user.click(dm(lan), label="Quick Select")
        move = next(label for label in MOVES if label in enabled(dm(lan)))
        assert move != "Discard!!!"  # Quick Select picks a worst card
        told = await lan.user.click(dm(lan), label=move)
        assert private_texts(told) == [], told
        moves += 1
        assert moves < 150
    rows = await ledger_rows(env, table_of(env).game_id)
    assert sum(r["chips"] for r in rows) == 0
    assert "Game over" in dm(lan).content


# Lan (seat 0): trash WR GA GE, worst WR; the rest of her hand is in sets (a Red Tướng-Sĩ-Tượng...).
FIXED = build_deck(["WR GA GE", "YR GN YA", "RP WC"], players=3)


async def test_refused_discard_discard_warning_and_find_trash(simcord_env):
    env = simcord_env
    players = await start_table(env, "tusac", 1, 2, deck=FIXED)
    (lan,) = players.members
    table = table_of(env)
    assert table.state.view(0)["worst"] == ["WR"]

    await lan.user.select(dm(lan), ["RA#1"])
    assert "Discard" in enabled(dm(lan))
    told = await lan.user.click(dm(lan), label="Discard")
    assert private_texts(told) == ["Red Sĩ is not trash: a discard must lower your trash count (3 now)."]
    assert table.version == 0

    await lan.user.select(dm(lan), ["GA#1"])
    assert "Discard!!!" in buttons(dm(lan)) and "Discard" not in buttons(dm(lan))
    await lan.user.select(dm(lan), ["WR#1"])
    assert "Discard" in buttons(dm(lan))

    # Find Trash cycles all trash -> the worst -> nothing, from whatever is selected now
    await lan.user.click(dm(lan), label="Find Trash")
    assert table.selection[0] == []  # WR alone is the "worst" stage
    await lan.user.click(dm(lan), label="Find Trash")
    assert sorted(table.selection[0]) == ["GA#1", "GE#1", "WR#1"]
    await lan.user.click(dm(lan), label="Find Trash")
    assert table.selection[0] == ["WR#1"]
    await lan.user.click(dm(lan), label="Find Trash")
    assert table.selection[0] == []

    await lan.user.click(dm(lan), label="Quick Select")
    assert table.selection[0] == ["WR#1"]
    told = await lan.user.click(dm(lan), label="Discard")
    assert private_texts(told) == [] and table.state.record()["actions"][0] == [0, "discard WR"]


async def test_a_forced_claim_is_announced_in_the_thread(simcord_env):
    env = simcord_env
    # AI 2 holds a pair of WC: Lan's discard of WC is claimed out of turn.
    deck = build_deck(["WC GA YR", "GE RN", "WC WC YA RN GE"], players=3)
    players = await start_table(env, "tusac", 1, 2, deck=deck)
    (lan,) = players.members
    await lan.user.select(dm(lan), ["WC#1"])
    await lan.user.click(dm(lan), label=next(b for b in ("Discard", "Discard!!!") if b in enabled(dm(lan))))
    log = last_moves(players)
    assert "lan discarded White Pháo 砲" in log
    assert "AI 2 has a pair of White Pháo 砲 and takes the turn" in log
    assert table_of(env).state.view(None)["public"][2] == [{"kind": "set", "cards": ["WC"] * 3}]
    fields = play_channel(players).last_message.embeds[0].fields
    assert any("public: [⚪砲砲砲]" in f.value for f in fields)


async def test_rules_and_worst_card_option_in_the_lobby(simcord_env):
    env = simcord_env
    players = await start_table(env, "tusac", 1, 1, worst_card_penalty=False)
    (lan,) = players.members
    assert table_of(env).state.penalty_on is False
    told = await lan.slash(players.channel, "rules tusac")
    assert "Tứ Sắc" in told.response.embeds[0].title and "Khap" in told.response.embeds[0].description


# --------------------------------------------------------------------------------------------
# The Eat button and a drawn Tướng (no Discord needed)


def test_eat_with_nothing_selected_lays_a_drawn_tuong_down_alone():
    ui = TuSacUI()
    state = GAME.new(3, deck=build_deck(["WC GA", "YR GE RA", "RP YC"], stock="RK", players=3))
    state.apply(0, "discard WC")
    state.apply(1, "draw")
    view = state.view(1)
    eat = {b.key: b for b in ui.buttons(view, [])}["eat"]
    assert eat.enabled and {b.key: b for b in ui.buttons(view, [])}["pass"].enabled
    assert not {b.key: b for b in ui.buttons(view, ["YR#1"])}["eat"].enabled  # no eat with cards here
    assert ui.action_for("eat", view, []) == "eat"
    assert ui.quick_select(state, 1) == []  # the AI eats it alone: Quick Select then Eat plays that
    assert "a Tướng is a set by itself" in ui.hand_status(view, ["lan", "minh", "hoa"])
    assert ui.select(view, [], True).placeholder == "Cards to meld with Red Tướng 帥 (none: it alone)"
    events = state.apply(1, ui.action_for("eat", view, []))
    assert events == [Event(1, "eat", ("RK",))]
    assert ui.event_text(events[0], ["lan", "minh", "hoa"]) == "minh ate Red Tướng 帥 alone"


def test_a_passed_tuong_is_eaten_alone_by_the_next_player_too():
    # tusac.md Play 2: whoever may eat an active Tướng (the next player after a pass) eats it alone.
    ui = TuSacUI()
    state = GAME.new(3, deck=build_deck(["WC GA", "YR GE RA", "RP YC"], stock="RK", players=3))
    state.apply(0, "discard WC")
    state.apply(1, "draw")
    state.apply(1, "pass")
    view = state.view(2)
    buttons = {b.key: b for b in ui.buttons(view, [])}
    assert buttons["eat"].enabled and buttons["draw"].enabled
    assert ui.action_for("eat", view, []) == "eat"
    status = ui.hand_status(view, ["lan", "minh", "hoa"])
    assert "a Tướng is a set by itself" in status and "**Draw**" in status
    assert ui.select(view, [], True).placeholder == "Cards to meld with Red Tướng 帥 (none: it alone)"
    assert state.apply(2, ui.action_for("eat", view, [])) == [Event(2, "eat", ("RK",))]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_quick_select_then_any_enabled_move_is_legal(players, seed):
    ui = TuSacUI()
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed)
    steps = 0
    while not state.is_over:
        seat = state.current
        view = state.view(seat)
        selection = ui.keep_selection(view, ui.helper("quick", state, seat, []))
        moves = [b for b in ui.buttons(view, selection) if b.enabled and b.key not in ui.helper_keys]
        assert moves
        for spec in moves:
            assert ui.action_for(spec.key, view, selection) in view["legal"], (spec.key, selection)
        first = next(b.key for b in ui.buttons(view, selection) if b.enabled and b.key not in ui.helper_keys)
        assert ui.action_for(first, view, selection) == normal(state.name, state.view(seat))
        state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(view["legal"]))
        steps += 1
        assert steps < 600
