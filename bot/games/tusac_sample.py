"""Tứ Sắc worlds for the strong AI (issue #28): ``determinize(view, rng) -> TuSacState``.

A full engine state consistent with one seat's view, read from the view alone: the seat's
hand and everything public exactly as the view shows it; the cards it cannot see (the other
private blocks and the stock) dealt at random, uniformly among the deals that keep what the
view reveals and what the rules would have made public:

- each block's size and number of Khaps (``khap_counts``);
- what the public history says of each block (:mod:`.tusac_deal`): every discard was a
  trash card of it, every eat kept its trash count, nobody had to claim a card turned up or
  thrown (no Khap of it, no pair a claim would have taken), nobody was dealt a fourth copy;
- nobody would already have had to claim the card on offer (a win, a Khui, a pair).

Blocks are dealt by counting, group by group (exact for one block; several are dealt one
after the other, then each again given the others, ``SWEEPS`` times), and dealt again while
one owes a claim. Should the history have used a rule's exception, so that no deal keeps
every rule, the deal keeps the counts alone: drawn uniformly until it does, and after
``UNIFORM_TRIES`` tries with each block's Khaps placed first (nearly uniform; it always ends).

The view's public ``history`` also gives the stock's first cards (the cards drawn), each
seat's dealt cards (its block now, its Quan, and every card its block has given up since,
all shown), and the record's actions. The record of a sampled state replays the view's
history in nearly every position (the claims that need the whole block, a win on an earlier
card or the pair exemption, are not looked at, and almost never matter), against 12 % of
positions (16 % early in a game, none late) with the counts alone.

Not conditioned on: what the players' choices may suggest.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from . import tusac_deal
from .tusac import TuSacState
from .tusac_score import Meld
from .tusac_sets import FULL_PACK, sort_cards

#: deals drawn (uniformly, then with the Khaps placed first) before one is kept
TRIES = 200
#: uniform deals drawn before the Khaps are placed first
UNIFORM_TRIES = 40
#: deals keeping the history's rules drawn (until one keeps the Khap counts and owes no claim)
RULED_TRIES = 8
#: redraws of every block given the others, after the first deal (several blocks only)
SWEEPS = 1


# the cards each logged move takes out of the mover's private block
_GIVES = {"discard": lambda cards: cards[:1], "eat": lambda cards: cards[1:], "khui": lambda cards: cards * 3,
          "pair": lambda cards: cards * 2, "u": lambda cards: cards[1:]}


def _read(history: list[list[Any]], n: int) -> tuple[list[list[str]], list[str], set[str], list[list[Any]]]:
    """Each seat's cards given up, the cards drawn in order, every card turned up or thrown,
    and the record's actions."""
    given: list[list[str]] = [[] for _ in range(n)]
    drawn: list[str] = []
    actions: list[list[Any]] = []
    for seat, kind, *cards in history:
        if kind in _GIVES:
            given[seat] += _GIVES[kind](cards)
        if kind == "draw":
            drawn.append(cards[0])
            actions.append([seat, "draw"])
        elif kind == "discard":
            actions.append([seat, "discard " + cards[0]])
        elif kind == "pass":
            actions.append([seat, "pass"])
        elif kind == "eat":
            actions.append([seat, " ".join(("eat", *cards[1:]))])
        elif kind == "u" and not cards:
            actions.append([seat, "u"])
    turned = {cards[0] for _seat, kind, *cards in history if kind in ("draw", "discard")}
    return given, drawn, turned, actions


def _public(view: dict[str, Any]) -> Counter:
    """Every card the table shows: the melds laid, the discard piles, the card on offer."""
    shown = Counter(c for melds in view["public"] for meld in melds for c in meld["cards"])
    shown.update(c for pile in view["discards"] for c in pile)
    if view["active"] is not None:
        shown[view["active"]] += 1
    return shown


def _pick(cards: list[str], start: int, count: int, rng: random.Random) -> None:
    """Move ``count`` cards drawn at random from ``cards[start:]`` to ``cards[start:start + count]``
    (the first steps of a Fisher–Yates shuffle: the rest is left in no particular order)."""
    n = len(cards)
    random_ = rng.random
    for i in range(start, start + count):
        j = i + int(random_() * (n - i))
        cards[i], cards[j] = cards[j], cards[i]


def _hand_ok(hand: Counter, khaps: int, turned: set[str]) -> bool:
    """A private block the view allows: ``khaps`` Khaps, none of a ``turned`` code, no four."""
    found = 0
    for code, k in hand.items():
        if k >= 3:
            if k == 4 or code in turned:
                return False
            found += 1
    return found == khaps


def _nobody_claims(state: TuSacState, me: int) -> bool:
    """No seat but ``me`` would already have had to claim the card on offer."""
    card = state.active
    if card is None or state.phase not in ("take", "drawn"):
        return True
    order = state._claim_order()
    for seat in order:
        if seat == me:
            continue
        if state._winning_meld(seat, card) is not None or state.private[seat][card] >= 3:
            return False
        if card[1] != "K" and seat != order[0] and state._pair_claim(seat, card):
            return False
    return True


def determinize(view: dict[str, Any], rng: random.Random, *, infer: bool = True) -> TuSacState:
    """A Tứ Sắc state consistent with ``view`` (``state.view(seat)`` of a game in progress),
    its hidden cards dealt with ``rng``; ``infer=False`` keeps the counts and the claim on
    offer only (about ten times cheaper at three or four seats, far less faithful)."""
    if view["phase"] == "over":
        raise ValueError("the game is over: there is nothing left to sample")
    me, n = view["seat"], view["num_players"]
    others = [s for s in range(n) if s != me]
    pool = sorted((Counter(FULL_PACK) - Counter(view["hand"]) - _public(view)).elements())
    given, drawn, turned, actions = _read(view["history"], n)
    sizes, khaps = view["hand_sizes"], view["khap_counts"]
    state = _shell(view, drawn, actions)
    rules = _rules(view, pool) if infer else {}
    for _try in range(RULED_TRIES if infer else 0):
        dealt = _deal_by_rules(pool, others, sizes, khaps, rules, rng)
        if dealt is None:
            continue  # a block took cards a later one needed (or the history used an exception)
        hands, rest = dealt
        for s in others:
            state.private[s] = Counter(hands[s])
        if all(_hand_ok(state.private[s], khaps[s], turned) for s in others) and _nobody_claims(state, me):
            return _finish(state, view, given, rest)
    for _try in range(UNIFORM_TRIES):
        k = 0
        for s in others:  # a hand that breaks a condition ends the try before the next is dealt
            _pick(pool, k, sizes[s], rng)
            hand = Counter(pool[k:k + sizes[s]])
            k += sizes[s]
            if not _hand_ok(hand, khaps[s], turned):
                break
            state.private[s] = hand
        else:
            if _nobody_claims(state, me):
                rest = pool[k:]
                rng.shuffle(rest)
                return _finish(state, view, given, rest)
    return _khaps_first(state, pool, others, sizes, khaps, turned, rng, me, view, given)


def _rules(view: dict[str, Any], pool: list[str]) -> dict[int, list[tusac_deal.GroupRule]]:
    """What the history says each other block may hold now, group by group (kept for the
    last few views: a search samples one view many times)."""
    # the history alone does not tell the game (every game starts with none): the cards
    # hidden from the seat do
    key = (view["seat"], view["num_players"], tuple(pool), tuple(map(tuple, view["history"])))
    rules = _RULES.get(key)
    if rules is None:
        given, checks = tusac_deal.read_checks(view["history"], view["num_players"])
        hidden = Counter(pool)
        rules = {s: tusac_deal.read_rules(given[s], checks[s], hidden)
                 for s in range(view["num_players"]) if s != view["seat"]}
        if len(_RULES) >= 4:
            _RULES.pop(next(iter(_RULES)))
        _RULES[key] = rules
    return rules


_RULES: dict[tuple, dict[int, list[tusac_deal.GroupRule]]] = {}


def _deal_by_rules(pool: list[str], others: list[int], sizes: list[int], khaps: list[int],
                   rules: dict[int, list[tusac_deal.GroupRule]],
                   rng: random.Random) -> tuple[dict[int, list[str]], list[str]] | None:
    """The other blocks dealt keeping what the history says of them: each from what the ones
    before it left, then each again from itself and the stock (Gibbs: exact given the others)."""
    stock = list(pool)
    hands: dict[int, list[str]] = {s: [] for s in others}
    for _sweep in range(1 + (SWEEPS if len(others) > 1 else 0)):
        for s in others:
            got = tusac_deal.draw(hands[s] + stock, sizes[s], khaps[s], rules[s], rng)
            if got is None:
                return None
            hands[s], stock = got
    rng.shuffle(stock)
    return hands, stock


def _khaps_first(state: TuSacState, pool: list[str], others: list[int], sizes: list[int], khaps: list[int],
                 turned: set[str], rng: random.Random, me: int, view: dict[str, Any],
                 given: list[list[str]]) -> TuSacState:
    """A deal that keeps the Khap counts by construction: each hand's Khaps are chosen first
    (distinct codes of which three copies are hidden and none was turned up), the rest of
    the cards dealt after them and dealt again while a hand breaks its conditions. Not quite
    uniform (a Khap code's odds do not weigh how many deals it leaves), but it always ends."""
    hidden = Counter(pool)
    codes = [c for c in sorted(hidden) if hidden[c] >= 3 and c not in turned]
    chosen = rng.sample(codes, min(len(codes), sum(khaps[s] for s in others)))
    base: dict[int, Counter] = {}
    for s in others:
        base[s] = Counter({c: 3 for c in chosen[:khaps[s]]})
        chosen = chosen[khaps[s]:]
    left = list((hidden - sum(base.values(), Counter())).elements())
    kept: tuple[dict[int, Counter], list[str]] | None = None
    for _try in range(TRIES):
        rng.shuffle(left)
        hands: dict[int, Counter] = {}
        k = 0
        for s in others:
            size = sizes[s] - sum(base[s].values())
            hands[s] = base[s] + Counter(left[k:k + size])
            k += size
        ok = all(_hand_ok(hands[s], khaps[s], turned) for s in others)
        if ok or kept is None:
            kept = hands, left[k:]
        if ok:
            for s in others:
                state.private[s] = hands[s]
            if _nobody_claims(state, me):
                break
    for s in others:
        state.private[s] = kept[0][s]
    return _finish(state, view, given, kept[1])


def rebuild(view: dict[str, Any], hands: dict[int, Counter], stock: list[str]) -> TuSacState:
    """The state of ``view`` whose hidden cards are ``hands`` (the other seats' private
    blocks) and ``stock`` (the cards left to draw, in order)."""
    given, drawn, _turned, actions = _read(view["history"], view["num_players"])
    state = _shell(view, drawn, actions)
    for s, hand in hands.items():
        state.private[s] = Counter(hand)
    return _finish(state, view, given, stock)


def _shell(view: dict[str, Any], drawn: list[str], actions: list[list[Any]]) -> TuSacState:
    """The state of the view with the other private blocks empty and no stock yet."""
    n, me = view["num_players"], view["seat"]
    state = TuSacState.__new__(TuSacState)
    state.num_players = n
    state.penalty_on = bool(view["worst_card_penalty"])
    state.options = {"worst_card_penalty": state.penalty_on}
    state.private = [Counter(view["hand"]) if s == me else Counter() for s in range(n)]
    state.public = [[Meld(m["kind"], tuple(m["cards"])) for m in melds] for melds in view["public"]]
    state.discards = [list(d) for d in view["discards"]]
    state.stock = list(drawn)
    state.stock_pos = len(drawn)
    state.active = view["active"]
    state.active_from = view["active_from"]
    state.active_drawn = view["active_drawn"]
    state.current = view["current"]
    state.phase = view["phase"]
    state.actions = actions
    state.history = [list(m) for m in view["history"]]
    state._outcome = None
    state._end = None
    state.deck = []
    state.discard_worst = True
    return state


def _finish(state: TuSacState, view: dict[str, Any], given: list[list[str]], rest: list[str]) -> TuSacState:
    """The stock, the deal, and what hangs on the thrower's hand once the hands are dealt."""
    n = state.num_players
    state.stock += rest
    quans = [[c for m in melds if m["kind"] == "quan" for c in m["cards"]] for melds in view["public"]]
    state.deck = [c for s in range(n) for c in sort_cards([*state.private[s].elements(), *quans[s], *given[s]])]
    state.deck += state.stock
    if state.active is not None and not state.active_drawn:
        # the penalty rule asks whether the discard on offer was one of its thrower's worst
        # cards when he threw it: his block then held it too, and it was not on the table
        thrower = state.active_from
        block = state.private[thrower]
        state.private[thrower] = block + Counter({state.active: 1})
        state.active = None
        state.discard_worst = view["active"] in state.worst(thrower)
        state.private[thrower], state.active = block, view["active"]
    return state


__all__ = ["determinize", "rebuild"]
