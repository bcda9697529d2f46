"""The result picture of every game, from seeded finished games: its rows ranked (the winner
first, marked), each seat's amount in chips exactly as the ledger records it, and a match's
final picture with every round's totals, the pot and the winner."""

from __future__ import annotations

import random

import pytest

from bot import i18n
from bot.i18n import number
from bot.tables.adapter import Settlement, chips
from tests.unit.test_summaries import UIS, played_events

NAMES = ["Lan", "Minh", "Đức", "Hòa 🌸"]
STAKE, GA_STAKE = 7, 3
CASES = [(game, players, seed) for game in UIS for players in (2, 3, 4) for seed in (1, 2, 3)]


def finished(game: str, players: int, seed: int, options: dict | None = None):
    """A seeded game played to its end (the AI half the moves, chance the rest), or
    :func:`played_events`' short one."""
    if options is None:
        return played_events(game, players, seed)[:2]
    ui = UIS[game]()
    rng = random.Random(seed)
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(options, stake=1)))
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, ui.ai_action(state, seat) if rng.random() < 0.5 else rng.choice(state.legal_actions(seat)))
    return ui, state


def ledger_chips(outcome, ga_stake: int) -> list[int]:
    """What the ledger records for each seat (bot/tables/ending.py before Settlement existed)."""
    won = outcome.chips(STAKE)
    return [won[r.seat] + r.ga * ga_stake for r in sorted(outcome.results, key=lambda r: r.seat)]


def seat_of(label: str, names: list[str]) -> int:
    (seat,) = [s for s, name in enumerate(names) if f". {name}" in label]
    return seat


@pytest.mark.parametrize("game,players,seed", CASES)
def test_result_rows_are_ranked_mark_the_winner_and_count_in_the_ledgers_chips(game, players, seed):
    ui, state = finished(game, players, seed)
    names = NAMES[:players]
    outcome = state.outcome()
    ga_stake = GA_STAKE if game == "chan" else 0
    settlement = Settlement.of(outcome, stake=STAKE, ga_stake=ga_stake)
    assert list(settlement.chips) == ledger_chips(outcome, ga_stake) and sum(settlement.chips) == 0
    view = state.view(None)
    with i18n.language("en"):
        rows = ui.result_rows(view, names, settlement)
    assert len(rows) == players
    ranked = sorted(outcome.results, key=lambda r: (r.rank, r.seat))
    winners = set(outcome.winners)
    for row, result in zip(rows, ranked):
        label, _groups, caption = row[:3]
        assert seat_of(label, names) == result.seat, (label, result)
        assert label.startswith(f"{result.rank}. {names[result.seat]}"), label
        marked = label.endswith(" — wins") or label.endswith(" — ù")
        assert marked == (result.seat in winners), (label, winners)
        assert chips(settlement.chips[result.seat], signed=True) in caption, caption
        assert "stake" not in caption, caption
    if winners:
        assert rows[0][0].startswith("1. ") and seat_of(rows[0][0], names) in winners


MATCHES = {"chinchon": {"target": 60}, "concan": {"rounds": 3}}  # matches of several rounds


@pytest.mark.parametrize("game", sorted(MATCHES))
@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_a_matchs_final_picture_shows_every_rounds_totals_the_pot_and_the_winner(game, players, seed):
    ui, state = finished(game, players, seed, MATCHES[game])
    names = NAMES[:players]
    outcome = state.outcome()
    settlement = Settlement.of(outcome, stake=STAKE)
    assert settlement.pot == sum(outcome.pot) * STAKE
    view = state.view(None)
    with i18n.language("en"):
        rows = ui.result_rows(view, names, settlement)
    rounds = view["round_results"]
    assert len(rounds) >= 2, "a seeded match of one round tests less than it says"
    for label, _groups, caption in rows:
        seat = seat_of(label, names)
        for k, result in enumerate(rounds, 1):
            if result["points"][seat] is not None:  # a seat out of a Chinchón match plays no more rounds
                points, total = number(result["points"][seat], signed=True), number(result["totals"][seat])
                assert f"round {k}: {points}, total {total}" in caption, (k, caption)
        assert f"total {number(state.totals[seat])}" in caption
        pot = f"the pot of {chips(settlement.pot)}"
        assert (pot in caption) == (seat in outcome.winners), caption
        assert label.endswith(" — wins") == (seat in outcome.winners)
