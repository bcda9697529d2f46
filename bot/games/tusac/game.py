"""Tứ Sắc engine — rules in docs/rules/tusac.md, notation in docs/rules/notation.md.

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players; option
  ``worst_card_penalty``, on by default).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted
  (summaries, and the notes and transfer reasons that hold a number); they and the payments
  live in :mod:`.tusac_score`.
- ``trash_count``, ``hand_value``, ``payment`` (the evaluation API of tusac.md), plus
  ``trash_cards``, ``worst_codes``, ``outs`` and the card helpers of :mod:`.tusac_sets`.

Verbs: ``discard <card>``, ``draw``, ``eat <cards>`` (the private cards melded with the active
card; ``eat`` alone lays down an active Tướng), ``pass`` (leave a drawn card to the next
player) and ``u`` (seat 0 declaring a dealt hand without trash). Forced claims are not
actions: the engine applies them whenever a card becomes active and reports them as events, so
a record replays them by itself.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- An active Tướng is a set by itself (Play 2): whoever may eat it, the player who drew it or
  the next player after a ``pass``, may ``eat`` it with no cards (then, as after any eat, he
  discards a trash card). A Tướng is never discarded, so every active Tướng is a drawn one.
- "Melded in any way" means what an eat may do: the active card with 1–3 private cards forming
  a set, a matching Khap (a Khui), or, for a Tướng, nothing at all, whoever drew it. So anyone
  whose private block has no trash (he threw his last trash card) wins with a drawn Tướng laid
  down alone, the drawer first, then the others in turn order from him.
- The discarder never claims his own discard; for a discard the "current player" is the next
  seat (who may eat it or draw), for a drawn card the drawer. Wins are looked for from him
  round the table; a Khap claim may be anyone's (the drawer's too); a pair claim is for the
  others only. A drawn card left with ``pass`` is not claimed again.
- A pair claim is made only when it is a legal eat (it must not raise the holder's trash),
  and not for a pair that is part of a Khap (that is a Khap claim).
- Three identical Tướng are a Khap like any triple, and an active Tướng may be eaten with two
  identical ones (a public triple); two Tướng are never a pair.
- The 7-card rule: the draw that leaves 7 cards in the stock is the last one; its card may
  still win (forced win claims), otherwise the game is drawn at once.
- Seat 0's dealt hand without trash is declared with ``u`` as his first move: the table
  framework only settles games that end on a move.
- Worst-card penalty: the discarder of a winning card pays every loser's payment when, at the
  time of the discard, that card was not one of his worst trash cards; side payments for
  Quan/Khui/Khap are made as usual.
- A drawn card is face up, so its draw event carries it (unlike hidden draws in other games).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from bot.i18n import N_, _
from bot.games.base import (Event, Game, GameOfOnePack, IllegalAction, NotACard, Outcome, deal, outcome_dict,
                   pack_order)
from bot.games.tusac.score import PHRASES, Meld, block_value, settle_drawn, settle_win, won_with
from bot.games.tusac.sets import (CODES, FULL_PACK, arrange, card_name, counts_of, free_count, glyph, hand_value, khaps_of,
                         melds_with, outs, pair_exempt, parse_card, parse_cards, payment, set_value, sort_cards,
                         trash_after, trash_cards, trash_codes, trash_count, trash_of, worst_codes)

# An event text (English, translated where it is shown): what a pair claim makes.
PAIR = N_("pair")

#: The game is drawn once a draw leaves this many cards in the stock without a winner.
DEAD_STOCK = 7
DEAL_FIRST, DEAL_OTHERS = 21, 20


def _names(cards: Sequence[str]) -> str:
    return " ".join(card_name(c) for c in cards)


class TuSacState(GameOfOnePack):
    """One game of Tứ Sắc. Seats play in order 0, 1, ..., N-1, 0, ...; seat 0 opens."""

    name, title = "tusac", "Tứ Sắc"

    def __init__(self, players: int, *, seed: int | None = None,
                 deck: Sequence[str] | None = None, options: dict[str, Any] | None = None):
        n = self.seat_count(players)
        cards = pack_order(FULL_PACK, seed=seed, deck=deck, parse=parse_card)
        self.num_players = n
        self.options: dict[str, Any] = {k: v for k, v in (options or {}).items() if k != "players"}
        self.penalty_on = bool(self.options.get("worst_card_penalty", True))
        self.deck: list[str] = cards
        self.private: list[Counter] = []
        self.public: list[list[Meld]] = [[] for _ in range(n)]
        hands, stock = deal(cards, n, DEAL_FIRST, DEAL_OTHERS)
        for seat in range(n):
            hand = Counter(hands[seat])
            for code in sort_cards(c for c, m in hand.items() if m == 4):
                self.public[seat].append(Meld("quan", (code,) * 4))
                del hand[code]
            self.private.append(hand)
        self.stock: list[str] = stock
        self.stock_pos = 0
        self.discards: list[list[str]] = [[] for _ in range(n)]
        self.active: str | None = None
        self.active_from: int | None = None  # whose pile the active card goes to if nobody takes it
        self.active_drawn = False
        self.discard_worst = True  # whether the active discard was one of its discarder's worst
        self.current = 0
        self.phase = "declare" if trash_of(self.private[0]) == 0 else "discard"
        self.actions: list[list[Any]] = []
        self._outcome: Outcome | None = None
        self._end: dict[str, Any] | None = None

    # -- protocol properties ------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.current,)

    # -- what a seat knows --------------------------------------------------------------------

    def khap_codes(self, seat: int) -> list[str]:
        return khaps_of(self.private[seat])

    def trash(self, seat: int) -> int:
        return trash_of(self.private[seat])

    def unseen(self, seat: int) -> Counter:
        """Copies ``seat`` has not seen: not in his hand, on the table or in a discard pile."""
        seen = Counter(self.private[seat])
        for s in range(self.num_players):
            for meld in self.public[s]:
                seen.update(meld.cards)
            seen.update(self.discards[s])
        if self.active is not None:
            seen[self.active] += 1
        return Counter({code: 4 - seen[code] for code in CODES if seen[code] < 4})

    def worst(self, seat: int) -> list[str]:
        return worst_codes(self.private[seat], self.unseen(seat))

    def _melds(self, seat: int) -> list[tuple[str, ...]]:
        """Every way ``seat`` may meld the active card (``()``: a Tướng alone, a set by itself
        for whoever may eat it or claim it with a win)."""
        alone: list[tuple[str, ...]] = [()] if self.active[1] == "K" else []
        return alone + melds_with(self.active, self.private[seat])

    def _eats(self, seat: int) -> list[tuple[str, ...]]:
        """Eats of the active card ``seat`` may choose: free cards, trash not raised."""
        hand = self.private[seat]
        now = trash_of(hand)
        khui = (self.active,) * 3  # never a choice: the Khap claim takes the card first
        return [m for m in self._melds(seat) if m != khui and trash_after(hand, m) <= now]

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "over" or seat != self.current:
            return []
        if self.phase == "declare":
            return ["u"]
        if self.phase == "discard":
            return ["discard " + c for c in trash_codes(self.private[seat])]
        first = "draw" if self.phase == "take" else "pass"
        return [first] + [" ".join(("eat", *m)) for m in self._eats(seat)]

    # -- apply --------------------------------------------------------------------------------

    def apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "over":
            raise IllegalAction(_("The game is over."))
        if seat != self.current:
            raise IllegalAction(_("It is not your turn."))
        text = " ".join(str(action).split())
        verb, __, rest = text.partition(" ")
        verb = verb.lower()
        handlers = {"discard": self._discard, "eat": self._eat, "draw": self._draw,
                    "pass": self._pass, "u": self._declare}
        if verb not in handlers:
            raise IllegalAction(_("Unknown action {verb}: use eat, draw, pass or discard.").format(verb=repr(verb)))
        if verb in ("draw", "pass", "u") and rest:
            raise IllegalAction(_("{verb} takes no cards.").format(verb=verb))
        return handlers[verb](seat, rest) if verb in ("discard", "eat") else handlers[verb](seat)

    def _phase_error(self) -> IllegalAction:
        phase, active = self.phase, self.active
        if phase == "declare":
            return IllegalAction(_("Your dealt hand has no trash: declare your win."))
        if phase == "discard":
            return IllegalAction(_("Discard a trash card now."))
        if phase == "take":
            return IllegalAction(_("Eat {card} or draw.").format(card=card_name(active)) if active else _("Draw."))
        if phase == "drawn":
            return IllegalAction(_("Eat {card} or pass.").format(card=card_name(active)) if active else _("Pass."))
        return IllegalAction(_("You cannot do that now."))

    def _parse(self, rest: str) -> list[str]:
        try:
            return parse_cards(rest)
        except NotACard as exc:
            raise IllegalAction(_("{text} is not a Tứ Sắc card.").format(text=exc.text)) from None

    def _check_holds(self, seat: int, cards: Sequence[str]) -> None:
        hand = self.private[seat]
        for code, n in Counter(cards).items():
            if hand[code] < n:
                raise IllegalAction((_("You do not have that many {card}.") if hand[code] else
                                     _("You do not have {card}.")).format(card=card_name(code)))
            if free_count(hand, code) < n:
                raise IllegalAction(_("{card} is locked in your Khap.").format(card=card_name(code)))

    def _discard(self, seat: int, rest: str) -> list[Event]:
        if self.phase != "discard":
            raise self._phase_error()
        cards = self._parse(rest)
        if len(cards) != 1:
            raise IllegalAction(_("Discard exactly one card."))
        card = cards[0]
        self._check_holds(seat, cards)
        hand = self.private[seat]
        if card[1] == "K":
            raise IllegalAction(_("A Tướng is never trash: it cannot be discarded."))
        if card not in trash_codes(hand):
            raise IllegalAction(_("{card} is not trash: a discard must lower your trash count ({trash} now).")
                                .format(card=card_name(card), trash=trash_of(hand)))
        worst = card in self.worst(seat)
        hand.subtract((card,))
        self.private[seat] = +hand
        self.actions.append([seat, "discard " + card])
        self.active, self.active_from, self.active_drawn = card, seat, False
        self.discard_worst = worst
        events = [Event(seat, "discard", (card,))]
        self._activate(events)
        return events

    def _draw(self, seat: int) -> list[Event]:
        if self.phase != "take":
            raise self._phase_error()
        self._bury_active()
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        self.actions.append([seat, "draw"])
        self.active, self.active_from, self.active_drawn = card, seat, True
        events = [Event(seat, "draw", (card,))]
        self._activate(events)
        return events

    def _pass(self, seat: int) -> list[Event]:
        if self.phase == "take":
            raise IllegalAction(_("Only a card you drew can be passed: eat or draw."))
        if self.phase != "drawn":
            raise self._phase_error()
        self.actions.append([seat, "pass"])
        self.current = (seat + 1) % self.num_players
        self.phase = "take"
        return [Event(seat, "pass", (self.active,))]

    def _eat(self, seat: int, rest: str) -> list[Event]:
        if self.phase not in ("take", "drawn"):
            raise self._phase_error()
        active = self.active
        cards = sort_cards(self._parse(rest))
        alone = not cards and active[1] == "K"  # a Tướng is a set by itself
        if not alone and not 1 <= len(cards) <= 3:
            raise IllegalAction(_("Name 1–3 of your cards that make a set with {card}.").format(
                card=card_name(active)))
        self._check_holds(seat, cards)
        if set_value(cards + [active]) is None:
            raise IllegalAction(_("{card} does not make a set with {cards}.").format(
                card=card_name(active), cards=_names(cards)))
        hand = self.private[seat]
        before, after = trash_of(hand), trash_after(hand, cards)
        if after > before:
            raise IllegalAction(_("That eat would raise your trash count from {before} to {after}.").format(
                before=before, after=after))
        self.actions.append([seat, " ".join(("eat", *cards))])
        events = [Event(seat, "eat", (active, *cards))]
        if after == 0:  # cannot happen (the win claim comes first); kept for safety
            events += self._win(seat, tuple(cards))
            return events
        self._meld(seat, tuple(cards), "set")
        self.current, self.phase = seat, "discard"
        return events

    def _declare(self, seat: int) -> list[Event]:
        if self.phase != "declare":
            raise IllegalAction(_("You cannot declare a win now: the table finds wins by itself."))
        self.actions.append([seat, "u"])
        return [Event(seat, "u", phrases=(won_with("deal", seat),))] + self._finish_win(seat, "deal")

    # -- a card becomes active: forced claims -------------------------------------------------

    def _bury_active(self) -> None:
        if self.active is not None:
            self.discards[self.active_from].append(self.active)
        self.active = None

    def _meld(self, seat: int, cards: tuple[str, ...], kind: str) -> Meld:
        hand = self.private[seat]
        hand.subtract(cards)
        self.private[seat] = +hand
        meld = Meld(kind, tuple(sort_cards((self.active, *cards))))
        self.public[seat].append(meld)
        self.active = None
        return meld

    def _claim_order(self) -> list[int]:
        n = self.num_players
        if self.active_drawn:
            return [(self.active_from + k) % n for k in range(n)]
        return [(self.active_from + k) % n for k in range(1, n)]

    def _activate(self, events: list[Event]) -> None:
        card = self.active
        order = self._claim_order()
        for seat in order:
            meld = self._winning_meld(seat, card)
            if meld is not None:
                events.extend(self._win(seat, meld))
                return
        if self.active_drawn and self.stock_left <= DEAD_STOCK:
            events.append(self._finish_drawn())
            return
        for seat in order:
            if self.private[seat][card] >= 3:
                self._meld(seat, (card,) * 3, "khui")
                self.current, self.phase = seat, "discard"
                events.append(Event(seat, "claim", (card,) * 4, "khap"))
                return
        if card[1] != "K":
            for seat in order[1:]:
                if self._pair_claim(seat, card):
                    self._meld(seat, (card, card), "set")
                    self.current, self.phase = seat, "discard"
                    events.append(Event(seat, "claim", (card,) * 3, PAIR))
                    return
        self.current = order[0]
        self.phase = "drawn" if self.active_drawn else "take"

    def _pair_claim(self, seat: int, card: str) -> bool:
        """Must ``seat`` claim ``card`` (not a Tướng, not his own) with the pair he holds?"""
        hand = self.private[seat]
        return hand[card] == 2 and trash_after(hand, (card, card)) <= trash_of(hand) and not pair_exempt(hand)

    def _winning_meld(self, seat: int, card: str) -> tuple[str, ...] | None:
        """The meld of ``card`` (the active card) leaving ``seat`` without trash that pays most,
        or None."""
        hand = self.private[seat]
        best = None
        for meld in self._melds(seat):
            if trash_after(hand, meld) != 0:
                continue
            key = self._win_score(seat, meld)
            if best is None or key > best[0]:
                best = (key, meld)
        return None if best is None else best[1]

    def _win_score(self, seat: int, meld: tuple[str, ...]) -> tuple[int, int]:
        value, quan_or_khui = self._hand_value(seat, meld)
        return payment(value, quan_or_khui=quan_or_khui), value

    def _meld_kind(self, seat: int, meld: tuple[str, ...]) -> str:
        khui = len(meld) == 3 and meld[0] == self.active and self.private[seat][meld[0]] >= 3
        return "khui" if khui else "set"

    def _hand_value(self, seat: int, meld: tuple[str, ...] | None) -> tuple[int, bool]:
        melds = list(self.public[seat])
        rest = Counter(self.private[seat])
        if meld is not None:
            melds.append(Meld(self._meld_kind(seat, meld), tuple(sort_cards((self.active, *meld)))))
            rest.subtract(meld)
        return block_value(melds, +rest)

    # -- ending -------------------------------------------------------------------------------

    def _win(self, seat: int, meld: tuple[str, ...]) -> list[Event]:
        card, source = self.active, self.active_from
        how = "drawn" if self.active_drawn else "discard"
        won = self._meld(seat, meld, self._meld_kind(seat, meld))
        event = Event(seat, "u", won.cards, phrases=(won_with(how, seat, card, source),))
        return [event] + self._finish_win(seat, how, card, source)

    def _finish_win(self, winner: int, how: str, card: str | None = None,
                    source: int | None = None) -> list[Event]:
        value, quan_or_khui = self._hand_value(winner, None)
        penalty = source if how == "discard" and self.penalty_on and not self.discard_worst else None
        holdings = [(sum(m.kind == "quan" for m in self.public[s]), sum(m.kind == "khui" for m in self.public[s]),
                     len(self.khap_codes(s))) for s in range(self.num_players)]
        return [self._close(*settle_win(winner, how=how, card=card, source=source, value=value,
                                        quan_or_khui=quan_or_khui, penalty=penalty, holdings=holdings,
                                        trash=[self.trash(s) for s in range(self.num_players)]))]

    def _finish_drawn(self) -> Event:
        return self._close(*settle_drawn([self.trash(s) for s in range(self.num_players)], dead_stock=DEAD_STOCK))

    def _close(self, outcome: Outcome, end: dict[str, Any], summary: list) -> Event:
        self._bury_active()
        self.phase = "over"
        self._outcome, self._end = outcome, end
        return Event(None, "end", phrases=tuple(summary))

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the game is not over")
        return self._outcome

    # -- views and records --------------------------------------------------------------------

    def hand_summary(self, seat: int) -> dict[str, Any]:
        """Everything about one seat's hand (for its owner, or for everyone at the end)."""
        hand = self.private[seat]
        khaps, sets, trash = arrange(hand)
        return {"private": sort_cards(hand.elements()), "khaps": khaps, "sets": sets, "trash": trash,
                "trash_count": len(trash)}

    def _outcome_dict(self) -> dict[str, Any] | None:
        if self._outcome is None:
            return None
        return {**outcome_dict(self._outcome), **self._end,
                "hands": [self.hand_summary(s) for s in range(self.num_players)]}

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        over = self.phase == "over"
        own = seat is not None and 0 <= seat < n
        mine = self.hand_summary(seat) if own else None
        return {
            **self.view_header(seat),
            "active": self.active,
            "active_from": None if self.active is None else self.active_from,
            "active_drawn": self.active_drawn if self.active is not None else False,
            "public": [[m.as_dict() for m in melds] for melds in self.public],
            "khap_counts": [len(self.khap_codes(s)) for s in range(n)],
            "discards": [list(d) for d in self.discards],
            "hand_sizes": [sum(h.values()) for h in self.private],
            "hand": mine["private"] if own else [],
            "khaps": mine["khaps"] if own else [],
            "arrangement": {"sets": mine["sets"], "trash": mine["trash"]} if own else None,
            "trash": mine["trash_count"] if own else None,
            "trash_cards": trash_codes(self.private[seat]) if own else [],
            "worst": self.worst(seat) if own and not over else [],
            "legal": self.legal_actions(seat) if own else [],
            "worst_card_penalty": self.penalty_on,
            "outcome": self._outcome_dict(),
        }


GAME = Game.of(TuSacState, worst_card_penalty=True)

__all__ = ["GAME", "PHRASES", "Meld", "TuSacState", "card_name", "counts_of", "glyph", "hand_value", "outs",
           "payment", "trash_cards", "trash_count", "worst_codes"]
