"""The end of a Concan round and of the set as pure functions (bot.games.concan.scoring):
docs/rules/concan.md, "Scoring"."""

from __future__ import annotations

from bot.games.base import Phrase
from bot.games.concan.scoring import score_round, settle_set


def test_a_won_round_scores_minus_25_the_hands_left_and_100_for_a_closed_hand():
    score = score_round(3, 0, None, hands=[[], ["AS", "JK", "5H"], ["KD"]], opened=[True, True, False],
                        announced=[0, 1, 0], totals=[10, 0, 5])
    assert score.points == [-25, 10 + 2 + 5, 100]
    assert score.totals == [-15, 17, 105]
    assert score.hands[0] == {"cards": [], "penalty": 0, "opened": True, "announced": 0}
    assert score.phrases == [Phrase("concan.round_won", {"winner": 0}, {"round": 3}),
                             Phrase("concan.round_points", {"player": 0}, {"points": -25, "total": -15}),
                             Phrase("concan.round_points", {"player": 1}, {"points": 17, "total": 17}),
                             Phrase("concan.round_points_closed", {"player": 2}, {"points": 100, "total": 105})]


def test_a_round_without_a_winner_says_why_first():
    void = Phrase("concan.round_void_turns", {}, {"round": 2, "turns": 300})
    score = score_round(2, None, void, hands=[["JK"], ["3C"]], opened=[True, True], announced=[0, 0],
                        totals=[0, 0])
    assert score.points == [25, 3] and score.phrases[0] == void


def test_the_lowest_totals_share_the_pot():
    outcome, summary = settle_set([40, 12, 12])
    assert outcome.winners == [1, 2]
    assert summary == [Phrase("concan.set_shared", {"winner": 1}, {"total": 12}),
                       Phrase("concan.set_shared", {"winner": 2}, {"total": 12}),
                       Phrase("concan.final_total", {"player": 0}, {"total": 40})]
    assert [r.rank for r in outcome.results] == [3, 1, 1]
