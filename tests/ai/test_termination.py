"""Every game ends: seeded AI-only matches of the five games (``bot/games/<game>/ai.py`` at
every seat), with every lobby option at its extremes, end within a stated bound.

The bound of a case is a number of actions per round × a number of rounds (a one-deal game
is one round). Every action counts, the between-rounds decisions (Chinchón's buy-backs) with
the round they follow. A case fails as soon as a round runs over its actions or a match over
its rounds, so a game that does not end costs one bound's worth of actions, not a hang.

One-deal games — the bound follows from the rules (each turn either uses a stock card or
makes a hand smaller, and the stock is never refilled):

- **Phỏm** (N seats): the game ends at the discard after the (4N − 1)-th stock draw; a seat
  eats at most 3 cards (each eaten card sits in its own phỏm of a 9–10 card hand), so there
  are at most 1 + (4N − 1) + 3N = 7N turns of at most 3 actions (draw or eat, show, discard):
  21·N actions.
- **Chắn** (N seats, stock S = 80 − 19(N − 1)): a turn draws a stock card, or eats / chíus,
  which lays down hand cards and discards (the hand loses 2 or more); hands hold 20 + 19(N −
  1) ≤ 20N cards, so at most S + 10N + 1 turns, of at most 5 actions (draw, eat or pass,
  discard, and an out-of-turn chíu offer answered and followed by a discard): 5·(S + 10N + 1).
- **Tứ Sắc** (N seats, stock S = 112 − 21 − 20(N − 1), drawn game at 7 stock cards): likewise
  at most (S − 7) draws plus 10N + 1 turns that shrink a hand by 2 or more, of at most 3
  actions (draw, eat or pass, discard; forced claims are not actions): 3·(S + 10N + 1).

Matches of several rounds:

- **Concan** (bounded by the rules, concan.md Play 7): exactly ``rounds`` rounds; a round
  ends at its 300th turn at the latest (or at the third empty stock), of at most
  ``ACTIONS_PER_TURN`` actions a turn (test_concan_properties.py, where players who only take
  and discard, or only draw and discard, are played too): 14,400 actions a round. The AI's
  rounds are far shorter (the most seen over the seeds below and 40 more is about 130
  actions, 6 seats).
- **Chinchón**: a round may reshuffle the discards into a new stock any number of times, so
  its length is not bounded by the rules; the bound is the AI's: at most 1,000 actions a
  round (the AI takes a card at most once a round — it never takes back its own discard — and
  closes whenever it can; the most seen over 480 matches, all these options, 10 seeds each,
  is 282, 4 seats with close_limit 0) and at most 300 rounds for target 20, 1,500 for target
  500 (the most seen: 137 and 266). With 2 seats and close_limit 0 the totals drift down (a
  −10 closer against one small penalty): those matches end by a chinchón, not by the target,
  after 1 to 137 rounds in the seeds seen.

Budget: the whole file runs in about 20 s on 2 shared cores (Chinchón with target 500 and
Concan with 20 rounds are the slow ones: three seeds each).
"""

from __future__ import annotations


import pytest

from bot.ai.levels import NORMAL
from bot.games import REGISTRY
from bot.games.concan.game import MAX_TURNS
from tests.games.test_concan_properties import ACTIONS_PER_TURN as CONCAN_ACTIONS_PER_TURN


def chan_stock(n: int) -> int:
    return 80 - 19 * (n - 1)


def tusac_stock(n: int) -> int:
    return 112 - 21 - 20 * (n - 1)


def play(game: str, players: int, options: dict, seed: int, per_round: int, max_rounds: int) -> int:
    """Play an AI-only match; fail when a round runs over ``per_round`` actions or the match
    over ``max_rounds`` rounds. Returns the number of actions."""
    choose = NORMAL[game]
    state = REGISTRY[game].new(players, seed=seed, options=options)
    where = f"{game}, {players} seats, {options}, seed {seed}"
    actions = in_round = 0
    round_no = getattr(state, "round", 1)
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, choose(state.view(seat)))
        actions += 1
        in_round += 1
        if getattr(state, "round", 1) != round_no:
            round_no = state.round
            in_round = 0
            assert round_no <= max_rounds, f"{where}: over {max_rounds} rounds"
        assert in_round <= per_round, f"{where}: round {round_no} over {per_round} actions"
    state.outcome().check_balanced()
    return actions


def cases():
    for n in (2, 4):
        for k, seeds in enumerate((range(10), range(10, 20))):
            yield pytest.param("phom", n, {"send": k == 1}, seeds, 21 * n, 1, id=f"phom-{n}-{k}")
        for chiu in ("auto", "ask"):
            for previous_winner in (None, n - 1):
                options = {"chiu": chiu, "previous_winner": previous_winner}
                yield pytest.param("chan", n, options, range(10), 5 * (chan_stock(n) + 10 * n + 1), 1,
                                   id=f"chan-{n}-{chiu}-{previous_winner}")
        for penalty in (True, False):
            yield pytest.param("tusac", n, {"worst_card_penalty": penalty}, range(10),
                               3 * (tusac_stock(n) + 10 * n + 1), 1, id=f"tusac-{n}-{penalty}")
        for close_limit in (0, 10):
            for target in (20, 500):
                for k, deck in enumerate(("french", "spanish40", "spanish48")):
                    options = {"deck": deck, "close_limit": close_limit, "target": target,
                               "lay_off": (k + n + close_limit + target) % 2 == 1}
                    seeds = range(810, 813)  # (an AI that always buys back plays long matches)
                    yield pytest.param("chinchon", n, options, seeds, 1000, 300 if target == 20 else 1500,
                                       id=f"chinchon-{n}-{close_limit}-{target}-{deck}")
    for n in (2, 6):
        for rounds in (1, 20):
            for open_min in (10, 120):  # the lobby's range
                seeds = range(2) if rounds == 20 else range(6)
                yield pytest.param("concan", n, {"rounds": rounds, "open_min": open_min}, seeds,
                                   MAX_TURNS * CONCAN_ACTIONS_PER_TURN, rounds,
                                   id=f"concan-{n}-{rounds}-{open_min}")


@pytest.mark.parametrize("game, players, options, seeds, per_round, max_rounds", list(cases()))
def test_ai_only_matches_end(game, players, options, seeds, per_round, max_rounds):
    for seed in seeds:
        play(game, players, options, seed, per_round, max_rounds)


def test_every_game_and_every_option_is_covered_at_both_ends():
    seen: dict[str, dict[str, set]] = {}
    for param in cases():
        game, players, options, *__ = param.values
        values = seen.setdefault(game, {"players": set()})
        values["players"].add(players)
        for key, value in options.items():
            values.setdefault(key, set()).add(value)
    assert set(seen) == set(REGISTRY)
    for game, values in seen.items():
        spec = REGISTRY[game]
        assert {spec.min_players, spec.max_players} <= values["players"], game
        assert set(values) == {"players", *spec.default_options}, game
        assert all(len(v) >= 2 for v in values.values()), (game, values)
