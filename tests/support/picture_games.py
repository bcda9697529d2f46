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
NAMES = ["Lan", "🤖 AI 1", "Nguyễn Thị Minh Khai", "Hòa 🌸", "محمد", "李小龍"]
CASES = [(game, players) for game, ui in UIS.items() for players in (2, 4, 6)
         if ui.game.min_players <= players <= ui.game.max_players]


def table_of(game: str, players: int) -> Table:
    seats = [Seat(None if "AI" in name else 100 + i, name, away=i == 2) for i, name in enumerate(NAMES[:players])]
    return Table(id=42, guild_id=1, channel_id=1, game=game, options={}, host_id=100, status="playing", seats=seats)


def pictures_of_a_game(game: str, players: int, seed: int = 3):
    """("table"/"round"/"result", PIL image) for a seeded AI game: the table at its start, at
    a few points, and at its end; each round's picture; the result's."""
    for kind, _when, draw in seeded_pictures(game, players, seed):
        yield kind, draw()


def seeded_pictures(game: str, players: int, seed: int = 3):
    """(kind, when, draw) for a seeded AI game, ``draw()`` making its PIL image: "table" at its
    start ("early"), at a few points ("move 17"...), between two rounds ("pause") and at its last
    move ("late"); "round" (each round's picture) and "result"."""
    ui, table = UIS[game](), table_of(game, players)
    options = ui.engine_options(ui.table_options(OPTIONS.get(game, {}), stake=1))
    state = ui.game.new(players, seed=seed, options=options)
    names = raw = table.picture_names()  # as the bot passes them
    views, pause, rounds = [], None, 0
    for move in range(20000):
        if state.is_over:
            break
        view = state.view(None)
        if len(view.get("round_results") or ()) > rounds and pause is None:
            pause = dict(view, between_rounds=True)
        rounds = len(view.get("round_results") or ())
        if move % 17 == 0:
            views.append((f"move {move}", view))
        last = view
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)))
    assert state.is_over
    final = state.view(None)
    shown = [("early", views[0][1])] + views[1:-1][:: max(1, len(views) // 6)] + [("late", last)]
    shown += [("pause", pause)] if pause is not None else []
    for when, view in shown:
        yield "table", when, lambda view=view: table_picture_image(ui.table_picture(view, names, table))
    if "round_results" in final:
        for index in range(len(final["round_results"])):
            yield "round", f"round {index + 1}", lambda index=index: rows_image(
                ui.round_rows(final, raw, index), title="Concan · table #42 · round 1", deck=ui.deck)
    paid = ledger.settlement(state.outcome(), stake=table.stake)
    yield "result", "end", lambda: rows_image(ui.result_rows(final, raw, paid),
                                              title=f"{ui.game.title} · table #42 · game 1", deck=ui.deck)


def result_rows_of_a_game(game: str, players: int, seed: int = 3):
    """The result rows (label, groups, caption...) of a seeded AI game."""
    ui, table = UIS[game](), table_of(game, players)
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(OPTIONS.get(game, {}),
                                                                                        stake=1)))
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)))
    paid = ledger.settlement(state.outcome(), stake=table.stake)
    return ui.result_rows(state.view(None), table.picture_names(), paid)
