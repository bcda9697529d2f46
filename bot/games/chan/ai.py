"""Chắn AI: fast, always legal, sensible.

- Discards the card that leaves the fewest trash (then the most chắn, then the most cạ),
  preferring a discard that keeps it one card from ù, and keeping red cards.
- Eats a chắn whenever allowed; eats a cạ when that lowers the hand's trash.
- Chíus by the table's auto rule (chan.md), on its own turn as well.

It decides from its seat's view (``choose(view)``, ``quick_select(view)``), never the state.
"""

from __future__ import annotations

from typing import Any

from bot.games.base import ai_chooser, copy_token
from bot.games.chan.count import tally, tally_count, tally_minus, tally_waits
from bot.games.tosom import KIND_INDEX, is_red


def _discard_key(t_hand: tuple[int, ...], t_all: tuple[int, ...], kind: str):
    c = tally_count(tally_minus(t_hand, kind))
    waits = bool(tally_waits(tally_minus(t_all, kind))) if c.trash <= 1 else False
    return (not waits, c.trash, -c.chan, -c.ca, is_red(kind), -KIND_INDEX[kind])


def _all_cards(view: dict[str, Any]) -> list[str]:
    """The seat's hand plus the pairs it laid."""
    return view["hand"] + [c for pair in view["laid"][view["seat"]] for c in pair]


def best_discard(view: dict[str, Any], legal: list[str]) -> str:
    t_hand = tally(view["hand"])
    t_all = tally(_all_cards(view))
    kinds = [a.split()[1] for a in legal if a.startswith("discard ")]
    return "discard " + min(kinds, key=lambda k: _discard_key(t_hand, t_all, k))


def _after_eat_trash(hand: list[str], partner: str) -> tuple[int, int]:
    """(trash, -chan) of the hand after eating with ``partner`` and the best discard."""
    t = tally_minus(tally(hand), partner)
    best = None
    for i, k in enumerate(t):
        if k:
            c = tally_count(t[:i] + (k - 1,) + t[i + 1:])
            key = (c.trash, -c.chan)
            if best is None or key < best:
                best = key
    return best if best is not None else (99, 0)


@ai_chooser
def choose(view: dict[str, Any], legal: list[str]) -> str:
    phase = view["phase"]
    if phase == "offer":
        return "chiu" if view["chiu_advice"] else "pass"
    if phase in ("open", "discard"):
        return best_discard(view, legal)
    if "chiu" in legal and view["chiu_advice"]:
        return "chiu"
    active = view["active"]
    eats = [a.split()[1] for a in legal if a.startswith("eat ")]
    if active in eats:
        return "eat " + active  # keep chắn
    now = tally_count(tally(view["hand"]))
    best = None
    for partner in eats:
        key = _after_eat_trash(view["hand"], partner)
        if key[0] < now.trash - 1 and (best is None or key < best[0]):
            best = (key, partner)
    if best is not None:
        return "eat " + best[1]
    return "draw" if "draw" in legal else "pass"


def quick_select(view: dict[str, Any]) -> list[str]:
    """Tokens: a certainly legal discard, or the hand cards that may legally eat the active card."""
    if view["seat"] not in view["to_act"]:
        return []
    legal = view["legal"]
    if view["phase"] in ("open", "discard") and legal and legal[0].startswith("discard "):
        return [copy_token(best_discard(view, legal).split()[1])]
    if view["phase"] in ("turn", "drawn"):
        return [copy_token(a.split()[1]) for a in legal if a.startswith("eat ")]
    return []
