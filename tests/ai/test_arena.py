"""The arena (benchmarks/ai/arena.py): the Wilson interval, duplicate deals, a deterministic run,
and plain players that always play legally."""

from __future__ import annotations

import random

import pytest

from bot.games import REGISTRY
from benchmarks.ai.arena import lineups, play, play_deal, policy, tally, wilson
from bot.ai.easy import SIMPLE


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(10, 10)
    assert round(low, 4) == 0.7225 and high == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_lineups_put_the_first_policy_at_each_seat_once():
    assert lineups(("normal", "simple"), 2) == [("normal", "simple"), ("simple", "normal")]
    four = lineups(("normal", "random"), 4)
    assert len(four) == 4
    for seat in range(4):
        assert [lineup[seat] for lineup in four].count("normal") == 1
    assert all(lineup.count("normal") == 1 and lineup.count("random") == 3 for lineup in four)


@pytest.mark.parametrize("game", ["phom", "chinchon"])
def test_a_deal_is_replayed_on_the_same_cards_for_every_lineup(game):
    games = play_deal(game, ("simple", "random"), 2, seed=5, deal=3, mode="round" if game == "chinchon" else "game")
    assert [g.lineup for g in games] == [("simple", "random"), ("random", "simple")]
    assert games[0].deck == games[1].deck
    other = play_deal(game, ("simple", "random"), 2, seed=5, deal=4, mode="round" if game == "chinchon" else "game")
    assert other[0].deck != games[0].deck


def test_a_run_is_deterministic_for_a_seed():
    def run():
        return [(g.lineup, g.wins, g.results, g.actions) for d in range(3)
                for g in play_deal("phom", ("normal", "random"), 4, seed=9, deal=d)]

    assert run() == run()


def test_tally_counts_every_seat_and_results_sum_to_zero():
    games = [g for d in range(4) for g in play_deal("chan", ("simple", "random"), 2, seed=1, deal=d)]
    figures = {name: t.summary() for name, t in tally(games).items()}
    assert figures["simple"]["games"] == figures["random"]["games"] == 8
    total = figures["simple"]["chips_per_game"] + figures["random"]["chips_per_game"]
    assert abs(total) < 1e-9
    assert figures["simple"]["low"] <= figures["simple"]["win_rate"] <= figures["simple"]["high"]


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_the_plain_player_plays_legally(game):
    rng = random.Random(game)
    for seed in range(2):
        players = 2 + 2 * seed
        state = REGISTRY[game].new(players, seed=seed, options={"rounds": 1} if game == "concan" else None)
        steps = 0
        while not state.is_over and steps < 3000:
            steps += 1
            seat = state.to_act[0]
            view = state.view(seat)
            action = SIMPLE[game](view) if seat % 2 == 0 else rng.choice(view["legal"])
            assert action in view["legal"]
            state.apply(seat, action)


def test_a_round_of_chinchon_settles_by_points():
    result = play("chinchon", ("simple", "normal"), 11, mode="round")
    assert sum(result.results) == pytest.approx(0.0)
    assert max(result.wins) == 1.0


def test_policy_names():
    assert policy("phom", "simple", random.Random(1)) is SIMPLE["phom"]
    with pytest.raises(ValueError):
        policy("phom", "stronger", random.Random(1))
