"""Concan's table: the melds laid (``TableMeld``) and the moves that lay cards on it.

``TablePlay`` is the part of :class:`~bot.games.concan.game.ConcanState` that plays the moves
between the draw and the discard (open, meld, lay off, swap a joker, announce one) and decides
which of them (and which ``take`` before opening) are legal: concan.md "Play" 3–6. It is a
mixin written against the state's attributes (declared below) and three of its methods:
``_need_step(verb)`` (refuses a move out of its step), ``_missing(hand, cards)`` (the refusal
when the hand lacks cards, or None) and ``_remove(seat, cards)`` (takes cards out of a hand).

``apply`` validates any ``open``/``meld`` fully (``legal_actions`` lists only the best). A bare
``JK`` inside ``open``/``meld``/``layoff`` is accepted when only one card fits it; the record
always writes ``JK=5H``. Rule interpretations (concan.md leaves them open):

- ``take`` before opening is legal when the hand with that card (and, if needed, jokers
  swapped from the table this turn) holds an opening worth ``open_min`` that uses that card
  and keeps a card to discard; until he opens, he may not discard. A swap before opening is
  legal when an opening using that joker (and any card taken) exists afterwards, again
  counting further swaps; the swapped joker must be in the opening. A joker swapped after
  opening goes to the hand announced.

For the AI and the UI: ``fits_table(table, card)`` (whether a card could be laid off now),
``joker_slots(table)`` (the jokers a swap may take), ``TableMeld.extended`` / ``joker_fits``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Iterable, Sequence

from bot.i18n import _
from bot.games.base import Event, IllegalAction, NotACard, split_groups
from bot.games.concan.melds import (RANK_NO, RUN_CODES, MeldSpec, is_joker_token, meld_token, not_a_card, parse_token,
                           resolve_meld, run_spec, set_spec, token_identity, which_joker)
from bot.games.concan.solver import solve
from bot.games.french import JOKER, SUITS, sort_key


@dataclass
class TableMeld:
    """A meld on the table: its number (1, 2, … in the order laid, as actions and the UI name
    it), the seat that laid it and what it is now (lay-offs and swaps change ``spec``)."""

    no: int
    owner: int
    spec: MeldSpec

    def as_dict(self) -> dict[str, Any]:
        return {"no": self.no, "owner": self.owner, "kind": self.spec.kind, "cards": list(self.spec.tokens)}

    def extended(self, identity: str, joker: bool) -> MeldSpec | None:
        """The meld with the card ``identity`` (a joker standing for it if ``joker``) laid off
        on it, or None if it does not fit. An ace laid off on ``2…K`` goes low."""
        spec = self.spec
        tok = meld_token(identity, joker)
        if spec.kind == "set":
            if len(spec.tokens) >= 4 or identity[0] != spec.rank:
                return None
            idents = spec.identities
            if identity[1] in {c[1] for c in idents}:
                return None
            return set_spec(spec.rank, [(token_identity(t), is_joker_token(t)) for t in spec.tokens]
                             + [(identity, joker)])
        if identity[1] != spec.suit or spec.hi - spec.lo + 1 >= 13:
            return None
        rn = RANK_NO[identity[0]]
        fixed = {spec.lo + i: t for i, t in enumerate(spec.tokens)}
        for q in ((1, 14) if rn == 1 else (rn,)):
            if q == spec.lo - 1 and q >= 1:
                return run_spec(spec.suit, q, spec.hi, {**fixed, q: tok})
            if q == spec.hi + 1 and q <= 14:
                return run_spec(spec.suit, spec.lo, q, {**fixed, q: tok})
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
        codes = RUN_CODES[spec.suit]
        out = []
        if spec.lo > 1:
            out.append(codes[spec.lo - 1])
        if spec.hi < 14 and codes[spec.hi + 1] not in out:  # 2…K: the ace fits either end (laid low)
            out.append(codes[spec.hi + 1])
        return out

    def swapped(self, card: str) -> MeldSpec:
        """The meld with ``card`` in place of the joker standing for it."""
        joker = meld_token(card, True)
        return replace(self.spec, tokens=tuple(card if t == joker else t for t in self.spec.tokens))


def table_from_view(melds: Iterable[dict[str, Any]]) -> list[TableMeld]:
    """The table's melds again from a view's ``"melds"`` (their tokens name every joker)."""
    return [TableMeld(m["no"], m["owner"], resolve_meld(m["cards"])) for m in melds]


def joker_slots(table: Iterable[TableMeld]) -> list[tuple[str, int]]:
    """``(card, meld no)`` of every joker on the table: what a swap may take."""
    return [(token_identity(t), m.no) for m in table for t in m.spec.tokens if is_joker_token(t)]


def fits_table(table: Iterable[TableMeld], card: str) -> bool:
    """Whether ``card`` (a natural card, or ``JK``) could be laid off on one of the melds."""
    if card == JOKER:
        return any(m.joker_fits() for m in table)
    return any(m.extended(card, False) is not None for m in table)


class TablePlay:
    """Opening, melding, laying off, swapping and announcing jokers, what they oblige to, and
    their legality (see the module's docstring for what the state provides)."""

    table: list[TableMeld]
    hands: list[Counter]
    opened_flags: list[bool]
    announced_counts: list[int]
    actions: list[list[Any]]
    open_min: int
    phase: str
    current: int
    step: str | None
    must_card: str | None  # the card taken before opening: the opening must use it
    must_jokers: int  # jokers swapped before opening: the opening must use them
    top_discard: str | None

    def obligation(self, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` must still do this turn: ``{"must_open_with": "7C"}`` (cards separated
        by spaces, ``JK`` for a swapped joker) after a take or swap before opening, else None."""
        if self.phase == "over" or seat != self.current or (self.must_card is None and not self.must_jokers):
            return None
        cards = ([self.must_card] if self.must_card else []) + [JOKER] * self.must_jokers
        return {"must_open_with": " ".join(cards)}

    def _naturals(self, hand: Counter) -> tuple[tuple[str, ...], int]:
        return tuple(sorted(c for c in hand.elements() if c != JOKER)), hand[JOKER]

    def _swap_slots(self) -> list[tuple[str, int]]:
        return joker_slots(self.table)

    def _best_open(self, hand: Counter, require: str | None, req_jokers: int):
        naturals, jokers = self._naturals(hand)
        return solve(naturals, jokers, require, req_jokers, True, False)

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
                bound = solve(naturals, jokers)  # no constraint, pruned search: an upper bound
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
        if res is None or not res[1] or res[0] < self.open_min:  # an opening lays a meld, even at open_min 0
            return None
        return "open " + " | ".join(" ".join(m.tokens) for m in res[1])

    def can_open(self, seat: int) -> bool:
        return self.opening_for(seat) is not None

    def _play_actions(self, seat: int) -> list[str]:
        """What ``seat`` may do in the play step but discard: before opening, the best opening
        and the swaps; after, one ``meld`` per meld of the best set of melds (when a card stays
        to discard), the lay-offs, the swaps and ``announce``."""
        hand = self.hands[seat]
        if not self.opened_flags[seat]:
            opening = self.opening_for(seat)
            return ([opening] if opening else []) + self._swap_actions(seat)
        out = []
        if sum(hand.values()) > 1:
            naturals, jokers = self._naturals(hand)
            res = solve(naturals, jokers, None, 0, True, False)
            if res:
                out += ["meld " + " ".join(m.tokens) for m in res[1]]
            out += self._layoff_actions(seat)
        out += self._swap_actions(seat)
        if hand[JOKER] > self.announced_counts[seat]:
            out.append("announce")
        return out

    def _layoff_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        out = []
        for m in self.table:
            for card in sorted((c for c in hand if c != JOKER and hand[c] > 0), key=sort_key):
                if m.extended(card, False) is not None:
                    out.append(f"layoff {card} {m.no}")
            if hand[JOKER] > 0:
                for ident in m.joker_fits():
                    out.append(f"layoff {meld_token(ident, True)} {m.no}")
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

    @staticmethod
    def _uses(spec: MeldSpec) -> Counter:
        used = Counter(spec.naturals)
        if spec.jokers:
            used[JOKER] += spec.jokers
        return used

    def _lay(self, seat: int, spec: MeldSpec) -> TableMeld:
        meld = TableMeld(len(self.table) + 1, seat, spec)
        self.table.append(meld)
        return meld

    def _parse_melds(self, rest: str) -> list[MeldSpec]:
        groups = split_groups(rest)
        if not groups:
            raise IllegalAction(_("Name the cards of your melds."))
        return [resolve_meld(g) for g in groups]

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
            ident, joker = parse_token(text)
        except NotACard as exc:
            raise not_a_card(exc) from None
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
                raise which_joker([meld_token(f, True) for f in fits])
            ident = fits[0]
        new = meld.extended(ident, joker)
        if new is None:
            raise IllegalAction(_("{card} does not fit meld {number} ({cards}).").format(
                card=meld_token(ident, joker), number=meld.no, cards=" ".join(meld.spec.tokens)))
        self._check_keep(seat, need)
        self._remove(seat, need)
        meld.spec = new
        token = meld_token(ident, joker)
        self.actions.append([seat, f"layoff {token} {meld.no}"])
        return [Event(seat, "layoff", (token,), str(meld.no))]

    def _swap(self, seat: int, rest: str) -> list[Event]:
        self._need_step("swap")
        text, meld = self._meld_arg(rest, "swap")
        try:
            card, joker = parse_token(text)
        except NotACard as exc:
            raise not_a_card(exc) from None
        if joker:
            raise IllegalAction(_("Swap the joker with the card it stands for: swap <card> <meld number>."))
        token = meld_token(card, True)
        if token not in meld.spec.tokens:
            raise IllegalAction(_("Meld {number} has no joker standing for {card}.").format(number=meld.no, card=card))
        if self.hands[seat][card] <= 0:
            raise IllegalAction(_("You do not have {card}.").format(card=card))
        if not self.opened_flags[seat] and not self._swap_allowed_before_open(seat, card, meld.no):
            raise IllegalAction(_("Before opening you may swap a joker only to open with it this turn, and no opening "
                                  "worth {need} uses it.").format(need=self.open_min))
        meld.spec = meld.swapped(card)
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


__all__ = ["TableMeld", "TablePlay", "fits_table", "joker_slots"]
