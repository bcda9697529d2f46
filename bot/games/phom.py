"""Phỏm (Tá Lả) engine — rules in shared/rules/phom.md, notation in shared/rules/notation.md.

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted.
- ``best_points(cards, eaten=()) -> Points``, ``is_u(cards, eaten=()) -> bool``,
  ``is_phom(cards) -> bool``, ``arrange(cards, eaten=()) -> Arrangement``,
  ``find_phom(cards) -> list | None``.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- Locking is by feasibility: a card is locked when no arrangement of the rest of the hand
  keeps every unshown eaten card in its own phỏm. The hand cards named in ``eat`` only have
  to form a phỏm with the eaten card (and hold no other eaten card); they are not tied to it.
- In the last round every ``show`` must lay down all unshown eaten cards, each in its own
  phỏm, and leave no phỏm among the cards the player keeps (the card he is about to discard
  included); he chooses which arrangement to show. ``show`` alone (showing nothing) is legal
  only for a hand without any phỏm. At least one show is always legal: an arrangement keeping
  every eaten card in its phỏm, completed with phỏm from the rest until none is left.
- At a normal end only shown phỏm count: a player's points are the sum of all the cards he
  still holds, and he is móm when he showed no phỏm. Every player has a last-round turn and
  must show all his phỏm in it, and the cards he keeps after showing never gain a phỏm
  again without a new show, so this is the spec's "a hand with no phỏm is móm".
- Ù is checked at the deal, after an eat or a draw, and after a discard. A hand dealt all in
  phỏm ends the game right at the deal, with no action: ``is_over`` is true straight after
  ``new`` and the record's action list is empty. Seat 0 wins so only when all his 10 cards are
  in phỏm (an ù before discarding, 12 from each); if only 9 of them are, he ù after his first
  discard as usual, unless another seat was dealt an ù (9 cards, 6 from each), which wins first.
  Of several seats dealt an ù the lowest seat wins.
- Ù đền (penalty 2) takes precedence over the last-round penalty (3); penalty 3 does not
  apply when the last player whose discard was eaten is the ù winner himself.
- The hand cards named in ``eat`` stay hidden (phom.md: "he need not show them"): the eat
  event carries only the eaten card; the record (not public during play) keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Iterable, Sequence

from ..i18n import N_, _
from .base import (Event, Game, IllegalAction, NotACard, Note, Outcome, Phrase, Transfer, and_list, GameOfOnePack,
                   outcome_dict, outcome_from_transfers, pack_order, split_action)
from .french import FULL_DECK, RANKS, SUITS, parse_card, parse_cards, sort_key

#: Every phrase key this engine emits, with its English template ({name}: a seat's name),
#: marked for translation: the UI shows them in the reader's language.
PHRASES: dict[str, str] = {
    "phom.u": N_("{winner} ù: {each} from each player"),
    "phom.u_before_discard": N_("{winner} ù before discarding: {each} from each player"),
    "phom.u_den": N_("{winner} ù; {payer} pays for everyone ({reason})"),
    "phom.u_before_discard_den": N_("{winner} ù before discarding; {payer} pays for everyone ({reason})"),
    "phom.u_den_last_round": N_("{winner} ù; {payer} pays for everyone (ù đền, last round)"),
    "phom.u_before_discard_den_last_round": N_("{winner} ù before discarding; {payer} pays for everyone "
                                               "(ù đền, last round)"),
    "phom.win": N_("{winner} wins with {points} points"),
    "phom.win_all_mom": N_("{winner} wins with {points} points (everyone móm)"),
}

# Notes, transfer reasons and event texts: native words stay as they are; English ones are
# marked here and translated where they are shown.
U_BEFORE_DISCARD = N_("ù before discarding")
U_DEN_LAST_ROUND = N_("ù đền (last round)")
EAT = N_("eat")
#: the payment of a seat ranked 2, 3 or 4 at a normal end
RANK_REASONS = {2: N_("rank 2"), 3: N_("rank 3"), 4: N_("rank 4")}

# --------------------------------------------------------------------------------------------
# Card ids for the solver: id = (rank - 1) * 4 + suit index, so sorting ids sorts by
# (rank, suit); the next card of a run is id + 4; the point value is id // 4 + 1.

_CID: dict[str, int] = {r + s: ri * 4 + si for ri, r in enumerate(RANKS) for si, s in enumerate(SUITS)}
_CODE: list[str] = [""] * 52
for _code, _i in _CID.items():
    _CODE[_i] = _code
del _code, _i


def card_points(card: str) -> int:
    return _CID[card] // 4 + 1


@dataclass(frozen=True)
class Points:
    points: int
    mom: bool


@dataclass
class Arrangement:
    melds: list[list[str]]
    leftover: list[str]
    points: int
    mom: bool

    def as_dict(self) -> dict[str, Any]:
        return {"melds": [list(m) for m in self.melds], "leftover": list(self.leftover),
                "points": self.points, "mom": self.mom}


_INF = 10**9


@lru_cache(maxsize=262144)
def _solve_ids(ids: tuple[int, ...], eaten: tuple[int, ...]):
    """Best arrangement of the sorted card ids ``ids``.

    Returns ``(points, melds, leftover)`` with melds/leftover as tuples of ids, or ``None``
    when no arrangement puts every eaten card in its own phỏm.
    """
    n = len(ids)
    pos = {c: i for i, c in enumerate(ids)}
    emask = 0
    for e in eaten:
        emask |= 1 << pos[e]
    vals = [c // 4 + 1 for c in ids]
    cands: list[list[int]] = [[] for _ in range(n)]
    # sets: 3+ cards of one rank (ids of one rank are adjacent)
    i = 0
    while i < n:
        r = ids[i] // 4
        j = i + 1
        while j < n and ids[j] // 4 == r:
            j += 1
        if j - i >= 3:
            for size in range(j - i, 2, -1):
                for comb in combinations(range(i, j), size):
                    m = 0
                    for p in comb:
                        m |= 1 << p
                    cands[comb[0]].append(m)
        i = j
    # runs: 3+ consecutive ranks of one suit, starting at each card
    for i, c in enumerate(ids):
        m = 1 << i
        length = 1
        nxt = c + 4
        runs = []
        while nxt in pos:
            m |= 1 << pos[nxt]
            length += 1
            if length >= 3:
                runs.append(m)
            nxt += 4
        if runs:
            cands[i].extend(reversed(runs))
    if emask:
        for i in range(n):
            cands[i] = [m for m in cands[i] if not ((m & emask) & ((m & emask) - 1))]

    memo: dict[int, tuple[int, int]] = {0: (0, 0)}

    def f(mask: int) -> int:
        got = memo.get(mask)
        if got is not None:
            return got[0]
        low = mask & -mask
        li = low.bit_length() - 1
        best = _INF
        choice = -1
        if not emask & low:
            best = vals[li] + f(mask ^ low)
            choice = 0
        for p in cands[li]:
            if best == 0:
                break
            if p & mask == p:
                v = f(mask ^ p)
                if v < best:
                    best = v
                    choice = p
        memo[mask] = (best, choice)
        return best

    full = (1 << n) - 1
    pts = f(full)
    if pts >= _INF:
        return None
    melds = []
    left = []
    mask = full
    while mask:
        __, ch = memo[mask]
        if ch == 0:
            low = mask & -mask
            left.append(ids[low.bit_length() - 1])
            mask ^= low
        else:
            melds.append(tuple(ids[k] for k in range(n) if ch >> k & 1))
            mask ^= ch
    melds.sort()
    return pts, tuple(melds), tuple(left)


def _solve(cards: Iterable[str], eaten: Iterable[str] = ()):
    """``_solve_ids`` on card codes (all valid, distinct; eaten ⊆ cards)."""
    ids = tuple(sorted(_CID[c] for c in cards))
    eids = tuple(sorted(_CID[c] for c in eaten))
    return _solve_ids(ids, eids)


def _feasible(cards: Iterable[str], eaten: Iterable[str]) -> bool:
    return _solve(cards, eaten) is not None


def _hand_is_u(cards: Iterable[str], eaten: Iterable[str]) -> bool:
    res = _solve(cards, eaten)
    return res is not None and res[0] == 0


def _to_cards(cards: str | Iterable[str]) -> list[str]:
    out = parse_cards(cards)
    if len(set(out)) != len(out):
        raise ValueError("a card is listed twice")
    return out


def _prepare(cards, eaten) -> tuple[list[str], list[str]]:
    hand = _to_cards(cards)
    eat = _to_cards(eaten)
    hand += [c for c in eat if c not in hand]
    return hand, eat


def _arrangement_from(res) -> Arrangement:
    pts, melds, left = res
    return Arrangement(
        melds=[[_CODE[c] for c in m] for m in melds],
        leftover=[_CODE[c] for c in sorted(left)],
        points=pts,
        mom=not melds,
    )


def arrange(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> Arrangement:
    """The lowest-points arrangement respecting the eaten-card rule.

    Eaten cards count as part of the hand (they are added if missing). Raises
    ``ValueError`` when no arrangement keeps every eaten card in its own phỏm.
    """
    hand, eat = _prepare(cards, eaten)
    res = _solve(hand, eat)
    if res is None:
        raise ValueError("no arrangement keeps every eaten card in its own phỏm")
    return _arrangement_from(res)


def best_points(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> Points:
    """Leftover points of the best arrangement; ``mom`` when it holds no phỏm at all."""
    arr = arrange(cards, eaten)
    return Points(points=arr.points, mom=arr.mom)


def is_u(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> bool:
    """Whether the whole hand splits into phỏm (each eaten card in its own phỏm)."""
    hand, eat = _prepare(cards, eaten)
    return _hand_is_u(hand, eat)


def is_phom(cards: str | Iterable[str]) -> bool:
    """3+ cards of one rank, or 3+ consecutive cards of one suit (ace low only)."""
    try:
        hand = _to_cards(cards)
    except ValueError:
        return False
    return _is_phom_codes(hand)


def _is_phom_codes(hand: Sequence[str]) -> bool:
    if len(hand) < 3 or len(set(hand)) != len(hand):
        return False
    ids = sorted(_CID[c] for c in hand)
    if all(c // 4 == ids[0] // 4 for c in ids):
        return True
    return all(ids[k + 1] - ids[k] == 4 for k in range(len(ids) - 1))


def _has_phom(cards: Iterable[str]) -> bool:
    """Whether some phỏm can be made from ``cards`` (fast: no enumeration)."""
    ids = {_CID[c] for c in cards}
    per_rank: dict[int, int] = {}
    for i in ids:
        per_rank[i // 4] = per_rank.get(i // 4, 0) + 1
    if any(k >= 3 for k in per_rank.values()):
        return True
    return any(i + 4 in ids and i + 8 in ids for i in ids)  # ids + 4: the next rank, same suit


def find_phom(cards: str | Iterable[str]) -> list[str] | None:
    """A phỏm among ``cards`` (the longest, then the lowest in canonical order), or None."""
    found = _all_phom(_to_cards(cards))
    if not found:
        return None
    return min(found, key=lambda m: (-len(m), _meld_key(m)))


def _canon_meld(meld: Iterable[str]) -> list[str]:
    return sorted(meld, key=sort_key)


def _meld_key(meld: Sequence[str]):
    return tuple(sort_key(c) for c in meld)


def _all_phom(cards: Iterable[str], eaten: Iterable[str] = ()) -> list[list[str]]:
    """Every phỏm (canonical, sorted) among ``cards`` holding at most one eaten card."""
    hand = sorted(cards, key=sort_key)
    eat = set(eaten)
    present = set(hand)
    out: list[list[str]] = []
    by_rank: dict[str, list[str]] = {}
    for c in hand:
        by_rank.setdefault(c[0], []).append(c)
    for group in by_rank.values():
        for size in range(3, len(group) + 1):
            for comb in combinations(group, size):
                out.append(list(comb))
    for c in hand:
        run = [c]
        ri = RANKS.index(c[0])
        while ri + 1 < len(RANKS) and RANKS[ri + 1] + c[1] in present:
            ri += 1
            run = run + [RANKS[ri] + c[1]]
            if len(run) >= 3:
                out.append(run)
    out = [m for m in out if sum(1 for x in m if x in eat) <= 1]
    out.sort(key=_meld_key)
    return out


def _eat_partners(active: str, cards: Iterable[str]) -> list[list[str]]:
    """Every group of 2+ of ``cards`` that makes a phỏm with ``active`` (canonical order)."""
    present = set(cards)
    out: list[list[str]] = []
    same = sorted((c for c in present if c[0] == active[0]), key=sort_key)
    for size in range(2, len(same) + 1):
        for comb in combinations(same, size):
            out.append(list(comb))
    ri = RANKS.index(active[0])
    below = []
    k = ri - 1
    while k >= 0 and RANKS[k] + active[1] in present:
        below.append(RANKS[k] + active[1])
        k -= 1
    above = []
    k = ri + 1
    while k < len(RANKS) and RANKS[k] + active[1] in present:
        above.append(RANKS[k] + active[1])
        k += 1
    for i in range(len(below) + 1):
        for j in range(len(above) + 1):
            if i + j >= 2:
                out.append(_canon_meld(below[:i] + above[:j]))
    out.sort(key=lambda m: (len(m), _meld_key(m)))
    return out


def _show_string(melds: Sequence[Sequence[str]]) -> str:
    canon = sorted((_canon_meld(m) for m in melds), key=_meld_key)
    if not canon:
        return "show"
    return "show " + " | ".join(" ".join(m) for m in canon)


# --------------------------------------------------------------------------------------------
# The game state


class PhomState(GameOfOnePack):
    """One game of Phỏm. Seats act in order 0, 1, ..., N-1, 0, ...; seat 0 opens."""

    name, title = "phom", "Phỏm"

    def __init__(self, players: int, *, seed: int | None = None,
                 deck: Sequence[str] | None = None, options: dict[str, Any] | None = None):
        n = self.seat_count(players)
        cards = pack_order(FULL_DECK, seed=seed, deck=deck, parse=parse_card)
        self.num_players = n
        self.options: dict[str, Any] = {k: v for k, v in (options or {}).items() if k != "players"}
        self.deck: list[str] = cards
        self.hands: list[set[str]] = []
        k = 0
        for s in range(n):
            size = 10 if s == 0 else 9
            self.hands.append(set(cards[k:k + size]))
            k += size
        self.stock: list[str] = cards[k:]
        self.stock_pos = 0
        self.draws = 0
        self.eaten: list[list[str]] = [[] for _ in range(n)]
        self.unshown_eaten: list[set[str]] = [set() for _ in range(n)]
        self.shown: list[list[list[str]]] = [[] for _ in range(n)]
        self.discards: list[list[str]] = [[] for _ in range(n)]
        self.current = 0
        self.phase = "discard"  # "draw" | "show" | "discard" | "over"
        self.turn_last = False  # the current turn is in the last round
        self.drawn: str | None = None
        self.active: str | None = None
        self.actions: list[list[Any]] = []
        self.transfers: list[Transfer] = []
        self.last_discard = [-1] * n  # index in self.actions of each seat's last discard
        self.eat_counts: dict[tuple[int, int], int] = {}  # (eater, victim) -> eats
        self.last_round_victims: list[int] = []
        self._outcome: Outcome | None = None
        self._hands_at_end: list[dict[str, Any]] | None = None
        self._notes_u: str = ""
        # Ù at the deal (phom.md rule 5): the game is over before anyone plays. Seat 0's 10
        # cards are an ù before discarding, another seat's 9 cards an ù; seat order decides.
        for seat in range(n):
            if _hand_is_u(self.hands[seat], ()):
                self._finish_u(seat, before_discard=seat == 0)
                break

    # -- protocol properties ------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.current,)

    @property
    def total_draws(self) -> int:
        """The game ends at the discard after this many draws (4N − 1)."""
        return 4 * self.num_players - 1

    @property
    def last_round_from(self) -> int:
        """A turn is in the last round when at least this many draws (3N − 1) preceded it."""
        return 3 * self.num_players - 1

    # -- helpers ------------------------------------------------------------------------------

    def locked(self, seat: int) -> list[str]:
        """Cards of ``seat`` that may not be discarded (eaten cards and cards they need)."""
        ue = self.unshown_eaten[seat]
        if not ue:
            return []
        hand = self.hands[seat]
        out = set(ue)
        for c in hand:
            if c not in ue and not _feasible(hand - {c}, ue):
                out.add(c)
        return sorted(out, key=sort_key)

    def _eat_options(self) -> list[str]:
        seat = self.current
        active = self.active
        if active is None:
            return []
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        partners = _eat_partners(active, (c for c in hand if c not in ue))
        if not partners or not _feasible(hand | {active}, ue | {active}):
            return []
        return ["eat " + " ".join(p) for p in partners]

    def _show_options(self) -> list[str]:
        seat = self.current
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        cands = _all_phom(hand, ue)
        out: list[str] = []

        def rec(start: int, used: set[str], chosen: list[list[str]]) -> None:
            # legal: every unshown eaten card shown, and no phỏm left among the other cards
            if ue <= used and not _has_phom(hand - used):
                out.append(_show_string(chosen))
            for k in range(start, len(cands)):
                m = cands[k]
                if used.isdisjoint(m):
                    chosen.append(m)
                    rec(k + 1, used | set(m), chosen)
                    chosen.pop()

        rec(0, set(), [])
        return sorted(set(out), key=lambda a: (a.count("|"), a))

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "over" or seat != self.current:
            return []
        if self.phase == "draw":
            return ["draw"] + self._eat_options()
        if self.phase == "show":
            return self._show_options()
        locked = set(self.locked(seat))
        return ["discard " + c for c in sorted(self.hands[seat], key=sort_key) if c not in locked]

    def _culprit(self, hand: set[str], eaten: set[str], prefer_last: str | None = None) -> str:
        """An eaten card that cannot be kept in a phỏm in ``hand`` (for error messages)."""
        order = sorted(eaten - {prefer_last}, key=sort_key) + ([prefer_last] if prefer_last else [])
        for e in order:
            if _feasible(hand, eaten - {e}):
                return e
        return order[0]

    def _missing_card(self, seat: int, card: str) -> IllegalAction:
        if any(card in m for m in self.shown[seat]):
            return IllegalAction(_("{card} is already shown.").format(card=card))
        return IllegalAction(_("You do not have {card}.").format(card=card))

    def _phase_error(self, wanted: str) -> IllegalAction:
        if self.phase == "draw":
            return IllegalAction(_("Draw or eat first."))
        if self.phase == "show":
            return IllegalAction(_("It is the last round: show your phỏm first (show <phỏm> | ...)."))
        if wanted in ("draw", "eat"):
            return IllegalAction(_("You have already drawn or eaten: discard a card now."))
        if wanted == "show":
            if not self.turn_last:
                return IllegalAction(_("You can only show your phỏm in the last round."))
            return IllegalAction(_("You have already shown this turn: discard a card now."))
        return IllegalAction(_("You cannot do that now."))

    @staticmethod
    def _parse_card_list(text: str) -> list[str]:
        try:
            cards = parse_cards(text)
        except NotACard as exc:
            raise IllegalAction(_("{text} is not a card.").format(text=exc.text)) from None
        seen = set()
        for c in cards:
            if c in seen:
                raise IllegalAction(_("{card} is listed twice.").format(card=c))
            seen.add(c)
        return cards

    # -- apply --------------------------------------------------------------------------------

    def apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "over":
            raise IllegalAction(_("The game is over."))
        if seat != self.current:
            raise IllegalAction(_("It is not your turn."))
        verb, rest = split_action(action)
        if verb == "discard":
            return self._discard(seat, rest)
        if verb == "draw":
            if rest:
                raise IllegalAction(_("draw takes no cards."))
            return self._draw(seat)
        if verb == "eat":
            return self._eat(seat, rest)
        if verb == "show":
            return self._show(seat, rest)
        raise IllegalAction(_("Unknown action {verb}: use draw, eat, show or discard.").format(verb=repr(verb)))

    def _after_gain(self, seat: int, events: list[Event]) -> list[Event]:
        """After an eat or a draw: ù before discarding, else on to show/discard."""
        if _hand_is_u(self.hands[seat], self.unshown_eaten[seat]):
            events.append(Event(seat, "u", (), U_BEFORE_DISCARD))
            events.append(self._finish_u(seat, before_discard=True))
            return events
        self.phase = "show" if self.turn_last else "discard"
        return events

    def _draw(self, seat: int) -> list[Event]:
        if self.phase != "draw":
            raise self._phase_error("draw")
        if self.stock_left <= 0:  # cannot happen: the game ends first
            raise IllegalAction(_("The stock is empty."))
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        self.draws += 1
        self.hands[seat].add(card)
        self.drawn = card
        self.active = None
        self.actions.append([seat, "draw"])
        return self._after_gain(seat, [Event(seat, "draw")])

    def _eat(self, seat: int, rest: str) -> list[Event]:
        if self.phase != "draw" or self.active is None:
            raise self._phase_error("eat")
        active = self.active
        cards = self._parse_card_list(rest)
        if len(cards) < 2:
            raise IllegalAction(_("Name at least two of your cards that make a phỏm with {card}.")
                                .format(card=active))
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        for c in cards:
            if c == active:
                raise IllegalAction(_("List only your own cards to eat {card} with.").format(card=active))
            if c not in hand:
                raise self._missing_card(seat, c)
        for c in cards:
            if c in ue:
                raise IllegalAction(_("{card} is eaten: a phỏm may not hold two eaten cards.").format(card=c))
        canon = _canon_meld(cards)
        if not _is_phom_codes(canon + [active]):
            raise IllegalAction(_("{card} does not make a phỏm with {cards}.").format(
                card=active, cards=" ".join(canon)))
        new_hand = hand | {active}
        new_ue = ue | {active}
        if not _feasible(new_hand, new_ue):
            e = self._culprit(new_hand, new_ue, prefer_last=active)
            raise IllegalAction(_("That would leave eaten card {card} outside a phỏm.").format(card=e))
        victim = (seat - 1) % self.num_players
        if self.discards[victim] and self.discards[victim][-1] == active:
            self.discards[victim].pop()
        hand.add(active)
        ue.add(active)
        self.eaten[seat].append(active)
        last = self.turn_last
        self.transfers.append(Transfer(victim, seat, 4 if last else 1, "ăn chốt" if last else EAT))
        self.eat_counts[(seat, victim)] = self.eat_counts.get((seat, victim), 0) + 1
        if last:
            self.last_round_victims.append(victim)
        self.active = None
        self.drawn = None
        self.actions.append([seat, "eat " + " ".join(canon)])
        return self._after_gain(seat, [Event(seat, "eat", (active,), "ăn chốt" if last else "")])

    def _show(self, seat: int, rest: str) -> list[Event]:
        if self.phase != "show":
            raise self._phase_error("show")
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        melds: list[list[str]] = []
        seen: set[str] = set()
        for part in rest.split("|"):
            if not part.strip():
                continue
            cards = self._parse_card_list(part)
            for c in cards:
                if c in seen:
                    raise IllegalAction(_("{card} is listed twice.").format(card=c))
                seen.add(c)
                if c not in hand:
                    raise self._missing_card(seat, c)
            canon = _canon_meld(cards)
            if not _is_phom_codes(canon):
                raise IllegalAction(_("{cards} is not a phỏm.").format(cards=" ".join(canon)))
            held = [c for c in canon if c in ue]
            if len(held) > 1:
                raise IllegalAction(_("A phỏm may not hold two eaten cards ({cards}).").format(cards=and_list(held)))
            melds.append(canon)
        missing = sorted(ue - seen, key=sort_key)
        if missing:
            raise IllegalAction(_("Eaten card {card} must be shown in a phỏm.").format(card=missing[0]))
        left = find_phom(hand - seen)
        if left is not None:
            raise IllegalAction(_("Show all your phỏm: {cards} would still be a phỏm among the cards you keep.")
                                .format(cards=" ".join(left)))
        melds.sort(key=_meld_key)
        flat: list[str] = []
        for m in melds:
            for c in m:
                hand.discard(c)
                ue.discard(c)
            flat.extend(m)
            self.shown[seat].append(m)
        self.phase = "discard"
        self.actions.append([seat, _show_string(melds)])
        return [Event(seat, "show", tuple(flat))]

    def _discard(self, seat: int, rest: str) -> list[Event]:
        if self.phase != "discard":
            raise self._phase_error("discard")
        cards = self._parse_card_list(rest)
        if len(cards) != 1:
            raise IllegalAction(_("Discard exactly one card."))
        card = cards[0]
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        if card not in hand:
            raise self._missing_card(seat, card)
        if card in ue:
            raise IllegalAction(_("{card} is eaten: it must stay in its phỏm.").format(card=card))
        rest_hand = hand - {card}
        if ue and not _feasible(rest_hand, ue):
            e = self._culprit(rest_hand, ue)
            raise IllegalAction(_("{card} is locked: you need it for the phỏm with eaten {eaten}.").format(
                card=card, eaten=e))
        hand.discard(card)
        self.discards[seat].append(card)
        self.last_discard[seat] = len(self.actions)
        self.actions.append([seat, "discard " + card])
        self.active = card
        self.drawn = None
        events = [Event(seat, "discard", (card,))]
        if _hand_is_u(hand, ue):
            events.append(Event(seat, "u", (), "ù"))
            events.append(self._finish_u(seat, before_discard=False))
            return events
        if self.draws >= self.total_draws or self.stock_left <= 0:
            events.append(self._finish_normal())
            return events
        self.current = (seat + 1) % self.num_players
        self.phase = "draw"
        self.turn_last = self.draws >= self.last_round_from
        return events

    # -- ending -------------------------------------------------------------------------------

    def _hand_summary(self, seat: int, *, arrange_hand: bool) -> dict[str, Any]:
        shown = [list(m) for m in self.shown[seat]]
        hand = self.hands[seat]
        if arrange_hand:
            res = _solve(hand, self.unshown_eaten[seat])
            if res is None:  # cannot happen: every state keeps the eaten rule
                res = (sum(card_points(c) for c in hand), (), tuple(sorted(_CID[c] for c in hand)))
            arr = _arrangement_from(res)
            melds = sorted(shown + arr.melds, key=_meld_key)
            return {"melds": melds, "leftover": arr.leftover, "points": arr.points,
                    "mom": not melds}
        leftover = sorted(hand, key=sort_key)
        return {"melds": sorted(shown, key=_meld_key), "leftover": leftover,
                "points": sum(card_points(c) for c in leftover), "mom": not shown}

    def _order(self, seats: Iterable[int], hands: list[dict[str, Any]]) -> list[int]:
        """Seats best first: phỏm before móm, fewer points, then the earlier last discard."""
        return sorted(seats, key=lambda s: (hands[s]["mom"], hands[s]["points"], self.last_discard[s]))

    def _finish(self, winner: int, ranks: list[int], hands: list[dict[str, Any]],
                notes: list[list[Note]], summary: list[Phrase]) -> Event:
        self.phase = "over"
        self.active = None
        self.drawn = None
        self._hands_at_end = hands
        points = [h["points"] for h in hands]
        self._outcome = outcome_from_transfers(
            self.num_players, winner, ranks, self.transfers, points=points, notes=notes,
            summary=summary)
        self._outcome.check_balanced()
        return Event(None, "end", phrases=tuple(summary))

    def _finish_u(self, winner: int, *, before_discard: bool) -> Event:
        n = self.num_players
        per = 12 if before_discard else 6
        hands = [self._hand_summary(s, arrange_hand=True) for s in range(n)]
        hands[winner]["points"] = 0
        notes: list[list[Note]] = [[] for _ in range(n)]
        notes[winner].append(U_BEFORE_DISCARD if before_discard else "ù")
        payer = None
        payer_note = ""
        last_round = False  # ù đền for the last discard eaten in the last round
        for (eater, victim), count in sorted(self.eat_counts.items()):
            if eater == winner and count >= 3:
                payer, payer_note = victim, "ù đền"
        if payer is None and self.turn_last and self.last_round_victims:
            victim = self.last_round_victims[-1]
            if victim != winner:
                payer, payer_note, last_round = victim, U_DEN_LAST_ROUND, True
        losers = [s for s in range(n) if s != winner]
        if payer is not None:
            self.transfers.append(Transfer(payer, winner, per * len(losers), "ù đền"))
            notes[payer].append(payer_note)
        else:
            for s in losers:
                self.transfers.append(Transfer(s, winner, per, "ù"))
        order = [winner] + self._order(losers, hands)
        ranks = [0] * n
        for r, s in enumerate(order, 1):
            ranks[s] = r
        if payer is None:
            key = "phom.u_before_discard" if before_discard else "phom.u"
            summary = [Phrase(key, {"winner": winner}, {"each": per})]
        else:
            seats = {"winner": winner, "payer": payer}
            if last_round:  # the template holds the reason, so that its English is translated
                key = "phom.u_before_discard_den_last_round" if before_discard else "phom.u_den_last_round"
                summary = [Phrase(key, seats)]
            else:
                key = "phom.u_before_discard_den" if before_discard else "phom.u_den"
                summary = [Phrase(key, seats, {"reason": payer_note})]
        return self._finish(winner, ranks, hands, notes, summary)

    def _finish_normal(self) -> Event:
        n = self.num_players
        hands = [self._hand_summary(s, arrange_hand=False) for s in range(n)]
        order = self._order(range(n), hands)
        winner = order[0]
        ranks = [0] * n
        notes: list[list[Note]] = [[] for _ in range(n)]
        for r, s in enumerate(order, 1):
            ranks[s] = r
            mom = hands[s]["mom"]
            if mom:
                notes[s].append("móm")
            if r > 1:
                self.transfers.append(Transfer(s, winner, 4 if mom else r - 1,
                                               "móm" if mom else RANK_REASONS[r]))
        key = "phom.win_all_mom" if hands[winner]["mom"] else "phom.win"
        summary = [Phrase(key, {"winner": winner}, {"points": hands[winner]["points"]})]
        return self._finish(winner, ranks, hands, notes, summary)

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the game is not over")
        return self._outcome

    # -- views and records --------------------------------------------------------------------

    def arrangement(self, seat: int) -> dict[str, Any]:
        """Shown phỏm plus the best arrangement of the cards ``seat`` holds."""
        return self._hand_summary(seat, arrange_hand=True)

    def _outcome_dict(self) -> dict[str, Any] | None:
        o = self._outcome
        if o is None:
            return None
        return {
            **outcome_dict(o),
            "hands": [dict(h, melds=[list(m) for m in h["melds"]], leftover=list(h["leftover"]))
                      for h in (self._hands_at_end or [])],
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        over = self.phase == "over"
        own = seat is not None and 0 <= seat < n
        return {
            **self.view_header(seat),
            "draws": self.draws,
            "last_round": (self.draws >= self.last_round_from) if over else self.turn_last,
            "active": self.active if self.phase == "draw" else None,
            "discards": [list(d) for d in self.discards],
            "eaten": [list(e) for e in self.eaten],
            "shown": [[list(m) for m in melds] for melds in self.shown],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": sorted(self.hands[seat], key=sort_key) if own else [],
            "drawn": self.drawn if own and not over and seat == self.current else None,
            "locked": self.locked(seat) if own else [],
            "arrangement": self.arrangement(seat) if own else None,
            "legal": self.legal_actions(seat) if own else [],
            "outcome": self._outcome_dict(),
        }



GAME = Game.of(PhomState)

__all__ = ["GAME", "PHRASES", "Arrangement", "PhomState", "Points", "arrange", "best_points", "card_points",
           "find_phom", "is_phom", "is_u"]
