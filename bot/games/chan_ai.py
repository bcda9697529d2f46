"""Chắn AI: fast, always legal, sensible.

- Discards the card that leaves the fewest trash (then the most chắn, then the most cạ),
  preferring a discard that keeps it one card from ù, and keeping red cards.
- Eats a chắn whenever allowed; eats a cạ when that lowers the hand's trash.
- Chíus by the table's auto rule (chan.md), on its own turn as well.
"""

from __future__ import annotations

from .base import ai_chooser, copy_token
from .chan import ChanState
from .chan_count import tally, tally_count, tally_minus, tally_waits
from .tosom import KIND_INDEX, is_red


def _discard_key(t_hand: tuple[int, ...], t_all: tuple[int, ...], kind: str):
    c = tally_count(tally_minus(t_hand, kind))
    waits = bool(tally_waits(tally_minus(t_all, kind))) if c.trash <= 1 else False
    return (not waits, c.trash, -c.chan, -c.ca, is_red(kind), -KIND_INDEX[kind])


def best_discard(state: ChanState, seat: int, legal: list[str]) -> str:
    t_hand = tally(state.hands[seat])
    t_all = tally(state.all_cards(seat))
    kinds = [a.split()[1] for a in legal if a.startswith("discard ")]
    return "discard " + min(kinds, key=lambda k: _discard_key(t_hand, t_all, k))


def _after_eat_trash(state: ChanState, seat: int, partner: str) -> tuple[int, int]:
    """(trash, -chan) of the hand after eating with ``partner`` and the best discard."""
    t = tally_minus(tally(state.hands[seat]), partner)
    best = None
    for i, k in enumerate(t):
        if k:
            c = tally_count(t[:i] + (k - 1,) + t[i + 1:])
            key = (c.trash, -c.chan)
            if best is None or key < best:
                best = key
    return best if best is not None else (99, 0)


@ai_chooser
def choose(state: ChanState, seat: int, legal: list[str]) -> str:
    phase = state.phase
    if phase == "offer":
        return "chiu" if state.chiu_advice(seat) else "pass"
    if phase in ("open", "discard"):
        return best_discard(state, seat, legal)
    if "chiu" in legal and state.chiu_advice(seat):
        return "chiu"
    active = state.active
    eats = [a.split()[1] for a in legal if a.startswith("eat ")]
    if active in eats:
        return "eat " + active  # keep chắn
    now = tally_count(tally(state.hands[seat]))
    best = None
    for partner in eats:
        key = _after_eat_trash(state, seat, partner)
        if key[0] < now.trash - 1 and (best is None or key < best[0]):
            best = (key, partner)
    if best is not None:
        return "eat " + best[1]
    return "draw" if "draw" in legal else "pass"


def quick_select(state: ChanState, seat: int) -> list[str]:
    """Tokens: a certainly legal discard, or the hand cards that may legally eat the active card."""
    if seat not in state.to_act:
        return []
    legal = state.legal_actions(seat)
    if state.phase in ("open", "discard") and legal and legal[0].startswith("discard "):
        return [copy_token(best_discard(state, seat, legal).split()[1])]
    if state.phase in ("turn", "drawn"):
        return [copy_token(a.split()[1]) for a in legal if a.startswith("eat ")]
    return []

