"""Seeded AI games of every game and the pictures they show (tables, rounds, results), for the
picture tests."""

from __future__ import annotations

from bot import ledger
from bot.ai.levels import normal
from bot.tables.model import Seat, Table
from cogs.chan import ChanUI
from cogs.chinchon import ChinchonUI
from cogs.concan import ConcanUI
from cogs.phom import PhomUI
from cogs.tusac import TuSacUI
from rendering.table import rows_image
from rendering.table_picture import table_picture_image

UIS = {"phom": PhomUI, "chan": ChanUI, "tusac": TuSacUI, "chinchon": ChinchonUI, "concan": ConcanUI}
OPTIONS = {"chinchon": {"target": 30}, "concan": {"rounds": 3},  # short matches: a few rounds
           "phom": {"send": True}}  # gửi: sent cards on the phỏm (and in the results)
NAMES = ["Lan", "🤖 AI 1", "Nguyễn Đức", "Hòa 🌸", "محمد", "李小龍"]
CASES = [(game, players) for game, ui in UIS.items() for players in (2, 4, 6)
         if ui.game.min_players <= players <= ui.game.max_players]


def table_of(game: str, players: int) -> Table:
    seats = [Seat(None if "AI" in name else 100 + i, name, away=i == 2) for i, name in enumerate(NAMES[:players])]
    return Table(id=42, guild_id=1, channel_id=1, game=game, options={}, host_id=100, status="playing", seats=seats)


def pictures_of_a_game(game: str, players: int, seed: int = 3):
    """("table"/"round"/"result", PIL image) for a seeded AI game: the table at its start, at
    a few points, and at its end; each round's picture; the result's."""
    ui, table = UIS[game](), table_of(game, players)
    options = ui.engine_options(ui.table_options(OPTIONS.get(game, {}), stake=1))
    state = ui.game.new(players, seed=seed, options=options)
    names = raw = table.picture_names()  # as the bot passes them
    views = []
    for move in range(20000):
        if state.is_over:
            break
        if move % 17 == 0:
            views.append(state.view(None))
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)))
    assert state.is_over
    final = state.view(None)
    for view in views[:: max(1, len(views) // 6)] + [views[-1]]:
        yield "table", table_picture_image(ui.table_picture(view, names, table))
    if "round_results" in final:
        for index in range(len(final["round_results"])):
            yield "round", rows_image(ui.round_rows(final, raw, index), title="Concan · table #42 · round 1",
                                      deck=ui.deck)
    paid = ledger.settlement(state.outcome(), stake=table.stake)
    yield "result", rows_image(ui.result_rows(final, raw, paid), title=f"{ui.game.title} · table #42 · game 1",
                               deck=ui.deck)
