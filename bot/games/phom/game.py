"""Phỏm (Tá Lả) engine — rules in docs/rules/phom.md, notation in docs/rules/notation.md.

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted.
- ``best_points(cards, eaten=()) -> Points``, ``is_u(cards, eaten=()) -> bool``,
  ``is_phom(cards) -> bool``, ``arrange(cards, eaten=()) -> Arrangement``,
  ``find_phom(cards) -> list | None``, ``card_points(card)``: the phỏm search of
  :mod:`.melds`, re-exported. The end (ranks, ù and ù đền, payments) is :mod:`.scoring`'s.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- Locking is by feasibility: a card is locked when no arrangement of the rest of the hand
  keeps every unshown eaten card in its own phỏm. The hand cards named in ``eat`` only have
  to form a phỏm with the eaten card (and hold no other eaten card); they are not tied to it.
- In the last round every ``show`` must lay down all unshown eaten cards, each in its own
  phỏm, and leave no phỏm among the cards the player keeps (the card he is about to discard
  included); he chooses which arrangement to show. ``show`` alone (showing nothing) is legal
  only for a hand without any phỏm. At least one show is always legal: an arrangement keeping
  every eaten card in its phỏm, completed with phỏm from the rest until none is left.
- Ù is checked at the deal, after an eat or a draw, and after a discard. A hand dealt all in
  phỏm ends the game right at the deal, with no action: ``is_over`` is true straight after
  ``new`` and the record's action list is empty. Seat 0 wins so only when all his 10 cards are
  in phỏm (an ù before discarding, 12 from each); if only 9 of them are, he ù after his first
  discard as usual, unless another seat was dealt an ù (9 cards, 6 from each), which wins first.
  Of several seats dealt an ù the lowest seat wins.
- The hand cards named in ``eat`` stay hidden (phom.md: "he need not show them"): the eat
  event carries only the eaten card; the record (not public during play) keeps them.
- Option ``send`` (gửi, phom.md "Option: gửi"): ``send <card> <seat>:<k>`` puts a held card on
  the k-th phỏm (1-based, in the order that seat showed them) of another seat, in the
  discard phase of a last-round turn (he has just shown), once he has shown a phỏm, keeping
  at least one card to discard. The sent card joins the receiving phỏm in ``shown`` (so it is
  known to everyone, and a later send sees the phỏm as extended); ``sent`` says, per phỏm,
  which cards were sent and by whom. Only a discard emptying the hand of a seat that has sent
  is kept from being an ù (the cards he keeps after a show hold no phỏm, so no other discard
  of his can make one): he ends with 0 points. An ù after a later draw or eat is the draw's.
"""

from __future__ import annotations

from typing import Any, Sequence

from bot.i18n import N_, _
from bot.games.base import (Event, Game, GameOfOnePack, IllegalAction, NotACard, Outcome, Phrase, Transfer, and_list,
                            deal, outcome_dict, outcome_from_transfers, pack_order, split_action)
from bot.games.french import FULL_DECK, parse_card, parse_cards, sort_key
from bot.games.phom.melds import (Arrangement, Points, arrange, best_points, canon_meld, card_points, culprit,
                                  eat_partners, feasible, find_phom, hand_is_u, is_phom, is_phom_codes, is_u,
                                  locked_cards, meld_key, show_options, show_string)
from bot.games.phom.scoring import (PHRASES as END_PHRASES, U_BEFORE_DISCARD, Ending, hand_summary, settle_normal,
                                   settle_u)

#: Every phrase key this engine emits, with its English template ({name}: a seat's name),
#: marked for translation: the UI shows them in the reader's language.
PHRASES: dict[str, str | tuple[str, str, str]] = {
    **END_PHRASES,
    "phom.send": N_("{player} sent {card} to {owner}'s phỏm {number}"),
}

# A transfer reason (English, translated where it is shown); the end's are :mod:`.scoring`'s.
EAT = N_("eat")
#: an empty show of a seat whose phỏm is on the table already (eaten with a chốt)
NO_OTHER_PHOM = N_("no other phỏm")


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
        hands, self.stock = deal(cards, n, 10, 9)
        self.hands: list[set[str]] = [set(hand) for hand in hands]
        self.stock_pos = 0
        self.draws = 0
        self.eaten: list[list[str]] = [[] for _ in range(n)]
        self.unshown_eaten: list[set[str]] = [set() for _ in range(n)]
        self.shown: list[list[list[str]]] = [[] for _ in range(n)]
        #: gửi: per seat, per phỏm it showed, the cards others sent onto it as [card, sender]
        self.sent: list[list[list[list[Any]]]] = [[] for _ in range(n)]
        self.sends = [0] * n  # cards each seat has sent
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
            if hand_is_u(self.hands[seat], ()):
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

    @property
    def send_option(self) -> bool:
        """Whether this table plays with gửi (laying off onto other seats' shown phỏm)."""
        return bool(self.options.get("send"))

    def _may_send(self, seat: int) -> bool:
        """A last-round turn after its show, with a phỏm shown (a móm hand may not send) and a
        card to keep for the discard."""
        return (self.send_option and self.phase == "discard" and self.turn_last and bool(self.shown[seat])
                and len(self.hands[seat]) >= 2)

    def _send_options(self, seat: int) -> list[str]:
        if not self._may_send(seat):
            return []
        out = []
        for card in sorted(self.hands[seat], key=sort_key):
            for target in range(self.num_players):
                if target == seat:
                    continue
                for k, meld in enumerate(self.shown[target], 1):
                    if is_phom_codes(meld + [card]):
                        out.append(f"send {card} {target}:{k}")
        return out

    def locked(self, seat: int) -> list[str]:
        """Cards of ``seat`` that may not be discarded (eaten cards and cards they need)."""
        return locked_cards(self.hands[seat], self.unshown_eaten[seat])

    def _eat_options(self) -> list[str]:
        seat = self.current
        active = self.active
        if active is None:
            return []
        hand = self.hands[seat]
        ue = self.unshown_eaten[seat]
        partners = eat_partners(active, (c for c in hand if c not in ue))
        if not partners or not feasible(hand | {active}, ue | {active}):
            return []
        return ["eat " + " ".join(p) for p in partners]

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "over" or seat != self.current:
            return []
        if self.phase == "draw":
            return ["draw"] + self._eat_options()
        if self.phase == "show":
            return show_options(self.hands[seat], self.unshown_eaten[seat])
        locked = set(self.locked(seat))
        return (["discard " + c for c in sorted(self.hands[seat], key=sort_key) if c not in locked]
                + self._send_options(seat))

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
        if verb == "send" and self.send_option:
            return self._send(seat, rest)
        raise IllegalAction(_("Unknown action {verb}: use draw, eat, show or discard.").format(verb=repr(verb)))

    def _after_gain(self, seat: int, events: list[Event]) -> list[Event]:
        """After an eat or a draw: ù before discarding, else on to show/discard."""
        if hand_is_u(self.hands[seat], self.unshown_eaten[seat]):
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
        canon = canon_meld(cards)
        if not is_phom_codes(canon + [active]):
            raise IllegalAction(_("{card} does not make a phỏm with {cards}.").format(
                card=active, cards=" ".join(canon)))
        new_hand = hand | {active}
        new_ue = ue | {active}
        if not feasible(new_hand, new_ue):
            e = culprit(new_hand, new_ue, prefer_last=active)
            raise IllegalAction(_("That would leave eaten card {card} outside a phỏm.").format(card=e))
        hand.add(active)
        ue.add(active)
        last = self.settle_eat(seat, active)
        self.active = None
        self.drawn = None
        self.actions.append([seat, "eat " + " ".join(canon)])
        return self._after_gain(seat, [Event(seat, "eat", (active,), "ăn chốt" if last else "")])

    def settle_eat(self, seat: int, card: str) -> bool:
        """The public side of ``seat`` eating ``card``, the discard of the seat before it: the
        card leaves that seat's row for the eater's eaten cards, and is paid for (in the last
        round an ăn chốt, 4 units). Whether it was an ăn chốt."""
        victim = (seat - 1) % self.num_players
        if self.discards[victim] and self.discards[victim][-1] == card:
            self.discards[victim].pop()
        self.eaten[seat].append(card)
        last = self.turn_last
        self.transfers.append(Transfer(victim, seat, 4 if last else 1, "ăn chốt" if last else EAT))
        self.eat_counts[(seat, victim)] = self.eat_counts.get((seat, victim), 0) + 1
        if last:
            self.last_round_victims.append(victim)
        return last

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
            canon = canon_meld(cards)
            if not is_phom_codes(canon):
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
        melds.sort(key=meld_key)
        # a seat that showed a phỏm already (the one of a chốt it ate) and shows nothing more
        shown_before = not melds and bool(self.shown[seat])
        flat: list[str] = []
        for m in melds:
            for c in m:
                hand.discard(c)
                ue.discard(c)
            flat.extend(m)
            self.shown[seat].append(m)
            self.sent[seat].append([])
        self.phase = "discard"
        self.actions.append([seat, show_string(melds)])
        return [Event(seat, "show", tuple(flat), text=NO_OTHER_PHOM if shown_before else "")]

    def _send(self, seat: int, rest: str) -> list[Event]:
        parts = rest.split()
        if len(parts) != 2 or parts[1].count(":") != 1:
            raise IllegalAction(_("Send one card onto a phỏm: send <card> <seat>:<phỏm number>."))
        card = self._parse_card_list(parts[0])[0]
        try:
            target, k = (int(x) for x in parts[1].split(":"))
        except ValueError:
            raise IllegalAction(_("Send one card onto a phỏm: send <card> <seat>:<phỏm number>.")) from None
        if not (self.phase == "discard" and self.turn_last):
            raise IllegalAction(_("You can only send a card in the last round, after showing your phỏm."))
        if not self.shown[seat]:
            raise IllegalAction(_("Only a player who showed a phỏm may send cards."))
        if card not in self.hands[seat]:
            raise self._missing_card(seat, card)
        if len(self.hands[seat]) < 2:
            raise IllegalAction(_("Keep your last card: your turn ends with a discard."))
        if target == seat or not 0 <= target < self.num_players or not 1 <= k <= len(self.shown[target]):
            raise IllegalAction(_("There is no such phỏm of another player to send to."))
        meld = self.shown[target][k - 1]
        if not is_phom_codes(meld + [card]):
            raise IllegalAction(_("{card} does not fit on {cards}.").format(card=card, cards=" ".join(meld)))
        self.hands[seat].discard(card)
        self.shown[target][k - 1] = canon_meld(meld + [card])
        self.sent[target][k - 1].append([card, seat])
        self.sends[seat] += 1
        self.actions.append([seat, f"send {card} {target}:{k}"])
        return [Event(seat, "send", (card,), phrases=(
            Phrase("phom.send", {"player": seat, "owner": target}, {"card": card, "number": k}),))]

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
        if ue and not feasible(rest_hand, ue):
            e = culprit(rest_hand, ue)
            raise IllegalAction(_("{card} is locked: you need it for the phỏm with eaten {eaten}.").format(
                card=card, eaten=e))
        hand.discard(card)
        self.discards[seat].append(card)
        self.last_discard[seat] = len(self.actions)
        self.actions.append([seat, "discard " + card])
        self.active = card
        self.drawn = None
        events = [Event(seat, "discard", (card,))]
        # gửi never makes an ù: a hand emptied by sends but for this discard ends with 0 points
        if hand_is_u(hand, ue) and not (self.sends[seat] and not hand):
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

    # -- ending (the settlement is :mod:`.scoring`'s) --------------------------------------------

    def _hand_summary(self, seat: int, *, arrange_hand: bool) -> dict[str, Any]:
        return hand_summary(self.shown[seat], self.hands[seat], self.unshown_eaten[seat], arrange_hand=arrange_hand)

    def _finish(self, ending: Ending) -> Event:
        self.phase = "over"
        self.active = None
        self.drawn = None
        self.transfers.extend(ending.transfers)
        self._hands_at_end = ending.hands
        points = [h["points"] for h in ending.hands]
        self._outcome = outcome_from_transfers(
            self.num_players, ending.winner, ending.ranks, self.transfers, points=points, notes=ending.notes,
            summary=ending.summary)
        self._outcome.check_balanced()
        return Event(None, "end", phrases=tuple(ending.summary))

    def _finish_u(self, winner: int, *, before_discard: bool) -> Event:
        hands = [self._hand_summary(s, arrange_hand=True) for s in range(self.num_players)]
        return self._finish(settle_u(winner, before_discard=before_discard, hands=hands,
                                     last_discard=self.last_discard, eat_counts=self.eat_counts,
                                     turn_last=self.turn_last, last_round_victims=self.last_round_victims))

    def _finish_normal(self) -> Event:
        hands = [self._hand_summary(s, arrange_hand=False) for s in range(self.num_players)]
        return self._finish(settle_normal(hands, self.last_discard))

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
            "send": self.send_option,
            "sent": [[[list(x) for x in cards] for cards in melds] for melds in self.sent],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": sorted(self.hands[seat], key=sort_key) if own else [],
            "drawn": self.drawn if own and not over and seat == self.current else None,
            "locked": self.locked(seat) if own else [],
            "arrangement": self.arrangement(seat) if own else None,
            "legal": self.legal_actions(seat) if own else [],
            "outcome": self._outcome_dict(),
        }


GAME = Game.of(PhomState, send=False)

__all__ = ["GAME", "PHRASES", "Arrangement", "PhomState", "Points", "arrange", "best_points", "card_points",
           "find_phom", "is_phom", "is_u"]
