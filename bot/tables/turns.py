"""The turn questions of a table, answered from its state alone: whose turn it is, whether the
game is paused between two rounds, who the AI plays for, when the table's clock must act.
Pure: no Discord, no database, no clock of its own (the time is given)."""

from __future__ import annotations

from typing import Callable

from .adapter import GameUI
from .model import Table


def between_rounds(table: Table) -> bool:
    """A match is between two rounds: the last round's result is up, the next waits."""
    return table.pause_until is not None


def deciding(table: Table, ui: GameUI) -> bool:
    """Someone must decide before the next round (a buy-back): the game waits for him."""
    state = table.state
    return state is not None and not state.is_over and bool(state.to_act) and ui.deciding(state.view(None))


def paused(table: Table, ui: GameUI) -> bool:
    """Between two rounds with nothing to decide: nobody plays until the pause ends."""
    return between_rounds(table) and not deciding(table, ui)


def acting(table: Table, seat: int) -> bool:
    """The seat is one of those to act in the game in play."""
    state = table.state
    return state is not None and not state.is_over and seat in state.to_act


def people_to_act(table: Table) -> set[int]:
    """The seats to act that a person plays himself (not an AI seat, nobody away)."""
    state = table.state
    if state is None or state.is_over:
        return set()
    return {seat for seat in state.to_act if not table.seats[seat].auto}


def auto_seat(table: Table) -> int | None:
    """The first seat to act that the AI plays (an AI seat, or a person who is away)."""
    state = table.state
    if state is None or state.is_over:
        return None
    return next((seat for seat in state.to_act if table.seats[seat].auto), None)


def ai_move_imminent(table: Table, ui: GameUI) -> bool:
    """An AI seat moves next (the picture of the table is about to change again)."""
    return not paused(table, ui) and auto_seat(table) is not None


def humans_in_match(table: Table) -> list[int]:
    """The people still in the match (a match of several rounds drops those who went out)."""
    in_match = getattr(table.state, "in_match", None) or [True] * len(table.seats)
    return [seat for seat, player in enumerate(table.seats) if not player.is_ai and in_match[seat]]


def turn_deadline(table: Table, now: float) -> float | None:
    """When a turn starting at ``now`` runs out: the table's seconds a move later (None: over)."""
    return None if table.state is not None and table.state.is_over else now + table.turn_seconds


def clock_due(table: Table, ui: GameUI, can_see_hand: Callable[[Table, int], bool], now: float) -> float | None:
    """When the table's clock must act next (a person's time running out, the end of the pause
    between two rounds); None when there is nothing to time. Nobody's time runs before he was
    shown his hand (``can_see_hand``)."""
    state = table.state
    if state is None or state.is_over or table.status != "playing":
        return None
    if paused(table, ui):
        return table.pause_until
    if state.to_act and not any(table.seats[s].auto for s in state.to_act):
        if not all(can_see_hand(table, s) for s in state.to_act):
            return None  # nobody plays for a person who was never shown his hand
        return table.deadline or now
    return None


def round_in_hand(table: Table, ui: GameUI) -> int | None:
    """The round a hand message shows in a match (between two rounds: the one that ended);
    None for a game of one round."""
    if not ui.game.multi_round:
        return None
    return table.rounds_done() + (0 if between_rounds(table) else 1)
