"""Whole Phỏm games through Discord: timers, Quick Select, refusals, closed DMs, restarts."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ai.levels import normal
from bot.games.base import IllegalAction
from bot.games.french import FULL_DECK
from bot.games.phom.game import GAME, find_phom
from bot.tables.messages import chips
from cogs.phom import PhomUI
from tests.games.test_phom import new, play_until_draws
from tests.support.databases import both_backends
from tests.support.simhelpers import (Players, buttons, click_many, custom_id, dm, enabled, game_over, ledger_rows,
                              let_the_clock_play, play_channel, private_texts, quick_move, start_table, table_of)



async def test_timer_drives_one_human_and_three_ai_to_a_settled_end(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 3, stake=10, turn_seconds=60)
    (lan,) = players.members
    table = table_of(env)
    game_id = table.game_id
    await let_the_clock_play(players, turns=10)
    (lan_seat,) = [seat for seat in table.seats if seat.user_id == lan.id]
    assert lan_seat.away  # two timeouts in a row: marked away

    rows = await ledger_rows(env, game_id)
    assert len(rows) == 4 and sum(r["chips"] for r in rows) == 0
    assert all(r["chips"] % 10 == 0 for r in rows)
    (mine,) = [r for r in rows if r["user_id"] == lan.id]
    outcome = table.state.outcome()
    assert mine["chips"] == outcome.results[mine["seat"]].payout * 10

    result = play_channel(players).last_message
    assert "result" in result.embeds[0].title
    assert result.attachments and result.attachments[0].filename == "result.png"

    balance = await lan.slash(players.channel, "balance")
    assert f"**{chips(mine['chips'], signed=True)}**" in balance.response.content
    board = await lan.slash(players.channel, "leaderboard", game="phom", period="week")
    assert "lan" in board.response.embeds[0].description
    history = await lan.slash(players.channel, "history")
    assert "Phỏm · table #1 · game 1" in history.response.embeds[0].description


async def test_a_game_played_only_with_quick_select(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 3)
    (lan,) = players.members
    moves, off = 0, 0
    while not game_over(players):
        if "Quick Select" not in enabled(dm(lan)):  # only Draw: nothing to select
            assert table_of(env).state.legal_actions(table_of(env).seat_of(lan.id)) == ["draw"], dm(lan).content
            off += 1
        told = await quick_move(lan.user, lambda: dm(lan))
        assert told == [], told
        moves += 1
        assert moves < 60
    assert off < moves, (off, moves)
    rows = await ledger_rows(env, table_of(env).game_id)
    assert sum(r["chips"] for r in rows) == 0
    assert "Game over" in dm(lan).content


# A 2-player pack: Lan (seat 0) gets the first 10 cards, Minh the next 9.
LAN = ["7H", "KS", "KD", "QC", "2C", "9D", "JS", "4C", "TS", "3D"]
MINH = ["5H", "6H", "9C", "AS", "2S", "8D", "JD", "QD", "4H"]
PACK = LAN + MINH + [c for c in FULL_DECK if c not in LAN + MINH]


async def test_illegal_moves_are_refused_privately_and_change_nothing(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, deck=PACK)
    lan, minh = players.members
    outsider = players.outsider()
    table = table_of(env)

    told = await outsider.click(play_channel(players).last_message, label="My hand")
    assert private_texts(told) == ["You are not playing at this table."]

    await lan.user.select(dm(lan), ["7H"])
    assert enabled(dm(lan)) >= {"Discard"}
    await lan.user.click(dm(lan), label="Discard")
    assert table.version == 1
    assert "Eat" not in enabled(dm(minh))  # nothing selected yet

    hand_before = table.state.view(1)["hand"]
    await minh.user.select(dm(minh), ["9C", "5H"])
    told = await minh.user.click(dm(minh), label="Eat")
    (reason,) = private_texts(told)
    assert "phỏm" in reason
    assert table.version == 1 and table.state.view(1)["hand"] == hand_before

    await minh.user.select(dm(minh), ["5H", "6H"])
    told = await minh.user.click(dm(minh), label="Eat")
    assert private_texts(told) == []
    assert table.state.view(None)["eaten"][1] == ["7H"]
    assert "ate 7♥" in play_channel(players).last_message.embeds[0].fields[-1].value


async def test_stale_double_and_forged_clicks(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, deck=PACK)
    lan, minh = players.members
    table = table_of(env)

    shown = await lan.click(play_channel(players).last_message, label="My hand")
    ephemeral = shown.response
    assert ephemeral.ephemeral and ephemeral.attachments

    # Double click: two identical Discard clicks arrive together; one move is made.
    await lan.user.select(dm(lan), ["KS"])
    discard = custom_id(dm(lan), "Discard")
    results = await click_many(env, [(lan.user, dm(lan), discard), (lan.user, dm(lan), discard)])
    assert table.version == 1
    texts = [private_texts(r) for r in results]
    assert sorted(map(len, texts)) == [0, 1]
    assert "earlier turn" in [t for t in texts if t][0][0]

    # Stale: the ephemeral hand was shown before that move (a stale move is refused above, the
    # double click's second); arranging or choosing cards works from any picture of this game.
    arranged = await lan.click(ephemeral, label="Auto-arrange")
    assert private_texts(arranged) == [] and table.arranged[table.seat_of(lan.id)] is False

    # Forged ids: unknown tables, garbage, or ids that are on no message.
    for forged in ("chieu:play:999999:1:1:draw", "chieu:nonsense", f"chieu:play:{table.id}:1:1:nuke"):
        (result,) = await click_many(env, [(minh.user, dm(minh), forged)])
        assert private_texts(result) == ["That control is not valid."], forged
    assert table.version == 1


async def test_closed_dms_fall_back_to_my_hand(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    dm_channel = lan.user.dm_channel
    env.inject_error("POST", f"/channels/{dm_channel.id}/messages", status=403, code=50007, times=None)
    await lan.slash(players.channel, "phom new")
    await lan.click(players.channel.last_message, label="Add AI")
    await lan.click(players.channel.last_message, label="Start")
    thread = play_channel(players)
    assert any("can't send you a DM" in m.content for m in thread.history())
    table_message = next(m for m in thread.history() if m.embeds and "My hand" in buttons(m))

    shown = await lan.click(table_message, label="My hand")
    hand = shown.response
    assert hand.ephemeral and hand.attachments[0].filename == "hand.png"
    await lan.click(hand, label="Quick Select")
    await lan.click(hand, label="Discard")
    assert table_of(env).version >= 2  # Lan's discard and the AI's reply


@both_backends
async def test_restart_in_mid_game_keeps_the_same_buttons_working(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    before = table_of(env)
    record = before.state.record()
    hand_message_id = dm(lan).id

    await env.restart_bot(bot_factory())
    after = table_of(env)
    assert after is not before
    assert after.state.record() == record

    moves = 0
    while not game_over(players):
        assert dm(lan).id == hand_message_id  # the same DM, edited in place
        assert await quick_move(lan.user, lambda: dm(lan)) == []
        moves += 1
        assert moves < 60
    rows = await ledger_rows(env, after.game_id)
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0


async def test_rematch_reopens_the_lobby_with_the_winner_first(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, turn_seconds=30)
    (lan,) = players.members
    while not game_over(players):
        await quick_move(lan.user, lambda: dm(lan))
    table = table_of(env)
    winner = table.state.outcome().winner
    await lan.click(play_channel(players).last_message, label="Rematch")
    lobby = play_channel(players).last_message
    assert "Waiting for players" in lobby.embeds[0].description
    assert table.seats[0].name == ["lan", "AI 1"][winner]
    await lan.click(lobby, label="Start")
    assert table.game_no == 2
    first_move = table.state.record()["actions"][:1]
    assert first_move == [] or first_move[0][0] == 0  # seat 0 (the winner) opens


async def test_away_after_two_timeouts_until_i_am_back(simcord_env):
    env = simcord_env
    env.bot.tables.config = env.bot.config.with_overrides(ai_delay_seconds=30)
    players = await start_table(env, "phom", 1, 1, turn_seconds=60)
    (lan,) = players.members
    table = table_of(env)
    seat = table.seat_of(lan.id)
    while not table.seats[seat].away:
        assert table.version < 8, "two timeouts in a row must mark the seat away"
        await env.advance_time(30)
    assert "I'm back" in enabled(dm(lan)) and "away" in dm(lan).content
    assert "is away" in play_channel(players).last_message.embeds[0].fields[-1].value

    told = await lan.user.click(dm(lan), label="I'm back")
    assert private_texts(told) == ["Welcome back! You play your own seat again."]
    assert not table.seats[seat].away and table.timeouts[seat] == 0
    told = await lan.click(play_channel(players).last_message, label="I'm back")
    assert private_texts(told) == ["You are not marked away."]


@both_backends
async def test_rematch_still_works_after_a_restart(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    while not game_over(players):
        await quick_move(lan.user, lambda: dm(lan))
    result = play_channel(players).last_message

    await env.restart_bot(bot_factory())
    await lan.click(result, label="Rematch")
    assert "Waiting for players" in play_channel(players).last_message.embeds[0].description
    await lan.click(play_channel(players).last_message, label="Start")
    assert table_of(env).game_no == 2 and table_of(env).status == "playing"


# --------------------------------------------------------------------------------------------
# The Show button (no Discord needed)


def test_show_lays_down_every_phom_and_refuses_a_selection_that_keeps_one():
    ui = PhomUI()
    state = new(["3S 4S 5S 9H 9D 9C KD QC 2H AH", "AC 2C 3C 7S 8D TH QS KH 6D"])
    state.apply(0, "discard QC")
    play_until_draws(state, 5)
    state.apply(0, "draw")  # TS, last round
    view = state.view(0)
    assert view["phase"] == "show"
    show = next(b for b in ui.buttons(view, []) if b.key == "show")
    assert show.enabled
    assert ui.action_for("show", view, []) == "show 3S 4S 5S | 9H 9D 9C"
    with pytest.raises(IllegalAction, match="^Show all your phỏm: 9♥ 9♦ 9♣ would still be a phỏm among the "
                                            "cards you keep.$"):
        ui.action_for("show", view, ["3S", "4S", "5S"])
    with pytest.raises(IllegalAction, match="^K♦ does not fit in a phỏm with the other selected cards.$"):
        ui.action_for("show", view, ["3S", "4S", "5S", "KD"])
    assert ui.action_for("show", view, ["9C", "3S", "9H", "4S", "5S", "9D"]) == "show 3S 4S 5S | 9H 9D 9C"
    assert "**Show** all your phỏm" in ui.hand_status(view, ["lan", "minh"])
    assert ui.select(view, [], True).placeholder.startswith("All your phỏm")
    state.apply(0, ui.action_for("show", view, []))
    assert state.view(None)["shown"][0] == [["3S", "4S", "5S"], ["9H", "9D", "9C"]]


def test_show_with_nothing_selected_and_no_phom():
    ui = PhomUI()
    state = GAME.new(2, deck=list(FULL_DECK[1::2] + FULL_DECK[::2]))
    rng = random.Random(5)
    while not state.is_over:
        seat = state.current
        view = state.view(seat)
        if view["phase"] == "show":
            action = ui.action_for("show", view, [])
            assert action in view["legal"]
            if find_phom(view["hand"]) is None:
                assert action == "show" and "You have no phỏm" in ui.hand_status(view, ["a", "b"])
        else:
            action = rng.choice(view["legal"])
        state.apply(seat, action)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_quick_select_then_any_enabled_move_is_legal(players, seed):
    ui = PhomUI()
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
        # nothing selected: Draw and Show are enabled when legal, and play legally
        for spec in ui.buttons(view, []):
            if spec.enabled and spec.key in ("draw", "show"):
                assert ui.action_for(spec.key, view, []) in view["legal"]
        assert any(b.enabled and b.key == "show" for b in ui.buttons(view, [])) == (view["phase"] == "show")
        state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(view["legal"]))
        steps += 1
        assert steps < 400


async def test_a_hand_dealt_all_in_phom_wins_before_anyone_plays(simcord_env):
    env = simcord_env
    dealt = ["AS", "2S", "3S", "4S", "5H", "5D", "5C", "9D", "TD", "JD"]
    rest = [c for c in FULL_DECK if c not in dealt]
    random.Random(2).shuffle(rest)
    players = await start_table(env, "phom", 1, 2, deck=dealt + rest, stake=3)
    (lan,) = players.members
    table = table_of(env)
    assert table.version == 0 and table.state.is_over  # nobody has moved
    assert game_over(players) and table.status == "finished"
    result = play_channel(players).last_message.embeds[0]
    assert result.description.startswith("lan ù before discarding: 12 from each player")
    rows = await ledger_rows(env, table.game_id)
    assert [r["chips"] for r in rows] == [72, -36, -36]
    assert "Game over" in dm(lan).content and enabled(dm(lan)) == set()


async def test_a_game_with_gui_where_a_person_sends_cards_and_the_result_counts_them(simcord_env):
    """Issue #31: with ``send`` on, Minh shows, sends four cards onto Lan's phỏm (each fits one
    phỏm: select it, one click) and discards; only the two cards he kept count."""
    from tests.games.test_phom import SEND_S0, SEND_STOCK, build_deck

    env = simcord_env
    pack = build_deck([SEND_S0, "AC 2C 3C 9S 2S 6S 7S KH QS"], SEND_STOCK)
    players = await start_table(env, "phom", 2, 0, deck=pack, stake=10, send=True)
    lan, minh = players.members
    table = table_of(env)
    assert table.state.options["send"] is True
    lobby = next(m for m in players.channel.history() if m.embeds and "Players" in [f.name for f in m.embeds[0].fields])
    # the native word, explained where it is not the reader's own
    assert "gửi (laying off onto the others' phỏm) **on**" in lobby.embeds[0].description
    rules = await lan.slash(players.channel, "rules phom")
    assert "**Gửi** (table option `send`" in rules.response.embeds[0].description

    async def play(member, *, select: list[str] = (), click: str) -> None:
        if select:
            await member.user.select(dm(member), list(select))
        assert private_texts(await member.user.click(dm(member), label=click)) == []

    await play(lan, select=["QC"], click="Discard")
    while table.state.draws < 5:  # draw and discard the drawn card
        member = players.members[table.state.current]
        await play(member, click="Draw")
        await play(member, select=[table.state.view(table.state.current)["drawn"]], click="Discard")
    await play(lan, click="Draw")
    await play(lan, click="Show")  # nothing selected: the best show, 3S 4S 5S | 9H 9D 9C
    assert "Send" not in buttons(dm(lan))  # Minh has shown nothing to send onto
    await play(lan, select=["4H"], click="Discard")

    await play(minh, click="Draw")  # 8C, the last draw
    await play(minh, click="Show")
    assert "Send" in buttons(dm(minh)) and "Send" not in enabled(dm(minh))  # it waits for a card
    assert "**Send**" in dm(minh).content
    await play(minh, select=["9S"], click="Send")  # the nines: a set of four
    assert table.state.view(None)["shown"][0][1] == ["9S", "9H", "9D", "9C"]
    assert "minh sent 9♠ to lan's phỏm 2" in play_channel(players).last_message.embeds[0].fields[-1].value
    await minh.user.click(dm(minh), label="Quick Select")  # the AI's send: 6S onto 3S 4S 5S
    assert "Send" in enabled(dm(minh))
    await play(minh, click="Send")
    await play(minh, select=["7S"], click="Send")  # onto the phỏm just extended
    await play(minh, select=["2S"], click="Send")  # its other end
    assert table.state.view(None)["sent"][0] == [[["6S", 1], ["7S", 1], ["2S", 1]], [["9S", 1]]]
    await play(minh, select=["KH"], click="Discard")

    assert game_over(players)
    outcome = table.state.outcome()
    assert [r.points for r in outcome.results] == [16, 20]  # Minh keeps 8C QS; the sent cards count for nobody
    rows = await ledger_rows(env, table.game_id)
    assert [r["chips"] for r in rows] == [10, -10]
    assert "20 points" in str(play_channel(players).last_message.embeds[0].to_dict())
