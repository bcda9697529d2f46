"""The turn questions of a table (bot/tables/turns.py), answered from its state alone: when its
clock acts, who the AI plays for, whether a match is paused between two rounds."""

from __future__ import annotations

from types import SimpleNamespace

from bot.tables import turns
from bot.tables.adapter import GameUI
from bot.tables.model import Seat, Table

NOW = 1_000.0


class Deciding(GameUI):
    """A game whose seats to act are deciding between two rounds (a buy-back)."""

    def deciding(self, view: dict) -> bool:
        return True


def table(*seats: Seat, to_act: list[int], over: bool = False, **fields) -> Table:
    state = SimpleNamespace(to_act=to_act, is_over=over, view=lambda seat: {})
    return Table(id=1, guild_id=1, channel_id=1, game="phom", options={"turn_seconds": 30, "seats": 4}, host_id=7,
                 status="playing", seats=list(seats), state=state, **fields)


LAN, MINH, AI = Seat(7, "Lan"), Seat(8, "Minh"), Seat(None, "AI 1")


def shown(*seats: int):
    return lambda _table, seat: seat in seats


def test_a_persons_clock_runs_to_his_deadline_once_he_was_shown_his_hand():
    playing = table(LAN, AI, to_act=[0], deadline=NOW + 12)
    assert turns.clock_due(playing, GameUI(), shown(0), NOW) == NOW + 12
    assert turns.clock_due(playing, GameUI(), shown(), NOW) is None, "never before he sees it"
    assert turns.clock_due(table(LAN, AI, to_act=[1]), GameUI(), shown(0), NOW) is None, \
        "an AI seat to act: no clock (the AI moves)"
    assert turns.clock_due(table(LAN, AI, to_act=[0], over=True), GameUI(), shown(0), NOW) is None


def test_between_two_rounds_the_clock_waits_for_the_pause_unless_someone_decides():
    pause = table(LAN, MINH, to_act=[0], pause_until=NOW + 20, deadline=NOW + 5)
    assert turns.paused(pause, GameUI())
    assert turns.clock_due(pause, GameUI(), shown(0, 1), NOW) == NOW + 20
    assert not turns.paused(pause, Deciding())
    assert turns.clock_due(pause, Deciding(), shown(0, 1), NOW) == NOW + 5, "a decision has its own deadline"


def test_the_ai_plays_an_ai_seat_and_a_person_who_is_away():
    away = Seat(8, "Minh", away=True)
    assert turns.auto_seat(table(LAN, AI, to_act=[1])) == 1
    assert turns.auto_seat(table(LAN, away, to_act=[0, 1])) == 1
    assert turns.auto_seat(table(LAN, MINH, to_act=[0, 1])) is None
    assert turns.people_to_act(table(LAN, away, AI, to_act=[0, 1, 2])) == {0}
    assert turns.ai_move_imminent(table(LAN, AI, to_act=[1]), GameUI())
    assert not turns.ai_move_imminent(table(LAN, AI, to_act=[1], pause_until=NOW), GameUI())


def test_a_turn_runs_the_tables_seconds_and_none_once_the_game_is_over():
    assert turns.turn_deadline(table(LAN, AI, to_act=[0]), NOW) == NOW + 30
    assert turns.turn_deadline(table(LAN, AI, to_act=[], over=True), NOW) is None
