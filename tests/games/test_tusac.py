"""Tứ Sắc engine: worked examples and rules of docs/rules/tusac.md, from fixed decks."""

from __future__ import annotations

import json

import pytest

from bot.games import REGISTRY
from bot.i18n import english_form
from bot.games.base import Event, IllegalAction, Phrase
from bot.games.tusac.game import GAME, PHRASES, hand_value, payment, trash_cards, trash_count
from bot.games.tusac.sets import FULL_PACK, counts_of, melds_with, outs, parse_cards, trash_after, worst_codes
from tests.support.tusac_decks import build_deck


def new(hands: list[str], stock: str = "", players: int | None = None, **options):
    return GAME.new(players or len(hands), deck=build_deck(hands, stock, players), options=options)


def payouts(state) -> list[int]:
    return [r.payout for r in state.outcome().results]


def english(note) -> str:
    """A note or transfer reason as the UI writes it in English (a phrase dict with its template)."""
    return english_form(PHRASES[note["key"]], note["values"]).format_map(note["values"]) if isinstance(note, dict) \
        else note


def transfers(state) -> list[tuple[int, int, int, str]]:
    return [(t.payer, t.payee, t.units, english(t.reason)) for t in state.outcome().transfers]


def notes(state) -> list[list[str]]:
    return [[english(note) for note in r.notes] for r in state.outcome().results]


def snapshot(state) -> str:
    views = [state.view(s) for s in [None, *range(state.num_players)]]
    return json.dumps([state.record(), views], sort_keys=True, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# the evaluation API: tusac.md's worked examples and more


def test_worked_examples():
    assert trash_count("RR RC RN") == 0
    assert trash_count("RR RC RN GA") == 1
    assert trash_count("WR WC") == 2
    assert trash_count("YK") == 0
    assert trash_count("GN GN GN") == 0
    hand = "GN GN GN RR RC RN WR WC WN YK YA YE GA GA WE WE RK RP GP YP GK"
    assert len(parse_cards(hand)) == 21 and trash_count(hand) == 0
    assert hand_value(hand) == 9
    assert payment(9, quan_or_khui=False) == 22


def test_trash_count_locks_khaps_and_knows_every_set():
    assert trash_count("RR RR RR RC RN") == 2  # the Khap may not lend an RR to the Xe-Pháo-Mã
    assert trash_count("RR RR RC RN") == 1
    assert trash_count(["rk", "rk"]) == 0  # two Tướng: two single sets
    assert trash_count("RP GP") == 2 and trash_count("RP RP") == 0
    assert trash_count("RP GP YP") == 0 and trash_count("RP GP YP WP") == 0
    assert trash_count("RP YP GP WP RP GP") == 0  # two three-Tốt sets
    assert trash_count("YA YE") == 2 and trash_count("YK YA YE") == 0 and trash_count("YK YA GE") == 2
    assert trash_count("RCx2 GN") == 1
    assert trash_count("") == 0
    assert trash_cards("RR RC RN RC") == ["RC"]
    assert trash_cards("RR RC RN RR RC") == ["RN"]  # the two pairs beat the Xe-Pháo-Mã
    assert trash_cards("YK YA GA") == ["YA", "GA"]


def test_hand_value_public_sets_quan_and_khui():
    hand = "GN GN GN RR RC RN WR WC WN YK YA YE GA GA WE WE RK RP GP YP GK"
    # the same sets laid on the table are worth the same
    assert hand_value("GN GN GN YK YA YE GA GA WE WE RK RP GP YP GK", ["RR RC RN", "WR WC WN"]) == 9
    # a Khui instead of the Khap: 6 for 3
    assert hand_value("RR RC RN", ["GN GN GN GN"], khui=["GN"]) == 7
    assert hand_value("RR RC RN", quan=["GN"]) == 9  # a Quan not listed among the sets
    assert hand_value("RR RC RN", ["GN GN GN GN"], quan=["GN"]) == 9
    assert hand_value("RP GP YP WP") == 2 and hand_value("RP GP YP") == 1
    assert hand_value("RK RK") == 2 and hand_value("WA WA") == 0
    assert hand_value("", ["WA WA WA"]) == 1  # a public triple
    assert payment(12, quan_or_khui=True) == 40
    with pytest.raises(ValueError):
        hand_value("RR RC")
    with pytest.raises(ValueError):
        hand_value("", ["RK RK"])
    assert hand_value(hand, quan=["YC"]) == 17


def test_outs_and_worst_cards():
    # Discarding WR keeps Tướng-Sĩ-Tượng hopes (4 GK + 3 GA + 3 GE); the others keep 6.
    hand = counts_of("WR GA GE")
    unseen = counts_of(list(FULL_PACK))
    unseen.subtract(hand)
    assert outs(hand, "WR", unseen) == 10
    assert outs(hand, "GA", unseen) == outs(hand, "GE", unseen) == 6
    assert worst_codes(hand, unseen) == ["WR"]
    # A card matching a Khap is never an out: the table melds it into a Khui.
    khap = counts_of("RC RC RC YA GA")
    unseen = counts_of(list(FULL_PACK))
    unseen.subtract(khap)
    assert outs(khap, "YA", unseen) == 3  # the three unseen GA make a pair; RC would be a Khui


# --------------------------------------------------------------------------------------------
# deal and protocol


def test_deal_quan_khap_and_record():
    state = new(["WC GA", "GC GC GC GC YA RN", "WE WE WE RP YA"], players=4)
    view = state.view(None)
    assert view["hand_sizes"] == [21, 16, 20, 20] and view["stock"] == 31
    assert view["public"][1] == [{"kind": "quan", "cards": ["GC"] * 4}]
    assert view["khap_counts"] == [0, 0, 1, 0]
    assert state.view(2)["khaps"] == ["WE"] and view["khaps"] == [] and view["hand"] == []
    assert state.to_act == (0,) and state.phase == "discard"
    assert state.legal_actions(0) == ["discard GA", "discard WC"]
    assert state.legal_actions(1) == []
    rec = state.record()
    assert rec["options"] == {"players": 4, "worst_card_penalty": True} and len(rec["deck"]) == 112
    assert GAME.replay(rec).view(0) == state.view(0)
    assert REGISTRY["tusac"] is GAME


def test_bad_decks_and_seeds():
    with pytest.raises(ValueError):
        GAME.new(2, deck=FULL_PACK[:111])
    with pytest.raises(ValueError):
        GAME.new(2, deck=list(FULL_PACK[:111]) + ["RK"])
    with pytest.raises(ValueError):
        GAME.new(2, deck=list(FULL_PACK[:111]) + ["ZZ"])
    with pytest.raises(ValueError):
        GAME.new(5)
    assert GAME.new(3, seed=9).record()["deck"] == GAME.new(3, seed=9).record()["deck"]


def test_dealt_hand_without_trash_wins_at_once():
    state = new(["", "WC GA"])
    assert state.phase == "declare" and state.legal_actions(0) == ["u"]
    with pytest.raises(IllegalAction, match="declare"):
        state.apply(0, "discard RK")
    events = state.apply(0, "u")
    assert events[0] == Event(0, "u", phrases=(Phrase("tusac.won_dealt", {"winner": 0}),))
    assert state.is_over and state.outcome().winner == 0
    value = state.view(None)["outcome"]["value"]
    assert value == hand_value(state.view(None)["outcome"]["hands"][0]["private"])
    assert payouts(state) == [payment(value, quan_or_khui=False), -payment(value, quan_or_khui=False)]


def test_turn_errors_and_parsing():
    state = new(["WC GA YN YN YN", "YR GE"])
    before = snapshot(state)
    for seat, action, reason in [
        (1, "draw", "not your turn"), (0, "fold", "Unknown action"), (0, "discard ZZ", "not a Tứ Sắc card"),
        (0, "discard GC", "do not have Green Pháo"), (0, "discard RK", "never trash"),
        (0, "discard YN", "locked in your Khap"), (0, "discard WC GA", "exactly one"),
        (0, "draw", "Discard a trash card"), (0, "pass", "Discard"), (0, "eat WC", "Discard"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply(seat, action)
    assert snapshot(state) == before
    assert state.apply(0, "  DISCARD   gA ") == [Event(0, "discard", ("GA",))]
    assert state.record()["actions"] == [[0, "discard GA"]]
    assert state.to_act == (1,) and state.phase == "take" and state.view(None)["active"] == "GA"
    with pytest.raises(IllegalAction, match="Only a card you drew"):
        state.apply(1, "pass")
    with pytest.raises(IllegalAction, match="Eat Green Sĩ or draw"):
        state.apply(1, "discard GE")


# --------------------------------------------------------------------------------------------
# trash only


def test_only_trash_may_be_discarded():
    state = new(["WC GA", "YR GE"])
    hand = state.view(0)["hand"]
    assert "RA" in hand and "RK" in hand  # filler Tướng-Sĩ-Tượng
    with pytest.raises(IllegalAction, match="Red Sĩ is not trash: a discard must lower your trash count \\(2 now\\)"):
        state.apply(0, "discard RA")
    assert state.view(0)["trash_cards"] == ["GA", "WC"]
    state.apply(0, "discard WC")
    assert state.view(0)["trash"] == 1


def test_an_eat_must_not_raise_the_trash_count():
    state = new(["WC GA", "WR WC WN YA"])
    state.apply(0, "discard WC")
    assert state.legal_actions(1) == ["draw"]  # eating WC with WC would break Xe-Pháo-Mã
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="raise your trash count from 1 to 3"):
        state.apply(1, "eat WC")
    with pytest.raises(IllegalAction, match="does not make a set"):
        state.apply(1, "eat WR YA")
    with pytest.raises(IllegalAction, match="1–3"):
        state.apply(1, "eat")
    assert snapshot(state) == before


def test_eat_then_discard_and_play_moves_on():
    state = new(["WC GA", "WR WN YA GE", "RP YR"], players=3)
    state.apply(0, "discard WC")
    assert state.legal_actions(1) == ["draw", "eat WR WN"]
    events = state.apply(1, "eat wn wr")
    assert events == [Event(1, "eat", ("WC", "WR", "WN"))]
    assert state.view(None)["public"][1] == [{"kind": "set", "cards": ["WR", "WC", "WN"]}]
    assert state.phase == "discard" and state.to_act == (1,)
    assert state.legal_actions(1) == ["discard YA", "discard GE"]
    state.apply(1, "discard YA")
    assert state.to_act == (2,) and state.phase == "take"


def test_draw_pass_and_the_next_player_may_eat_the_drawn_card():
    state = new(["WC GA", "YR GE", "RP YC YN"], stock="YA", players=3)
    state.apply(0, "discard WC")
    assert state.apply(1, "draw") == [Event(1, "draw", ("YA",))]
    assert state.phase == "drawn" and state.legal_actions(1) == ["pass"]
    assert state.apply(1, "pass") == [Event(1, "pass", ("YA",))]
    assert state.view(None)["discards"][0] == ["WC"]  # the discard nobody took
    assert state.to_act == (2,) and state.phase == "take" and state.view(None)["active"] == "YA"
    state.apply(2, "draw")
    assert state.view(None)["discards"][1] == ["YA"]


# --------------------------------------------------------------------------------------------
# a single Tướng is a set: an active Tướng may be eaten alone, and wins alone for anyone


def test_a_drawn_tuong_is_eaten_alone_then_a_trash_card_is_discarded():
    state = new(["WC GA", "YR GE RA", "RP YC"], stock="RK", players=3)  # Minh: trash 3, no RE
    state.apply(0, "discard WC")
    assert state.apply(1, "draw") == [Event(1, "draw", ("RK",))]
    assert state.phase == "drawn" and state.legal_actions(1) == ["pass", "eat"]
    assert state.apply(1, "eat") == [Event(1, "eat", ("RK",))]
    assert state.record()["actions"][-1] == [1, "eat"]
    assert state.view(None)["public"][1] == [{"kind": "set", "cards": ["RK"]}]
    assert state.view(None)["active"] is None and state.view(None)["discards"][0] == ["WC"]
    # as after any eat: his turn goes on with a discard that lowers his trash (3, unchanged by the eat)
    assert state.to_act == (1,) and state.phase == "discard" and state.trash(1) == 3
    assert state.legal_actions(1) == ["discard RA", "discard YR", "discard GE"]
    with pytest.raises(IllegalAction, match="Discard"):
        state.apply(1, "eat")
    state.apply(1, "discard YR")
    assert state.trash(1) == 2 and state.to_act == (2,) and state.phase == "take"
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


def test_a_passed_tuong_is_eaten_alone_by_the_next_player():
    # Play 2: an active Tướng is a set by itself for whoever may eat it, the next player after
    # a pass included: he eats it with no cards, then discards a trash card.
    state = new(["WC GA", "YR GE RA", "RP YC"], stock="RK", players=3)
    state.apply(0, "discard WC")
    state.apply(1, "draw")
    state.apply(1, "pass")
    assert state.to_act == (2,) and state.phase == "take" and state.view(None)["active"] == "RK"
    assert state.legal_actions(2)[:2] == ["draw", "eat"]
    assert state.apply(2, "eat") == [Event(2, "eat", ("RK",))]
    assert state.view(None)["public"][2] == [{"kind": "set", "cards": ["RK"]}]
    assert state.view(None)["discards"][1] == []  # eaten: it goes to no discard pile
    assert state.to_act == (2,) and state.phase == "discard" and state.trash(2) == 2
    state.apply(2, "discard YC")
    assert state.trash(2) == 1 and state.to_act == (0,) and state.phase == "take"
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


def test_an_active_card_other_than_a_tuong_is_never_eaten_alone():
    state = new(["WC GA", "YR GE", "RP YC YN"], stock="YA", players=3)
    state.apply(0, "discard WC")
    state.apply(1, "draw")
    state.apply(1, "pass")
    assert "eat" not in state.legal_actions(2)
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="Name 1–3 of your cards that make a set with Yellow Sĩ"):
        state.apply(2, "eat")
    assert snapshot(state) == before


def test_a_drawer_without_trash_wins_with_a_drawn_tuong_alone():
    # Minh's private block has no trash: the Tướng he draws, alone, completes his hand.
    state = new(["WC GA", "YR YC YN", "RP YA"], stock="RK", players=3)
    assert state.trash(1) == 0
    state.apply(0, "discard WC")
    events = state.apply(1, "draw")
    assert [e.kind for e in events] == ["draw", "u", "end"]
    assert events[1] == Event(1, "u", ("RK",), phrases=(Phrase("tusac.won_drawn", {"winner": 1}, {"card": "RK"}),))
    out = state.view(None)["outcome"]
    assert out["winner"] == 1 and out["how"] == "drawn" and out["winning_card"] == "RK"
    assert state.view(None)["public"][1] == [{"kind": "set", "cards": ["RK"]}]
    # the lone Tướng counts 1 in the hand value
    assert out["value"] == hand_value(out["hands"][1]["private"], ["RK"])


def test_someone_else_wins_with_a_tuong_the_drawer_lays_down_for_nobody():
    # Play 2 and 4.1: the lone Tướng counts as a set for the Win claim, whoever drew it. Hoa's
    # private block has no trash: Minh's drawn Tướng, alone, completes Hoa's hand out of turn.
    state = new(["WC GA", "YR GE RA", "YR YC YN RK"], stock="RK", players=3)  # Hoa: no RA, RE
    assert state.trash(2) == 0
    state.apply(0, "discard WC")
    events = state.apply(1, "draw")
    assert [e.kind for e in events] == ["draw", "u", "end"]
    assert events[1] == Event(2, "u", ("RK",), phrases=(Phrase("tusac.won_drawn", {"winner": 2}, {"card": "RK"}),))
    out = state.view(None)["outcome"]
    assert out["winner"] == 2 and out["how"] == "drawn" and out["winning_card"] == "RK"
    assert out["penalty"] is None  # a drawn card: nobody discarded it
    assert state.view(None)["public"][2] == [{"kind": "set", "cards": ["RK"]}]
    assert out["value"] == hand_value(out["hands"][2]["private"], ["RK"])
    assert payouts(state)[2] == 2 * out["payment"]


def test_a_lone_tuong_goes_to_the_nearest_player_from_the_drawer():
    # 4.1: nearest in turn order from the current player (the drawer) first. Lan threw her last
    # trash card and Duc has none: Minh draws the Tướng, Duc (seat 3) comes before Lan (seat 0).
    state = new(["WC RK", "YR GE RA", "RP YC", "YR YC YN RK"], stock="RK", players=4)  # no RA, RE
    state.apply(0, "discard WC")
    assert state.trash(0) == 0 and state.trash(3) == 0 and not state.is_over
    events = state.apply(1, "draw")
    assert [e.kind for e in events] == ["draw", "u", "end"] and events[1].seat == 3
    assert state.outcome().winner == 3


def test_the_drawer_without_trash_claims_his_tuong_before_the_others():
    state = new(["WC", "YR YC YN RK", "RP YC", "GR GC GN RK"], stock="RK", players=4)
    state.apply(0, "discard WC")
    assert [state.trash(s) for s in range(4)] == [0, 0, 2, 0]
    events = state.apply(1, "draw")
    assert events[1] == Event(1, "u", ("RK",), phrases=(Phrase("tusac.won_drawn", {"winner": 1}, {"card": "RK"}),))
    assert state.outcome().winner == 1


def test_a_drawn_tuong_may_also_be_melded_with_cards():
    state = new(["WC GA", "RA RE YR GE"], stock="RK")
    state.apply(0, "discard WC")
    state.apply(1, "draw")
    assert state.legal_actions(1) == ["pass", "eat", "eat RA RE"]
    state.apply(1, "eat RA RE")
    assert state.view(None)["public"][1] == [{"kind": "set", "cards": ["RK", "RA", "RE"]}]


# --------------------------------------------------------------------------------------------
# forced claims


def test_pair_claim_takes_the_turn_out_of_order():
    # Minh (seat 1) could eat WC with WR WN, but Hoa's pair comes first.
    state = new(["WC GA", "WR WN YA GE", "WC WC YA RN GE"], players=3)
    events = state.apply(0, "discard WC")
    assert events == [Event(0, "discard", ("WC",)), Event(2, "claim", ("WC",) * 3, "pair")]
    assert state.to_act == (2,) and state.phase == "discard"
    assert state.view(None)["public"][2] == [{"kind": "set", "cards": ["WC"] * 3}]
    state.apply(2, "discard RN")
    assert state.to_act == (0,)  # play goes on after the claimant


def test_pair_of_the_next_player_is_his_own_choice():
    state = new(["WC GA", "WC WC YA GE", "RP YR"], players=3)
    assert state.apply(0, "discard WC") == [Event(0, "discard", ("WC",))]
    # Eating with one WC would leave the other as trash: only the triple is an eat.
    assert state.to_act == (1,) and state.legal_actions(1) == ["draw", "eat WC WC"]


@pytest.mark.parametrize("trash", ["RP GP", "YR YN"])
def test_pair_claim_exceptions(trash):
    # His only two trash cards wait together for a third: the pair is not forced on him.
    state = new(["WC GA", "YA GE", f"WC WC {trash}"], players=3)
    assert state.apply(0, "discard WC") == [Event(0, "discard", ("WC",))]
    assert state.to_act == (1,) and state.phase == "take"


@pytest.mark.parametrize("trash", ["RP YA", "YR GN", "RP GP YA"])
def test_pair_claim_without_the_exception(trash):
    state = new(["WC GA", "YA GE", f"WC WC {trash}"], players=3)
    assert state.apply(0, "discard WC")[-1] == Event(2, "claim", ("WC",) * 3, "pair")


def test_no_pair_claim_that_would_raise_the_trash():
    state = new(["WC GA", "YA GE", "WC WC WR WN YA"], players=3)
    assert state.apply(0, "discard WC") == [Event(0, "discard", ("WC",))]


def test_no_pair_claim_for_tuong():
    state = new(["WC GA", "YA GE", "RK RK WN GA"], stock="RK", players=3)
    state.apply(0, "discard WC")
    assert state.apply(1, "draw") == [Event(1, "draw", ("RK",))]
    assert state.to_act == (1,) and state.phase == "drawn"
    state.apply(1, "pass")
    assert "eat RK RK" in state.legal_actions(2)


def test_khap_claim_on_a_discard():
    state = new(["WC GA", "YA GE", "WC WC WC RN GE"], players=3)
    events = state.apply(0, "discard WC")
    assert events[-1] == Event(2, "claim", ("WC",) * 4, "khap")
    assert state.view(None)["public"][2] == [{"kind": "khui", "cards": ["WC"] * 4}]
    assert state.view(None)["khap_counts"][2] == 0
    assert state.to_act == (2,) and state.phase == "discard"


def test_khap_claim_of_the_drawer_himself():
    state = new(["WC GA", "GN GN GN YA GE"], stock="GN")
    state.apply(0, "discard WC")
    events = state.apply(1, "draw")
    assert events == [Event(1, "draw", ("GN",)), Event(1, "claim", ("GN",) * 4, "khap")]
    assert state.to_act == (1,) and state.phase == "discard"


def test_win_comes_before_the_khap_claim():
    # Minh would Khui WN but Hoa wins with it (Xe-Pháo-Mã), even out of turn.
    state = new(["WN YA", "WN WN WN GA GE", "WR WC"], players=3, worst_card_penalty=False)
    events = state.apply(0, "discard WN")
    assert [e.kind for e in events] == ["discard", "u", "end"]
    assert events[1] == Event(2, "u", ("WR", "WC", "WN"),
                              phrases=(Phrase("tusac.won_discarded", {"winner": 2, "source": 0}, {"card": "WN"}),))
    assert state.outcome().winner == 2
    # Minh's Khap is paid for by the other loser, not by the winner.
    assert (0, 1, 3, "Khap") in transfers(state)
    assert not any(t[0] == 2 and t[3] == "Khap" for t in transfers(state))


def test_win_out_of_turn_goes_to_the_nearest_player():
    state = new(["WN GA", "RP GP YA", "WR WC", "WN"], players=4, worst_card_penalty=False)
    events = state.apply(0, "discard WN")
    assert events[1].seat == 2 and state.outcome().winner == 2
    out = state.view(None)["outcome"]
    value, pay = out["value"], out["payment"]
    assert pay == payment(value, quan_or_khui=False)
    assert payouts(state) == [-pay, -pay, 3 * pay, -pay]
    assert [r.rank for r in state.outcome().results] == [3, 4, 1, 2]  # losers by trash count
    assert out["winning_card"] == "WN" and out["how"] == "discard"


def test_win_with_a_drawn_card():
    state = new(["YR GA", "WR WC"], stock="WN")
    state.apply(0, "discard GA")
    events = state.apply(1, "draw")
    assert events[0] == Event(1, "draw", ("WN",))
    assert events[1] == Event(1, "u", ("WR", "WC", "WN"), phrases=(Phrase("tusac.won_drawn", {"winner": 1}, {"card": "WN"}),))
    assert state.is_over and state.outcome().winner == 1
    assert state.view(None)["outcome"]["penalty"] is None


def test_the_stock_down_to_seven_cards_draws_the_game():
    state = new(["YR YN YA YE GC", "WR WN WA WE"])  # trash 5 and 4: no card can win
    state.apply(0, state.legal_actions(0)[0])
    draw_and_pass_until(state, 8)
    events = state.apply(state.current, "draw")
    assert events[-1].kind == "end" and state.is_over
    out = state.outcome()
    assert out.winner is None and out.transfers == [] and payouts(state) == [0, 0]
    assert [r.rank for r in out.results] == [1, 1]
    assert state.stock_left == 7 and out.summary == (Phrase("tusac.stock_out", {}, {"cards": 7}),)
    cards = sum(state.view(None)["hand_sizes"]) + state.stock_left
    cards += sum(len(m["cards"]) for melds in state.view(None)["public"] for m in melds)
    cards += sum(len(d) for d in state.view(None)["discards"])
    assert cards == 112


def draw_and_pass_until(state, stock_left: int) -> None:
    """Draw and pass (discarding after a claim) until ``stock_left`` cards remain, before a draw."""
    while not (state.stock_left == stock_left and state.phase == "take"):
        seat = state.current
        legal = state.legal_actions(seat)
        state.apply(seat, "draw" if "draw" in legal else "pass" if "pass" in legal else legal[0])


def test_the_last_draw_may_still_win():
    pack = build_deck(["YR YN YA YE GC", "WR WC"])  # WN wins; the stock ends with the W cards
    state = GAME.new(2, deck=pack)
    state.apply(0, state.legal_actions(0)[0])
    draw_and_pass_until(state, 8)
    record = state.record()
    # Move a card that wins for someone to the last drawable position (112 - 8); the cards
    # drawn so far are unchanged, so the record replays to the same point.
    last = len(pack) - 8
    winning = next(c for c in pack[last + 1:] if any(
        trash_after(state.private[s], m) == 0 for s in range(2) for m in melds_with(c, state.private[s])))
    swap = pack.index(winning, last + 1)
    pack[last], pack[swap] = pack[swap], pack[last]
    state = GAME.replay(dict(record, deck=pack))
    state.apply(state.current, "draw")
    assert state.stock_left == 7 and state.outcome().winner is not None
    assert state.view(None)["outcome"]["how"] == "drawn"


# --------------------------------------------------------------------------------------------
# payments


def test_payment_with_a_quan_doubles_and_side_payments():
    # Minh holds a Quan and wins; Hoa holds a Quan and a Khap.
    state = new(["WN GA", "YC YC YC YC WN", "RR RR RR RR GE GE GE RP YA"], players=3,
                worst_card_penalty=False)
    state.apply(0, "discard WN")
    out = state.view(None)["outcome"]
    assert out["winner"] == 1 and out["quan_or_khui"]
    value, pay = out["value"], out["payment"]
    assert pay == (3 + value) * 2 + 10
    assert sorted(transfers(state)) == sorted([
        (0, 1, pay, f"hand value {value}"), (2, 1, pay, f"hand value {value}"),
        (0, 2, 8, "Quan"), (1, 2, 8, "Quan"), (0, 2, 3, "Khap"),
    ])
    # notes with a number are phrases (translated by the UI); Quan and Khap stay native
    assert notes(state) == [["trash 1"], [f"hand value {value} (Quan/Khui: doubled)"],
                            ["trash 2", "Quan ×1", "Khap ×1"]]
    assert state.outcome().results[2].notes[1] == {"key": "tusac.melds", "seats": {},
                                                   "values": {"meld": "Quan", "count": 1}}
    state.outcome().check_phrases(PHRASES)
    assert sum(payouts(state)) == 0
    assert payouts(state)[2] == -pay + 19


def test_payment_with_a_khui_claimed_during_play():
    # Hoa Khuis WC, discards GA, and later wins on YA: the Khui doubles what each loser owes.
    state = new(["WC YR RP", "YN GE RP", "WC WC WC GA YA"], stock="YA", players=3,
                worst_card_penalty=False)
    state.apply(0, "discard WC")
    assert state.to_act == (2,)
    state.apply(2, "discard GA")
    assert state.to_act == (0,)
    events = state.apply(0, "draw")
    assert events[-2].seat == 2 and events[-2].kind == "u"
    out = state.view(None)["outcome"]
    assert out["winner"] == 2 and out["quan_or_khui"] and out["how"] == "drawn"
    assert out["value"] == hand_value(out["hands"][2]["private"], [" ".join(m["cards"]) for m in
                                                                   state.view(None)["public"][2]],
                                      khui=["WC"])
    assert payouts(state) == [-out["payment"], -out["payment"], 2 * out["payment"]]


def test_khui_holder_is_paid_by_everyone():
    state = new(["WC YR RP", "GE", "WC WC WC GA YA"], stock="GE", players=3,
                worst_card_penalty=False)
    state.apply(0, "discard WC")
    state.apply(2, "discard YA")
    state.apply(0, "draw")  # GE: Minh wins with a pair of GE
    assert state.outcome().winner == 1
    assert (1, 2, 6, "Khui") in transfers(state) and (0, 2, 6, "Khui") in transfers(state)


def test_worst_card_penalty_when_a_worse_card_wins():
    hands = ["WR GA GE", "GA", "RP YN WA"]
    on = new(hands, players=3)
    assert on.view(0)["worst"] == ["WR"]
    on.apply(0, "discard GA")
    out = on.view(None)["outcome"]
    assert out["winner"] == 1 and out["penalty"] == 0
    pay = out["payment"]
    assert transfers(on) == [(0, 1, 2 * pay, "pays for everyone: not a worst card")]
    assert notes(on) == [["trash 2", "worst-card penalty"], [f"hand value {out['value']}"], ["trash 3"]]
    assert payouts(on) == [-2 * pay, 2 * pay, 0]
    assert Phrase("tusac.worst_card_penalty", {"payer": 0}) in on.outcome().summary
    off = new(hands, players=3, worst_card_penalty=False)
    off.apply(0, "discard GA")
    assert off.view(None)["outcome"]["penalty"] is None
    assert payouts(off) == [-pay, 2 * pay, -pay]


def test_no_penalty_for_a_worst_card():
    state = new(["WR GA GE", "WR", "RP YN WA"], players=3)
    state.apply(0, "discard WR")
    out = state.view(None)["outcome"]
    assert out["winner"] == 1 and out["penalty"] is None
    assert payouts(state) == [-out["payment"], 2 * out["payment"], -out["payment"]]
