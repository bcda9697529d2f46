"""Chinchón engine: worked examples and rules of docs/rules/chinchon.md, from fixed packs."""

from __future__ import annotations

import json
import string

import pytest

from bot.games import REGISTRY
from bot.games.base import Event, IllegalAction, Phrase, reshuffle_rng
from bot.games.chinchon.game import (GAME, PACKS, PHRASES, arrange, can_close, deadwood, get_pack, is_chinchon)

# --------------------------------------------------------------------------------------------
# helpers

CLOSER = "3H 4H 5H 9C 9D 9S 2S"  # deadwood 2: closes with any drawn card laid face down
MELDED = "3H 4H 5H 6H 9C 9D 9S"  # −10
JUNK1 = "KS QD JC TH 8S 6D 4C"  # no meld, no pair: 58
JUNK2 = "KD QH JS TC 8H 6S 7C"  # 61
LOW = "AC 3D 5S 7H 2H TD 4S"  # 4S 5S is no meld: 1 + 3 + 5 + 7 + 2 + 10 + 4 = 32


def pack_for(hands: dict[int, str], top: str, stock: str = "", *, players: int | None = None, first: int = 0,
             seats: list[int] | None = None, deck: str = "french") -> list[str]:
    """The pack of a round dealing ``hands[seat]`` in blocks from ``first`` over ``seats`` (the
    seats in the match), then ``top`` face up, then ``stock``, then the rest of the pack."""
    pk = get_pack(deck)
    n = players or len(hands)
    seats = seats if seats is not None else list(range(n))
    order = sorted(seats, key=lambda s: (s - first) % n)
    dealt = []
    for s in order:
        cards = hands[s].split()
        assert len(cards) == 7, (s, cards)
        dealt += cards
    dealt += [top] + stock.split()
    rest = list(pk.pack(n))
    for c in dealt:
        rest.remove(c)  # fails on a card used twice
    return dealt + rest


def new(hands: dict[int, str], top: str, stock: str = "", *, players: int | None = None, options=None,
        later: list[list[str]] | None = None, deck: str = "french", seed: int = 7):
    n = players or len(hands)
    first = pack_for(hands, top, stock, players=n, deck=deck)
    return GAME.new(n, seed=seed, decks=[first, *(later or [])], options={"deck": deck, **(options or {})})


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def payouts(state) -> list[int]:
    return [r.payout for r in state.outcome().results]


def lay_off_round(hands: dict[int, str]):
    """Seat 0 draws QC (the top discard is KC) and closes laying it face down, with lay-off:
    the close's events and the round's result."""
    state = new(hands, "KC", "QC", options={"lay_off": True})
    state.apply(0, "draw")
    events = state.apply(0, "close QC")
    return events, state.round_results[0]


def dump(state, seat: int) -> str:
    """The current seat draws and discards the drawn card."""
    state.apply(seat, "draw")
    card = state.view(seat)["drawn"]
    state.apply(seat, f"discard {card}")
    return card


# --------------------------------------------------------------------------------------------
# evaluation API: the worked examples of chinchon.md


def test_worked_examples():
    assert deadwood("3H 4H 5H 9C 9D 9S 2S") == 2
    assert can_close("3H 4H 5H 9C 9D 9S 2S KD") == ["KD"]  # a closing hand
    assert deadwood("3H 4H 5H 6H 9C 9D 9S") == -10
    assert is_chinchon("AH 2H 3H 4H 5H 6H 7H")
    assert deadwood("AH 2H 3H 4H 5H 6H 7H") == -10
    assert deadwood("3H 4H 5H 9C 9D 9S 6S") == 6
    assert can_close("3H 4H 5H 9C 9D 9S 6S KD") == []  # 6 unmatched: cannot close


def test_values_sets_runs_and_aces():
    assert deadwood("KS QD JC") == 30  # J/Q/K = 10
    assert deadwood("QH KH AH") == 21  # no wrap: ace is low only
    assert deadwood("AH 2H 3H") == -10
    assert deadwood("7S 7H 7D 7C") == -10
    assert deadwood("7S 7H") == 14
    assert deadwood(["7S", "7H", "7D", "8S", "9S"]) == 14  # 7S in 7-8-9S (7H 7D left), not in the set
    assert deadwood("7H 7D 7C 7S 8S 9S") == -10  # 7H 7D 7C + 7S 8S 9S
    assert deadwood("10h 2H 3H 4h") == 10  # "10" accepted for T, any case
    assert deadwood([]) == -10  # nothing unmatched


def test_jokers():
    assert deadwood("JK 5H 7H") == -10  # the joker stands for 6H
    assert deadwood("JK 5H 5D") == -10
    assert deadwood("JK JK 5H") == 105  # a card and two jokers is no meld: one joker per meld
    assert deadwood("JK AS 4H 7D TC KS 5C") == 50 + 1 + 4 + 7 + 10 + 10 + 5  # unmatched joker: 50
    assert deadwood("3H 4H JK 6H 9C 9D 9S") == -10  # fully melded with a joker
    assert not is_chinchon("AH 2H JK 4H 5H 6H 7H")  # a run of 7 with a joker is no chinchón
    arr = arrange("3H 4H JK 6H 9C 9D 9S KD")
    assert arr.melds == [["3H", "4H", "JK=5H", "6H"], ["9S", "9D", "9C"]]
    assert arr.unmatched == ["KD"] and arr.deadwood == 10
    arr = arrange("JK 5H 5D 9C 9D 9S KD")
    assert arr.melds == [["JK=5S", "5H", "5D"], ["9S", "9D", "9C"]] and arr.unmatched == ["KD"]
    # a spare joker joins a run, one joker a run: the other is left unmatched
    assert arrange("JK JK 3H 4H 5H").melds == [["3H", "4H", "5H", "JK=6H"]]
    with pytest.raises(ValueError):
        deadwood("JK JK JK 5H")
    with pytest.raises(ValueError):
        deadwood("5H 5H")


def test_arrange_shows_a_chinchon_in_one_run():
    arr = arrange("7H 6H 5H 4H 3H 2H AH")
    assert arr.melds == [["AH", "2H", "3H", "4H", "5H", "6H", "7H"]] and arr.unmatched == [] and arr.deadwood == -10


def test_can_close_needs_one_unmatched_card_worth_at_most_the_limit():
    # A + 2 unmatched (3 points) is two cards: no close
    assert can_close("3H 4H 5H 9C 9D AS 2C KD") == []
    assert can_close("3H 4H 5H 9C 9D 9S 6S KD", close_limit=6) == ["KD"]
    assert can_close("3H 4H 5H 9C 9D 9S 6S KD", close_limit=10) == ["6S", "KD"]
    # every card melded: any card may be laid face down that leaves 7 melded (or one low card)
    assert can_close("3H 4H 5H 6H 9C 9D 9S KD") == ["KD"]
    assert can_close("3H 4H 5H 6H 9C 9D 9S 2C") == ["2C", "3H", "6H"]
    # a joker left unmatched (50) cannot close; the joker itself may be laid face down
    assert can_close("3H 4H 5H 9C 9D 9S JK KD") == ["KD"]
    assert can_close("3H 4H 5H 9C 9D 9S JK 2S") == ["2S", "3H", "4H", "5H", "9S", "9D", "9C", "JK"]
    with pytest.raises(ValueError):
        can_close("3H 4H 5H 9C 9D 9S JK")


def test_spanish_packs():
    assert len(PACKS["spanish40"].pack(2)) == 40 and len(PACKS["spanish40"].pack(3)) == 42
    assert len(PACKS["spanish48"].pack(4)) == 50 and len(PACKS["french"].pack(4)) == 54
    # spanish40: 7 is followed by 10, values at face
    assert deadwood("5O 6O 7O 10O 11O 12O 1C", deck="spanish40") == 1
    assert deadwood("7o 10o 11O", deck="spanish40") == -10
    assert deadwood("12O 11C", deck="spanish40") == 23
    assert is_chinchon("4O 5O 6O 7O 10O 11O 12O", deck="spanish40")
    with pytest.raises(ValueError):
        deadwood("8O", deck="spanish40")
    # spanish48: 7-8-9 is a run, 7-10 is not
    assert deadwood("7O 8O 9O", deck="spanish48") == -10
    assert deadwood("7O 10O 11O", deck="spanish48") == 28
    assert deadwood("12B 11B 10B 1B", deck="spanish48") == 1  # no wrap
    assert arrange("JK 7O 11O", deck="spanish40").melds == [["7O", "JK=10O", "11O"]]
    with pytest.raises(ValueError):
        deadwood("7H", deck="spanish48")
    with pytest.raises(ValueError):
        deadwood("7O", deck="french")


# --------------------------------------------------------------------------------------------
# the game: deal, turns, views


def test_registry_and_options():
    assert REGISTRY["chinchon"] is GAME
    assert GAME.multi_round and GAME.title == "Chinchón" and (GAME.min_players, GAME.max_players) == (2, 4)
    assert GAME.default_options == {"deck": "french", "close_limit": 5, "lay_off": False, "target": 100}
    for text in PHRASES.values():
        for form in (text if isinstance(text, tuple) else (text,)):
            string.Formatter().parse(form)


def test_deal_and_first_turn():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC JH")
    assert state.hands[0] == CLOSER.split() and state.hands[1] == JUNK1.split()
    assert state.top_discard == "KC" and state.stock == 52 - 15 and state.discards == 1
    assert (state.round, state.first, state.current, state.to_act, state.phase) == (1, 0, 0, (0,), "play")
    assert state.legal_actions(0) == ["draw", "take"] and state.legal_actions(1) == []
    view = state.view(0)
    required = {"round", "totals", "round_results", "in_match", "buybacks", "pot", "phase", "first", "current",
                "to_act", "stock", "top_discard", "discards", "hand_sizes", "options", "legal", "outcome",
                "hand", "arrangement", "can_close", "drawn"}
    assert required <= set(view)
    assert view["hand"] == ["2S", "3H", "4H", "5H", "9S", "9D", "9C"]
    assert view["arrangement"] == {"melds": [["3H", "4H", "5H"], ["9S", "9D", "9C"]], "unmatched": ["2S"],
                                   "deadwood": 2}
    assert view["totals"] == [0, 0] and view["pot"] == 2 and view["in_match"] == [True, True]
    assert view["options"] == {"deck": "french", "close_limit": 5, "lay_off": False, "target": 100}
    other = state.view(1)
    assert other["hand"] == sorted(JUNK1.split(), key=PACKS["french"].sort_key) and other["legal"] == []
    spectator = state.view(None)
    assert spectator["hand"] == [] and spectator["arrangement"] is None and spectator["legal"] == []
    assert not any(c in json.dumps(spectator) for c in CLOSER.split() + JUNK1.split())


def test_draw_take_discard_and_events():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC JH")
    assert state.apply(0, "draw") == [Event(0, "draw")]
    view = state.view(0)
    assert view["drawn"] == "QC" and view["can_close"] == ["QC"] and state.view(1)["drawn"] is None
    assert "QC" not in json.dumps(state.view(1)) and "QC" not in json.dumps(state.view(None))
    assert state.legal_actions(0) == ["discard 2S", "discard 3H", "discard 4H", "discard 5H", "discard 9S",
                                      "discard 9D", "discard 9C", "discard QC", "close QC"]
    with pytest.raises(IllegalAction, match="already drawn"):
        state.apply(0, "take")
    with pytest.raises(IllegalAction, match="not your turn"):
        state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="do not have"):
        state.apply(0, "discard KD")
    with pytest.raises(IllegalAction, match="not a card"):
        state.apply(0, "discard ZZ")
    assert state.apply(0, "DISCARD qc") == [Event(0, "discard", ("QC",))]
    assert state.top_discard == "QC" and state.current == 1
    with pytest.raises(IllegalAction, match="Draw from the stock or take"):
        state.apply(1, "discard KS")
    assert state.apply(1, "take") == [Event(1, "take", ("QC",))]
    with pytest.raises(IllegalAction, match="just took it"):
        state.apply(1, "discard QC")
    assert "discard QC" not in state.legal_actions(1)
    state.apply(1, "discard KS")
    assert state.record()["actions"] == [[0, "draw"], [0, "discard QC"], [1, "take"], [1, "discard KS"]]


def test_close_refusals_say_why():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC JH")
    state.apply(0, "draw")
    with pytest.raises(IllegalAction, match=r"^You cannot close: QC is unmatched and worth 10 — at most one worth"):
        state.apply(0, "close 2S")
    with pytest.raises(IllegalAction, match=r"^You cannot close: 4 unmatched cards \(2S, 9D, 9C, QC\) — at most"):
        state.apply(0, "close 9S")
    with pytest.raises(IllegalAction, match=r"^Name one card to lay face down: close <card>\.$"):
        state.apply(0, "close")


def test_close_legal_ends_the_round_and_deals_the_next():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC JH")
    state.apply(0, "draw")
    events = state.apply(0, "close QC")
    assert kinds(events) == ["close", "round_end", "round_start"]
    assert events[0] == Event(0, "close") and events[2].text == "2"
    assert events[1].phrases == (Phrase("chinchon.close", {"closer": 0}, {"round": 1, "points": 2}),)
    result = state.round_results[0]
    assert result["points"] == [2, 58] and result["totals"] == [2, 58] and result["closer"] == 0
    assert not result["chinchon"] and result["out"] == []
    assert result["hands"][0] == {"melds": [["3H", "4H", "5H"], ["9S", "9D", "9C"]], "unmatched": ["2S"],
                                  "laid_off": []}
    assert result["hands"][1]["unmatched"] == ["4C", "6D", "8S", "TH", "JC", "QD", "KS"]
    assert state.totals == [2, 58] and state.round == 2 and state.first == 1 and state.current == 1
    assert state.phase == "play" and state.hand_sizes == [7, 7]
    assert state.view(None)["round_results"] == state.round_results


def test_close_refused_with_its_reason():
    state = new({0: "3H 4H 5H 9C 9D 9S 6S", 1: JUNK1}, "KC", "QC")
    state.apply(0, "draw")
    assert state.view(0)["can_close"] == []
    with pytest.raises(IllegalAction) as exc:
        state.apply(0, "close QC")
    assert str(exc.value) == "You cannot close: 6S is unmatched and worth 6 — at most one worth ≤ 5."
    with pytest.raises(IllegalAction) as exc:
        state.apply(0, "close 9S")
    assert str(exc.value) == ("You cannot close: 4 unmatched cards (6S, 9D, 9C, QC) — at most one worth ≤ 5.")
    assert not [a for a in state.legal_actions(0) if a.startswith("close")]
    # a higher close_limit lets the same hand close
    state = new({0: "3H 4H 5H 9C 9D 9S 6S", 1: JUNK1}, "KC", "QC", options={"close_limit": 6})
    state.apply(0, "draw")
    assert state.legal_actions(0)[-1] == "close QC"
    state.apply(0, "close QC")
    assert state.round_results[0]["points"] == [6, 58]


def test_closer_scores_minus_ten_with_and_without_a_joker():
    state = new({0: MELDED, 1: JUNK1}, "KC", "QC")
    state.apply(0, "draw")
    events = state.apply(0, "close QC")
    assert events[1].phrases[0] == Phrase("chinchon.close_melded", {"closer": 0}, {"round": 1})
    assert state.round_results[0]["points"] == [-10, 58] and state.totals == [-10, 58]
    # three players: two jokers in the pack
    state = new({0: "3H 4H JK 6H 9C 9D 9S", 1: JUNK1, 2: JUNK2}, "KC", "QC")
    assert len(state.pack) == 54
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert state.round_results[0]["points"] == [-10, 58, 61]
    assert state.round_results[0]["hands"][0]["melds"] == [["3H", "4H", "JK=5H", "6H"], ["9S", "9D", "9C"]]


def test_a_non_closer_fully_melded_scores_minus_ten_and_a_joker_left_unmatched_fifty():
    state = new({0: CLOSER, 1: "JK AS 4D 7D TC KS 5C", 2: "AC 2C JK 4C 8C 8D 8S"}, "KC", "QC")
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert state.round_results[0]["points"] == [2, 50 + 1 + 4 + 7 + 10 + 10 + 5, -10]
    assert state.round_results[0]["hands"][1]["unmatched"] == ["AS", "4D", "5C", "7D", "TC", "KS", "JK"]
    assert state.round_results[0]["hands"][2]["melds"] == [["AC", "2C", "JK=3C", "4C"], ["8S", "8D", "8C"]]


def test_instant_chinchon_wins_the_match():
    state = new({0: "AH 2H 3H 4H 5H 6H KD", 1: JUNK1}, "KC", "7H")
    state.apply(0, "draw")
    assert state.view(0)["can_close"] == ["KD"]
    events = state.apply(0, "close KD")
    assert kinds(events) == ["close", "round_end", "end"]
    assert events[1].phrases == (Phrase("chinchon.close_chinchon", {"closer": 0}, {"round": 1}),)
    assert events[2].phrases == (Phrase("chinchon.win_chinchon", {"winner": 0}, {"round": 1}),)
    assert state.is_over and state.phase == "over" and state.to_act == ()
    assert state.round_results[0]["chinchon"] and state.totals == [-10, 58]
    out = state.outcome()
    assert out.winners == [0] and payouts(state) == [1, -1]
    assert out.results[0].notes == ["chinchón"] and [r.rank for r in out.results] == [1, 2]
    assert [r.points for r in out.results] == [-10, 58]
    view = state.view(1)
    assert view["outcome"]["winners"] == [0] and view["outcome"]["totals"] == [-10, 58]
    assert view["legal"] == [] and view["current"] is None
    with pytest.raises(IllegalAction, match="over"):
        state.apply(1, "draw")


def test_only_the_closer_wins_by_chinchon():
    state = new({0: CLOSER, 1: "AD 2D 3D 4D 5D 6D 7D"}, "KC", "QC")
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert not state.is_over and state.round_results[0]["points"] == [2, -10]


def test_a_seven_card_run_with_a_joker_is_no_chinchon():
    state = new({0: "AH 2H JK 4H 5H 6H QS", 1: JUNK1, 2: JUNK2}, "KC", "7H")
    state.apply(0, "draw")
    state.apply(0, "close QS")
    assert not state.is_over and state.round_results[0]["points"][0] == -10
    assert not state.round_results[0]["chinchon"]


# --------------------------------------------------------------------------------------------
# reaching the target: buy-backs, match end, pot


def test_buy_back_to_the_highest_total_under_the_target_once_only():
    # target 50: round 1 leaves seat 1 at 58 (may buy back) and seat 2 at 32
    r1 = pack_for({0: CLOSER, 1: JUNK1, 2: LOW}, "KC", "QC")
    # round 2 (first player seat 1): seat 1 (first) dumps, seat 2 closes; seat 1 reaches the target again
    r2 = pack_for({1: JUNK1, 2: CLOSER, 0: "AC 2C 3C 7D 7S 5D 5C"}, "KC", "QH QC", first=1)
    state = GAME.new(3, seed=3, decks=[r1, r2], options={"target": 50})
    state.apply(0, "draw")
    events = state.apply(0, "close QC")
    assert kinds(events) == ["close", "round_end"]
    assert events[1].phrases[1] == Phrase("chinchon.may_buy_back", {"player": 1}, {"total": 58, "at": 32})
    assert state.totals == [2, 58, 32] and state.phase == "buyback" and state.to_act == (1,)
    assert state.current == 1 and state.top_discard is None
    assert state.legal_actions(1) == ["buyback", "decline"]
    assert state.legal_actions(0) == [] and state.legal_actions(2) == []
    assert state.view(1)["legal"] == ["buyback", "decline"] and state.view(0)["legal"] == []
    with pytest.raises(IllegalAction, match="not your decision"):
        state.apply(0, "buyback")
    with pytest.raises(IllegalAction, match="buy-back"):
        state.apply(1, "draw")
    events = state.apply(1, "buyback")
    assert kinds(events) == ["buyback", "round_start"]
    assert state.totals == [2, 32, 32] and state.buybacks == [0, 1, 0] and state.pot == 4
    assert state.round_results[0]["totals"] == [2, 32, 32]
    assert state.round_results[0]["phrases"][-1] == Phrase("chinchon.bought_back", {"player": 1},
                                                            {"total": 32}).as_dict()
    assert (state.round, state.first, state.current) == (2, 1, 1)
    assert state.hands[1] == JUNK1.split() and state.hands[2] == CLOSER.split()
    dump(state, 1)
    state.apply(2, "draw")
    events = state.apply(2, "close QC")
    # seat 1 reaches the target again: out at once, no decision
    assert events[1].phrases[1] == Phrase("chinchon.out_bought_back", {"player": 1}, {"total": 90})
    assert kinds(events) == ["close", "round_end", "round_start"]
    assert state.in_match == [True, False, True] and state.round_results[1]["out"] == [1]
    assert state.round_results[1]["points"][1] == 58
    with pytest.raises(IllegalAction, match="already bought back once"):
        state.apply(1, "buyback")
    # round 3: the first player moves on from seat 1 to seat 2; seat 1 is dealt nothing
    assert state.round == 3 and state.first == 2 and state.hand_sizes == [7, 0, 7]
    assert state.legal_actions(1) == []


def test_decline_leaves_the_last_player_the_winner():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC", options={"target": 50})
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert state.to_act == (1,)
    events = state.apply(1, "decline")
    assert kinds(events) == ["decline", "end"]
    assert events[1].phrases == (Phrase("chinchon.win_last", {"winner": 0}, {"total": 2}),)
    assert state.is_over and state.in_match == [True, False] and state.round_results[0]["out"] == [1]
    out = state.outcome()
    assert out.winners == [0] and payouts(state) == [1, -1] and out.pot == [1, 1]
    assert out.results[1].notes == [Phrase("chinchon.out_in_round", {}, {"round": 1}).as_dict()]
    assert PHRASES["chinchon.out_in_round"].format(round=1) == "out in round 1"
    assert [r.rank for r in out.results] == [1, 2]
    out.check_phrases(PHRASES)
    with pytest.raises(IllegalAction, match="declined"):
        state.apply(1, "buyback")


def test_several_players_over_the_target_decide_in_seat_order():
    hands = {0: "AC 2C 3C 7D 7S 5D 5C", 1: JUNK1, 2: CLOSER, 3: JUNK2}
    state = new(hands, "KC", "QS 2D QC", options={"target": 40})
    dump(state, 0)
    dump(state, 1)
    state.apply(2, "draw")
    events = state.apply(2, "close QC")
    # seat 0: 7D 7S 5D 5C unmatched = 24; seats 1 and 3 over 40
    assert state.totals == [24, 58, 2, 61]
    assert [p.key for p in events[1].phrases] == ["chinchon.close", "chinchon.may_buy_back", "chinchon.may_buy_back"]
    assert state.to_act == (1,)
    assert kinds(state.apply(1, "decline")) == ["decline"]
    assert state.to_act == (3,) and state.legal_actions(3) == ["buyback", "decline"]
    assert state.in_match == [True, False, True, True]
    assert kinds(state.apply(3, "buyback")) == ["buyback", "round_start"]
    assert state.totals == [24, 58, 2, 24] and state.pot == 5
    # round 2: the first player moves on from seat 0 to seat 1, who is out: seat 2
    assert state.first == 2 and state.hand_sizes == [7, 0, 7, 7]
    assert state.round_results[0]["out"] == [1]


def test_everyone_left_over_the_target_lowest_wins_and_a_shared_pot_gives_the_odd_unit_to_the_earlier_seat():
    # target 1: the closer's 2 reaches it too; seat 2 ties him with 2, seat 1 has 58
    state = new({0: CLOSER, 1: JUNK1, 2: "6H 7H 8H TC TD TS 2D"}, "KC", "QC", options={"target": 1})
    state.apply(0, "draw")
    events = state.apply(0, "close QC")
    assert kinds(events) == ["close", "round_end", "end"]
    assert events[2].phrases == (Phrase("chinchon.win_lowest_2", {"winner1": 0, "winner2": 2},
                                        {"target": 1, "total": 2}),)
    out = state.outcome()
    assert out.winners == [0, 2] and out.pot == [1, 1, 1]
    assert out.chips(1) == [1, -1, 0]  # 3 units shared by two: the odd one to seat 0
    assert [r.rank for r in out.results] == [1, 3, 1]
    assert state.in_match == [True, False, True] and state.round_results[0]["out"] == [1]
    with pytest.raises(IllegalAction, match="nobody else is still under 1"):
        state.apply(2, "buyback")
    out.check_balanced()


def test_pot_counts_buy_backs():
    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC", options={"target": 50})
    state.apply(0, "draw")
    state.apply(0, "close QC")
    state.apply(1, "buyback")
    assert state.totals == [2, 2] and state.pot == 3 and state.view(None)["pot"] == 3
    # play on to the end with whatever the seed deals
    from bot.games.chinchon.ai import choose
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, choose(state.view(seat)))
    out = state.outcome()
    assert out.pot == [1, 2]
    assert sum(out.chips(1)) == 0 and out.chips(1)[out.winner] == 3 - out.pot[out.winner]
    assert "bought back" in out.results[1].notes


# --------------------------------------------------------------------------------------------
# reshuffle, Spanish packs, lay-off


def test_reshuffle_of_the_discards():
    state = new({0: JUNK1, 1: JUNK2}, "KC")
    drawn = []
    for k in range(37):
        assert state.stock == 37 - k
        seat = state.current
        state.apply(seat, "draw")
        drawn.append(state.drawn)
        if k < 36:
            state.apply(seat, f"discard {state.drawn}")
    seat = state.current
    pile = list(state.pile)
    events = state.apply(seat, f"discard {drawn[-1]}")
    assert kinds(events) == ["discard", "reshuffle"] and events[1] == Event(None, "reshuffle")
    expected = (pile + [drawn[-1]])[:-1]
    assert expected == ["KC"] + drawn[:-1]
    reshuffle_rng(7, 1, 1).shuffle(expected)
    assert state.stock_cards == expected and state.pile == [drawn[-1]]
    assert state.stock == 37 and state.discards == 1 and state.top_discard == drawn[-1]
    assert GAME.replay(state.record()).stock_cards == expected


def test_spanish40_game():
    hands = {0: "4O 5O 6O 7O 10O 11O 2C", 1: "1E 3B 5C 7E 10B 12C 11E"}
    state = new(hands, "12O", "1C", deck="spanish40")
    assert state.stock == 40 - 15 and state.options["deck"] == "spanish40"
    state.apply(0, "take")  # 12O completes a chinchón 4-5-6-7-10-11-12
    assert state.view(0)["can_close"] == ["2C", "4O", "7O", "12O"]
    events = state.apply(0, "close 2c")
    assert kinds(events)[-1] == "end" and state.round_results[0]["chinchon"]
    assert state.round_results[0]["hands"][0]["melds"] == [["4O", "5O", "6O", "7O", "10O", "11O", "12O"]]
    assert state.round_results[0]["points"][1] == 1 + 3 + 5 + 7 + 10 + 12 + 11


def test_spanish48_game_with_jokers():
    hands = {0: "7O 8O 9O 3C 3E 3B 1E", 1: "1O 4C 6E 10B 12C 11E 5B", 2: "2O 5C 9E 11B 12O 6C JK"}
    state = new(hands, "12B", "JK", deck="spanish48")
    assert len(state.pack) == 50
    state.apply(0, "draw")
    assert state.view(0)["drawn"] == "JK"
    assert state.view(0)["can_close"] == ["1E", "3C", "3E", "3B", "7O", "8O", "9O", "JK"]
    state.apply(0, "close 1E")
    assert state.round_results[0]["points"][0] == -10
    assert state.round_results[0]["hands"][0]["melds"] == [["3C", "3E", "3B"], ["7O", "8O", "9O", "JK=10O"]]


def test_bad_packs_and_options():
    with pytest.raises(ValueError):
        GAME.new(2, decks=[list(PACKS["french"].cards)[:-1]])
    with pytest.raises(ValueError):
        GAME.new(3, decks=[list(PACKS["french"].cards)])  # jokers missing with 3 players
    with pytest.raises(ValueError):
        GAME.new(2, options={"deck": "tarot"})
    with pytest.raises(ValueError):
        GAME.new(5)
    # codes in any case, French 10 for T
    pack = [c.lower().replace("T", "10").replace("t", "10") for c in PACKS["french"].cards]
    state = GAME.new(2, decks=[pack])
    assert state.decks[0] == list(PACKS["french"].cards)


def test_lay_off_option():
    # the closer's melds 3H 4H 5H and 9C 9D 9S; seat 1 lays off 6H 7H and 9H, seat 2 lays off 8H (after 7H)
    hands = {0: CLOSER, 1: "6H 7H 9H KS QD JC 2D", 2: "8H AS AD 4C 6S TD KH"}
    plain = new(hands, "KC", "QC")
    plain.apply(0, "draw")
    plain.apply(0, "close QC")
    assert plain.round_results[0]["points"] == [2, 6 + 7 + 9 + 10 + 10 + 10 + 2, 8 + 1 + 1 + 4 + 6 + 10 + 10]
    events, result = lay_off_round(hands)
    assert sorted(result["hands"][1]["laid_off"]) == ["6H", "7H", "9H"]
    assert result["hands"][1]["laid_off"].index("6H") < result["hands"][1]["laid_off"].index("7H")
    assert result["hands"][2]["laid_off"] == ["8H"]  # onto the run seat 1 extended to 7H
    assert result["points"] == [2, 10 + 10 + 10 + 2, 1 + 1 + 4 + 6 + 10 + 10]
    assert Phrase("chinchon.lays_off", {"player": 2}, {"cards": "8H"}) in events[1].phrases
    assert result["hands"][1]["unmatched"] == ["2D", "JC", "QD", "KS"]


def test_lay_off_to_best_advantage_and_zero_not_minus_ten():
    # seat 1 alone: the run 5H 6H 7H (33) or the set 7H 7D 7C (30); laying off 5H 6H onto the
    # closer's 2H 3H 4H and 9H onto his 9s, the set is best: only KD is left
    hands = {0: "2H 3H 4H 9C 9D 9S AS", 1: "5H 6H 7H 7D 7C 9H KD", 2: "KS QD JC TD 8S 6D 4C"}
    __, result = lay_off_round(hands)
    assert result["points"][1] == 10  # only KD left
    assert result["hands"][1]["melds"] == [["7H", "7D", "7C"]] and result["hands"][1]["unmatched"] == ["KD"]
    assert sorted(result["hands"][1]["laid_off"]) == ["5H", "6H", "9H"]
    assert result["hands"][2]["laid_off"] == []
    # every unmatched card laid off: 0, not −10
    hands = {0: "2H 3H 4H 9C 9D 9S AS", 1: "5H 6H 9H JD JC JS JH", 2: "KS QD TC 8S 6D 4C 2C"}
    __, result = lay_off_round(hands)
    assert sorted(result["hands"][1]["laid_off"]) == ["5H", "6H", "9H"] and result["points"][1] == 0
    assert result["hands"][1]["unmatched"] == []


# --------------------------------------------------------------------------------------------
# AI


def test_ai_takes_the_discard_only_when_it_melds():
    from bot.games.chinchon.ai import choose

    state = new({0: "3H 4H 9C 9D 2S KS QD", 1: JUNK2}, "5H")
    assert choose(state.view(0)) == "take"
    state = new({0: "3H 4H 9C 9D 2S KS QD", 1: JUNK2}, "AS")  # lower, but melds nothing
    assert choose(state.view(0)) == "draw"


def test_ai_closes_or_waits_for_a_likely_minus_ten():
    from bot.games.chinchon.ai import choose, quick_select

    def after_draw(live: str):
        state = new({0: CLOSER, 1: JUNK1}, "KC", "KD")
        state.apply(0, "draw")
        state.reshuffles = 1  # after a reshuffle only the cards shown this round may come
        state.seen = set(live.split()) | {"KC"}
        return state

    # 2H, 6H and 9H turn 3H 4H 5H 9C 9D 9S into −10; two of the three live cards are outs
    state = after_draw("6H 2H QC")
    assert choose(state.view(0)) == "discard KD" and quick_select(state.view(0)) == ["KD"]
    state = after_draw("6H QC JC 8D")  # one in four: close now for 2
    assert choose(state.view(0)) == "close KD" and quick_select(state.view(0)) == ["KD"]
    state = new({0: MELDED, 1: JUNK1}, "KC", "KD")
    state.apply(0, "draw")
    assert choose(state.view(0)) == "close KD"  # −10 now


def test_ai_buys_back_whenever_it_may():
    from bot.games.chinchon.ai import choose

    state = new({0: CLOSER, 1: JUNK1}, "KC", "QC", options={"target": 50})
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert choose(state.view(1)) == "buyback"  # back in at 2 of 50
    state = new({0: "3H 4H 5H 9C 9D 9S TS", 1: JUNK1}, "KC", "QC", options={"target": 50, "close_limit": 10})
    state.apply(0, "draw")
    state.apply(0, "close QC")
    assert state.totals == [10, 58] and state.to_act == (1,)
    state.totals[0] = 45  # back in at 45 of 50: still worth a stake (the arena: issue #28)
    assert choose(state.view(1)) == "buyback"


# --------------------------------------------------------------------------------------------
# issue #18: at most one joker per meld; no lay-off onto a −10 closer; the AI makes progress


def test_a_card_and_two_jokers_is_no_meld():
    # chinchon.md, Melds: "`5H JK JK` is not a meld"
    assert deadwood("5H JK JK") == 5 + 50 + 50
    arr = arrange("5H JK JK")
    assert arr.melds == [] and arr.unmatched == ["5H", "JK", "JK"] and arr.deadwood == 105


def test_two_cards_and_two_jokers_leave_one_joker_unmatched():
    # chinchon.md, Melds: "in `3H 4H JK JK` one joker is unmatched"
    assert deadwood("3H 4H JK JK") == 50
    arr = arrange("3H 4H JK JK")
    assert arr.melds == [["3H", "4H", "JK=5H"]] and arr.unmatched == ["JK"]


def test_each_joker_in_a_meld_of_its_own():
    # 3H 4H JK JK 9C 9D 9S: the run cannot hold both jokers, but the set 9C 9D 9S takes the
    # second one (standing for 9H: a set is 3–4 cards): fully melded, one joker per meld, −10
    assert deadwood("3H 4H JK JK 9C 9D 9S") == -10
    arr = arrange("3H 4H JK JK 9C 9D 9S")
    assert arr.melds == [["3H", "4H", "JK=5H"], ["9S", "JK=9H", "9D", "9C"]] and arr.unmatched == []
    # with four 9s, two sets of two 9s and a joker each leave 3H 4H (7)
    arr = arrange("3H 4H JK JK 9C 9D 9S 9H")
    assert arr.melds == [["9S", "9H", "JK=9D"], ["JK=9S", "9D", "9C"]] and arr.unmatched == ["3H", "4H"]


def test_two_jokers_with_one_card_do_not_close():
    # 5H JK JK used to be a meld: this hand closed for 2 (the 2C); now one joker stays
    # unmatched beside 5H and 2C (9C 9D 9S JK takes the other)
    assert deadwood("5H JK JK 9C 9D 9S 2C") == 5 + 50 + 2
    assert can_close("5H JK JK 9C 9D 9S 2C KD") == []
    assert can_close("5H JK JK 9C 9D 9S 9H KD", close_limit=5) == ["KD"]  # 9C 9D JK + 9S 9H JK, 5H
    assert deadwood("AH 2H 3H 4H 5H 6H JK JK") == -10  # AH 2H 3H JK + 4H 5H 6H JK


def test_two_jokers_in_the_hand_shown_close_button_and_quick_select():
    from bot.games.chinchon.ai import choose, quick_select

    state = new({0: "5H JK JK 9C 9D 9S 2C", 1: JUNK1, 2: JUNK2}, "KC", "KH")
    state.apply(0, "draw")
    view = state.view(0)
    assert view["can_close"] == [] and not [a for a in view["legal"] if a.startswith("close")]
    assert view["arrangement"] == {"melds": [["9S", "JK=9H", "9D", "9C"]], "unmatched": ["2C", "5H", "KH", "JK"],
                                   "deadwood": 2 + 5 + 10 + 50}
    action = choose(state.view(0))
    assert action.startswith("discard ") and quick_select(state.view(0)) == [action.split()[1]]


def test_nobody_lays_off_onto_a_minus_ten_closer():
    # chinchon.md, Round scoring: "nobody lays off onto a −10 closer"
    seat1 = "7H 9H KS QD JC 2D 4C"  # 7H extends the closer's 3H-6H run, 9H completes his 9s
    events, result = lay_off_round({0: MELDED, 1: seat1, 2: JUNK2})
    assert result["points"] == [-10, 7 + 9 + 10 + 10 + 10 + 2 + 4, 61]
    assert result["hands"][1]["laid_off"] == [] and result["hands"][2]["laid_off"] == []
    assert not [p for p in events[1].phrases if p.key == "chinchon.lays_off"]
    # the same hands lay off onto a closer who scores 1 (AS unmatched)
    __, result = lay_off_round({0: "4H 5H 6H 9C 9D 9S AS", 1: seat1, 2: JUNK2})
    assert result["points"][0] == 1
    assert sorted(result["hands"][1]["laid_off"]) == ["7H", "9H"] and result["hands"][2]["laid_off"] == ["8H"]


def test_a_joker_lays_off_only_onto_a_meld_without_one():
    # the closer's melds: 3H 4H JK=5H (a joker already) and 8C 9C TC: seat 1's joker extends the clubs
    hands = {0: "3H 4H JK 8C 9C TC AS", 1: "JK KS QD 2D 4C 6S 7D", 2: "KD QH JS 2C 8H 5S 7S"}
    __, result = lay_off_round(hands)
    assert result["points"][0] == 1
    assert result["hands"][1]["laid_off"] == ["JK=JC"] and result["points"][1] == 10 + 10 + 2 + 4 + 6 + 7


def test_ai_only_match_makes_progress_with_close_limit_zero():
    # seed 810 used to loop from action ~442: two seats taking each other's discards for ever
    from bot.games.chinchon.ai import choose

    state = GAME.new(4, seed=810, options={"close_limit": 0, "deck": "spanish48", "target": 30})
    actions = 0
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, choose(state.view(seat)))
        actions += 1
        assert actions < 20_000


@pytest.mark.parametrize("players, options", [(4, {"close_limit": 0, "deck": "spanish48", "target": 30}),
                                              (2, {"close_limit": 0, "target": 30}), (3, {})])
def test_ai_takes_only_to_progress(players, options):
    """What made the loop: a take whose discard gave the gain back (the next seat took that card,
    and so on). The AI never takes back a card it discarded this round (so a seat takes a card
    once a round at most), and a take of a card (not a joker) lowers its penalty or closes."""
    from bot.games.chinchon.ai import choose

    for seed in range(800, 803):
        state = GAME.new(players, seed=seed, options=options)
        while not state.is_over and len(state.actions) < 3000:
            seat = state.to_act[0]
            action = choose(state.view(seat))
            if action != "take":
                state.apply(seat, action)
                continue
            top, before = state.top_discard, deadwood(state.hands[seat], deck=state.pk.name)
            assert top not in state.discarded[seat], (seed, len(state.actions))
            state.apply(seat, "take")
            follow = choose(state.view(seat))
            state.apply(seat, follow)
            if top != "JK" and follow.startswith("discard"):
                assert deadwood(state.hands[seat], deck=state.pk.name) < before, (seed, len(state.actions))
