"""A quick heuristic Phỏm player.

``choose(view)`` returns one of the view's legal actions, from what the seat may see
(``state.view(seat)``); ``quick_select(view)`` returns the hand cards the UI should pre-select
for it.

Heuristics: eat whenever the eat lowers the best points we can reach after discarding (an
eat that ù-s is always taken); discard the card that leaves the lowest best points, adjusted
before the last round by the live pairs kept for later (pairs/near-runs whose missing cards
are still unseen); in the last round pick, among the legal shows (each lays down every phỏm
of the hand), the one that after the best discard leaves the fewest points (only shown phỏm
count at the end).

It does not keep a card back for fear of feeding the next player an eat: on the arena the
high card kept cost more than the eat it denied (the figures: docs/experiments.md).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

from bot.games.base import ai_chooser
from bot.games.french import RANKS, sort_key
from bot.games.phom.melds import CARD_CODE, CARD_ID, card_points, points_after_sends, send_plan, send_targets, solve

_POTENTIAL_WEIGHT = 2.5  # points per live out kept in a leftover pair/near-run


class _Seat:
    """What one seat knows, read from its view: its hand (eaten cards not yet shown in
    ``ue``), and the cards it has seen (``known``: its own, every discard, eaten and shown)."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.seat = view["seat"]
        self.n = view["num_players"]
        self.hand = frozenset(view["hand"])
        self.ue = self.unshown_eaten(self.seat)
        known = set(self.hand)
        for s in range(self.n):
            known.update(view["discards"][s])
            known.update(view["eaten"][s])
            for m in view["shown"][s]:
                known.update(m)
        self.known = known

    def unshown_eaten(self, seat: int) -> frozenset[str]:
        """Eaten cards ``seat`` still holds (eaten cards stay in the hand until shown)."""
        shown = {c for m in self.view["shown"][seat] for c in m}
        return frozenset(c for c in self.view["eaten"][seat] if c not in shown)


def _code(ri: int, s: str) -> str | None:
    return RANKS[ri] + s if 0 <= ri < len(RANKS) else None


def _live(card: str | None, known: set[str]) -> int:
    return 1 if card is not None and card not in known else 0


_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}


def _potential(left: list[str], known: set[str]) -> int:
    """Live outs of the pairs among leftover cards (cards that would complete a phỏm)."""
    total = 0
    rank_index = _RANK_INDEX
    for a, b in combinations(left, 2):
        ra, rb = rank_index[a[0]], rank_index[b[0]]
        if ra == rb:
            total += sum(_live(RANKS[ra] + s, known) for s in "SHDC" if s not in (a[1], b[1]))
        elif a[1] == b[1]:
            lo, hi = min(ra, rb), max(ra, rb)
            if hi - lo == 1:
                total += _live(_code(lo - 1, a[1]), known) + _live(_code(hi + 1, a[1]), known)
            elif hi - lo == 2:
                total += _live(_code(lo + 1, a[1]), known)
    return total


def _discard_order(me: _Seat, candidates: list[str]) -> list[str]:
    """The discards of ``candidates`` best first (an ù first; cards no arrangement allows
    left out)."""
    hand = me.hand
    ue = me.ue
    known = me.known
    final = me.view["last_round"]
    n = me.n
    turns_left = (4 * n - 1 - me.view["draws"]) // n
    pot_w = _POTENTIAL_WEIGHT if turns_left >= 2 else _POTENTIAL_WEIGHT / 2
    scored: list[tuple[tuple, str]] = []
    for i, c in enumerate(candidates):
        rest = hand - {c}
        res = solve(rest, ue)
        if res is None:
            continue
        pts, _melds, left = res
        if pts == 0:
            scored.append(((-math.inf, i), c))  # ù after discarding
            continue
        if final:
            score = float(sum(card_points(x) for x in rest))
        else:
            left_codes = [CARD_CODE[x] for x in left]
            score = pts - pot_w * _potential(left_codes, known)
        scored.append(((score, -card_points(c), sort_key(c)), c))
    scored.sort()
    return [c for _key, c in scored]


def _best_discard(me: _Seat, candidates: list[str]) -> str:
    order = _discard_order(me, candidates)
    return order[0] if order else candidates[0]


def _choose_draw(me: _Seat, legal: list[str]) -> str:
    eats = [a for a in legal if a.startswith("eat ")]
    if not eats:
        return "draw"
    active = me.view["active"]
    hand = me.hand
    ue = me.ue
    now = solve(hand, ue)
    now_pts = now[0] if now else 10**6
    new_hand = hand | {active}
    new_ue = ue | {active}
    full = solve(new_hand, new_ue)
    if full is None:
        return "draw"
    after = None
    if full[0] == 0:
        after = -1  # ù before discarding
    else:
        for c in new_hand:
            if c in new_ue:
                continue
            res = solve(new_hand - {c}, new_ue)
            if res is not None and (after is None or res[0] < after):
                after = res[0]
    if after is None or after >= now_pts:
        return "draw"
    return _preferred_eat(me, eats, full)


def _preferred_eat(me: _Seat, eats: list[str], full: Any = None) -> str:
    """The eat naming the hand cards of the phỏm that holds the eaten card in the hand's best
    arrangement after eating (``full``: that arrangement, when the caller has it)."""
    active = me.view["active"]
    if full is None:
        full = solve(me.hand | {active}, me.ue | {active})
    aid = CARD_ID[active]
    for meld in full[1] if full else []:
        if aid in meld:
            partners = sorted((CARD_CODE[x] for x in meld if x != aid), key=sort_key)
            action = "eat " + " ".join(partners)
            if action in eats:
                return action
    return eats[0]


def _choose_show(me: _Seat, legal: list[str]) -> str:
    """The legal show (each lays down every phỏm) after which the best discard leaves the
    fewest points (only shown phỏm count at the end), after the best sends where the table
    plays with gửi."""
    hand = me.hand
    if me.view.get("send"):
        targets = send_targets(me.view, me.seat)
        shown_before = bool(me.view["shown"][me.seat])

        def after(action: str) -> int:
            kept = hand - set(action[4:].replace("|", " ").split())
            if shown_before or action != "show":  # a móm hand may not send
                return points_after_sends(kept, targets)
            return points_after_sends(kept, {})

        return min(legal, key=lambda action: (after(action), action))
    best = None
    for action in legal:
        kept = hand - set(action[4:].replace("|", " ").split())
        total = sum(card_points(x) for x in kept)
        for c in sorted(kept, key=sort_key):  # nothing is locked once every eaten card is shown
            key = (total - card_points(c), -card_points(c), sort_key(c), action)
            if best is None or key < best[0]:
                best = (key, action)
    return best[1] if best else legal[0]


@ai_chooser
def choose(view: dict[str, Any], legal: list[str]) -> str:
    me = _Seat(view)
    if view["phase"] == "draw":
        return _choose_draw(me, legal)
    if view["phase"] == "show":
        return _choose_show(me, legal)
    if any(a.startswith("send ") for a in legal):
        plan = send_plan(me.hand, send_targets(view, me.seat))
        if plan:
            card, target = plan[0]
            return f"send {card} {target}"
    return "discard " + _best_discard(me, [a.split()[1] for a in legal if a.startswith("discard ")])


def quick_select(view: dict[str, Any]) -> list[str]:
    """Hand cards to pre-select so that the matching button plays what ``choose`` would."""
    if view["seat"] not in view["to_act"]:
        return []
    action = choose(view)
    verb, _, rest = action.partition(" ")
    if verb == "draw":  # where Eat is legal too, its cards: the button then says what it would take
        eats = [a for a in view["legal"] if a.startswith("eat ")]
        return _preferred_eat(_Seat(view), eats).split()[1:] if eats else []
    if verb == "send":  # the card; the phỏm it goes onto is the UI's second pick
        return rest.split()[:1]
    return rest.replace("|", " ").split()
