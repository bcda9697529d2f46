"""A whole Chinchón match through Discord: rounds, the pause between them, a buy-back decision,
restarts between two rounds and inside one, the pot settled once at the end."""

from __future__ import annotations

from collections import Counter

from bot.games.chinchon.game import get_pack
from tests.support.databases import both_backends
from tests.support.simhelpers import (Players, buttons, dm, enabled, ledger_rows, play_channel, private_texts,
                              start_table, table_of)

# Round 1 at three seats (French pack + 2 jokers), dealt from seat 0: Lan holds nothing that
# melds; AI 1 closes on its first turn with every card melded; AI 2 is left with 10 points.
LAN = "KS QH JD 9C 8S KD QC"
AI_1 = "AH 2H 3H 5C 5D 5S 9D"
AI_2 = "2S 3S 4S 7D 7C 7H TC"
TURNED_UP, LANS_DRAW, AI_1S_DRAW = "6C", "KH", "4H"


def round_one_pack() -> list[str]:
    top = f"{LAN} {AI_1} {AI_2} {TURNED_UP} {LANS_DRAW} {AI_1S_DRAW}".split()
    rest = Counter(get_pack("french").pack(3)) - Counter(top)
    return top + sorted(rest.elements())


def round_results(players: Players) -> list:
    return [m for m in play_channel(players).history()
            if m.embeds and " · round " in (m.embeds[0].title or "") and "result" in m.embeds[0].title]


@both_backends
async def test_a_whole_match_with_a_buy_back_and_restarts(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10, target=20)
    (lan,) = players.members
    table = table_of(env)
    assert "Round 1" in dm(lan).content and dm(lan).attachments[0].filename == "hand.png"
    assert enabled(dm(lan)) >= {"Draw", "Take 6♣"}

    await lan.user.click(dm(lan), label="Draw")
    await lan.user.click(dm(lan), label="Quick Select")
    assert private_texts(await lan.user.click(dm(lan), label="Discard")) == []

    # AI 1 closed at once: round 1 is over and Lan (67 points) may buy back in
    table = table_of(env)
    assert table.rounds_done() == 1 and table.pause_until is not None
    (first,) = round_results(players)
    assert "AI 1 closes round 1" in first.embeds[0].description
    assert first.attachments[0].filename == "round.png"
    decision = dm(lan)
    assert "Buy back in" in enabled(decision) and "Time runs out" in decision.content
    told = await lan.user.click(decision, label="Quick Select") if "Quick Select" in enabled(decision) else None
    assert told is None
    await lan.user.click(decision, label="Buy back in")
    seat = table.seat_of(lan.id)
    assert table.state.buybacks[seat] == 1 and table.state.totals[seat] == 10  # AI 2's total
    board = next(m for m in play_channel(players).history() if m.id == table.table_message_id)
    assert "pot **40 chips**" in board.embeds[0].description  # three stakes and a buy-back
    assert "bought back" in [f.value for f in board.embeds[0].fields][seat]

    # a restart between two rounds: the pause survives, Next round starts the next round
    await env.restart_bot(bot_factory())
    table = table_of(env)
    assert table.pause_until is not None and table.rounds_done() == 1
    told = await lan.user.click(dm(lan), label="Draw") if "Draw" in enabled(dm(lan)) else None
    assert told is None, "no move between two rounds"
    await lan.click(round_results(players)[-1], label="Next round")
    table = table_of(env)
    assert table.pause_until is None
    assert "Round 2" in dm(lan).content

    restarted_inside = False
    for _ in range(400):
        table = table_of(env)
        if table.status == "finished":
            break
        hand = dm(lan)
        if table.pause_until is not None and not table.state.to_act or (
                table.pause_until is not None and table.state.phase != "buyback"):
            last = round_results(players)[-1]
            if "Next round" in buttons(last) and table.seat_of(lan.id) in [
                    s for s in range(3) if table.state.in_match[s]]:
                await lan.click(last, label="Next round")
            else:
                await env.advance_time(10)
            continue
        if "Buy back in" in enabled(hand):
            await lan.user.click(hand, label="Decline")
            continue
        if seat not in table.state.to_act:
            await env.advance_time(60)  # out of the match: the AI seats play on
            continue
        if not restarted_inside and table.rounds_done() == 1 and table.version > 6:
            await env.restart_bot(bot_factory())
            restarted_inside = True
            continue
        if "Draw" in enabled(hand):
            await lan.user.click(hand, label="Draw")
            continue
        await lan.user.click(hand, label="Quick Select")
        hand = dm(lan)
        move = "Close" if "Close" in enabled(hand) else "Discard"
        assert private_texts(await lan.user.click(hand, label=move)) == []
    table = table_of(env)
    assert table.status == "finished" and restarted_inside

    rounds = table.rounds_done()
    assert len(round_results(players)) == rounds >= 2
    rows = await ledger_rows(env, table.game_id)
    assert len(rows) == 3 and sum(r["chips"] for r in rows) == 0 and all(r["rounds"] == rounds for r in rows)
    mine = next(r for r in rows if r["user_id"] == lan.id)
    paid = 10 * (1 + table.state.buybacks[seat])
    assert mine["chips"] in (-paid, table.state.pot * 10 - paid) or mine["won"]
    history = await lan.slash(players.channel, "history")
    assert f"({rounds} rounds)" in history.response.embeds[0].description
    board = await lan.slash(players.channel, "leaderboard", game="chinchon")
    assert "lan" in board.response.embeds[0].description


async def test_a_spanish_table_shows_spanish_cards(simcord_env):
    env = simcord_env
    players = Players(env, 1)
    (lan,) = players.members
    await lan.slash(players.channel, "chinchon new", deck="spanish40", target=50)
    await lan.click(players.channel.last_message, label="Add AI")
    await lan.click(players.channel.last_message, label="Start")
    hand = dm(lan)
    assert hand.attachments[0].filename == "hand.png"
    table = table_of(env)
    assert table.state.view(0)["options"]["deck"] == "spanish40"
    top = table.state.view(None)["top_discard"]
    assert any(label.startswith("Take ") and ("oros" in label or "copas" in label or "espadas" in label
                                             or "bastos" in label or "Joker" in label)
               for label in buttons(hand)), (top, list(buttons(hand)))


async def test_a_buy_back_not_answered_in_time_is_declined(simcord_env):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=5, stake=10, target=20,
                                turn_seconds=30)
    (lan,) = players.members
    await lan.user.click(dm(lan), label="Draw")
    await lan.user.click(dm(lan), label="Quick Select")
    await lan.user.click(dm(lan), label="Discard")
    table = table_of(env)
    seat = table.seat_of(lan.id)
    assert "Buy back in" in enabled(dm(lan))
    await env.advance_time(31)
    assert table.state.buybacks[seat] == 0 and not table.state.in_match[seat], "nobody pays without clicking"
    hand = dm(lan)  # (the two AI seats may already have finished the match meanwhile)
    assert ("out of the match" in hand.content or "Match over" in hand.content) and enabled(hand) <= {"I'm back"}
    assert "chinchon.declined" in [p["key"] for p in table.state.round_results[0]["phrases"]]
    # the match goes on without Lan, who still sees the table
    for _ in range(60):
        if table.status == "finished":
            break
        await env.advance_time(10)
    assert table.status == "finished"
    rows = await ledger_rows(env, table.game_id)
    assert next(r for r in rows if r["user_id"] == lan.id)["chips"] == -10


def test_a_player_out_of_the_match_sees_the_table_without_buttons():
    from bot.games.chinchon.game import GAME
    from cogs.chinchon import ChinchonUI

    ui = ChinchonUI()
    state = GAME.new(3, seed=5, decks=[round_one_pack()], options={"target": 20})
    state.apply(0, "draw")
    state.apply(0, "discard KH")
    state.apply(1, "draw")
    state.apply(1, "close 9D")
    assert state.to_act == (0,) and ui.deciding(state.view(None))
    assert {b.key for b in ui.buttons(state.view(0), []) if b.enabled} == {"buyback", "decline"}
    state.apply(0, "decline")
    view = state.view(0)
    assert not view["in_match"][0] and view["outcome"] is None
    assert "out of the match" in ui.hand_status(view, ["lan", "AI 1", "AI 2"])
    assert [b for b in ui.buttons(view, []) if b.enabled] == []
    assert ui.select(view, [], True) is None


async def test_take_picks_up_the_top_discard(simcord_env):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, target=20)
    (lan,) = players.members
    table = table_of(env)
    refused = await lan.user.click(dm(lan), label="Take 6♣")
    assert private_texts(refused) == []
    view = table.state.view(0)
    assert TURNED_UP in view["hand"] and view["step"] == "discard" and "Take" not in " ".join(enabled(dm(lan)))
    assert "took 6♣" in play_channel(players).last_message.embeds[0].fields[-1].value
