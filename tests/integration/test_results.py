"""A finished game's result through Discord: its picture ranked with the winner marked and
every amount in the ledger's chips; a match's final picture with its totals, every round's
points and the pot."""

from __future__ import annotations

import pytest

import bot.tables.results as results
from bot import i18n
from bot.tables.messages import chips
from tests.support.simhelpers import ledger_rows, let_the_clock_play, play_channel, start_table, table_of


@pytest.fixture
def pictures(monkeypatch):
    """(title, rows) of every round or result picture the bot draws."""
    drawn: list[tuple[str, list]] = []
    original = results.render_rows_async

    async def spy(rows, *, title="", deck="french"):
        drawn.append((title, list(rows)))
        return await original(rows, title=title, deck=deck)

    monkeypatch.setattr(results, "render_rows_async", spy)
    return drawn


def result_rows(pictures) -> list:
    (rows,) = [rows for title, rows in pictures if " · game " in title]  # not a round's
    return rows


async def ledger_ranked(env, game_id: int) -> list:
    return sorted(await ledger_rows(env, game_id), key=lambda r: (r["rank"], r["seat"]))


async def test_a_phom_result_is_ranked_marks_its_winner_and_counts_the_ledgers_chips(simcord_env, pictures):
    env = simcord_env
    players = await start_table(env, "phom", 1, 3, stake=10, turn_seconds=60)
    table = table_of(env)
    game_id = table.game_id
    await let_the_clock_play(players, turns=10)

    ledger = await ledger_ranked(env, game_id)
    rows = result_rows(pictures)
    assert len(rows) == len(ledger) == 4
    for row, entry in zip(rows, ledger):
        label, _groups, caption = row[:3]
        assert label.startswith(f"{entry['rank']}. {entry['name']}"), (label, dict(entry))
        assert label.endswith(" — wins") == bool(entry["won"])
        assert caption.endswith(chips(entry["chips"], signed=True)), (caption, entry["chips"])
        assert "stake" not in caption
    assert rows[0][0] == f"1. {ledger[0]['name']} — wins"

    result = play_channel(players).last_message
    ranking = result.embeds[0].fields[0].value.splitlines()
    assert [line.split(" · ")[-1] for line in ranking] == [f"**{chips(e['chips'], signed=True)}**" for e in ledger]
    assert result.attachments[0].filename == "result.png"


async def test_a_concan_sets_final_picture_shows_every_round_the_pot_and_the_winner(simcord_env, pictures):
    env = simcord_env
    players = await start_table(env, "concan", 1, 2, stake=10, rounds=2, turn_seconds=30)
    table = table_of(env)
    game_id = table.game_id
    await let_the_clock_play(players, turns=300)

    rounds = table.state.view(None)["round_results"]
    assert len(rounds) == 2
    ledger = await ledger_ranked(env, game_id)
    winners = [e for e in ledger if e["won"]]
    rows = result_rows(pictures)
    assert len(rows) == len(ledger) == 3
    for row, entry in zip(rows, ledger):
        label, _groups, caption = row[:3]
        seat = entry["seat"]
        assert label.startswith(f"{entry['rank']}. {entry['name']}"), (label, dict(entry))
        assert label.endswith(" — wins") == bool(entry["won"])
        points = ", ".join(i18n.number(result["points"][seat], signed=True) for result in rounds)
        assert f"rounds: {points}" in caption, caption  # each round's totals are in its own picture
        money = caption.splitlines()[0]  # first, what decides the game
        assert money.startswith(f"total {i18n.number(table.state.totals[seat])} · "), caption
        assert money.endswith(chips(entry["chips"], signed=True)), (caption, entry["chips"])
        pot = ("takes the pot of 30 chips" if len(winners) == 1 else "shares the pot of 30 chips")
        assert (pot in caption) == bool(entry["won"]), caption
    assert rows[0][0].endswith(" — wins")
