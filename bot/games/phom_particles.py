"""Phỏm worlds from the round's whole public history: a particle filter (issue #28, third pass).

The other seats at a table mostly play the ``normal`` AI, which is deterministic given its
view: each of their past choices (eat or draw, the card thrown, the phỏm shown) is nearly a
hard constraint on the hand they held then. ``population(view)`` walks the view's public
``history`` from the deal with ``PARTICLES`` particles, each the other seats' hands through
time (and the cards not yet dealt or drawn, ``free``):

- **the deal**: each other seat's hand (the dealer's 10 cards too) is dealt from the cards
  that may have been there: never a card this seat was dealt or drew (its hand, the cards it
  threw, showed or sent but did not eat), nor a card another seat lays open first (cards move
  between hands only by a public eat). A card the seat itself lays open first (at move t)
  was dealt to it or drawn at one of its d draws before t: it is dealt with the chance a
  uniform deal gives that, size / (size + d), else scheduled at one of those draws (the
  dealer's first discard is always dealt).
- **a draw** of another seat is its scheduled card, weighted by that card's chance then (1 /
  the cards free: the proposal chose it at the deal, and the deal's weight is its chance
  under a uniform deal against the proposal's, the sequential Monte Carlo correction); else a
  card drawn at random from the free cards no seat lays open later (weighted by their share
  of the free cards). A card a seat lays open that the particle cannot have given it in time
  (it went back to the stock in a repair), and the two cards an eat needs if the hand has
  none, are swapped in (``ILLEGAL``): a world must never be impossible, only unlikely.
- **each decision** of another seat (eat or draw, the show, the discard or send) is asked of the
  normal AI from the view that seat had then (the lean view it reads); the weight is kept when
  the observed move is its choice, multiplied by ``EPS`` otherwise (people are not the normal
  AI), by ``ILLEGAL`` when the move is not even legal from the particle's hand.
- the particles are resampled (systematic) when their effective number falls under half.

Cost: the normal AI is asked once per particle and decision (memoized on the hand: resampled
particles share hands); a population is built once per view (``CACHE`` views kept, keyed on
the view's content, its randomness seeded from that content: the same view always gives the
same population, and a strong-AI search's 16 worlds draw from one).

``public(view)`` replays the public side of the history alone: the eat payments, each seat's
last discard and the last-round eats, exactly (``phom_sample`` uses them for the world's record).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .base import Transfer
from .french import FULL_DECK
from .phom import EAT, PhomState
from .phom_ai import choose as normal_choose
from .phom_melds import canon_meld, eat_partners, meld_key
from .strong_views import lean_view

#: the weight a particle keeps when the normal AI would not have made the observed move
EPS = 0.05
#: ... when the observed move is not legal from the particle's hand (the hand is repaired)
ILLEGAL = EPS ** 2
PARTICLES = 32
CACHE = 8

_ORDER = {c: i for i, c in enumerate(FULL_DECK)}


def _sorted(cards: Any) -> list[str]:
    """Cards in pack order (sets iterate in an order that changes between processes)."""
    return sorted(cards, key=_ORDER.__getitem__)


def revealed(text: str) -> list[str]:
    """The hand cards a public move lays open: a discard's card, a show's phỏm, a sent card."""
    verb, _, rest = text.partition(" ")
    if verb == "discard":
        return [rest]
    if verb == "show":
        return rest.replace("|", " ").split()
    if verb == "send":
        return rest.split()[:1]
    return []


# -- the public side of the history -------------------------------------------------------------


def _scratch(view: dict[str, Any]) -> PhomState:
    """A state holding only the public table at the deal (the hands are set per particle)."""
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
            victim = (seat - 1) % n
            if st.discards[victim] and st.discards[victim][-1] == rest:
                st.discards[victim].pop()
            st.eaten[seat].append(rest)
            last = st.turn_last
            st.transfers.append(Transfer(victim, seat, 4 if last else 1, "ăn chốt" if last else EAT))
            st.eat_counts[(seat, victim)] = st.eat_counts.get((seat, victim), 0) + 1
            if last:
                st.last_round_victims.append(victim)
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


# -- the particles -----------------------------------------------------------------------------


@dataclass
class Particle:
    hands: dict[int, set[str]]
    ue: dict[int, set[str]]  # each other seat's eaten cards not yet shown
    free: set[str]  # the stock's cards (and those not yet drawn)
    w: float = 1.0
    misses: int = 0  # moves it weighed down (EPS or ILLEGAL): the tests read it
    schedule: dict[int, str] = field(default_factory=dict)  # draws (by move) whose card is decided

    def copy(self) -> "Particle":
        return Particle({s: set(h) for s, h in self.hands.items()}, {s: set(e) for s, e in self.ue.items()},
                        set(self.free), self.w, self.misses, dict(self.schedule))


@dataclass
class Population:
    particles: list[Particle]
    table: PhomState  # the public side (``public``)

    def draw(self, rng: random.Random) -> Particle:
        total = sum(p.w for p in self.particles)
        x = rng.random() * total
        for p in self.particles:
            x -= p.w
            if x < 0:
                return p
        return self.particles[-1]


def _known(view: dict[str, Any]) -> tuple[set[str], dict[str, int]]:
    """The cards this seat was dealt or drew (never in another hand), and each card's
    origin: the seat that laid it open first (it was that seat's from the deal or a draw)."""
    me = view["seat"]
    mine = set(view["hand"])
    ate: set[str] = set()
    origin: dict[str, int] = {}
    for seat, text in view["history"]:
        if text.startswith("eat"):
            if seat == me:
                ate.add(text.split()[1])
            continue
        for c in revealed(text):
            origin.setdefault(c, seat)
            if seat == me:
                mine.add(c)
    return mine - ate, origin


def _turn_reveals(history: list[list[Any]], i: int, seat: int) -> list[str]:
    """The hand cards ``seat`` lays open in the rest of the turn after move ``i``."""
    out: list[str] = []
    for s, text in history[i + 1:]:
        if s != seat:
            break
        out.extend(revealed(text))
        if text.startswith("discard"):
            break
    return out


def _swap_in(p: Particle, seat: int, card: str, keep: set[str], rng: random.Random) -> None:
    """Put ``card`` in ``seat``'s hand, a random card of it (not eaten, not in ``keep``)
    going where ``card`` was: the repair of a hand that could not have made a move."""
    spare = _sorted(p.hands[seat] - p.ue[seat] - keep)
    out = rng.choice(spare) if spare else None
    if card in p.free:
        p.free.discard(card)
        for j in [j for j, c in p.schedule.items() if c == card]:  # no longer to be drawn
            del p.schedule[j]
        if out is not None:
            p.free.add(out)
    else:
        holder = next((s for s, h in p.hands.items() if card in h), None)
        if holder is None:
            return
        p.hands[holder].discard(card)
        if out is not None:
            p.hands[holder].add(out)
    if out is not None:
        p.hands[seat].discard(out)
    p.hands[seat].add(card)
    _weigh(p, ILLEGAL)


def _give_partners(p: Particle, seat: int, card: str, keep: set[str], origin: dict[str, int],
                   rng: random.Random) -> None:
    """Two cards making a phỏm with ``card`` for a seat that ate it without them in the
    particle: the pair needing the fewest cards swapped in (from the free cards it may hold)."""
    hand = p.hands[seat]
    near = (hand - p.ue[seat]) | {c for c in p.free if origin.get(c, seat) == seat}
    options = [o for o in eat_partners(card, near) if len(o) == 2]
    if not options:
        return
    fewest = min(sum(c not in hand for c in o) for o in options)
    pick = rng.choice([o for o in options if sum(c not in hand for c in o) == fewest])
    for c in pick:
        if c not in hand:
            _swap_in(p, seat, c, keep | set(pick), rng)


def _draws_by_seat(history: list[list[Any]]) -> dict[int, list[int]]:
    """The indices in the history of each seat's draws."""
    out: dict[int, list[int]] = {}
    for i, (seat, text) in enumerate(history):
        if text == "draw":
            out.setdefault(seat, []).append(i)
    return out


def _deal(view: dict[str, Any], rng: random.Random, mine: set[str], origin: dict[str, int]) -> Particle:
    """One particle at the deal. A card another seat lays open first (at move ``t``) was dealt
    to it or drawn by it at one of its ``d`` draws before ``t``: it is dealt with the chance
    a uniform deal gives it, ``size / (size + d)``, else put at one of those draws (the
    particle's ``schedule``); the rest of the hand is dealt from the cards no other seat lays
    open first. The weight is the deal's chance under a uniform deal against this proposal's
    (each scheduled draw adds its chance, 1 / the cards free, when it comes)."""
    me, n = view["seat"], view["num_players"]
    history = view["history"]
    draws = _draws_by_seat(history)
    first_seen: dict[str, int] = {}
    for i, (_seat, text) in enumerate(history):
        for c in revealed(text):
            first_seen.setdefault(c, i)
    free = set(FULL_DECK) - mine
    p = Particle({}, {}, free)
    for s in range(n):
        if s == me:
            continue
        size = 10 if s == 0 else 9
        own = sorted((c for c in free if origin.get(c) == s), key=lambda c: (first_seen[c], _ORDER[c]))
        q = 1.0  # the proposal's chance of what it chose
        hand: set[str] = set()
        taken: set[int] = set()
        for c in own:
            options = [j for j in draws.get(s, ()) if j < first_seen[c] and j not in taken]
            room = size - len(hand)
            if room and options:
                chance = size / (size + len([j for j in draws.get(s, ()) if j < first_seen[c]]))
                dealt = rng.random() < chance
                q *= chance if dealt else (1 - chance) / len(options)
            else:
                dealt = bool(room)
                if not dealt and options:
                    q /= len(options)
            if dealt:
                hand.add(c)
            elif options:
                j = rng.choice(options)
                taken.add(j)
                p.schedule[j] = c
            # else: neither dealt nor drawn in time: repaired when it is laid open
        rest = [c for c in _sorted(free - hand) if c not in origin]  # (never laid open)
        k = min(size - len(hand), len(rest))
        q /= math.comb(len(rest), k)
        p.w *= 1 / math.comb(len(free), size) / q
        hand |= set(rng.sample(rest, k))
        free -= hand
        p.hands[s] = hand
        p.ue[s] = set()
    return p


def _same(observed: str, chosen: str) -> bool:
    if observed.startswith("eat"):
        return chosen.startswith("eat")
    return chosen == observed


def _fit(st: PhomState, view: dict[str, Any], seat: int, text: str, legal: list[str], memo: dict[Any, str]
         ) -> float:
    """How well the hand ``st`` holds for ``seat`` (its ``legal`` moves) fits its move
    ``text``: 1 when the normal AI (from the lean view that seat had) makes it or it is the
    only legal move, ``EPS`` when it would make another, ``ILLEGAL`` when it is not legal."""
    if not any(_same(text, a) for a in legal):
        return ILLEGAL
    if len(legal) == 1:
        return 1.0
    key = (frozenset(st.hands[seat]), frozenset(st.unshown_eaten[seat]))
    chosen = memo.get(key)
    if chosen is None:
        lean = lean_view(st, seat)
        if view.get("send"):
            lean["send"], lean["sent"] = True, st.sent
        chosen = memo[key] = normal_choose(lean)
    return 1.0 if _same(text, chosen) else EPS


def _weigh(p: Particle, factor: float) -> None:
    p.w *= factor
    if factor < 1:
        p.misses += 1


def _observe(particles: list[Particle], st: PhomState, view: dict[str, Any], i: int, seat: int, text: str,
             origin: dict[str, int], rng: random.Random) -> None:
    """Weigh every particle by the other seat's move ``i`` and carry its hidden side on."""
    history = view["history"]
    verb, _, rest = text.partition(" ")
    memo: dict[Any, str] = {}
    reveals = _turn_reveals(history, i, seat) if verb in ("draw", "eat") else []
    for p in particles:
        hand, ue = p.hands[seat], p.ue[seat]
        st.hands[seat], st.unshown_eaten[seat] = hand, ue
        legal = st.legal_actions(seat)
        _weigh(p, _fit(st, view, seat, text, legal, memo))
        if verb == "eat":
            if not any(a.startswith("eat") for a in legal):
                _give_partners(p, seat, rest, set(reveals), origin, rng)
            hand.add(rest)
            ue.add(rest)
            for c in reveals:
                if c not in hand:
                    _swap_in(p, seat, c, set(reveals), rng)
        elif verb == "draw":
            card = p.schedule.pop(i, None)
            if card is not None and card not in p.free:  # (a repair has put it in a hand already)
                card = None
            if card is not None:  # decided at the deal: its chance now
                p.w /= len(p.free)
            missing = [c for c in reveals if c not in hand and c != card]
            for c in missing:  # not dealt, nor drawn in time: the hand is repaired
                _swap_in(p, seat, c, set(reveals), rng)
            if card is None:
                scheduled = set(p.schedule.values())
                # a card laid open later is this seat's and dealt or scheduled, or another's
                allowed = [c for c in _sorted(p.free) if c not in origin and c not in scheduled]
                if not allowed:  # cannot happen with a consistent history
                    allowed = _sorted(p.free - scheduled) or _sorted(p.free)
                card = rng.choice(allowed)
                p.w *= len(allowed) / len(p.free)
            p.free.discard(card)
            hand.add(card)
        else:
            for c in revealed(text):
                if c not in hand:  # (only if a repair could not keep it)
                    _swap_in(p, seat, c, set(revealed(text)), rng)
                hand.discard(c)
                ue.discard(c)


def _resample(particles: list[Particle], rng: random.Random) -> list[Particle]:
    """Systematic resampling: ``len(particles)`` copies, each kept in proportion to its weight."""
    total = sum(p.w for p in particles)
    n = len(particles)
    step = total / n
    x = rng.random() * step
    out: list[Particle] = []
    acc = 0.0
    k = 0
    for p in particles:
        acc += p.w
        while k < n and x < acc:
            q = p.copy()
            q.w = 1.0
            out.append(q)
            x += step
            k += 1
    while len(out) < n:  # (rounding)
        q = particles[-1].copy()
        q.w = 1.0
        out.append(q)
    return out


def _ess(particles: list[Particle]) -> float:
    total = sum(p.w for p in particles)
    squares = sum(p.w * p.w for p in particles)
    return total * total / squares if squares else 0.0


def walk(view: dict[str, Any], particles: list[Particle], rng: random.Random, *, stop: int | None = None,
         resample: bool = True) -> list[Particle] | None:
    """The particles (dealt: ``deal``) carried through the view's history (its first ``stop``
    moves), weighed by every move of another seat and resampled when they degenerate; None
    when every weight is gone."""
    me = view["seat"]
    _mine, origin = _known(view)
    st = _scratch(view)
    count = len(particles)
    for i, (seat, text) in enumerate(view["history"][:stop]):
        if seat != me:
            _observe(particles, st, view, i, seat, text, origin, rng)
            total = sum(p.w for p in particles)
            if total <= 0 or not math.isfinite(total):
                return None
            if resample and _ess(particles) < count / 2:
                particles = _resample(particles, rng)
        _advance(st, i, seat, text)
    return particles


def deal(view: dict[str, Any], rng: random.Random, count: int | None = None) -> list[Particle]:
    """``count`` (``PARTICLES``) particles at the deal, each weighted by its chance against
    the proposal's."""
    mine, origin = _known(view)
    return [_deal(view, rng, mine, origin) for _ in range(count or PARTICLES)]


def build(view: dict[str, Any], rng: random.Random, count: int | None = None) -> Population | None:
    """The population after the whole history (None when the view has none, or its history
    does not replay to its table)."""
    table = public(view)
    if table is None:
        return None
    me, n = view["seat"], view["num_players"]
    particles = walk(view, deal(view, rng, count), rng)
    if particles is None:
        return None
    sizes = view["hand_sizes"]
    for p in particles:  # a repair that could not keep a hand's size: not a world
        if any(len(p.hands[s]) != sizes[s] for s in range(n) if s != me) or len(p.free) != view["stock"]:
            p.w = 0.0
    if not any(p.w > 0 for p in particles):
        return None
    return Population(particles, table)


_cache: OrderedDict[str, Population | None] = OrderedDict()


def population(view: dict[str, Any]) -> Population | None:
    """``build`` for this view, once: cached on the view's content and seeded from it."""
    key = hashlib.sha256(json.dumps(view, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    pop = build(view, random.Random(key))
    _cache[key] = pop
    while len(_cache) > CACHE:
        _cache.popitem(last=False)
    return pop


__all__ = ["EPS", "ILLEGAL", "PARTICLES", "Particle", "Population", "build", "deal", "population", "public", "revealed",
           "walk"]
