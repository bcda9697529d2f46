"""Chắn engine — rules in docs/rules/chan.md, notation in docs/rules/notation.md.

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players), options
  ``chiu`` (``"auto"`` | ``"ask"``) and ``previous_winner`` (seat or None, for ù thông).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted.
- ``count(cards) -> Count``, ``partition(cards)``, ``score_win(cards, winning_card, *,
  self_drawn=False) -> Win | None``, ``is_red(card)``, ``is_win(cards20, winning_card)``:
  the counting and scoring of :mod:`.chan_count`, re-exported.

Rule interpretations made here (beyond the *(decided)* points of the spec; those of counting
and scoring are in :mod:`.chan_count`):

- Phases: ``open`` (seat 0's first discard), ``turn`` (eat the previous player's newest
  trash-row card, draw, or chíu it), ``drawn`` (eat the drawn card, pass, or chíu it),
  ``discard`` (after an eat or a chíu), ``offer`` (chiu="ask": an out-of-turn chíu offer).
  The card a player passes goes on his own trash row and is the next player's card to eat.
- Ù is automatic and never recorded as an action; it is checked when a card is drawn (the
  drawer first, then in turn order from him) and, as chíu ù, when the fourth copy is
  discarded (all seats but the discarder, in turn order). Thiên ù (seat 0's dealt 20 cards
  win) is the only declared ù: seat 0's single legal opening action is then ``u``.
- Out-of-turn chíu on a drawn card is offered/decided after the ù check and before the
  drawer continues; a passed card is not offered again out of turn (the holders declined it
  when it was drawn), but the next player may chíu it on his own turn.
- chiu="ask": during an offer ``to_act`` holds only the offered seat (legal ``chiu`` /
  ``pass``); the normal turn proceeds once it is answered. The framework's timer (or the AI
  for an AI seat) answers by the auto rule.
- The auto rule: chíu when the hand has 3+ trash; when one card from ù, chíu only if some
  discard afterwards still leaves him one card from ù. A chíu must leave a card to discard.
- A card is "in a chắn in hand" when the hand holds an even number (2 or 4) of its kind:
  with three copies one copy is free (that is the *Eat Cạ (still holding a chắn)* case).
- Restriction 3: "could have been eaten as a chắn" means eating it as a chắn was legal when
  the player drew/passed instead. "Used in a cạ" covers both cards of an eaten cạ.
- Restriction 4: the hand "holds a cạ of rank r" when two different suits of rank r have a
  free copy (odd count) in hand.
- Restriction 5: "discarding both cards of a cạ" counts the player's own discards only
  (not passed drawn cards).
- If the restrictions would leave no legal discard, every hand card may be discarded.
  An eat that would leave no card to discard is refused.
- The stock running out: when a turn ends (pass or discard) with an empty stock, only a
  chíu ù can still happen; otherwise the game is a draw with no payment.
"""

from __future__ import annotations

from typing import Any, Sequence

from bot.i18n import N_, _
from bot.games.base import (Event, Game, GameOfOnePack, IllegalAction, NotACard, Outcome, deal, outcome_dict,
                   pack_order)
from bot.games.chan.count import (FACTORS, PHRASES, Count, Win, count, is_win, partition, score_win, settle_draw,
                         settle_win, tally, tally_plus, tally_win, waits, win_factors)
from bot.games.chan.rules import HandRules
from bot.games.tosom import CC, FULL_DECK, is_ca, is_red, parse_card, parse_cards, sort_cards, vi_name

# Event texts: native words (chắn, cạ, ù, chíu ù) stay as they are; English ones are marked
# here and translated where they are shown.
TURNED_UP = N_("turned up")
U_ON_DRAWN = N_("ù on the drawn card")
LEFT_DRAWN = N_("left the drawn card")
MAY_CHIU = N_("may chíu")
DECLINED_CHIU = N_("declined the chíu")
OUT_OF_TURN = N_("out of turn")

# --------------------------------------------------------------------------------------------
# the game



class ChanState(HandRules, GameOfOnePack):
    """One game of Chắn. Seats play in order 0, 1, ..., N-1, 0, ...; seat 0 (cái) opens."""

    name, title = "chan", "Chắn"

    def __init__(self, players: int, *, seed: int | None = None,
                 deck: Sequence[str] | None = None, options: dict[str, Any] | None = None):
        n = self.seat_count(players)
        cards = pack_order(FULL_DECK, seed=seed, deck=deck, parse=parse_card)
        opts = {k: v for k, v in (options or {}).items() if k != "players"}
        opts.setdefault("chiu", "auto")
        opts.setdefault("previous_winner", None)
        if opts["chiu"] not in ("auto", "ask"):
            raise ValueError("option chiu must be 'auto' or 'ask'")
        self.num_players = n
        self.options: dict[str, Any] = opts
        self.deck: list[str] = cards
        hands, self.stock = deal(cards, n, 20, 19)
        self.hands: list[list[str]] = [sort_cards(hand) for hand in hands]
        self.dealt: list[tuple[str, ...]] = [tuple(h) for h in self.hands]
        self.stock_pos = 0
        self.laid: list[list[tuple[str, str]]] = [[] for _ in range(n)]
        self.rows: list[list[str]] = [[] for _ in range(n)]  # trash rows (discards and passes)
        self.discarded: list[list[str]] = [[] for _ in range(n)]  # own discards only
        self.skipped: list[set[str]] = [set() for _ in range(n)]  # restriction 3 (chắn not eaten)
        self.used: list[set[str]] = [set() for _ in range(n)]  # restriction 3 (discarded / cạ)
        self.ate_ca = [False] * n  # restriction 5
        self.broke_ca = [False] * n  # restriction 5
        self.current = 0
        self.phase = "open"
        self.active: str | None = None  # the card on offer (eat / chíu)
        self.active_from: int | None = None  # whose trash row it tops (None: just drawn)
        self.offer: dict[str, Any] | None = None  # {"seat", "card", "drawer"} for chiu="ask"
        self.actions: list[list[Any]] = []
        self._outcome: Outcome | None = None
        self._end: dict[str, Any] | None = None
        self.thien_u = tally_win(tally(self.hands[0]), None)

    # -- protocol properties ------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        if self.phase == "over":
            return ()
        if self.phase == "offer":
            return (self.offer["seat"],)
        return (self.current,)

    # -- legal actions ------------------------------------------------------------------------

    def _eat_candidates(self, seat: int) -> list[str]:
        active = self.active
        if active is None:
            return []
        return [k for k in sort_cards(set(self.hands[seat])) if k == active or is_ca(k, active)]

    def legal_actions(self, seat: int) -> list[str]:
        if seat not in self.to_act:
            return []
        phase = self.phase
        if phase == "offer":
            return ["chiu", "pass"]
        if phase == "open" and self.thien_u:
            return ["u"]
        if phase in ("open", "discard"):
            counts = self._counts(seat)
            kinds = sort_cards(counts)
            ok = [k for k in kinds if self._discard_refusal(seat, k, counts) is None]
            return ["discard " + k for k in (ok or kinds)]
        out = ["eat " + k for k in self._eat_candidates(seat) if self._eat_refusal(seat, k) is None]
        if phase == "turn":
            out.append("draw")
        else:
            out.append("pass")
        if self._chiu_possible(seat, self.active):
            out.append("chiu")
        return out

    # -- apply --------------------------------------------------------------------------------

    def _not_now(self, verb: str) -> IllegalAction:
        phase = self.phase
        if phase == "offer":
            return IllegalAction(_("Answer the chíu offer first: chiu or pass."))
        if phase in ("open", "discard"):
            return IllegalAction(_("Discard a card now."))
        if phase == "turn":
            return IllegalAction(_("Eat the card on offer, draw, or chíu.") if verb != "pass" else
                                 _("Nothing to pass: eat the card on offer or draw."))
        if phase == "drawn":
            return IllegalAction(_("You have drawn: eat the drawn card, pass, or chíu."))
        return IllegalAction(_("You cannot do that now."))

    @staticmethod
    def _one_card(rest: str) -> str:
        try:
            cards = parse_cards(rest)
        except NotACard as exc:
            raise IllegalAction(_("{text} is not a card.").format(text=exc.text)) from None
        if len(cards) != 1:
            raise IllegalAction(_("Name exactly one card."))
        return cards[0]

    def apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "over":
            raise IllegalAction(_("The game is over."))
        if seat not in self.to_act:
            if self.phase == "offer":
                raise IllegalAction(_("Waiting for a player to answer a chíu offer."))
            raise IllegalAction(_("It is not your turn."))
        text = " ".join(str(action).split())
        verb, __, rest = text.partition(" ")
        verb = verb.lower()
        if verb not in ("discard", "eat", "draw", "pass", "chiu", "u"):
            raise IllegalAction(_("Unknown action {verb}: use eat, draw, pass, discard or chiu.").format(
                verb=repr(verb)))
        if verb in ("draw", "pass", "chiu", "u") and rest:
            raise IllegalAction(_("{verb} takes no cards.").format(verb=verb))
        phase = self.phase
        if phase == "offer":
            if verb == "chiu":
                return self._record(seat, "chiu", self._chiu(seat, out_of_turn=True))
            if verb == "pass":
                return self._record(seat, "pass", self._decline_offer(seat))
            raise self._not_now(verb)
        if verb == "u":
            if phase == "open" and self.thien_u:
                return self._record(seat, "u", self._win(0, None, how="thiên ù"))
            raise IllegalAction(_("Ù is declared automatically when a drawn card completes your hand."))
        if phase == "open" and self.thien_u:
            raise IllegalAction(_("Your dealt hand is ù (thiên ù): declare it."))
        if verb == "discard":
            if phase not in ("open", "discard"):
                raise self._not_now(verb)
            card = self._one_card(rest)
            if card not in self.hands[seat]:
                raise IllegalAction(_("You do not have {card}.").format(card=card))
            if "discard " + card not in self.legal_actions(seat):
                raise (self._discard_refusal(seat, card)
                       or IllegalAction(_("You may not discard {card}.").format(card=card)))
            return self._record(seat, "discard " + card, self._discard(seat, card))
        if phase not in ("turn", "drawn"):
            raise self._not_now(verb)
        if verb == "eat":
            card = self._one_card(rest)
            refusal = self._eat_refusal(seat, card)
            if refusal:
                raise refusal
            return self._record(seat, "eat " + card, self._eat(seat, card))
        if verb == "draw":
            if phase != "turn":
                raise IllegalAction(_("You have already drawn: eat the drawn card, pass, or chíu."))
            return self._record(seat, "draw", self._draw(seat))
        if verb == "pass":
            if phase != "drawn":
                raise self._not_now(verb)
            return self._record(seat, "pass", self._pass(seat))
        # chiu
        if not self._chiu_possible(seat, self.active):
            if self.active is None or self._counts(seat)[self.active] != 3:
                raise IllegalAction(_("You can chíu only when you hold three of the card on offer."))
            raise IllegalAction(_("You would have no card left to discard after the chíu."))
        return self._record(seat, "chiu", self._chiu(seat, out_of_turn=False))

    def _record(self, seat: int, action: str, events: list[Event]) -> list[Event]:
        self.actions.append([seat, action])
        return events

    # -- moves --------------------------------------------------------------------------------

    def _take_active(self) -> str:
        card = self.active
        assert card is not None
        if self.active_from is not None:
            row = self.rows[self.active_from]
            assert row and row[-1] == card
            row.pop()
        self.active = None
        self.active_from = None
        return card

    def _note_skip(self, seat: int) -> None:
        """Restriction 3: the active card could have been eaten as a chắn and was not."""
        card = self.active
        if card is not None and card in self.hands[seat] and self._eat_refusal(seat, card) is None:
            self.skipped[seat].add(card)

    def _eat(self, seat: int, partner: str) -> list[Event]:
        card = self._take_active()
        self.hands[seat].remove(partner)
        pair = tuple(sort_cards([card, partner]))
        self.laid[seat].append(pair)
        kind = "chắn" if partner == card else "cạ"
        if kind == "cạ":
            self.ate_ca[seat] = True
            self.used[seat].update((card, partner))
        self.current = seat
        self.phase = "discard"
        return [Event(seat, "eat", pair, kind)]

    def _draw(self, seat: int) -> list[Event]:
        self._note_skip(seat)
        self.active = None
        self.active_from = None
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        events = [Event(seat, "draw", (card,), TURNED_UP)]
        n = self.num_players
        for k in range(n):
            s = (seat + k) % n
            if tally_win(tally_plus(tally(self.all_cards(s)), card), card):
                events.append(Event(s, "u", (card,), "ù" if s == seat else U_ON_DRAWN))
                events += self._win(s, card, how="ù", self_drawn=(s == seat))
                return events
        self.active = card
        self.active_from = None
        self.phase = "drawn"
        for k in range(1, n):
            h = (seat + k) % n
            if self._chiu_possible(h, card):
                events += self._out_of_turn_chiu(h, card, drawer=seat)
                break
        return events

    def _pass(self, seat: int) -> list[Event]:
        self._note_skip(seat)
        card = self.active
        assert card is not None
        self.rows[seat].append(card)
        self.active_from = seat
        return [Event(seat, "pass", (card,), LEFT_DRAWN)] + self._card_out(seat, card, discard=False)

    def _discard(self, seat: int, card: str) -> list[Event]:
        self.hands[seat].remove(card)
        if self._ca_partner_discard(seat, card) is not None:
            self.broke_ca[seat] = True
        self.discarded[seat].append(card)
        self.used[seat].add(card)
        self.rows[seat].append(card)
        self.active = card
        self.active_from = seat
        return [Event(seat, "discard", (card,))] + self._card_out(seat, card, discard=True)

    def _card_out(self, seat: int, card: str, *, discard: bool) -> list[Event]:
        """A card went onto ``seat``'s trash row: chíu ù, chíu offers, then the next turn."""
        n = self.num_players
        events: list[Event] = []
        if discard:
            for k in range(1, n):
                h = (seat + k) % n
                if self._counts(h)[card] == 3 and \
                        tally_win(tally_plus(tally(self.all_cards(h)), card), card):
                    self.current = h
                    pairs = self._lay_quad(h, self._take_active())
                    events.append(Event(h, "chiu", pairs, "chíu ù"))
                    events.append(Event(h, "u", (card,), "chíu ù"))
                    return events + self._win(h, card, how="chíu ù")
        if self.stock_left == 0:
            return events + self._draw_game()
        self.current = (seat + 1) % n
        self.phase = "turn"
        if discard:
            for k in range(2, n):
                h = (seat + k) % n
                if self._chiu_possible(h, card):
                    events += self._out_of_turn_chiu(h, card, drawer=None)
                    break
        return events

    def _lay_quad(self, seat: int, card: str) -> tuple[str, ...]:
        for __ in range(3):
            self.hands[seat].remove(card)
        self.laid[seat] += [(card, card), (card, card)]
        return (card,) * 4

    def _out_of_turn_chiu(self, h: int, card: str, *, drawer: int | None) -> list[Event]:
        if self.options.get("chiu") == "ask":
            self.offer = {"seat": h, "card": card, "drawer": drawer, "resume": self.phase,
                          "current": self.current}
            self.phase = "offer"
            return [Event(h, "offer", (card,), MAY_CHIU)]
        if self._auto_chiu(h, card):
            return self._chiu(h, out_of_turn=True)
        return []

    def _decline_offer(self, seat: int) -> list[Event]:
        offer = self.offer
        self.offer = None
        self.phase = offer["resume"]
        self.current = offer["current"]
        return [Event(seat, "pass", (offer["card"],), DECLINED_CHIU)]

    def _chiu(self, seat: int, *, out_of_turn: bool) -> list[Event]:
        self.offer = None
        card = self._take_active()
        pairs = self._lay_quad(seat, card)
        self.current = seat
        self.phase = "discard"
        return [Event(seat, "chiu", pairs, OUT_OF_TURN if out_of_turn else "")]

    # -- ending -------------------------------------------------------------------------------

    def _win(self, seat: int, card: str | None, *, how: str, self_drawn: bool = False) -> list[Event]:
        """``seat`` wins; ``card`` completes his hand (None: thiên ù, already 20 cards)."""
        if card is not None and how == "ù":  # the drawn winning card joins the winner's hand
            self.hands[seat] = sort_cards(self.hands[seat] + [card])
        cards20 = self.all_cards(seat)
        factors = win_factors(cards20, card, dealt=self.dealt[seat], self_drawn=self_drawn,
                              u_thong=self.options.get("previous_winner") == seat)
        return self._over(*settle_win(self.num_players, seat, cards20, card, factors, how=how, self_drawn=self_drawn))

    def _draw_game(self) -> list[Event]:
        return self._over(*settle_draw(self.num_players))

    def _over(self, outcome: Outcome, end: dict[str, Any], summary: list) -> list[Event]:
        self._outcome, self._end = outcome, end
        self.phase = "over"
        self.active = None
        self.active_from = None
        self.offer = None
        return [Event(None, "end", phrases=tuple(summary))]

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the game is not over")
        return self._outcome

    # -- views and records --------------------------------------------------------------------

    def _outcome_dict(self) -> dict[str, Any] | None:
        o = self._outcome
        if o is None:
            return None
        end = self._end or {}
        return {
            **outcome_dict(o),
            "how": end.get("how"),
            "winning_card": end.get("winning_card"),
            "factors": [dict(f) for f in end.get("factors", [])],
            "points": end.get("points", 0),
            "ga": end.get("ga", 0),
            "hand": end.get("hand"),
            "hands": [sort_cards(h) for h in self.hands],
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        over = self.phase == "over"
        own = seat is not None and 0 <= seat < n
        c = self.hand_count(seat) if own else None
        offer = self.offer
        return {
            **self.view_header(seat),
            "options": {"chiu": self.options.get("chiu")},
            "active": self.active,
            "active_from": self.active_from,
            "offer": None if offer is None else {"seat": offer["seat"], "card": offer["card"]},
            "rows": [list(r) for r in self.rows],
            "laid": [[list(p) for p in pairs] for pairs in self.laid],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": list(self.hands[seat]) if own else [],
            "count": None if c is None else {"chan": c.chan, "ca": c.ca, "trash": c.trash},
            "trash_cards": self.trash_cards(seat) if own and not over else [],
            "no_discard": self.forbidden_discards(seat) if own and not over else [],
            "waiting": bool(self.waiting(seat)) if own and not over and
            len(self.all_cards(seat)) == 19 else False,
            "chiu_advice": bool(own and not over and seat in self.to_act and self.chiu_advice(seat)),
            "legal": self.legal_actions(seat) if own else [],
            "outcome": self._outcome_dict(),
        }


GAME = Game.of(ChanState, chiu="auto", previous_winner=None)

__all__ = ["CC", "FACTORS", "GAME", "PHRASES", "ChanState", "Count", "Win", "count", "is_red", "is_win",
           "partition", "score_win", "waits", "vi_name"]
