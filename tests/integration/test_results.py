"""A finished game's result through Discord: its picture ranked with the winner marked and
every amount in the ledger's chips; a match's final picture with its totals, every round's
points and the pot."""

from __future__ import annotations

import pytest

import bot.tables.results as results
from bot import i18n
from bot.tables.messages import chips
from tests.support.simhelpers import Players, ledger_rows, let_the_clock_play, play_channel, start_table, table_of


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
        # the chips first: a picture too narrow for every fact keeps them
        assert caption.startswith(chips(entry["chips"], signed=True) + " · "), (caption, entry["chips"])
        assert "stake" not in caption
    assert rows[0][0] == f"1. {ledger[0]['name']} — wins"

    result = play_channel(players).last_message
    ranking = result.embeds[0].fields[0].value.splitlines()
    assert [line.split(" · ")[-1] for line in ranking] == [f"**{chips(e['chips'], signed=True)}**" for e in ledger]
    assert result.attachments[0].filename == "result.png"


async def test_a_concan_sets_final_picture_shows_the_last_hands_the_pot_and_the_winner(simcord_env, pictures):
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
        label, groups, caption = row[:3]
        seat = entry["seat"]
        assert label.startswith(f"{entry['rank']}. {entry['name']}"), (label, dict(entry))
        assert label.endswith(" — wins") == bool(entry["won"])
        # the cards the last round left the seat with (each round's totals are in its own picture)
        assert [card for group in groups for card in group] == list(rounds[-1]["hands"][seat]["cards"])
        assert "rounds:" not in caption and "\n" not in caption, caption
        # the chips first: a picture too narrow for every fact keeps them
        assert caption.startswith(chips(entry["chips"], signed=True) + " · "), (caption, entry["chips"])
        assert f" · total {i18n.number(table.state.totals[seat])}" in caption, caption
        pot = ("takes the pot of 30 chips" if len(winners) == 1 else "shares the pot of 30 chips")
        assert (pot in caption) == bool(entry["won"]), caption
    assert rows[0][0].endswith(" — wins")


async def test_history_numbers_the_table_and_its_game(simcord_env):
    """"Chắn #3" for table #2: /history names the table and the game's number at it, the
    numbers the table's messages showed, not the database's id of the game."""
    env = simcord_env
    elsewhere = Players(env, 1)  # table #1: a lobby cancelled, no game
    await elsewhere.members[0].slash(elsewhere.channel, "phom new")
    await elsewhere.members[0].click(elsewhere.channel.last_message, label="Cancel")
    players = await start_table(env, "phom", 1, 1, turn_seconds=30)
    table = table_of(env)
    assert (table.id, table.game_id) == (2, 1)
    await let_the_clock_play(players, turns=200)
    history = await players.members[0].slash(players.channel, "history")
    assert "Phỏm · table #2 · game 1" in history.response.embeds[0].description
    assert "Phỏm #1" not in history.response.embeds[0].description
