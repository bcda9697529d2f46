"""The result picture of every game, from seeded finished games: its rows ranked (the winner
first, marked), each seat's amount in chips exactly as the ledger records it, and a match's
final picture with every round's totals, the pot and the winner."""

from __future__ import annotations

import random
import re

import pytest

from bot import i18n, ledger
from bot.ai.levels import normal
from bot.i18n import number
from bot.tables.adapter import chips, round_points
from bot.tables.messages import result_embed
from tests.support.picture_games import table_of
from tests.tables.test_summaries import UIS, played_events

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
        state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(state.legal_actions(seat)))
    return ui, state


def ledger_chips(outcome, ga_stake: int) -> list[int]:
    """What the ledger records for each seat (bot/tables/ending.py before the ledger computed them)."""
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
    settlement = ledger.settlement(outcome, stake=STAKE, ga_stake=ga_stake)
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
def test_a_matchs_final_picture_shows_the_last_hands_the_chips_the_total_the_pot_and_the_winner(game, players, seed):
    ui, state = finished(game, players, seed, MATCHES[game])
    names = NAMES[:players]
    outcome = state.outcome()
    settlement = ledger.settlement(outcome, stake=STAKE)
    assert settlement.pot == sum(outcome.pot) * STAKE
    view = state.view(None)
    with i18n.language("en"):
        rows = ui.result_rows(view, names, settlement)
    rounds = view["round_results"]
    assert len(rounds) >= 2, "a seeded match of one round tests less than it says"
    for label, groups, caption in rows:
        seat = seat_of(label, names)
        # the cards the seat was left with in the last round it played (a seat out of a Chinchón
        # match plays no more); each round's points are in that round's picture
        last = next(r for r in reversed(rounds) if r["points"][seat] is not None)["hands"][seat]
        cards = last["cards"] if game == "concan" else [c for m in last["melds"] for c in m] + list(last["unmatched"])
        assert [card for group in groups for card in group] == list(cards)
        assert "rounds:" not in caption and "\n" not in caption, caption
        # the chips first (a picture too narrow for every fact keeps them), then the total
        money = f"{chips(settlement.chips[seat], signed=True)} · total {number(state.totals[seat])}"
        assert caption.startswith(money), caption
        pot = f"the pot of {chips(settlement.pot)}"
        assert (pot in caption) == (seat in outcome.winners), caption
        assert label.endswith(" — wins") == (seat in outcome.winners)


def bought_back_at(rounds: list[dict], index: int, seat: int) -> str:
    """`` (bought back in at 75)`` where a buy-back reset the seat's total in that round."""
    before = rounds[index - 1]["totals"][seat] if index else 0
    total = rounds[index]["totals"][seat]
    return "" if before + rounds[index]["points"][seat] == total else f" (bought back in at {number(total)})"


def test_a_round_line_after_a_buy_back_says_where_the_total_was_reset():
    """"round 2: +37, total 10" does not add up: the line says the total reached and the one
    bought back in at, in the round's text and picture."""
    ui, state = finished("chinchon", 3, 2, MATCHES["chinchon"])
    view, names = state.view(None), NAMES[:3]
    rounds = view["round_results"]
    resets = [(k, seat) for k in range(len(rounds)) for seat in range(3)
              if rounds[k]["points"][seat] is not None and bought_back_at(rounds, k, seat)]
    assert resets, "the seeded match has a buy-back"
    with i18n.language("en"):
        for k, seat in resets:
            result = rounds[k]
            points, total = number(result["points"][seat], signed=True), number(result["totals"][seat])
            reached = number((rounds[k - 1]["totals"][seat] if k else 0) + result["points"][seat])
            line = round_points(rounds, k, seat)
            assert line == f"round {k + 1}: {points}, total {reached}, bought back in at {total}", line
            embed_line = next(text for text in ui.round_lines(view, names, k) if f"**{names[seat]}**" in text)
            assert f"{points} → {reached}, bought back in at {total}" in embed_line, embed_line
            (caption,) = [row[2] for row in ui.round_rows(view, names, k) if row[0] == names[seat]]
            assert f"{points} → {reached}, bought back in at {total}" in caption, caption
        # every other round line adds up
        for k, result in enumerate(rounds):
            for seat in range(3):
                if result["points"][seat] is not None and (k, seat) not in resets:
                    assert round_points(rounds, k, seat) == "round {}: {}, total {}".format(
                        k + 1, number(result["points"][seat], signed=True), number(result["totals"][seat]))


#: an amount paid, as a result tells it: it must be in chips ("owes 420 chips", not "owes 42")
PAID = re.compile(r"(?:\bowes?|\bpays?|\bpot of|→ [^:\n]+:)\s+\**([−+-]?\d[\d.,]*)\**(?!\d)( chips?)?")


@pytest.mark.parametrize("game", sorted(UIS))
def test_a_result_tells_every_amount_in_chips(game):
    """The embed, the picture and the table's log tell a result in one unit, chips: Tứ Sắc's
    "each loser owes 42" (stake units) beside payments of 420 chips said two things."""
    told = 0
    for seed in (1, 2, 3, 4):
        ui, state, events = played_events(game, 3, seed)
        table = table_of(game, 3)
        table.options["stake"] = STAKE
        outcome, names = state.outcome(), table.names()
        with i18n.language("en"):
            paid = ledger.settlement(outcome, stake=table.stake, ga_stake=table.ga_stake)
            embed = result_embed(table, ui, outcome, names, paid)
            rows = ui.result_rows(state.view(None), table.raw_names(), paid)
            log = [ui.bind(table.options).event_text(event, names) for event in events if event.kind == "end"]
        texts = [embed.description or ""] + [field.value for field in embed.fields] + [row[2] for row in rows] + log
        for text in texts:
            for match in PAID.finditer(text):
                told += 1
                assert match.group(2), (match.group(0), text)
        if game == "tusac" and outcome.transfers and not outcome.is_draw:
            payment = state.view(None)["outcome"].get("payment")
            if payment:
                assert f"each loser owes {chips(payment * STAKE)}" in embed.description, embed.description
                assert any(f"each loser owes {chips(payment * STAKE)}" in line for line in log), log
    assert told, "no amount paid was told"
