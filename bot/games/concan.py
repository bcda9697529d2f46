"""Concan engine — rules in shared/rules/concan.md, notation in shared/rules/notation.md.

One state is a whole set of ``rounds`` rounds (notation.md, "Matches of several rounds").

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–6 players, ``multi_round``).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted.
- Evaluation (concan.md): ``meld_value(meld)``, ``best_opening(cards)``,
  ``hand_penalty(cards, *, opened, announced_jokers=0)``.
- For the UI: ``split_opening(cards, open_min=0)`` (the selection split into melds, best
  value, jokers named), ``split_choices(cards)`` (every such split, so the UI can ask what a
  joker stands for), ``best_melds(cards)`` (the hand grouped into melds + the rest),
  ``card_penalty(card)``; on the state ``opening_for(seat)`` / ``can_open(seat)``.

Events: ``Event(seat, "draw")`` (never the card), ``Event(seat, "take", (card,))``,
``Event(seat, "open", laid tokens, text="1 2")`` and ``Event(seat, "meld", tokens, text="3")``
(text: the numbers the new melds got), ``Event(seat, "layoff", (token,), text=meld no)``,
``Event(seat, "swap", (card,), text=meld no)`` (the card put in, the joker taken),
``Event(seat, "announce")``, ``Event(seat, "discard", (card,))``, ``Event(None, "reshuffle")``,
``Event(None, "round_end", phrases=...)``, ``Event(None, "round_start", text=str(round))`` and
``Event(None, "end", phrases=summary)``. Cards in events and melds may be tokens ``JK=5H``
(``token_identity`` / ``is_joker_token`` read them).

Views: the public keys of concan's interface are on every view (and, but for ``legal``,
``obligation`` and ``outcome``, which are methods taking a seat, on the state); ``hand``,
``best_opening`` (plain ``best_opening`` of the hand, None once opened), ``penalty_now`` and
``groups`` (``best_melds`` of the hand) are filled only in the seat's own view and are ``[]`` /
``None`` in the others. ``obligation`` is ``{"must_open_with": "7C"}`` (space-separated cards,
``JK`` for a joker swapped) for the seat to act after a take or swap before opening.

Steps of a turn (``state.step``): ``"first_discard"`` (the round starter's first turn: only
``discard``), ``"draw"`` (``draw`` or ``take``), ``"play"`` (``open``/``meld``/``layoff``/
``swap``/``announce`` any number of times, then ``discard``); ``None`` once the set is over.

What ``legal_actions(seat)`` lists: every ``draw``, ``take``, ``discard``, ``layoff``,
``swap`` and ``announce`` that ``apply`` accepts, but of the combinatorial verbs only:

- ``open``: at most one, the highest-value opening the seat may lay now (it keeps a card to
  discard and uses the card taken / jokers swapped this turn), when it reaches ``open_min``;
- ``meld`` (after opening): one per meld of the highest-value set of disjoint melds of the
  hand that keeps a card to discard (``best_melds``).

``apply`` validates any other ``open``/``meld`` fully. A bare ``JK`` inside ``open``/``meld``/
``layoff`` is accepted when only one card fits it; the record always writes ``JK=5H``.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- A round ending without a winner is followed by a round started by the seat after the
  previous round's starter.
- A player must keep a card for his discard: ``open``, ``meld`` and ``layoff`` may not empty
  the hand (``swap`` keeps its size). He may open, meld and lay off in the turn he opens.
- ``take`` before opening is legal when the hand with that card (and, if needed, jokers
  swapped from the table this turn) holds an opening worth ``open_min`` that uses that card
  and keeps a card to discard; until he opens, he may not discard. A swap before opening is
  legal when an opening using that joker (and any card taken) exists afterwards, again
  counting further swaps; the swapped joker must be in the opening. A joker swapped after
  opening goes to the hand announced.
- ``announce`` (one joker each time) is a move of the play step, after opening. When a joker
  leaves the hand, unannounced jokers leave first (``announced`` never exceeds the jokers held).
- Jokers may be discarded; a card taken after opening may be discarded the same turn.
- Every meld holds at least one natural card (there are only two jokers); any number of
  jokers may sit in one meld. A 13-card run ``2…K`` + ace counts the ace high (the higher
  value); an ace laid off on ``2…K`` goes low.
- "When the stock runs out" is read literally: right after the draw that takes the last
  stock card, the discards but the top one are shuffled into a new stock (the drawer goes on
  with his turn). With fewer than two discards at that moment there is no reshuffle: the
  drawer plays his turn to its end (he may still go out and win) and the round then ends
  without a winner. (From a real deal this cannot happen: every turn ends with a discard and
  only a draw empties the stock, so when a stock of ``s`` cards runs out the pile holds at
  least ``s`` ≥ 2 cards; the rule is kept and tested on a state set up by hand.)
- ``best_opening`` ignores the need to keep a card for the discard (it is the evaluation of
  concan.md); the listed ``open`` and the legality of ``take`` respect it.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Iterable, Sequence

from ..i18n import N_, _
from .base import (Event, Game, IllegalAction, NotACard, Outcome, Phrase, MatchOfRounds, or_list, outcome_dict,
                   pot_outcome, reshuffle_rng, round_rng, split_action, split_groups)
from .french import FULL_DECK, JOKER, RANKS, SUITS, parse_card, sort_key

#: Every phrase key this engine emits, with an English template ({name}: a seat's name), marked
#: for translation: the UI shows them in the reader's language.
PHRASES: dict[str, str] = {
    "concan.round_won": N_("{winner} goes out and wins round {round} (−25)."),
    "concan.round_void": N_("Round {round} ends without a winner: the stock ran out."),
    "concan.round_points": N_("{player} {points:+d} (total {total})"),
    "concan.round_points_closed": N_("{player} never opened: +100 (total {total})"),
    "concan.set_won": N_("{winner} wins the set with {total} points."),
    "concan.set_shared": N_("{winner} shares the pot with {total} points."),
    "concan.final_total": N_("{player}: {total}"),
}

#: The 106 cards: two French packs and two jokers (identical copies share a code).
PACK: tuple[str, ...] = FULL_DECK + FULL_DECK + (JOKER, JOKER)

_RANK_NO = {r: i + 1 for i, r in enumerate(RANKS)}
_SUIT_NO = {s: i for i, s in enumerate(SUITS)}
# Run positions 1..14: 1 is the ace low, 14 the ace high.
_POS_CODE = {s: [""] + [RANKS[q - 1] + s for q in range(1, 14)] + ["A" + s] for s in SUITS}
_POS_VALUE = [0, 1] + [min(q, 10) for q in range(2, 14)] + [10]
_PREFIX = [0]
for _v in _POS_VALUE[1:]:
    _PREFIX.append(_PREFIX[-1] + _v)
del _v
_SET_VALUE = {r: 10 if r in "ATJQK" else int(r) for r in RANKS}
_NEG = -(10**9)


def card_penalty(card: str, *, announced: bool = False) -> int:
    """A card left in an opened hand: 2–9 face value, T/J/Q/K and A 10, joker 2 or 25."""
    if card == JOKER:
        return 2 if announced else 25
    return _SET_VALUE[card[0]]


def _suit_order(card: str) -> tuple[int, int]:
    return (_SUIT_NO[card[1]], _RANK_NO[card[0]])


def _tok(identity: str, joker: bool) -> str:
    return f"{JOKER}={identity}" if joker else identity


def token_identity(token: str) -> str:
    """``"JK=5H"`` -> ``"5H"``; a natural card is itself."""
    return token[3:] if token.startswith(JOKER + "=") else token


def is_joker_token(token: str) -> bool:
    return token.startswith(JOKER)


def _parse_token(text: str) -> tuple[str | None, bool]:
    """A card of a meld: ``(identity, is_joker)``; a bare ``JK`` has identity ``None``."""
    t = str(text).strip().upper()
    if t.startswith(JOKER + "="):
        return parse_card(t[3:]), True
    if t == JOKER:
        return None, True
    return parse_card(t), False


# --------------------------------------------------------------------------------------------
# Melds


@dataclass(frozen=True)
class MeldSpec:
    """A fully named meld: ``tokens`` in display order (sets by suit S H D C, runs upwards)."""

    kind: str  # "set" | "run"
    tokens: tuple[str, ...]
    value: int
    rank: str = ""  # sets
    suit: str = ""  # runs
    lo: int = 0  # runs: positions 1 (ace low) .. 14 (ace high)
    hi: int = 0

    @property
    def identities(self) -> list[str]:
        return [token_identity(t) for t in self.tokens]

    @property
    def naturals(self) -> list[str]:
        return [t for t in self.tokens if not is_joker_token(t)]

    @property
    def jokers(self) -> int:
        return sum(1 for t in self.tokens if is_joker_token(t))


def _run_spec(suit: str, lo: int, hi: int, fixed: dict[int, str]) -> MeldSpec:
    """The run ``lo..hi`` of ``suit``; ``fixed`` maps positions to their tokens, the others are jokers."""
    codes = _POS_CODE[suit]
    tokens = tuple(fixed.get(q, _tok(codes[q], True)) for q in range(lo, hi + 1))
    return MeldSpec("run", tokens, _PREFIX[hi] - _PREFIX[lo - 1], suit=suit, lo=lo, hi=hi)


def _set_spec(rank: str, items: Iterable[tuple[str, bool]]) -> MeldSpec:
    ordered = sorted(items, key=lambda x: _SUIT_NO[x[0][1]])
    return MeldSpec("set", tuple(_tok(c, j) for c, j in ordered), len(ordered) * _SET_VALUE[rank], rank=rank)


def _interpret(fixed: Sequence[tuple[str, bool]], bare: int) -> list[MeldSpec]:
    """Every valid meld made of ``fixed`` (identity, is_joker) cards plus ``bare`` unnamed
    jokers, highest value first."""
    n = len(fixed) + bare
    out: list[MeldSpec] = []
    if n < 3 or not fixed:
        return out
    idents = [c for c, _ in fixed]
    ranks = {c[0] for c in idents}
    suits = {c[1] for c in idents}
    if len(ranks) == 1 and n <= 4 and len(suits) == len(idents):
        rank = idents[0][0]
        missing = [s for s in SUITS if s not in suits]
        for combo in combinations(missing, bare):
            out.append(_set_spec(rank, list(fixed) + [(rank + s, True) for s in combo]))
    if len(suits) == 1 and len(ranks) == len(idents) and n <= 13:
        suit = idents[0][1]
        for ace in ((1, 14) if "A" in ranks else (0,)):
            pos = {(ace if c[0] == "A" else _RANK_NO[c[0]]): _tok(c, j) for c, j in fixed}
            for lo in range(max(1, max(pos) - n + 1), min(pos) + 1):
                hi = lo + n - 1
                if hi <= 14:
                    out.append(_run_spec(suit, lo, hi, pos))
    out.sort(key=lambda m: -m.value)
    return out


def _meld_error(fixed: Sequence[tuple[str, bool]], bare: int) -> IllegalAction:
    """Why these cards are not a meld (a short sentence)."""
    n = len(fixed) + bare
    shown = " ".join([_tok(c, j) for c, j in fixed] + [JOKER] * bare)
    if n < 3:
        return IllegalAction(_("A meld needs at least 3 cards."))
    idents = [c for c, _j in fixed]
    ranks = [c[0] for c in idents]
    suits = [c[1] for c in idents]
    if len(set(ranks)) == 1:
        if n > 4:
            return IllegalAction(_("{cards} is not a meld: a set has at most 4 cards.").format(cards=shown))
        return IllegalAction(_("{cards} is not a meld: a set needs cards of different suits.").format(cards=shown))
    if len(set(suits)) > 1:
        return IllegalAction(_("{cards} is not a meld: a set is one rank, a run one suit.").format(cards=shown))
    if len(set(ranks)) != len(ranks):
        return IllegalAction(_("{cards} is not a meld: a run holds each rank once.").format(cards=shown))
    if "A" in ranks and ("K" in ranks or "Q" in ranks) and ("2" in ranks or "3" in ranks):
        return IllegalAction(_("{cards} is not a run: an ace is low (A 2 3) or high (Q K A), never both, and runs "
                               "do not wrap.").format(cards=shown))
    return IllegalAction(_("{cards} is not a run: its cards must follow each other.").format(cards=shown))


def _not_a_card(exc: NotACard) -> IllegalAction:
    return IllegalAction(_("{text} is not a card.").format(text=exc.text))


def _which_joker(choices: Sequence[str]) -> IllegalAction:
    return IllegalAction(_("Say what the joker stands for: {choices}.").format(choices=or_list(choices)))


def meld_value(meld: str | Iterable[str]) -> int | None:
    """The value of a meld (``"QD KD AD"`` 30, ``"TH JK=JH QH"`` 30), ``None`` if it is not one.

    A bare ``JK`` counts as the best card it could stand for."""
    try:
        parts = meld.split() if isinstance(meld, str) else list(meld)
        tokens = [_parse_token(p) for p in parts]
    except ValueError:
        return None
    fixed = [(c, j) for c, j in tokens if c is not None]
    specs = _interpret(fixed, len(tokens) - len(fixed))
    return specs[0].value if specs else None


def _resolve(parts: Sequence[str]) -> MeldSpec:
    """The meld these cards make, or IllegalAction with the reason (or the joker choices)."""
    try:
        tokens = [_parse_token(p) for p in parts]
    except NotACard as exc:
        raise _not_a_card(exc) from None
    fixed = [(c, j) for c, j in tokens if c is not None]
    bare = len(tokens) - len(fixed)
    specs = _interpret(fixed, bare)
    if not specs:
        raise _meld_error(fixed, bare)
    if bare:
        named = {tuple(sorted(t for t in s.tokens if is_joker_token(t))) for s in specs}
        if len(named) > 1:
            fixed_jokers = Counter(_tok(c, True) for c, j in fixed if j)
            options = []
            for s in specs:
                extra = Counter(t for t in s.tokens if is_joker_token(t)) - fixed_jokers
                text = " ".join(sorted(extra.elements()))
                if text not in options:
                    options.append(text)
            raise _which_joker(options)
    return specs[0]


# --------------------------------------------------------------------------------------------
# The solver: the best set of disjoint melds of a hand.
#
# The hand's distinct natural cards are ordered by suit then rank, and a hand is an integer
# with two bits per card (its count, 0–2: two packs). A memoised search takes the first
# remaining card and either leaves one copy of it or lays it in one of its candidate melds
# (sets of its rank, runs through it, with up to two jokers), then recurses. Candidates are
# built once per hand as bit masks (``need``: the naturals used). Unless jokers must be used
# (a swapped joker, or an exact split), a meld never names a joker as a card that is still
# in the hand: swapping that card with the joker gives a solution worth the same (the card
# either was left over, or sits in a later meld that can hold the joker instead), so these
# candidates (``sub & available``) are skipped. With a 15-card hand the search visits a few
# hundred states (at most one per subset of the cards times 3 joker counts times 4 flags);
# candidates per card are bounded by the 4 set shapes and the runs with at most two gaps.


_SET_COMBOS = {s: [c for size in (2, 3) for c in combinations([t for t in SUITS if t != s], size)]
               for s in SUITS}


def _subsets(items: tuple, most: int) -> list[tuple]:
    out: list[tuple] = [()]
    for n in range(1, min(most, len(items)) + 1):
        out.extend(combinations(items, n))
    return out


def _candidates(k0: str, bit: dict[str, int], jmax: int) -> list[tuple[int, int, int, int, tuple]]:
    """Every meld holding the natural ``k0`` as ``(need, jokers, sub, score, desc)``: ``need``
    the naturals used, ``sub`` the hand cards named by a joker, ``score`` = value·2²⁰ +
    cards·2⁸ − 1 (a sum of scores orders by value, then cards laid, then fewer melds)."""
    r, s = k0[0], k0[1]
    best: dict[tuple[int, int, int], tuple[int, tuple]] = {}
    me = bit[k0]
    sv = _SET_VALUE[r]
    for combo in _SET_COMBOS[s]:
        size = len(combo) + 1
        need = me
        miss: list[str] = []
        have: list[tuple[str, int]] = []
        for t in combo:
            b = bit.get(r + t, 0)
            if b:
                need |= b
                have.append((t, b))
            else:
                miss.append(t)
        if len(miss) > jmax:
            continue
        score = (size * sv << 20) + (size << 8) - 1
        for subs in _subsets(tuple(have), jmax - len(miss)):
            n, sub = need, 0
            for _t, b in subs:
                n ^= b
                sub |= b
            key = (n, len(miss) + len(subs), sub)
            if key not in best:
                best[key] = (score, ("S", r, (s, *combo), tuple(miss) + tuple(t for t, _ in subs)))
    codes = _POS_CODE[s]
    rn = _RANK_NO[r]
    for p in ((1, 14) if rn == 1 else (rn,)):
        sides = []
        for step in (-1, 1):
            ends = [(p, 0, ())]
            miss_n = 0
            av: tuple[int, ...] = ()
            q = p + step
            while 1 <= q <= 14 and abs(q - p) < 13:
                if codes[q] in bit:
                    av = av + (q,)
                else:
                    miss_n += 1
                    if miss_n > jmax:
                        break
                ends.append((q, miss_n, av))
                q += step
            sides.append(ends)
        for lo, ml, al in sides[0]:
            for hi, mr, ar in sides[1]:
                length = hi - lo + 1
                if length < 3 or length > 13 or ml + mr > jmax:
                    continue
                base = al + ar
                need = me
                for q in base:
                    need |= bit[codes[q]]
                score = ((_PREFIX[hi] - _PREFIX[lo - 1]) << 20) + (length << 8) - 1
                for subs in _subsets(base, jmax - ml - mr):
                    n, sub = need, 0
                    for q in subs:
                        b = bit[codes[q]]
                        n ^= b
                        sub |= b
                    key = (n, ml + mr + len(subs), sub)
                    prev = best.get(key)
                    if prev is None or score > prev[0]:
                        best[key] = (score, ("R", s, lo, hi, subs))
    out = [(n, jk, sub, sc, desc) for (n, jk, sub), (sc, desc) in best.items()]
    out.sort(key=lambda x: -x[3])
    return out


def _desc_spec(desc: tuple, bit: dict[str, int]) -> MeldSpec:
    if desc[0] == "S":
        __, rank, suits, jsuits = desc
        return _set_spec(rank, [(rank + t, t in jsuits) for t in suits])
    __, suit, lo, hi, subs = desc
    codes = _POS_CODE[suit]
    fixed = {q: codes[q] for q in range(lo, hi + 1) if codes[q] in bit and q not in subs}
    return _run_spec(suit, lo, hi, fixed)


@lru_cache(maxsize=8192)
def _solve(naturals: tuple[str, ...], jokers: int, require: str | None = None, req_jokers: int = 0,
           leave: bool = False, exact: bool = False) -> tuple[int, tuple[MeldSpec, ...]] | None:
    """The highest-value set of disjoint melds from ``naturals`` (sorted, with repeats) and
    ``jokers``: ``(value, melds)``, or ``None`` when the constraints cannot be met.

    ``require``: a natural card one of the melds must use; ``req_jokers``: the melds use at
    least that many jokers; ``leave``: at least one card (or joker) stays out; ``exact``:
    every card and joker is used. Ties go to the solution laying more cards, then to fewer melds."""
    ids = sorted(set(naturals), key=_suit_order)
    bit = {c: 1 << (2 * k) for k, c in enumerate(ids)}
    rem0 = 0
    for c in naturals:
        rem0 += bit[c]
    low_mask = sum(bit.values())
    prune = not (exact or req_jokers > 0)
    jmax = min(jokers, 2)
    cand = []
    for c in ids:
        lst = _candidates(c, bit, jmax)
        if not prune:
            lst = [(n, jk, 0, sc, d) for n, jk, _sub, sc, d in lst]
        cand.append(lst)
    if require is not None and require not in bit:
        return None
    tbit = bit.get(require, 0) if require is not None else 0
    REQT, LEAVE = 1, 2
    memo: dict[int, tuple[int, Any]] = {}

    def f(rem: int, j: int, fl: int) -> int:
        key = (rem << 4) | (j << 2) | fl
        got = memo.get(key)
        if got is not None:
            return got[0]
        if rem == 0:
            ok = (not fl & REQT and jokers - j >= req_jokers and not (fl & LEAVE and j == 0)
                  and not (exact and j))
            memo[key] = (0 if ok else _NEG, None)
            return 0 if ok else _NEG
        nz = (rem | rem >> 1) & low_mask
        low = nz & -nz
        best = _NEG
        choice: Any = None
        if not exact and not (fl & REQT and low == tbit and not rem & (low << 1)):
            best = f(rem - low, j, fl & ~LEAVE)
            choice = 0
        for c in cand[(low.bit_length() - 1) >> 1]:
            need, jk, sub = c[0], c[1], c[2]
            if jk > j or need & ~nz or sub & nz:
                continue
            v = f(rem - need, j - jk, fl & ~REQT if need & tbit else fl)
            if v >= 0 and v + c[3] > best:
                best = v + c[3]
                choice = c
        memo[key] = (best, choice)
        return best

    fl0 = (REQT if tbit else 0) | (LEAVE if leave else 0)
    total = f(rem0, jokers, fl0)
    if total < 0:
        return None
    melds = []
    rem, j, fl = rem0, jokers, fl0
    while rem:
        __, ch = memo[(rem << 4) | (j << 2) | fl]
        if ch == 0:
            nz = (rem | rem >> 1) & low_mask
            rem -= nz & -nz
            fl &= ~LEAVE
        else:
            need, jk, _sub, _sc, desc = ch
            melds.append(_desc_spec(desc, bit))
            rem -= need
            j -= jk
            if need & tbit:
                fl &= ~REQT
    return total >> 20, tuple(melds)


def _hand_cards(cards: str | Iterable[str]) -> list[str]:
    parts = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    return [parse_card(p, joker=True) for p in parts]


def _split_hand(cards: Iterable[str]) -> tuple[tuple[str, ...], int]:
    naturals = []
    jokers = 0
    for c in cards:
        if c == JOKER:
            jokers += 1
        else:
            naturals.append(c)
    return tuple(sorted(naturals)), jokers


def best_opening(cards: str | Iterable[str]) -> int:
    """The highest total of disjoint melds that can be laid from ``cards`` (0 if none).

    Exact: a memoised search over the hand's cards (see ``_solve``); a 15-card hand with both
    jokers takes well under a millisecond typically (benchmarks/concan_games.py)."""
    naturals, jokers = _split_hand(_hand_cards(cards))
    res = _solve(naturals, jokers)
    return res[0] if res else 0


def best_melds(cards: str | Iterable[str], *, keep: int = 0) -> dict[str, Any]:
    """The hand grouped for display: ``{"melds": [[tokens]], "rest": [cards], "value": int}``,
    the melds of the highest value (jokers named ``JK=5H``); ``keep=1`` keeps a card out."""
    hand = _hand_cards(cards)
    naturals, jokers = _split_hand(hand)
    res = _solve(naturals, jokers, leave=keep > 0) if hand else None
    if res is None:
        return {"melds": [], "rest": sorted(hand, key=sort_key), "value": 0}
    value, melds = res
    rest = Counter(hand)
    for m in melds:
        rest -= Counter(m.naturals)
        rest[JOKER] -= m.jokers
    return {"melds": [list(m.tokens) for m in melds], "rest": sorted(rest.elements(), key=sort_key),
            "value": value}


def hand_penalty(cards: str | Iterable[str], *, opened: bool, announced_jokers: int = 0) -> int:
    """The points of a hand at the end of a round: 100 if never opened, else the cards' sum
    (aces 10, a joker 2 if announced, 25 if not)."""
    hand = _hand_cards(cards)
    if not opened:
        return 100
    jokers = sum(1 for c in hand if c == JOKER)
    announced = min(announced_jokers, jokers)
    return sum(card_penalty(c) for c in hand if c != JOKER) + 2 * announced + 25 * (jokers - announced)


def split_opening(cards: str | Iterable[str], open_min: int = 0) -> list[list[str]] | None:
    """The selected ``cards`` split into melds using every one of them, the split of the
    highest value, each joker named (``JK=5H``); ``None`` if they do not split into melds or
    are worth less than ``open_min``. Bare ``JK`` or named ``JK=5H`` jokers are both accepted
    (a named joker is counted as a joker)."""
    hand = [JOKER if is_joker_token(p) else p for p in _tokens_of(cards)]
    hand = [parse_card(c, joker=True) for c in hand]
    if not hand:
        return None
    naturals, jokers = _split_hand(hand)
    res = _solve(naturals, jokers, req_jokers=jokers, exact=True)
    if res is None or res[0] < open_min:
        return None
    return [list(m.tokens) for m in res[1]]


def _tokens_of(cards: str | Iterable[str]) -> list[str]:
    parts = cards.replace(",", " ").replace("|", " ").split() if isinstance(cards, str) else list(cards)
    return [p.strip().upper() for p in parts]


def split_choices(cards: str | Iterable[str], *, limit: int = 24) -> list[dict[str, Any]]:
    """Every way (at most ``limit``) to split the selected ``cards`` into melds using all of
    them, with every naming of the jokers: ``[{"melds": [[tokens]], "value": int}]``, highest
    value first. One entry: nothing to ask; several: the UI asks which (e.g. ``5H 5S JK``
    gives ``JK=5D`` and ``JK=5C``)."""
    hand = [parse_card(JOKER if is_joker_token(p) else p, joker=True) for p in _tokens_of(cards)]
    naturals = sorted((c for c in hand if c != JOKER), key=_suit_order)
    jokers = len(hand) - len(naturals)
    found: dict[tuple, int] = {}

    def rec(rest: list[str], j: int, chosen: list[MeldSpec]) -> None:
        if len(found) >= limit:
            return
        if not rest:
            if j == 0 and chosen:
                key = tuple(sorted(m.tokens for m in chosen))
                found.setdefault(key, sum(m.value for m in chosen))
            return
        first, others = rest[0], rest[1:]
        partners = [i for i, c in enumerate(others) if c[0] == first[0] or c[1] == first[1]]
        seen_sets: set[tuple[str, ...]] = set()
        for size in range(0, min(12, len(partners)) + 1):
            for pick in combinations(partners, size):
                group = tuple([first] + [others[i] for i in pick])
                if group in seen_sets:
                    continue
                seen_sets.add(group)
                left = [c for i, c in enumerate(others) if i not in pick]
                for bare in range(0, j + 1):
                    for spec in _interpret([(c, False) for c in group], bare):
                        rec(left, j - bare, chosen + [spec])

    rec(naturals, jokers, [])
    out = [{"melds": [list(t) for t in key], "value": value} for key, value in found.items()]
    out.sort(key=lambda d: (-d["value"], d["melds"]))
    return out


# --------------------------------------------------------------------------------------------
# Table melds


@dataclass
class TableMeld:
    no: int
    owner: int
    spec: MeldSpec

    def as_dict(self) -> dict[str, Any]:
        return {"no": self.no, "owner": self.owner, "kind": self.spec.kind, "cards": list(self.spec.tokens)}

    def extended(self, identity: str, joker: bool) -> MeldSpec | None:
        spec = self.spec
        tok = _tok(identity, joker)
        if spec.kind == "set":
            if len(spec.tokens) >= 4 or identity[0] != spec.rank:
                return None
            idents = spec.identities
            if identity[1] in {c[1] for c in idents}:
                return None
            return _set_spec(spec.rank, [(token_identity(t), is_joker_token(t)) for t in spec.tokens]
                             + [(identity, joker)])
        if identity[1] != spec.suit or spec.hi - spec.lo + 1 >= 13:
            return None
        rn = _RANK_NO[identity[0]]
        fixed = {spec.lo + i: t for i, t in enumerate(spec.tokens)}
        for q in ((1, 14) if rn == 1 else (rn,)):
            if q == spec.lo - 1 and q >= 1:
                return _run_spec(spec.suit, q, spec.hi, {**fixed, q: tok})
            if q == spec.hi + 1 and q <= 14:
                return _run_spec(spec.suit, spec.lo, q, {**fixed, q: tok})
        return None

    def joker_fits(self) -> list[str]:
        """The identities a joker laid off here may take."""
        spec = self.spec
        if spec.kind == "set":
            if len(spec.tokens) >= 4:
                return []
            have = {c[1] for c in spec.identities}
            return [spec.rank + s for s in SUITS if s not in have]
        if spec.hi - spec.lo + 1 >= 13:
            return []
        codes = _POS_CODE[spec.suit]
        out = []
        if spec.lo > 1:
            out.append(codes[spec.lo - 1])
        if spec.hi < 14 and codes[spec.hi + 1] not in out:  # 2…K: the ace fits either end (laid low)
            out.append(codes[spec.hi + 1])
        return out


# --------------------------------------------------------------------------------------------
# The state


class ConcanState(MatchOfRounds):
    """A set of Concan rounds. Seats play in order 0, 1, ..., N-1, 0, ..."""

    name, title = "concan", "Concan"
    max_players = 6

    def __init__(self, players: int, *, seed: int | None, decks: Sequence[Sequence[str]] | None = None,
                 options: dict[str, Any] | None = None):
        n = self.seat_count(players)
        opts = {k: v for k, v in (options or {}).items() if k != "players"}
        opts.setdefault("rounds", 9)
        opts.setdefault("open_min", 51)
        rounds = int(opts["rounds"])
        open_min = int(opts["open_min"])
        if not 1 <= rounds <= 20:
            raise ValueError("rounds must be 1–20")
        if not 0 <= open_min <= 500:
            raise ValueError("open_min must be 0–500")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        self.num_players = n
        self.options: dict[str, Any] = opts
        self.seed = seed
        self.rounds = rounds
        self.open_min = open_min
        self._given = [self._check_pack(d) for d in (decks or [])]
        self.decks: list[list[str]] = []
        self.actions: list[list[Any]] = []
        self.totals = [0] * n
        self.round_results: list[dict[str, Any]] = []
        self.in_match = [True] * n
        self.phase = "play"
        self.round = 0
        self.first = 0
        self._outcome: Outcome | None = None
        self._version = 0
        self._legal_cache: tuple[int, int, list[str]] | None = None
        self._deal(1, 0)

    def __deepcopy__(self, memo: dict) -> "ConcanState":
        """A fast deep copy (the packs, hands and melds hold only strings and frozen specs)."""
        fast = {
            "hands": lambda v: [h.copy() for h in v],
            "table": lambda v: [TableMeld(m.no, m.owner, m.spec) for m in v],
            "decks": lambda v: [list(p) for p in v],
            "_given": lambda v: [list(p) for p in v],
            "actions": lambda v: [list(a) for a in v],
            "stock_cards": list, "pile": list, "opened_flags": list, "announced_counts": list,
            "totals": list, "in_match": list, "_legal_cache": lambda v: None,
        }
        new = object.__new__(ConcanState)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            copier = fast.get(key)
            new.__dict__[key] = copier(value) if copier else copy.deepcopy(value, memo)
        return new

    @staticmethod
    def _check_pack(deck: Sequence[str]) -> list[str]:
        cards = [parse_card(c, joker=True) for c in deck]
        if Counter(cards) != Counter(PACK):
            raise ValueError("a Concan pack holds exactly the 106 cards (two packs and two jokers)")
        return cards

    def _deal(self, round_no: int, first: int) -> None:
        if round_no <= len(self._given):
            cards = list(self._given[round_no - 1])
        else:
            cards = list(PACK)
            round_rng(self.seed, round_no).shuffle(cards)
        self.decks.append(list(cards))
        n = self.num_players
        self.round = round_no
        self.first = first
        self.hands: list[Counter] = [Counter() for _ in range(n)]
        k = 0
        for i in range(n):
            seat = (first + i) % n
            size = 15 if i == 0 else 14
            self.hands[seat] = Counter(cards[k:k + size])
            k += size
        self.stock_cards: list[str] = cards[k:]
        self.pile: list[str] = []
        self.table: list[TableMeld] = []
        self.opened_flags = [False] * n
        self.announced_counts = [0] * n
        self.reshuffles = 0
        self.last_turn = False  # the stock ran out and could not be refilled: this turn is the last
        self.current = first
        self.step: str | None = "first_discard"
        self.must_card: str | None = None
        self.must_jokers = 0

    # -- public attributes ----------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.current,)

    @property
    def top_discard(self) -> str | None:
        return self.pile[-1] if self.pile else None

    @property
    def hand_sizes(self) -> list[int]:
        return [sum(h.values()) for h in self.hands]

    @property
    def opened(self) -> list[bool]:
        return list(self.opened_flags)

    @property
    def announced(self) -> list[int]:
        return list(self.announced_counts)

    @property
    def melds(self) -> list[dict[str, Any]]:
        return [m.as_dict() for m in self.table]

    def hand(self, seat: int) -> list[str]:
        return sorted(self.hands[seat].elements(), key=sort_key)

    def obligation(self, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` must still do this turn: ``{"must_open_with": "7C"}`` (cards separated
        by spaces, ``JK`` for a swapped joker) after a take or swap before opening, else None."""
        if self.phase == "over" or seat != self.current or (self.must_card is None and not self.must_jokers):
            return None
        cards = ([self.must_card] if self.must_card else []) + [JOKER] * self.must_jokers
        return {"must_open_with": " ".join(cards)}

    # -- helpers ----------------------------------------------------------------------------------

    def _naturals(self, hand: Counter) -> tuple[tuple[str, ...], int]:
        return tuple(sorted(c for c in hand.elements() if c != JOKER)), hand[JOKER]

    def _swap_slots(self) -> list[tuple[str, int]]:
        """(card, meld no) of every joker on the table."""
        return [(token_identity(t), m.no) for m in self.table for t in m.spec.tokens if is_joker_token(t)]

    def _best_open(self, hand: Counter, require: str | None, req_jokers: int):
        naturals, jokers = self._naturals(hand)
        return _solve(naturals, jokers, require, req_jokers, True, False)

    def _open_possible(self, hand: Counter, require: str | None, req_jokers: int,
                       slots: Sequence[tuple[str, int]]) -> bool:
        """An opening worth open_min using ``require`` and ``req_jokers`` jokers exists, with
        any subset of ``slots`` swapped first (each swapped joker then used too)."""
        for size in range(len(slots) + 1):
            for pick in combinations(slots, size):
                h = hand.copy()
                if any(h[card] <= 0 for card, _ in pick):
                    continue
                need = Counter(card for card, _ in pick)
                if any(h[card] < k for card, k in need.items()):
                    continue
                h.subtract(need)
                h[JOKER] += size
                h = +h
                naturals, jokers = self._naturals(h)
                bound = _solve(naturals, jokers)  # no constraint, pruned search: an upper bound
                if bound is None or bound[0] < self.open_min:
                    continue
                res = self._best_open(h, require, req_jokers + size)
                if res is not None and res[0] >= self.open_min:
                    return True
        return False

    def _take_possible(self, seat: int) -> bool:
        card = self.top_discard
        if card is None:
            return False
        if self.opened_flags[seat]:
            return True
        hand = self.hands[seat].copy()
        hand[card] += 1
        return self._open_possible(hand, card, 0, self._swap_slots())

    def _swap_allowed_before_open(self, seat: int, card: str, no: int) -> bool:
        hand = self.hands[seat].copy()
        hand[card] -= 1
        hand[JOKER] += 1
        slots = self._swap_slots()
        slots.remove((card, no))
        return self._open_possible(+hand, self.must_card, self.must_jokers + 1, slots)

    def opening_for(self, seat: int) -> str | None:
        """The ``open`` action listed for ``seat`` now (the best legal opening), or None."""
        if self.phase == "over" or seat != self.current or self.step != "play" or self.opened_flags[seat]:
            return None
        res = self._best_open(self.hands[seat], self.must_card, self.must_jokers)
        if res is None or res[0] < self.open_min:
            return None
        return "open " + " | ".join(" ".join(m.tokens) for m in res[1])

    def can_open(self, seat: int) -> bool:
        return self.opening_for(seat) is not None

    def _layoff_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        out = []
        for m in self.table:
            for card in sorted((c for c in hand if c != JOKER and hand[c] > 0), key=sort_key):
                if m.extended(card, False) is not None:
                    out.append(f"layoff {card} {m.no}")
            if hand[JOKER] > 0:
                for ident in m.joker_fits():
                    out.append(f"layoff {_tok(ident, True)} {m.no}")
        return out

    def _swap_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        out = []
        for card, no in self._swap_slots():
            if hand[card] <= 0:
                continue
            if self.opened_flags[seat] or self._swap_allowed_before_open(seat, card, no):
                out.append(f"swap {card} {no}")
        return out

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "over" or seat != self.current:
            return []
        if self._legal_cache is not None and self._legal_cache[:2] == (self._version, seat):
            return list(self._legal_cache[2])
        out = list(dict.fromkeys(self._compute_legal(seat)))  # two packs: identical melds list once
        self._legal_cache = (self._version, seat, out)
        return list(out)

    def _compute_legal(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        discards = [f"discard {c}" for c in sorted((c for c in hand if hand[c] > 0), key=sort_key)]
        if self.step == "first_discard":
            return discards
        if self.step == "draw":
            out = ["draw"] if self.stock_cards else []
            if self._take_possible(seat):
                out.append("take")
            return out
        out = []
        size = sum(hand.values())
        if not self.opened_flags[seat]:
            opening = self.opening_for(seat)
            if opening:
                out.append(opening)
            out += self._swap_actions(seat)
        else:
            if size > 1:
                naturals, jokers = self._naturals(hand)
                res = _solve(naturals, jokers, None, 0, True, False)
                if res:
                    out += ["meld " + " ".join(m.tokens) for m in res[1]]
                out += self._layoff_actions(seat)
            out += self._swap_actions(seat)
            if hand[JOKER] > self.announced_counts[seat]:
                out.append("announce")
        if self.must_card is None and not self.must_jokers:
            out += discards
        return out

    # -- apply ------------------------------------------------------------------------------------

    def apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "over":
            raise IllegalAction(_("The set is over."))
        if seat != self.current:
            raise IllegalAction(_("It is not your turn."))
        verb, rest = split_action(action)
        handlers = {"draw": self._draw, "take": self._take, "open": self._open, "meld": self._meld,
                    "layoff": self._layoff, "swap": self._swap, "announce": self._announce,
                    "discard": self._discard}
        handler = handlers.get(verb)
        if handler is None:
            raise IllegalAction(_("Unknown action {verb}: use draw, take, open, meld, layoff, swap, announce or "
                                  "discard.").format(verb=repr(verb)))
        events = handler(seat, rest)
        self._version += 1
        return events

    def _need_step(self, verb: str) -> None:
        step = self.step
        if verb in ("draw", "take"):
            if step == "draw":
                return
            if step == "first_discard":
                raise IllegalAction(_("Your first turn of the round is a discard only."))
            raise IllegalAction(_("You have already drawn this turn."))
        if step == "play" or (verb == "discard" and step == "first_discard"):
            return
        if step == "first_discard":
            raise IllegalAction(_("Your first turn of the round is a discard only."))
        raise IllegalAction(_("Draw a card or take the discard first."))

    def _missing(self, hand: Counter, cards: Counter) -> IllegalAction | None:
        for card, k in cards.items():
            if hand[card] < k:
                if card == JOKER:
                    return IllegalAction(_("You do not have that many jokers.") if hand[JOKER] else
                                         _("You have no joker."))
                if hand[card]:
                    return IllegalAction(_("You have only one {card}.").format(card=card))
                return IllegalAction(_("You do not have {card}.").format(card=card))
        return None

    @staticmethod
    def _uses(spec: MeldSpec) -> Counter:
        used = Counter(spec.naturals)
        if spec.jokers:
            used[JOKER] += spec.jokers
        return used

    def _remove(self, seat: int, used: Counter) -> None:
        hand = self.hands[seat]
        hand.subtract(used)
        self.hands[seat] = +hand
        self.announced_counts[seat] = min(self.announced_counts[seat], self.hands[seat][JOKER])

    def _lay(self, seat: int, spec: MeldSpec) -> TableMeld:
        meld = TableMeld(len(self.table) + 1, seat, spec)
        self.table.append(meld)
        return meld

    def _draw(self, seat: int, rest: str) -> list[Event]:
        if rest:
            raise IllegalAction(_("draw takes no cards."))
        self._need_step("draw")
        if not self.stock_cards:  # cannot happen: the turn starts with a stock
            raise IllegalAction(_("The stock is empty."))
        card = self.stock_cards.pop(0)
        self.hands[seat][card] += 1
        self.step = "play"
        self.actions.append([seat, "draw"])
        events = [Event(seat, "draw")]
        if not self.stock_cards:
            if len(self.pile) >= 2:
                self.reshuffles += 1
                cards = self.pile[:-1]
                reshuffle_rng(self.seed, self.round, self.reshuffles).shuffle(cards)
                self.stock_cards = cards
                self.pile = self.pile[-1:]
                events.append(Event(None, "reshuffle"))
            else:
                self.last_turn = True
        return events

    def _take(self, seat: int, rest: str) -> list[Event]:
        if rest:
            raise IllegalAction(_("take takes no cards: it takes the top discard."))
        self._need_step("take")
        card = self.top_discard
        if card is None:
            raise IllegalAction(_("The discard pile is empty."))
        if not self._take_possible(seat):
            raise IllegalAction(_("Before opening you may take {card} only to open with it this turn, and no opening "
                                  "worth {need} uses it.").format(card=card, need=self.open_min))
        self.pile.pop()
        self.hands[seat][card] += 1
        if not self.opened_flags[seat]:
            self.must_card = card
        self.step = "play"
        self.actions.append([seat, "take"])
        return [Event(seat, "take", (card,))]

    def _parse_melds(self, rest: str) -> list[MeldSpec]:
        groups = split_groups(rest)
        if not groups:
            raise IllegalAction(_("Name the cards of your melds."))
        return [_resolve(g) for g in groups]

    def _check_keep(self, seat: int, used: Counter) -> None:
        if sum(used.values()) >= sum(self.hands[seat].values()):
            raise IllegalAction(_("Keep a card to discard: a round ends with a discard."))

    def _open(self, seat: int, rest: str) -> list[Event]:
        self._need_step("open")
        if self.opened_flags[seat]:
            raise IllegalAction(_("You have already opened: lay more with meld."))
        specs = self._parse_melds(rest)
        used = Counter()
        for s in specs:
            used += self._uses(s)
        hand = self.hands[seat]
        err = self._missing(hand, used)
        if err:
            raise err
        if self.must_card is not None and self.must_card not in used:
            raise IllegalAction(_("Your opening must use {card}, the card you took.").format(card=self.must_card))
        if used[JOKER] < self.must_jokers:
            raise IllegalAction(_("Your opening must use the joker you swapped."))
        value = sum(s.value for s in specs)
        if value < self.open_min:
            raise IllegalAction(_("Your opening is worth {value}; you need {need}.").format(
                value=value, need=self.open_min))
        self._check_keep(seat, used)
        self._remove(seat, used)
        laid = [self._lay(seat, s) for s in specs]
        self.opened_flags[seat] = True
        self.must_card = None
        self.must_jokers = 0
        action = "open " + " | ".join(" ".join(s.tokens) for s in specs)
        self.actions.append([seat, action])
        cards = tuple(t for s in specs for t in s.tokens)
        return [Event(seat, "open", cards, " ".join(str(m.no) for m in laid))]

    def _meld(self, seat: int, rest: str) -> list[Event]:
        self._need_step("meld")
        if not self.opened_flags[seat]:
            raise IllegalAction(_("Open first, with melds worth at least {need}.").format(need=self.open_min))
        specs = self._parse_melds(rest)
        if len(specs) != 1:
            raise IllegalAction(_("Lay one meld at a time."))
        spec = specs[0]
        used = self._uses(spec)
        err = self._missing(self.hands[seat], used)
        if err:
            raise err
        self._check_keep(seat, used)
        self._remove(seat, used)
        meld = self._lay(seat, spec)
        self.actions.append([seat, "meld " + " ".join(spec.tokens)])
        return [Event(seat, "meld", spec.tokens, str(meld.no))]

    def _meld_arg(self, rest: str, verb: str) -> tuple[str, TableMeld]:
        parts = rest.split()
        if len(parts) != 2:
            raise IllegalAction(_("Write {verb} <card> <meld number>.").format(verb=verb))
        try:
            no = int(parts[1])
        except ValueError:
            raise IllegalAction(_("Write {verb} <card> <meld number>.").format(verb=verb)) from None
        if not 1 <= no <= len(self.table):
            raise IllegalAction(_("There is no meld {number} on the table.").format(number=no))
        return parts[0], self.table[no - 1]

    def _layoff(self, seat: int, rest: str) -> list[Event]:
        self._need_step("layoff")
        if not self.opened_flags[seat]:
            raise IllegalAction(_("You may lay off only after opening."))
        text, meld = self._meld_arg(rest, "layoff")
        try:
            ident, joker = _parse_token(text)
        except NotACard as exc:
            raise _not_a_card(exc) from None
        hand = self.hands[seat]
        need = Counter({JOKER if joker else ident: 1})
        err = self._missing(hand, need)
        if err:
            raise err
        if ident is None:
            fits = meld.joker_fits()
            if not fits:
                raise IllegalAction(_("A joker does not fit meld {number}.").format(number=meld.no))
            if len(fits) > 1:
                raise _which_joker([_tok(f, True) for f in fits])
            ident = fits[0]
        new = meld.extended(ident, joker)
        if new is None:
            raise IllegalAction(_("{card} does not fit meld {number} ({cards}).").format(
                card=_tok(ident, joker), number=meld.no, cards=" ".join(meld.spec.tokens)))
        self._check_keep(seat, need)
        self._remove(seat, need)
        meld.spec = new
        token = _tok(ident, joker)
        self.actions.append([seat, f"layoff {token} {meld.no}"])
        return [Event(seat, "layoff", (token,), str(meld.no))]

    def _swap(self, seat: int, rest: str) -> list[Event]:
        self._need_step("swap")
        text, meld = self._meld_arg(rest, "swap")
        try:
            card, joker = _parse_token(text)
        except NotACard as exc:
            raise _not_a_card(exc) from None
        if joker:
            raise IllegalAction(_("Swap the joker with the card it stands for: swap <card> <meld number>."))
        token = _tok(card, True)
        if token not in meld.spec.tokens:
            raise IllegalAction(_("Meld {number} has no joker standing for {card}.").format(number=meld.no, card=card))
        if self.hands[seat][card] <= 0:
            raise IllegalAction(_("You do not have {card}.").format(card=card))
        if not self.opened_flags[seat] and not self._swap_allowed_before_open(seat, card, meld.no):
            raise IllegalAction(_("Before opening you may swap a joker only to open with it this turn, and no opening "
                                  "worth {need} uses it.").format(need=self.open_min))
        tokens = tuple(card if t == token else t for t in meld.spec.tokens)
        meld.spec = MeldSpec(meld.spec.kind, tokens, meld.spec.value, meld.spec.rank, meld.spec.suit,
                             meld.spec.lo, meld.spec.hi)
        hand = self.hands[seat]
        hand[card] -= 1
        hand[JOKER] += 1
        self.hands[seat] = +hand
        if self.opened_flags[seat]:
            self.announced_counts[seat] += 1
        else:
            self.must_jokers += 1
        self.actions.append([seat, f"swap {card} {meld.no}"])
        return [Event(seat, "swap", (card,), str(meld.no))]

    def _announce(self, seat: int, rest: str) -> list[Event]:
        if rest:
            raise IllegalAction(_("announce takes no cards."))
        self._need_step("announce")
        if not self.opened_flags[seat]:
            raise IllegalAction(_("Announce your jokers after opening."))
        if self.hands[seat][JOKER] <= self.announced_counts[seat]:
            raise IllegalAction(_("You hold no joker to announce.") if not self.hands[seat][JOKER]
                                else _("Your jokers are already announced."))
        self.announced_counts[seat] += 1
        self.actions.append([seat, "announce"])
        return [Event(seat, "announce")]

    def _discard(self, seat: int, rest: str) -> list[Event]:
        self._need_step("discard")
        parts = rest.split()
        if len(parts) != 1:
            raise IllegalAction(_("Discard exactly one card."))
        try:
            card = parse_card(parts[0], joker=True)
        except NotACard as exc:
            raise _not_a_card(exc) from None
        if self.must_card is not None:
            raise IllegalAction(_("You took {card}: open with it before you discard.").format(card=self.must_card))
        if self.must_jokers:
            raise IllegalAction(_("You swapped a joker before opening: open with it before you discard."))
        err = self._missing(self.hands[seat], Counter({card: 1}))
        if err:
            raise err
        self._remove(seat, Counter({card: 1}))
        self.pile.append(card)
        self.actions.append([seat, f"discard {card}"])
        events = [Event(seat, "discard", (card,))]
        if not self.hands[seat]:
            events += self._end_round(seat)
            return events
        if self.last_turn:
            events += self._end_round(None)
            return events
        self.current = (seat + 1) % self.num_players
        self.step = "draw"
        return events

    # -- rounds and the end of the set -------------------------------------------------------------

    def _end_round(self, winner: int | None) -> list[Event]:
        n = self.num_players
        points = []
        hands = []
        for s in range(n):
            cards = self.hand(s)
            penalty = hand_penalty(cards, opened=self.opened_flags[s], announced_jokers=self.announced_counts[s])
            points.append(-25 if s == winner else penalty)
            hands.append({"cards": cards, "penalty": 0 if s == winner else penalty,
                          "opened": self.opened_flags[s], "announced": self.announced_counts[s]})
        for s in range(n):
            self.totals[s] += points[s]
        phrases = [Phrase("concan.round_won", {"winner": winner}, {"round": self.round}) if winner is not None
                   else Phrase("concan.round_void", {}, {"round": self.round})]
        for s in range(n):
            key = "concan.round_points_closed" if not self.opened_flags[s] else "concan.round_points"
            phrases.append(Phrase(key, {"player": s}, {"points": points[s], "total": self.totals[s]}))
        self.round_results.append({
            "round": self.round, "points": points, "totals": list(self.totals), "winner": winner,
            "hands": hands, "phrases": [p.as_dict() for p in phrases],
        })
        events = [Event(None, "round_end", phrases=tuple(phrases))]
        if self.round >= self.rounds:
            events.append(self._finish())
            return events
        first = winner if winner is not None else (self.first + 1) % n
        self._deal(self.round + 1, first)
        events.append(Event(None, "round_start", text=str(self.round)))
        return events

    def _finish(self) -> Event:
        n = self.num_players
        low = min(self.totals)
        winners = [s for s in range(n) if self.totals[s] == low]
        ranks = [1 + sum(1 for t in self.totals if t < self.totals[s]) for s in range(n)]
        key = "concan.set_won" if len(winners) == 1 else "concan.set_shared"
        summary = [Phrase(key, {"winner": w}, {"total": low}) for w in winners]
        summary += [Phrase("concan.final_total", {"player": s}, {"total": self.totals[s]})
                    for s in sorted(range(n), key=lambda s: (self.totals[s], s)) if s not in winners]
        self._outcome = pot_outcome(n, paid=[1] * n, winners=winners, ranks=ranks, points=list(self.totals),
                                    summary=summary)
        self._outcome.check_balanced()
        self.phase = "over"
        self.step = None
        self.must_card = None
        self.must_jokers = 0
        return Event(None, "end", phrases=tuple(summary))

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the set is not over")
        return self._outcome

    # -- views and records -------------------------------------------------------------------------

    def _outcome_dict(self) -> dict[str, Any] | None:
        if self._outcome is None:
            return None
        return {**outcome_dict(self._outcome), "totals": list(self.totals), "rounds_played": len(self.round_results)}

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        over = self.phase == "over"
        own = seat is not None and 0 <= seat < n
        hand = self.hand(seat) if own else []
        return {
            "game": "concan",
            "seat": seat,
            "num_players": n,
            "round": self.round,
            "rounds": self.rounds,
            "totals": list(self.totals),
            "round_results": [{**r, "points": list(r["points"]), "totals": list(r["totals"]),
                               "hands": [dict(h, cards=list(h["cards"])) for h in r["hands"]],
                               "phrases": [dict(p) for p in r["phrases"]]} for r in self.round_results],
            "in_match": list(self.in_match),
            "phase": self.phase,
            "first": self.first,
            "current": None if over else self.current,
            "to_act": list(self.to_act),
            "step": self.step,
            "stock": self.stock,
            "top_discard": self.top_discard,
            "discards": self.discards,
            "hand_sizes": self.hand_sizes,
            "opened": self.opened,
            "announced": self.announced,
            "melds": self.melds,
            "options": dict(self.options),
            "legal": self.legal_actions(seat) if own else [],
            "obligation": self.obligation(seat) if own else None,
            "outcome": self._outcome_dict(),
            "hand": hand,
            "best_opening": best_opening(hand) if own and not over and not self.opened_flags[seat] else None,
            "penalty_now": (hand_penalty(hand, opened=self.opened_flags[seat],
                                         announced_jokers=self.announced_counts[seat]) if own else None),
            "groups": best_melds(hand) if own else None,
        }


GAME = Game.of(ConcanState, rounds=9, open_min=51)

__all__ = ["GAME", "JOKER", "PACK", "PHRASES", "ConcanState", "MeldSpec", "TableMeld", "best_melds", "best_opening",
           "card_penalty", "hand_penalty", "is_joker_token", "meld_value", "split_choices", "split_opening",
           "token_identity"]
