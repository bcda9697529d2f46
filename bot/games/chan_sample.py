"""Chắn worlds for the strong AI (issue #28): ``determinize(view, rng) -> ChanState``.

A full engine state consistent with one seat's view, read from the view alone: the seat's
hand and everything public exactly as the view shows it; the cards it cannot see (the other
hands and the rest of the stock) dealt at random, uniformly among the deals that keep what
the view reveals (:mod:`.constrained_deal`):

- each hand's size, and the stock's;
- the copies a chíu offer showed a seat holding (three, all that were not shown);
- what each public move says a hand held then, by the rules: a discard was held an odd
  number of times (a chắn is never thrown), a cạ partner too, while the card eaten in a cạ
  was not held at all, nor an odd number of the partner's other suits (restrictions 1, 2, 4);
  with chiu="ask", a card drawn or thrown that nobody was offered to chíu was held three
  times by none of the seats the offer would have gone to.
  A hand at a past move is the hand now plus the cards it gave up since (cards only ever
  leave a Chắn hand, a drawn card is eaten or passed, and every card that leaves is shown),
  so each says how many copies the hand holds now, odd, even or none;
- nobody but the seat would already have won on the card on offer (the deal is redrawn).

What the engine keeps per seat beyond its cards is rebuilt from the view's public
``history`` the same way: each seat's dealt cards (the quads' factors), its own discards,
the cạ it ate or broke (restriction 5), the cards it may not eat (restriction 3) and, once
its hand is dealt, the chắn it let pass (restriction 3 again).

Not conditioned on: earlier automatic events that hang on a whole hand (nobody ù on an
earlier drawn card; with chiu="auto", the table's chíu declined), the restrictions that do
(3, 6; a discard under the rule that lets any card go when none may), nor what the players'
choices may suggest. The record of a sampled state replays the view's history only as long
as those come out as they did: in 85 % of positions with chiu="auto" (96 % early in a game,
62 % late) and 94 % with "ask" (99 %, 79 %), against 15 % (24 %, 3 %) with the counts alone.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from . import constrained_deal
from .chan import ChanState
from .chan_count import tally, tally_plus, tally_win
from .constrained_deal import ANY, EVEN, NONE, ODD
from .tosom import FULL_DECK, SUITS, is_ca, sort_cards

#: rejected deals (someone already ù on the card on offer) before the next one is kept anyway
TRIES = 10


class _Seat:
    """What the public history says about one seat."""

    __slots__ = ("given", "discarded", "used", "ate_ca", "broke_ca", "passed", "offered", "checks")

    def __init__(self) -> None:
        self.given: list[str] = []  # the cards its hand gave up, in order
        self.discarded: list[str] = []  # its own discards (a row also holds passed cards)
        self.used: set[str] = set()  # discarded or eaten in a cạ: never to be eaten (restriction 3)
        self.ate_ca = False
        self.broke_ca = False
        #: (card, len(given) then, card not yet used then): each card it let pass on offer
        self.passed: list[tuple[str, int, bool]] = []
        self.offered: list[str] = []  # cards a chíu offer showed it holding three times
        #: (kind, len(given) then, the copies it may have held then): what the moves said
        self.checks: list[tuple[str, int, frozenset[int]]] = []

    def rules(self) -> dict[str, frozenset[int]]:
        """The copies of each kind the hand may hold now, as the moves tell: its copies then
        were its copies now plus those it gave up since. A kind told two ways that no count
        keeps (a discard made under the rule that lets any card go when none may) is left
        free."""
        out: dict[str, frozenset[int]] = {}
        for kind, before, rule in self.checks:
            since = self.given[before:].count(kind)
            out[kind] = out.get(kind, ANY) & frozenset(k - since for k in rule if k >= since)
        return {kind: rule for kind, rule in out.items() if rule and rule != ANY}


#: the copies a hand held of a card nobody was offered to chíu (or chíu'd, chiu="auto")
NOT_THREE = ANY - {3}


def _read(history: list[list[Any]], n: int, chiu: str = "auto") -> tuple[list[_Seat], list[str], list[list[Any]]]:
    """Each seat's public facts, the cards drawn in order, and the record's actions."""
    seats = [_Seat() for _ in range(n)]
    drawn: list[str] = []
    actions: list[list[Any]] = []
    active: str | None = None  # the card on offer, tracked as the engine moves it
    for j, (seat, kind, *cards) in enumerate(history):
        me = seats[seat]
        if kind in ("draw", "discard") and chiu == "ask":
            # the seats that would have been offered an out-of-turn chíu on it were not (the
            # next one, on a discard, may chíu it in his turn): none held three
            then = history[j + 1][1] if j + 1 < len(history) else None
            if then not in ("offer", "u", "chiu u"):
                for k in range(1 if kind == "draw" else 2, n):
                    other = seats[(seat + k) % n]
                    other.checks.append((cards[0], len(other.given), NOT_THREE))
        if kind in ("draw", "pass") and active is not None:
            # passing the card up (drawing instead, or leaving the drawn card): restriction 3
            me.passed.append((active, len(me.given), active not in me.used))
        if kind == "draw":
            active = cards[0]
            drawn.append(active)
            actions.append([seat, "draw"])
        elif kind in ("pass", "decline"):
            actions.append([seat, "pass"])
        elif kind == "discard":
            card = active = cards[0]
            me.checks.append((card, len(me.given), ODD))  # a chắn in hand is never thrown
            if any(is_ca(d, card) for d in me.discarded):
                me.broke_ca = True
            me.discarded.append(card)
            me.used.add(card)
            me.given.append(card)
            actions.append([seat, "discard " + card])
        elif kind == "eat":
            card, partner = cards
            if card != partner:
                # restrictions 1, 2 and 4: not holding the card eaten, the partner free, no
                # other free card of its rank
                me.checks += [(partner[0] + suit, len(me.given), EVEN) for suit in SUITS
                              if partner[0] + suit != partner]
                me.checks += [(partner, len(me.given), ODD), (card, len(me.given), NONE)]
                me.ate_ca = True
                me.used.update(cards)
            me.given.append(partner)
            active = None
            actions.append([seat, "eat " + partner])
        elif kind in ("chiu", "chiu u"):
            me.given += [cards[0]] * 3
            active = None
            if kind == "chiu" and cards[1:] != ["auto"]:
                actions.append([seat, "chiu"])
        elif kind == "offer":
            me.offered.append(cards[0])
        elif kind == "u" and not cards:
            actions.append([seat, "u"])
    return seats, drawn, actions


def _skipped(facts: _Seat, hand: Counter, size: int) -> set[str]:
    """Restriction 3 for a hand of ``size`` cards: the cards it could have eaten as a chắn
    (held one then, not used, two cards at least) when it let them pass."""
    out = set()
    for card, before, unused in facts.passed:
        since = facts.given[before:]
        if unused and hand[card] + since.count(card) > 0 and size + len(since) >= 2:
            out.add(card)
    return out


def _public(view: dict[str, Any]) -> Counter:
    """Every card the table shows: the trash rows, the laid pairs, a drawn card on offer."""
    shown = Counter(c for row in view["rows"] for c in row)
    shown.update(c for pairs in view["laid"] for pair in pairs for c in pair)
    if view["active"] is not None and view["active_from"] is None:
        shown[view["active"]] += 1
    return shown


def _already_won(state: ChanState, me: int, thrown: bool) -> bool:
    """Would another seat already have won on the card on offer (ù on a drawn card, passed or
    not; chíu ù on a ``thrown`` card, a discard)? Such a deal is not one the view can come from."""
    card = state.active
    if card is None:
        return False
    for s in range(state.num_players):
        if s == me or (thrown and (s == state.active_from or state.hands[s].count(card) != 3)):
            continue
        if tally_win(tally_plus(tally(state.all_cards(s)), card), card):
            return True
    return False


def _thrown(history: list[list[Any]]) -> bool:
    """Is the card on offer a discard (not a drawn card, passed or not)?"""
    for _seat, kind, *_cards in reversed(history):
        if kind in ("discard", "draw", "pass"):
            return kind == "discard"
    return False


def determinize(view: dict[str, Any], rng: random.Random, *, infer: bool = True) -> ChanState:
    """A Chắn state consistent with ``view`` (``state.view(seat)`` of a game in progress),
    its hidden cards dealt with ``rng``; ``infer=False`` keeps the counts and the card on
    offer only (cheaper at three or four seats, less faithful)."""
    if view["phase"] == "over":
        raise ValueError("the game is over: there is nothing left to sample")
    me, n = view["seat"], view["num_players"]
    seats, drawn, actions = _read(view["history"], n, view["options"]["chiu"])
    shown = _public(view)
    hidden = Counter(FULL_DECK) - Counter(view["hand"]) - shown
    known: list[Counter] = [Counter() for _ in range(n)]
    for s in range(n):
        for card in seats[s].offered:  # the offer showed three copies: he still holds the rest
            if s != me:
                known[s][card] = hidden[card]
    for s in range(n):
        hidden -= known[s]
    pool = sorted(hidden.elements())
    thrown = _thrown(view["history"])
    others = [s for s in range(n) if s != me]
    sizes = [view["hand_sizes"][s] - sum(known[s].values()) for s in others]
    rules = [seats[s].rules() if infer else {} for s in others]
    state = None
    for _try in range(TRIES):
        places = constrained_deal.deal(pool, sizes, [known[s] for s in others], rules, rng)
        hands = [list(view["hand"]) if s == me else list(known[s].elements()) + places[others.index(s)]
                 for s in range(n)]
        state = _build(view, seats, drawn, actions, hands, places[-1])
        if not _already_won(state, me, thrown):
            break
    return state


def rebuild(view: dict[str, Any], hands: list[list[str]], stock: list[str]) -> ChanState:
    """The state of ``view`` whose hidden cards are ``hands`` (every seat's; the viewer's as
    in the view) and ``stock`` (the cards left to draw, in order)."""
    seats, drawn, actions = _read(view["history"], view["num_players"], view["options"]["chiu"])
    return _build(view, seats, drawn, actions, hands, stock)


def _build(view: dict[str, Any], seats: list[_Seat], drawn: list[str], actions: list[list[Any]],
           hands: list[list[str]], rest: list[str]) -> ChanState:
    n = view["num_players"]
    state = ChanState.__new__(ChanState)
    state.num_players = n
    state.options = dict(view["options"])
    state.hands = [sort_cards(h) for h in hands]
    state.dealt = [tuple(sort_cards(hands[s] + seats[s].given)) for s in range(n)]
    state.stock = drawn + rest
    state.stock_pos = len(drawn)
    state.deck = [c for hand in state.dealt for c in hand] + state.stock
    state.laid = [[tuple(p) for p in pairs] for pairs in view["laid"]]
    state.rows = [list(r) for r in view["rows"]]
    state.discarded = [list(f.discarded) for f in seats]
    state.skipped = [_skipped(seats[s], Counter(hands[s]), len(hands[s])) for s in range(n)]
    state.used = [set(f.used) for f in seats]
    state.ate_ca = [f.ate_ca for f in seats]
    state.broke_ca = [f.broke_ca for f in seats]
    state.current = view["current"]
    state.phase = view["phase"]
    state.active = view["active"]
    state.active_from = view["active_from"]
    offer = view["offer"]
    if offer is None:
        state.offer = None
    else:  # the offer waits on a drawn card (the drawer to go on) or a discard (the next turn)
        resume = "drawn" if view["active_from"] is None else "turn"
        state.offer = {"seat": offer["seat"], "card": offer["card"], "resume": resume,
                       "drawer": view["current"] if resume == "drawn" else None, "current": view["current"]}
    state.actions = [list(a) for a in actions]
    state.history = [list(m) for m in view["history"]]
    state._outcome = None
    state._end = None
    state.thien_u = tally_win(tally(state.dealt[0]), None)
    return state


__all__ = ["determinize", "rebuild"]
