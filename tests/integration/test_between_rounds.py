"""Between two rounds of a Chinchón match every screen tells the same story: the table (its
picture and its text) shows the round that ended, nobody to act, until the next round starts;
the buy-back DM shows the hand the round ended with and the total; the log says each deal once;
a player's DMs show one live hand (each new round's hand retires the one before, once it is there)."""

from __future__ import annotations

from collections import deque

import discord
import pytest

from tests.integration.test_chinchon_game import round_one_pack, round_results
from tests.support.simhelpers import dm, enabled, fail_posts, hand_dms, play_channel, play_until_over, start_table, table_of


@pytest.fixture
def shown(simcord_env, monkeypatch):
    """What the Chinchón UI was asked to show: each table picture, and each hand image by seat."""
    ui_class = type(simcord_env.bot.tables.uis["chinchon"])  # the extension's own module
    seen: dict[str, list] = {"pictures": [], "hands": []}
    original_picture, original_hand = ui_class.table_picture, ui_class.hand_image

    def table_picture(self, view, names, table):
        picture = original_picture(self, view, names, table)
        seen["pictures"].append(picture)
        return picture

    def hand_image(self, view, selection, arranged):
        image = original_hand(self, view, selection, arranged)
        seen["hands"].append((view["seat"], image))
        return image

    monkeypatch.setattr(ui_class, "table_picture", table_picture)
    monkeypatch.setattr(ui_class, "hand_image", hand_image)
    return seen


def board(players, table):
    return next(m for m in play_channel(players).history() if m.id == table.table_message_id)


def last_moves(message) -> str:
    return next(f.value for f in message.embeds[0].fields if f.name == "Last moves")


async def lan_discards_and_ai_1_closes(lan) -> None:
    await lan.user.click(dm(lan), label="Draw")
    await lan.user.click(dm(lan), label="Quick Select")
    await lan.user.click(dm(lan), label="Discard")


async def test_the_table_shows_the_finished_round_until_the_next_starts(simcord_env, shown):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10)
    (lan,) = players.members
    await lan_discards_and_ai_1_closes(lan)
    table = table_of(env)
    assert table.rounds_done() == 1 and table.pause_until is not None and table.state.phase == "play"

    # the pause: round 1, as it ended, with nobody lit (the engine has already dealt round 2)
    picture = shown["pictures"][-1]
    assert "round 1" in picture.title and "round 2" not in picture.title
    assert not any(seat.active for seat in picture.seats)
    hands = [row for section in picture.sections for row in section.rows]
    assert len(hands) == 3 and all(any(group.cards for group in row.groups) for row in hands)
    assert "closed" in picture.seats[1].detail and f"total {table.state.totals[0]}" in picture.seats[0].detail
    message = board(players, table)
    text = message.embeds[0].description
    assert "Round 1 is over" in text and "Round **2**" not in text
    assert not any(field.name.startswith("▶") for field in message.embeds[0].fields)
    assert "Round 2" not in last_moves(message)
    assert "Round 1 ·" in dm(lan).content and "Round 2" not in dm(lan).content

    # the next round starts: the table shows it, its first player lit; the deal is logged once
    await lan.click(round_results(players)[-1], label="Next round")
    assert table.pause_until is None
    picture = shown["pictures"][-1]
    assert "round 2" in picture.title and [seat.active for seat in picture.seats].count(True) == 1
    message = board(players, table)
    assert "Round **2**" in message.embeds[0].description and "is over" not in message.embeds[0].description
    assert last_moves(message).count("Round 2 dealt") == 1
    assert "Round 2" in dm(lan).content


async def test_the_buy_back_dm_shows_the_last_hand_and_the_total(simcord_env, shown):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10, target=20)
    (lan,) = players.members
    await lan_discards_and_ai_1_closes(lan)
    table = table_of(env)
    seat = table.seat_of(lan.id)
    assert table.state.phase == "buyback" and table.state.to_act == (seat,)

    total = table.state.totals[seat]
    decision = dm(lan)
    assert f"You reached {total}" in decision.content
    image = [image for s, image in shown["hands"] if s == seat][-1]
    assert image.groups and all(image.groups) and sum(len(group) for group in image.groups) == 7
    assert "round 1" in image.title and f"total {total}" in image.caption
    lit = shown["pictures"][-1]
    assert "round 1" in lit.title and [s.active for s in lit.seats] == [s == seat for s in range(3)]

    await lan.user.click(decision, label="Buy back in")
    image = [image for s, image in shown["hands"] if s == seat][-1]
    # bought back in at AI 2's total: the line says so, and its sum still adds up
    assert image.groups and f"+{total}, total {total}, bought back in at 10" in image.caption, image.caption
    lit = shown["pictures"][-1]
    assert "round 1" in lit.title and f"+{total} → {total}, bought back in at 10" in lit.seats[seat].detail, lit


async def test_a_concan_table_shows_the_finished_round_during_the_pause(simcord_env, monkeypatch):
    env = simcord_env
    ui_class = type(env.bot.tables.uis["concan"])
    pictures, hands = [], []
    original_picture, original_hand = ui_class.table_picture, ui_class.hand_image

    def table_picture(self, view, names, table):
        pictures.append(original_picture(self, view, names, table))
        return pictures[-1]

    def hand_image(self, view, selection, arranged):
        hands.append(original_hand(self, view, selection, arranged))
        return hands[-1]

    monkeypatch.setattr(ui_class, "table_picture", table_picture)
    monkeypatch.setattr(ui_class, "hand_image", hand_image)
    players = await start_table(env, "concan", 1, 1, seed=3, rounds=2, turn_seconds=30)
    (lan,) = players.members
    table = table_of(env)
    for _ in range(300):  # nobody clicks: the clock plays round 1
        if table.rounds_done() == 1:
            break
        await env.advance_time(30)
    assert table.rounds_done() == 1 and table.pause_until is not None

    picture = pictures[-1]
    assert "round 1/2 is over" in picture.title and not any(seat.active for seat in picture.seats)
    assert any("went out" in seat.detail for seat in picture.seats)
    message = board(players, table)
    assert "Round 1 is over" in message.embeds[0].description and "Round **2/2**" not in message.embeds[0].description
    assert not any(field.name.startswith("▶") for field in message.embeds[0].fields)
    assert "Round 2" not in last_moves(message)
    assert "Round 1/2 ·" in dm(lan).content and "Round 2/2" not in dm(lan).content
    assert "round 1" in hands[-1].title and "total" in hands[-1].caption

    shown = len(pictures)
    table.log = deque(table.log, maxlen=None)  # keep every line of what follows (the table keeps 8)
    await lan.click(round_results(players)[-1], label="Next round")  # (Lan is away by now: the AI plays on)
    assert table.pause_until is None
    first = pictures[shown]
    assert first.title.endswith("round 2/2") and [s.active for s in first.seats].count(True) == 1
    assert sum("Round 2 dealt" in line for line in table.log) == 1


def retired(member, message) -> discord.Message:
    """``message`` of the member's DMs as it is now."""
    return next(m for m in member.user.dm_channel.history() if m.id == message.id)


def link_to(message) -> str:
    return f"https://discord.com/channels/@me/{message.channel.id}/{message.id}"


async def test_a_match_leaves_one_live_hand_per_table_in_a_players_dms(simcord_env):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10, target=300)
    (lan,) = players.members
    table = table_of(env)
    await lan_discards_and_ai_1_closes(lan)
    hands = [dm(lan)]
    for _ in range(600):
        if table.status == "finished" or table.rounds_done() >= 3:
            break
        if table.pause_until is not None:
            await lan.click(round_results(players)[-1], label="Next round")
            assert len(hand_dms(lan)) == 1, "the new round's hand, and no other"
            assert dm(lan).id != hands[-1].id
            hands.append(dm(lan))
            continue
        seat = table.seat_of(lan.id)
        if seat not in table.state.to_act:
            await env.advance_time(5)
            continue
        hand = dm(lan)
        if "Draw" in enabled(hand):
            await lan.user.click(hand, label="Draw")
            continue
        await lan.user.click(hand, label="Quick Select")
        move = "Close" if "Close" in enabled(dm(lan)) else "Discard"
        await lan.user.click(dm(lan), label=move)
    assert len(hands) >= 3, "a match of several rounds"
    for number, (old, new) in enumerate(zip(hands, hands[1:]), start=1):
        line = retired(lan, old)
        assert not line.attachments and not line.components and not line.embeds, "no picture, no controls"
        assert f"table #{table.id}** · game 1, round {number}:" in line.content and link_to(new) in line.content
    assert len(hand_dms(lan)) == 1


async def test_a_hand_is_not_retired_before_its_successor_has_reached_the_player(simcord_env):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10, target=20)
    (lan,) = players.members
    table = table_of(env)
    await lan.user.click(dm(lan), label="Draw")
    await lan.user.click(dm(lan), label="Quick Select")
    fail_posts(env, lan.user.dm_channel)  # a DM outage: the buy-back decision cannot be posted
    await lan.user.click(dm(lan), label="Discard")
    assert table.state.phase == "buyback"
    (old,) = hand_dms(lan)
    await env.advance_time(20)
    old = retired(lan, old)
    assert old.attachments and old.components and "moved" not in old.content, "the hand stays until"
    assert hand_dms(lan) == [old]

    env.backend.faults.clear()
    for _ in range(12):  # the decision's next try
        if len(hand_dms(lan)) == 2 or not retired(lan, old).attachments:
            break
        await env.advance_time(5)
    decision = dm(lan)
    assert decision.id != old.id and "Buy back in" in enabled(decision)
    line = retired(lan, old)
    assert not line.attachments and not line.components and link_to(decision) in line.content
    assert "round 1" in line.content and hand_dms(lan) == [decision]


async def test_a_rematch_retires_the_last_games_hand_once_the_new_one_is_there(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 1, 1)
    (lan,) = players.members
    await play_until_over(players, lan)
    (last,) = hand_dms(lan)
    thread = play_channel(players)
    await lan.click(thread.last_message, label="Rematch")
    await lan.click(thread.last_message, label="Start")
    (hand,) = hand_dms(lan)
    line = retired(lan, last)
    assert hand.id != last.id and not line.components and "· game 1:" in line.content and link_to(hand) in line.content
