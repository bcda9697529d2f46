"""Lean views for the strong AI's rollouts (issue #28).

A rollout asks the normal AI for every move of every seat, and a full ``state.view(seat)``
computes much that the AI never reads (Concan's best opening and grouping, Chinchón's
arrangement and past rounds, Phỏm's arrangement and locked cards): more than half of a
rollout's time. ``lean_view(state, seat)`` holds only the keys the game's normal AI reads,
with the same values as the full view (``tests/engine/test_strong_ai.py`` checks that the
normal AI chooses the same from both). Lists are the state's own where the AI only reads
them: a lean view is used at once and dropped.
"""

from __future__ import annotations

from typing import Any, Callable

from .french import sort_key


def _phom(state: Any, seat: int) -> dict[str, Any]:
    return {"seat": seat, "num_players": state.num_players, "to_act": list(state.to_act), "phase": state.phase,
            "draws": state.draws, "last_round": state.turn_last,
            "active": state.active if state.phase == "draw" else None, "discards": state.discards,
            "eaten": state.eaten, "shown": state.shown, "hand": sorted(state.hands[seat], key=sort_key),
            "legal": state.legal_actions(seat)}


def _chinchon(state: Any, seat: int) -> dict[str, Any]:
    playing = state.phase == "play"
    return {"seat": seat, "num_players": state.num_players, "options": state.options, "phase": state.phase,
            "step": state.step if playing else None, "current": state.current, "to_act": list(state.to_act),
            "in_match": state.in_match, "legal": state.legal_actions(seat),
            "hand": state.pk.sorted(state.hands[seat]) if playing else [],
            "pile": state.pile if playing else [], "seen": state.pk.sorted(state.seen) if playing else [],
            "discarded": [state.pk.sorted(d) for d in state.discarded] if playing else [[]] * state.num_players,
            "reshuffles": state.reshuffles, "can_close": state.close_cards(seat) if playing else []}


def _concan(state: Any, seat: int) -> dict[str, Any]:
    return {"seat": seat, "num_players": state.num_players, "to_act": list(state.to_act), "step": state.step,
            "opened": state.opened_flags, "hand": state.hand(seat), "melds": state.melds,
            "top_discard": state.top_discard, "legal": state.legal_actions(seat)}


LEAN_VIEWS: dict[str, Callable[[Any, int], dict[str, Any]]] = {"phom": _phom, "chinchon": _chinchon,
                                                               "concan": _concan}


def lean_view(state: Any, seat: int) -> dict[str, Any]:
    """What the game's normal AI reads of ``state.view(seat)`` (the full view for a game
    without a lean one)."""
    make = LEAN_VIEWS.get(state.name)
    return make(state, seat) if make else state.view(seat)


__all__ = ["LEAN_VIEWS", "lean_view"]
