"""Whole Chắn games through Discord: timers, Quick Select, a refused restriction, gà in the ledger."""

from __future__ import annotations

from collections import Counter

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ai.levels import normal
from bot.games.chan.game import GAME
from bot.games.tosom import FULL_DECK, parse_cards
from cogs.chan import ChanUI
from tests.support.databases import both_backends
from tests.support.simhelpers import (dm, enabled, game_over, ledger_rows, let_the_clock_play, play_channel, private_texts,
                              select_options, start_table, table_of)

MOVES = ("Ù!", "Chíu", "Eat Chắn", "Eat Cạ", "Eat Cạ*", "Discard", "Draw", "Pass")  # tried after Quick Select


def pack(*hands: str) -> list[str]:
    cards = [c for h in hands for c in parse_cards(h)]
    rest = Counter(FULL_DECK) - Counter(cards)
    return cards + [c for c in FULL_DECK if rest[c] and not rest.subtract([c])]


@both_backends  # chips, gà and the week's gà board, as each database sums them
async def test_timer_drives_one_human_and_three_ai_to_a_settled_end(simcord_env):
    env = simcord_env
    players = await start_table(env, "chan", 1, 3, stake=10, ga_stake=5, turn_seconds=60)
    (lan,) = players.members
    table = table_of(env)
    game_id = table.game_id
    assert dm(lan).attachments[0].filename == "hand.png"
    assert " chắn / " in ChanUI().hand_image(table.state.view(0), [], True).caption
    await let_the_clock_play(players, turns=80)
    rows = await ledger_rows(env, game_id)
    outcome = table.state.outcome()
    assert len(rows) == 4 and sum(r["chips"] for r in rows) == 0 and sum(r["ga"] for r in rows) == 0
    for r in rows:
        res = outcome.results[r["seat"]]
        assert r["chips"] == res.payout * 10 + res.ga * 5 and r["ga"] == res.ga
    result = play_channel(players).last_message
    assert "result" in result.embeds[0].title
    assert result.attachments and result.attachments[0].filename == "result.png"
    if outcome.winner is not None:
        assert "points" in result.embeds[0].description
    board = await lan.slash(players.channel, "leaderboard", game="chan", period="week", by="ga")
    assert "by gà" in board.response.embeds[0].title
    assert "lan" in board.response.embeds[0].description


async def test_a_game_played_only_with_quick_select(simcord_env):
    env = simcord_env
    players = await start_table(env, "chan", 1, 3)
    (lan,) = players.members
    table = table_of(env)
    moves, quick, off = 0, 0, 0
    while not game_over(players):
        if "Quick Select" in enabled(dm(lan)):
            await lan.user.click(dm(lan), label="Quick Select")
            quick += 1
        else:  # Draw, Pass or Ù: no move takes a card, nothing to select
            assert all(" " not in action for action in table.state.legal_actions(table.seat_of(lan.id))), \
                dm(lan).content
            off += 1
        message = dm(lan)
        move = next(label for label in MOVES if label in enabled(message))
        told = await lan.user.click(message, label=move)
        assert private_texts(told) == [], (move, private_texts(told))
        moves += 1
        assert moves < 200
    assert quick and off, (quick, off)
    rows = await ledger_rows(env, table.game_id)
    assert sum(r["chips"] for r in rows) == 0
    assert "Game over" in dm(lan).content


LAN = "2V 3W 4S 5V 6W 7S 8V 9W CC 2S 3V 4W 6S 7W 8S 9V 2W 3S 4V 9S"
MINH = "2V 3W 4S 5V 6W 7S 8V 9W CC 2S 3V 4W 5W 7V 8S 9V 2W 3S 4V"  # holds 5V and 5W


async def minh_after_lans_five(env, minh_cards: str, **options):
    """Lan (seat 0, ``LAN``) discards 5V; Minh (``minh_cards``) is to eat or draw. The players
    and the table."""
    players = await start_table(env, "chan", 2, 0, deck=pack(LAN, minh_cards), **options)
    lan = players.members[0]
    await lan.user.select(dm(lan), ["5V#1"])
    await lan.user.click(dm(lan), label="Discard")
    return players, table_of(env)


async def test_a_restriction_is_refused_with_its_reason(simcord_env):
    env = simcord_env
    players, table = await minh_after_lans_five(env, MINH, chiu="ask")
    lan, minh = players.members
    assert table.version == 1
    await minh.user.select(dm(minh), ["5W#1"])
    assert {"Eat Cạ", "Draw"} <= enabled(dm(minh)) and "Eat Chắn" not in enabled(dm(minh))
    told = await minh.user.click(dm(minh), label="Eat Cạ")
    (reason,) = private_texts(told)
    assert "Chắn first" in reason and table.version == 1
    await minh.user.select(dm(minh), ["5V#1"])
    told = await minh.user.click(dm(minh), label="Eat Chắn")
    assert private_texts(told) == [] and table.state.laid[1] == [("5V", "5V")]
    board = play_channel(players).last_message.embeds[0]
    assert "ate" in board.fields[-1].value and "五萬" in board.fields[-1].value
    # Find Trash selects trash cards only
    await minh.user.click(dm(minh), label="Find Trash")
    assert table.selection[1] and all(t.split("#")[0] in table.state.trash_cards(1) for t in table.selection[1])


# --------------------------------------------------------------------------------------------
# Quick Select + any enabled move button is always legal (no Discord needed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), ask=st.booleans())
def test_quick_select_then_any_enabled_move_is_legal(players, seed, ask):
    ui = ChanUI()
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"chiu": "ask" if ask else "auto"})
    steps = 0
    while not state.is_over:
        seat = rng.choice(state.to_act)
        view = state.view(seat)
        selection = ui.keep_selection(view, ui.helper("quick", state, seat, []))
        assert len(selection) == len(set(selection))
        specs = ui.buttons(view, selection)
        moves = [b for b in specs if b.enabled and b.key not in ui.helper_keys]
        assert moves
        for spec in moves:
            assert ui.action_for(spec.key, view, selection) in view["legal"], (spec.key, selection)
        sel = ui.select(view, selection, True)
        if sel is not None:
            assert len(sel.options) <= 25 and set(selection) <= {o.value for o in sel.options}
        state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else
                    ui.action_for(rng.choice(moves).key, view, selection))
        steps += 1
        assert steps < 1500


async def test_rematch_passes_the_previous_winner_for_u_thong(simcord_env):
    env = simcord_env
    deck = random.Random(3).sample(FULL_DECK, len(FULL_DECK))  # a deal the timer-driven AI wins
    players = await start_table(env, "chan", 1, 1, turn_seconds=60, deck=deck)
    (lan,) = players.members
    table = table_of(env)
    assert table.state.options["previous_winner"] is None  # a table's first game
    await let_the_clock_play(players, turns=40)
    winner = table.state.outcome().winner
    assert winner is not None
    await lan.click(play_channel(players).last_message, label="Rematch")
    await lan.click(play_channel(players).last_message, label="Start")
    # The winner opens the rematch (seat 0); winning again would be ù thông.
    assert table.game_no == 2
    assert table.state.options["previous_winner"] == 0


async def test_an_out_of_turn_chiu_offer_in_ask_mode(simcord_env):
    env = simcord_env
    lan_hand = "5V 5V 5V 2V 2V 3V 3V 4V 4W 6S 6S 7W 7W 8S 8S 9W 9W 2S 3S CC"
    ai_hand = "2W 2W 3W 3W 4S 4S 6V 6V 7V 7V 8V 8V 9V 9V 6W 7S 8W 9S 4V"  # no CC, nothing of rank 5
    deck = pack(lan_hand, ai_hand, "5V")  # the AI's draw is the fourth 5V
    players = await start_table(env, "chan", 1, 1, deck=deck, chiu="ask", turn_seconds=60)
    (lan,) = players.members
    table = table_of(env)
    await lan.user.select(dm(lan), ["CC#1"])
    await lan.user.click(dm(lan), label="Discard")
    # The AI could not eat Chi chi, drew 5V: Lan, out of turn, is offered the chíu.
    assert table.state.to_act == (0,) and table.state.current == 1
    assert "Chíu" in enabled(dm(lan))
    told = await lan.user.click(dm(lan), label="Chíu")
    assert private_texts(told) == []
    assert table.state.laid[0].count(("5V", "5V")) == 2
    assert any("chíu" in line for line in table.log)


MINH_THREE = "2V 3W 4S 5W 6W 7S 8V 9W CC 2S 3V 4W 5W 7V 8S 9V 2W 3S 5W"  # three 5W, no other five


async def test_eat_ca_star_pairs_one_copy_and_keeps_the_chan(simcord_env):
    env = simcord_env
    players, table = await minh_after_lans_five(env, MINH_THREE)
    lan, minh = players.members
    await minh.user.select(dm(minh), ["5W#3"])
    assert "Eat Cạ*" in enabled(dm(minh)) and "Eat Cạ" not in enabled(dm(minh))
    told = await minh.user.click(dm(minh), label="Eat Cạ*")
    assert private_texts(told) == []
    assert table.state.laid[1] == [("5V", "5W")] and table.state.hands[1].count("5W") == 2


MINH_TWO = "2V 3W 4S 6V 6W 7S 8V 9W CC 2S 3V 4W 5W 7V 8S 9V 2W 3S 5W"  # two 5W (a chắn), no other five


async def test_eat_ca_star_is_not_offered_for_a_card_held_twice(simcord_env):
    # chan.md restriction 2: both cards of a chắn held in hand may not be used in a cạ, so a
    # 5W held twice never eats 5V: with no legal eat there is no card to pair (no select), no
    # Eat button is on, and the hint names only Draw.
    env = simcord_env
    players, table = await minh_after_lans_five(env, MINH_TWO)
    lan, minh = players.members
    assert table.state.legal_actions(1) == ["draw"]
    assert select_options(dm(minh)) == {}
    assert not {"Eat Cạ*", "Eat Cạ", "Eat Chắn"} & enabled(dm(minh)) and "Draw" in enabled(dm(minh))
    assert "**Eat**" not in dm(minh).content and "**Draw**" in dm(minh).content


def test_eat_ca_star_needs_a_legal_eat_without_discord():
    # The same position without Discord, both copies of the chắn selected one after the other.
    ui = ChanUI()
    state = GAME.new(2, deck=pack(LAN, MINH_TWO))
    state.apply(0, "discard 5V")
    view = state.view(1)
    for selection in (["5W#1"], ["5W#2"], ["5W#1", "5W#2"]):
        on = {b.key for b in ui.buttons(view, selection) if b.enabled}
        assert not on & {"eat_chan", "eat_ca", "eat_ca2"}, selection
