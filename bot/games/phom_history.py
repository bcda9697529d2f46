"""Phỏm's public table replayed from a view's ``history`` (issue #28).

``public(view) -> PhomState | None``: the table's public side after every move of the view's
history (``PhomState.public_history``): each eat's payment (an ăn chốt pays 4), each seat's
last discard (the tie-break of equal points at the end) and the last-round eats (ù đền), as
played. None without a history, or when the replay does not end at the view's table.
The strong AI's worlds take their record from it (``phom_sample``): the view alone does not
say when an eat happened, so a world used to estimate them.
"""

from __future__ import annotations

from typing import Any

from .phom import PhomState
from .phom_melds import canon_meld, meld_key


def _scratch(view: dict[str, Any]) -> PhomState:
    """A state holding only the public table at the deal (no hands)."""
    n = view["num_players"]
    st = PhomState.__new__(PhomState)
    st.num_players = n
    st.options = {"send": True} if view.get("send") else {}
    st.hands = [set() for _ in range(n)]
    st.unshown_eaten = [set() for _ in range(n)]
    st.eaten = [[] for _ in range(n)]
    st.shown = [[] for _ in range(n)]
    st.sent = [[] for _ in range(n)]
    st.sends = [0] * n
    st.discards = [[] for _ in range(n)]
    st.draws = 0
    st.phase, st.current, st.turn_last = "discard", 0, False
    st.active, st.drawn = None, None
    st.transfers, st.eat_counts, st.last_round_victims = [], {}, []
    st.last_discard = [-1] * n
    return st


def _advance(st: PhomState, i: int, seat: int, text: str) -> None:
    """The public effect of move ``i`` (as ``PhomState.apply`` has it)."""
    n = st.num_players
    verb, _, rest = text.partition(" ")
    if verb in ("draw", "eat"):
        if verb == "draw":
            st.draws += 1
        else:
            st.settle_eat(seat, rest)
        st.active = None
        st.phase = "show" if st.turn_last else "discard"
    elif verb == "show":
        melds = sorted((canon_meld(part.split()) for part in rest.split("|") if part.strip()), key=meld_key)
        st.shown[seat].extend(melds)
        st.sent[seat].extend([] for _ in melds)
        st.phase = "discard"
    elif verb == "send":
        card, where = rest.split()
        target, k = (int(x) for x in where.split(":"))
        st.shown[target][k - 1] = canon_meld(st.shown[target][k - 1] + [card])
        st.sent[target][k - 1].append([card, seat])
        st.sends[seat] += 1
    elif verb == "discard":
        st.discards[seat].append(rest)
        st.last_discard[seat] = i
        st.active = rest
        st.current = (seat + 1) % n
        st.phase = "draw"
        st.turn_last = st.draws >= 3 * n - 1


def _agrees(st: PhomState, view: dict[str, Any]) -> bool:
    """Whether the replayed public table is the view's (else the history is not understood)."""
    return (st.discards == view["discards"] and st.eaten == view["eaten"] and st.shown == view["shown"]
            and st.draws == view["draws"] and st.current == view["current"] and st.phase == view["phase"]
            and (st.active if st.phase == "draw" else None) == view["active"])


def public(view: dict[str, Any]) -> PhomState | None:
    """The public table replayed from the view's history (None without one, or if it does
    not end at the view's table)."""
    history = view.get("history")
    if history is None:
        return None
    st = _scratch(view)
    for i, (seat, text) in enumerate(history):
        _advance(st, i, seat, text)
    return st if _agrees(st, view) else None


__all__ = ["public"]
