"""Chắn engine: worked examples and rules of docs/rules/chan.md, from fixed decks."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.games.base import IllegalAction
from bot.games.chan.game import GAME, count, is_red, is_win, partition, score_win, waits
from bot.games.tosom import FULL_DECK, parse_cards

# --------------------------------------------------------------------------------------------
# helpers


def build_deck(hands: list[str], stock: str = "") -> list[str]:
    """Deal exactly ``hands`` (seat 0: 20 cards, others 19), then ``stock`` on top of the stock,
    then the rest of the pack in canonical order."""
    given = [parse_cards(h) for h in hands]
    for seat, hand in enumerate(given):
        assert len(hand) == (20 if seat == 0 else 19), (seat, len(hand))
    top = parse_cards(stock)
    used = Counter(c for h in given for c in h) + Counter(top)
    pool = Counter(FULL_DECK)
    assert not used - pool, f"too many copies: {used - pool}"
    rest = pool - used
    tail = [c for c in FULL_DECK if rest[c] and not rest.subtract([c])]
    deck = [c for h in given for c in h] + top + tail
    assert sorted(deck) == sorted(FULL_DECK)
    return deck


def new(hands: list[str], stock: str = "", **options):
    return GAME.new(len(hands), deck=build_deck(hands, stock), options=options)


def refused(state, seat: int, action: str, words: str) -> None:
    before = state.record(), [state.view(s) for s in range(state.num_players)]
    with pytest.raises(IllegalAction) as exc:
        state.apply(seat, action)
    assert words in str(exc.value), str(exc.value)
    assert (state.record(), [state.view(s) for s in range(state.num_players)]) == before
    assert action not in state.legal_actions(seat)


# Hands with many trash cards and no ù in sight (checked in test_fixture_hands).
H0 = "2V 3W 4S 5V 6W 7S 8V 9W CC 2S 3V 4W 6S 7W 8S 9V 2W 3S 4V 9S"  # 20, all distinct
H1 = "2V 3W 4S 6V 6W 7S 8V 9W CC 2S 3V 4W 6S 7V 8S 9V 2W 3S 4V"  # 19


def test_fixture_hands():
    assert count(H0).trash >= 5 and count(H1).trash >= 5
    assert not waits(H1)


# --------------------------------------------------------------------------------------------
# cards and counting


def test_red_cards():
    assert [c for c in ("CC", "8V", "9V", "8S", "9S", "8W", "9W", "7V", "2S") if is_red(c)] == \
        ["CC", "8V", "9V", "8S", "9S"]
    assert sum(map(is_red, FULL_DECK)) == 20


def test_count_basics():
    assert count("2V 2V") == (count("2V 2V"))
    c = count("2V 2V 2V 2V")
    assert (c.chan, c.ca, c.trash) == (2, 0, 0)
    c = count("5V 5W 5S")
    assert (c.chan, c.ca, c.trash) == (0, 1, 1)
    c = count("CC CC CC 3V")
    assert (c.chan, c.ca, c.trash) == (1, 0, 2)
    c = count("CC 2V")  # CC is never in a cạ
    assert c.trash == 2
    c = count("5V 5V 5W 5W")  # fewest trash, then most chắn
    assert (c.chan, c.ca, c.trash) == (2, 0, 0)
    c = count("5V 5V 5W")
    assert (c.chan, c.ca, c.trash) == (1, 0, 1)
    c = count("2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7S 7V 2W 2S 3V 3S 4V 4W 8V 8W")
    assert (c.chan, c.ca, c.trash) == (5, 5, 0)
    chans, cas, trash = partition("5V 5V 5W 5S 5S CC")
    assert (chans, cas, trash) == (["5V", "5S"], [], ["5W", "CC"])


# --------------------------------------------------------------------------------------------
# worked examples


def test_worked_example_xuong():
    win = score_win("2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7Sx2 2W 2S 3V 3S 4V 4W 8V", "8W")
    assert win is not None
    assert (win.factors, win.points, win.ga) == (["xuong"], 2, 0)
    assert (win.count.chan, win.count.ca) == (6, 4)


def test_worked_example_bach_thu_chi():
    win = score_win("2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7S 2W 2S 3V 3S 4V 4W 8V 8W", "7S", self_drawn=True)
    assert (win.factors, win.points, win.ga) == (["bach_thu", "chi"], 5, 1)
    # drawn by somebody else: bạch thủ alone, no gà
    win = score_win("2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7S 2W 2S 3V 3S 4V 4W 8V 8W", "7S")
    assert (win.factors, win.points, win.ga) == (["bach_thu"], 4, 0)


def test_worked_example_five_chan_is_not_u():
    assert score_win("2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7S 7V 2W 2S 3V 3S 4V 4W 8V", "8W") is None


def test_cc_needs_exactly_six_chan():
    six = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 CC 2W 2S 3V 3S 4V 4W 7V 7S"  # 5 chắn + CC + 4 cạ
    win = score_win(six, "CC")
    assert win is not None and win.count.chan == 6
    seven = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7Sx2 CC 2W 2S 3V 3S 4V 4W"  # 6 chắn + CC + 3 cạ
    assert score_win(seven, "CC") is None
    assert is_win(parse_cards(seven) + ["CC"], None)  # 7 chắn: a win on any other card


def test_factor_table():
    # Tôm + Lèo: the highest (lèo 5) plus the dịch of tôm (1)
    win = score_win("3Vx2 7Wx2 8Sx2 9Vx2 CCx2 2Wx2 3S 3W 4V 4W 5V 5W 6V", "6W")
    assert (win.factors, win.points, win.ga) == (["leo", "tom"], 6, 0)
    # bạch định: all black, thập thành: 10 chắn
    black = "2Vx2 2Wx2 3Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7Sx2 6Vx2 7V"
    win = score_win(black, "7V")
    assert win.factors == ["bach_dinh", "thap_thanh"]  # 10 chắn: not bạch thủ (exactly 6)
    assert win.points == 7 + 12  # thập thành: the sum of every factor's points
    assert win.ga == 2
    # tám đỏ: exactly 8 red
    red = "8Vx2 9Vx2 8Sx2 9Sx2 2Wx2 3Wx2 4V 4W 5V 5W 6V 6W 7V"
    win = score_win(red, "7W")
    assert win.factors == ["tam_do"] and (win.points, win.ga) == (8, 1)
    # kính tứ chi: four CC and 16 black
    kinh = "CCx4 2Vx2 3Wx2 4Sx2 5Vx2 6W 6V 7W 7V 2W 2S 3V"
    win = score_win(kinh, "3S")
    assert "kinh_tu_chi" in win.factors and "bach_dinh" not in win.factors and win.ga == 1


# --------------------------------------------------------------------------------------------
# flow


def swap(hand: str, old: str, new: str) -> str:
    cards = hand.split()
    cards[cards.index(old)] = new
    return " ".join(cards)


def test_deal_and_opening():
    state = new([H0, H1])
    v = state.view(0)
    assert (v["phase"], v["to_act"], v["stock"]) == ("open", [0], 100 - 39)
    assert len(v["hand"]) == 20 and state.view(1)["hand_sizes"] == [20, 19]
    assert "draw" not in v["legal"] and "discard 5V" in v["legal"]
    refused(state, 1, "discard 2V", "not your turn")
    refused(state, 0, "draw", "Discard")
    four = GAME.new(4, seed=1)
    assert four.stock_left == 23 and [len(h) for h in four.hands] == [20, 19, 19, 19]


def test_eat_chan_then_discard_and_draw_pass():
    state = new([H0, swap(H1, "6V", "5V")], stock="9S 2S")
    state.apply(0, "discard 5V")
    assert state.view(1)["active"] == "5V" and set(state.legal_actions(1)) >= {"eat 5V", "draw"}
    events = state.apply(1, "eat 5V")
    assert events[0].kind == "eat" and events[0].cards == ("5V", "5V")
    assert state.laid[1] == [("5V", "5V")] and state.rows[0] == [] and state.phase == "discard"
    state.apply(1, "discard 9W")
    assert state.view(0)["active"] == "9W" and state.phase == "turn" and state.current == 0
    events = state.apply(0, "draw")
    assert events[0].cards == ("9S",) and state.phase == "drawn" and state.active == "9S"
    assert state.legal_actions(0)[-1] == "pass"
    state.apply(0, "pass")
    assert state.rows[0] == ["5V", "9S"][1:] or state.rows[0] == ["9S"]
    assert state.current == 1 and state.active == "9S" and state.active_from == 0
    assert GAME.replay(state.record()).view(1) == state.view(1)


def test_restriction_1_chan_first():
    s1 = swap(swap(H1, "6V", "5V"), "6S", "5W")  # holds 5V and 5W
    state = new([H0, s1])
    state.apply(0, "discard 5V")
    refused(state, 1, "eat 5W", "Chắn first")
    state.apply(1, "eat 5V")
    # does not bite: without 5V in hand, 5W eats 5V as a cạ
    state = new([H0, swap(H1, "6S", "5W")])
    state.apply(0, "discard 5V")
    assert "eat 5W" in state.legal_actions(1)
    state.apply(1, "eat 5W")
    assert state.laid[1] == [("5V", "5W")]


def test_restriction_2_chan_in_hand():
    s1 = swap(swap(H1, "6V", "5W"), "6S", "5W")  # 5W 5W: a chắn in hand
    state = new([H0, s1])
    state.apply(0, "discard 5V")
    refused(state, 1, "eat 5W", "restriction 2")
    # three copies: one is free (Eat Cạ while still holding a chắn)
    s1 = swap(swap(swap(H1, "6V", "5W"), "6S", "5W"), "7V", "5W")
    state = new([H0, s1])
    state.apply(0, "discard 5V")
    assert "eat 5W" in state.legal_actions(1)
    # discarding a card of a chắn held in hand
    s0 = swap(H0, "3V", "2V")  # 2V 2V
    state = new([s0, H1])
    refused(state, 0, "discard 2V", "restriction 2")
    state.apply(0, "discard 3W")


def test_restriction_3_chan_not_eaten():
    s1 = swap(H1, "6V", "5V")
    state = new([H0, s1], stock="2V")
    state.apply(0, "discard 5V")
    state.apply(1, "draw")  # could have eaten 5V as a chắn
    assert "5V" in state.skipped[1]
    state.apply(1, "eat 2V")
    assert state.phase == "discard" and state.current == 1
    refused(state, 1, "discard 5V", "restriction 3")
    state.apply(1, "discard 3W")
    # does not bite when the chắn was eaten
    state = new([H0, s1])
    state.apply(0, "discard 5V")
    state.apply(1, "eat 5V")
    assert "5V" not in state.skipped[1] and state.legal_actions(1)


def test_restriction_3_cannot_eat_a_discarded_kind():
    s0 = swap(swap(H0, "3V", "6W"), "4V", "6W")  # 6W x3: one copy free
    state = new([s0, swap(H1, "6W", "5S")], stock="CC 6W")
    state.apply(0, "discard 6W")
    state.apply(1, "draw")
    state.apply(1, "pass")  # CC onto seat 1's row
    state.apply(0, "draw")  # 6W turned up: seat 0 discarded that kind
    assert state.active == "6W"
    refused(state, 0, "eat 6W", "restriction 3")
    state.apply(0, "pass")
    # does not bite for a kind never discarded
    state = new([swap(H0, "3V", "6W"), H1], stock="CC 6W")
    state.apply(0, "discard 2V")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    assert "eat 6W" in state.legal_actions(0)


def test_restriction_4_second_ca_of_a_rank():
    s1 = swap(swap(H1, "6V", "5V"), "6S", "5W")  # free 5V 5W
    state = new([swap(H0, "6S", "5S"), s1])  # seat 0 holds 5S and 5V
    state.apply(0, "discard 5S")
    refused(state, 1, "eat 5V", "restriction 4")
    refused(state, 1, "eat 5W", "restriction 4")
    state = new([swap(H0, "6S", "5S"), swap(H1, "6V", "5V")])
    state.apply(0, "discard 5S")
    assert "eat 5V" in state.legal_actions(1)


S0_CA = swap(H0, "6S", "5W")  # seat 0 holds the cạ 5V 5W (and 6W alone at rank 6)


def test_restriction_5_discarded_a_ca_then_no_eating_ca():
    state = new([S0_CA, H1], stock="8W 2V 8W 6V")
    state.apply(0, "discard 5V")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    state.apply(0, "eat 2V")
    state.apply(0, "discard 5W")  # both cards of a cạ discarded
    assert state.broke_ca[0]
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    assert state.active == "6V"
    refused(state, 0, "eat 6W", "restriction 5")
    # does not bite when seat 0 discarded something else
    state = new([S0_CA, H1], stock="8W 2V 8W 6V")
    state.apply(0, "discard 5V")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    state.apply(0, "eat 2V")
    state.apply(0, "discard 9S")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    assert "eat 6W" in state.legal_actions(0)


def test_restriction_5_ate_ca_then_no_discarding_a_ca():
    state = new([S0_CA, H1], stock="8W 6V")
    state.apply(0, "discard 5V")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(0, "draw")
    state.apply(0, "eat 6W")  # a cạ
    refused(state, 0, "discard 5W", "restriction 5")
    assert "discard 9S" in state.legal_actions(0)
    state.apply(0, "discard 9S")


WAITING = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7S 2W 2S 3V 3S 4V 4W 8V 8W"  # 19 cards, waits for 7S


def test_restriction_6_waiting_player_eats_no_ca():
    assert waits(WAITING) == ["7S"]
    state = new([swap(H0, "7W", "7V"), WAITING])
    state.apply(0, "discard 7V")
    assert state.view(1)["waiting"]
    refused(state, 1, "eat 7S", "restriction 6")
    # a chắn may still be eaten
    state = new([H0, WAITING])
    state.apply(0, "discard 7S")
    assert "eat 7S" in state.legal_actions(1)


def test_chiu_in_turn():
    s1 = swap(swap(swap(H1, "6V", "7S"), "6S", "7S"), "6W", "5S")  # 7S x3
    state = new([H0, s1])
    state.apply(0, "discard 7S")
    legal = state.legal_actions(1)
    assert "chiu" in legal and "eat 7S" in legal and "draw" in legal
    events = state.apply(1, "chiu")
    assert events[0].kind == "chiu" and events[0].cards == ("7S",) * 4
    assert state.laid[1] == [("7S", "7S"), ("7S", "7S")] and state.rows[0] == []
    assert state.phase == "discard" and state.current == 1 and len(state.hands[1]) == 16
    state.apply(1, state.legal_actions(1)[0])
    assert state.current == 0


H2_CHIU = "2W 3S 4V 5S 6V 7Sx3 8W 9S CC 2S 3V 4W 5V 6S 9V 9W 3W"  # 7S x3, lots of trash


def three_players(**options):
    return new([H0, swap(H1, "7S", "5S"), H2_CHIU], **options)


def test_chiu_out_of_turn_auto():
    state = three_players()
    assert count(state.hands[2]).trash >= 3
    events = state.apply(0, "discard 7S")
    assert [e.kind for e in events] == ["discard", "chiu"] and events[1].seat == 2
    assert events[1].text == "out of turn"
    assert state.to_act == (2,) and state.phase == "discard"  # seat 1 loses the turn
    state.apply(2, state.legal_actions(2)[0])
    assert state.current == 0 and state.phase == "turn"
    assert GAME.replay(state.record()).view(2) == state.view(2)


def test_chiu_out_of_turn_ask():
    state = three_players(chiu="ask")
    events = state.apply(0, "discard 7S")
    assert events[-1].kind == "offer" and state.to_act == (2,)
    assert state.legal_actions(2) == ["chiu", "pass"] and state.legal_actions(1) == []
    refused(state, 1, "draw", "chíu offer")
    state.apply(2, "pass")
    assert state.to_act == (1,) and state.phase == "turn" and state.active == "7S"
    state = three_players(chiu="ask")
    state.apply(0, "discard 7S")
    state.apply(2, "chiu")
    assert state.to_act == (2,) and state.phase == "discard" and len(state.laid[2]) == 2
    assert GAME.replay(state.record()).view(None) == state.view(None)


def test_chiu_out_of_turn_on_a_drawn_card():
    state = new([swap(H0, "7S", "5S"), swap(H1, "7S", "5S"), H2_CHIU], stock="CC 9W 7S")
    state.apply(0, "discard 9S")
    state.apply(1, "draw")
    state.apply(1, "pass")
    state.apply(2, "draw")  # 9W
    state.apply(2, "pass")
    events = state.apply(0, "draw")  # 7S: seat 2 chíus out of turn
    assert [e.kind for e in events] == ["draw", "chiu"] and state.to_act == (2,)


def test_u_by_a_player_who_did_not_draw():
    s0 = WAITING + " 9S"
    state = new([s0, H1], stock="7S")
    state.apply(0, "discard 9S")
    events = state.apply(1, "draw")
    assert [e.kind for e in events] == ["draw", "u", "end"] and events[1].seat == 0
    out = state.outcome()
    assert out.winner == 0 and [r.payout for r in out.results] == [4, -4]
    view = state.view(1)["outcome"]
    assert [f["id"] for f in view["factors"]] == ["bach_thu"]  # no chì: seat 1 drew it
    assert state.legal_actions(0) == [] and state.is_over


def test_u_by_the_drawer_is_chi():
    state = new([H0, WAITING], stock="7S")
    state.apply(0, "discard 2V")
    state.apply(1, "draw")
    out = state.outcome()
    assert out.winner == 1 and out.results[1].payout == 5 and out.results[1].ga == 1
    assert out.results[0].ga == -1


def test_u_on_cc_needs_exactly_six_chan():
    seven = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7Sx2 CC 2W 2S 3V 3S 4V 4W 9S"
    state = new([seven, H1], stock="CC")
    state.apply(0, "discard 9S")
    state.apply(1, "draw")
    assert not state.is_over and state.phase == "drawn"
    six = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 CC 2W 2S 3V 3S 4V 4W 7V 7S 9S"
    state = new([six, H1], stock="CC")
    state.apply(0, "discard 9S")
    state.apply(1, "draw")
    assert state.outcome().winner == 0


def test_chiu_u():
    s1 = "2Vx2 3Wx2 4Sx2 5Vx2 6Wx2 7Sx3 2W 2S 3V 3S 4V 4W"  # 19; the fourth 7S wins
    state = new([swap(H0, "2V", "9S") if False else swap(H0, "2V", "5S"), s1])
    events = state.apply(0, "discard 7S")
    assert [e.kind for e in events] == ["discard", "chiu", "u", "end"]
    assert state.outcome().winner == 1 and state.view(0)["outcome"]["how"] == "chíu ù"


def test_thien_u_and_u_thong():
    dealt = WAITING + " 7S"
    state = new([dealt, H1], previous_winner=0)
    assert state.legal_actions(0) == ["u"]
    refused(state, 0, "discard 2V", "thiên ù")
    state.apply(0, "u")
    view = state.view(None)["outcome"]
    assert [f["id"] for f in view["factors"]] == ["thien_u", "u_thong"]
    assert view["points"] == 4 and state.outcome().results[0].payout == 4


def test_thien_khai():
    s0 = "2Vx4 4Sx2 5Vx2 6Wx2 7S 2W 2S 3V 3S 4V 4W 8V 8W 9S"
    state = new([s0, swap(H1, "2V", "5S")], stock="7S")
    state.apply(0, "discard 9S")
    state.apply(1, "draw")
    view = state.view(0)["outcome"]
    assert [f["id"] for f in view["factors"]] == ["bach_thu", "thien_khai"]
    assert view["points"] == 6


def play_out_draw_pass(state):
    while not state.is_over:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        for verb in ("pass", "draw"):
            if verb in legal:
                state.apply(seat, verb)
                break
        else:
            state.apply(seat, legal[0])


def test_stock_runs_out_draw_no_payment():
    state = GAME.new(4, seed=3)
    play_out_draw_pass(state)
    out = state.outcome()
    assert out.winner is None and state.stock_left == 0
    assert all(r.payout == 0 and r.ga == 0 and r.rank == 1 for r in out.results)
    assert state.view(0)["outcome"]["how"] == "draw"
