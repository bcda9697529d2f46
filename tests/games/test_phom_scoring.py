"""The end of a game of Phỏm as pure functions (bot.games.phom.scoring): docs/rules/phom.md,
"Results and bets", from the hands and the play's facts alone, without playing a game."""

from __future__ import annotations

from bot.games.base import Phrase, Transfer
from bot.games.phom.scoring import hand_summary, rank_order, settle_normal, settle_u


def hand(points: int, mom: bool = False) -> dict:
    return {"melds": [] if mom else [["2C", "2D", "2H"]], "leftover": [], "points": points, "mom": mom}


def test_a_hand_at_a_normal_end_counts_only_its_shown_phom():
    held = {"3S", "3H", "3D", "KC"}  # a set still held at the end does not count
    summary = hand_summary([], held, set(), arrange_hand=False)
    assert summary == {"melds": [], "leftover": ["3S", "3H", "3D", "KC"], "points": 22, "mom": True}
    arranged = hand_summary([], held, set(), arrange_hand=True)
    assert arranged["points"] == 13 and not arranged["mom"]


def test_ranks_put_phom_before_mom_then_fewer_points_then_the_earlier_last_discard():
    hands = [hand(10), hand(5, mom=True), hand(10), hand(3)]
    assert rank_order(range(4), hands, last_discard=[30, 5, 20, 40]) == [3, 2, 0, 1]


def test_a_normal_end_pays_by_rank_and_four_for_a_mom_hand():
    ending = settle_normal([hand(12), hand(4), hand(2, mom=True), hand(20)], last_discard=[1, 2, 3, 4])
    assert ending.winner == 1 and ending.ranks == [2, 1, 4, 3]
    assert ending.transfers == [Transfer(0, 1, 1, "rank 2"), Transfer(3, 1, 2, "rank 3"), Transfer(2, 1, 4, "móm")]
    assert ending.notes == [[], [], ["móm"], []]
    assert ending.summary == [Phrase("phom.win", {"winner": 1}, {"points": 4})]


def test_everyone_mom_the_lowest_points_win():
    ending = settle_normal([hand(9, mom=True), hand(7, mom=True)], last_discard=[1, 2])
    assert ending.winner == 1 and ending.transfers == [Transfer(0, 1, 4, "móm")]
    assert ending.summary == [Phrase("phom.win_all_mom", {"winner": 1}, {"points": 7})]


def test_an_u_is_paid_by_everyone_and_leaves_the_hands_given_as_they_were():
    hands = [hand(0), hand(15), hand(8)]
    ending = settle_u(0, before_discard=True, hands=hands, last_discard=[3, 1, 2], eat_counts={},
                      turn_last=False, last_round_victims=[])
    assert ending.transfers == [Transfer(1, 0, 12, "ù"), Transfer(2, 0, 12, "ù")]
    assert ending.ranks == [1, 3, 2] and ending.notes[0] == ["ù before discarding"]
    hands[0]["points"] = 4
    assert settle_u(0, before_discard=False, hands=hands, last_discard=[3, 1, 2], eat_counts={}, turn_last=False,
                    last_round_victims=[]).hands[0]["points"] == 0
    assert hands[0]["points"] == 4


def test_three_eats_from_one_seat_make_it_pay_for_everyone_before_the_last_round_rule():
    ending = settle_u(2, before_discard=False, hands=[hand(5), hand(9), hand(0)], last_discard=[1, 2, 3],
                      eat_counts={(2, 1): 3, (0, 2): 1}, turn_last=True, last_round_victims=[0])
    assert ending.transfers == [Transfer(1, 2, 12, "ù đền")]
    assert ending.notes == [[], ["ù đền"], ["ù"]]
    assert ending.summary == [Phrase("phom.u_den", {"winner": 2, "payer": 1}, {"reason": "ù đền"})]


def test_in_the_last_round_the_last_seat_eaten_pays_unless_it_is_the_winner():
    hands = [hand(5), hand(9), hand(0)]
    ending = settle_u(2, before_discard=True, hands=hands, last_discard=[1, 2, 3], eat_counts={(2, 1): 1},
                      turn_last=True, last_round_victims=[1, 0])
    assert ending.transfers == [Transfer(0, 2, 24, "ù đền")]
    assert ending.notes[0] == ["ù đền (last round)"]
    assert ending.summary == [Phrase("phom.u_before_discard_den_last_round", {"winner": 2, "payer": 0})]
    ending = settle_u(2, before_discard=False, hands=hands, last_discard=[1, 2, 3], eat_counts={},
                      turn_last=True, last_round_victims=[2])
    assert ending.transfers == [Transfer(0, 2, 6, "ù"), Transfer(1, 2, 6, "ù")]
