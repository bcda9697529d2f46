"""Chinchón engine — rules in docs/rules/chinchon.md, notation in docs/rules/notation.md.

One state is a whole match of several rounds (notation.md, "Matches of several rounds").

Public API:

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–4 players, ``multi_round``).
- ``deadwood(cards, deck="french") -> int``, ``can_close(cards8, close_limit=5, deck="french")
  -> list[str]``, ``is_chinchon(cards7, deck="french") -> bool``, ``arrange(cards, deck="french")
  -> Arrangement``; ``PHRASES``: every phrase key the engine emits, with an English template.

The engine's modules: :mod:`.chinchon_cards` (packs, card codes, hands as bit masks),
:mod:`.chinchon_melds` (the meld search and the evaluation API, re-exported here),
:mod:`.chinchon_scoring` (a round's hands and the lay-off), :mod:`.chinchon_match` (totals,
buy-backs, the match's end) and this one (the state: deal, turns, rules, views).

Rule interpretations made here (beyond the *(decided)* points of the spec):

- Jokers (2, with 3–4 seats) are in the pack for the whole match when the match *starts* with
  3–4 seats, even once players have dropped out. A meld holds one joker at most (decided); a
  joker may stand for a card that is elsewhere (four 9s and two jokers are two sets).
- The first player moves on by one seat each round, skipping seats out of the match: the
  first of round r+1 is the next seat still in the match after the first of round r.
- Closing needs an arrangement of the other 7 cards with at most one unmatched card worth at
  most ``close_limit``; the closer then scores his best (lowest) arrangement like everyone.
- The card just taken from the discard pile may not be discarded again in the same turn
  (unless one holds another copy, i.e. a second joker); it may be laid face down to close.
- The discards (all but the top card) are reshuffled into a new stock as soon as a discard
  leaves the stock empty, so that a player about to draw always has a stock to draw from.
- ``lay_off``: the non-closers lay off in turn from the seat after the closer, each as it
  suits him best (:mod:`.chinchon_scoring`); nobody lays off onto a closer who scores −10
  (decided). −10 is only for a hand fully melded on its own: a player who lays off all his
  unmatched cards scores 0.
- A chinchón ends the match: the round's points are still added to the totals.
- Buy-backs, the end of the match and ranks: :mod:`.chinchon_match`.
- ``top_discard`` is None outside play (between rounds and once the match is over); the
  private view keys (``hand``, ``arrangement``, ``can_close``, ``drawn``) are in every view,
  empty (``[]``/None) for other seats and spectators and between rounds.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from bot.i18n import N_, _, ngettext
from bot.games.base import Event, Game, IllegalAction, NotACard, Phrase, pack_order, reshuffle_rng, round_rng, split_action
from bot.games.chinchon.cards import HAND_SIZE, JOKER, PACKS, Pack, get_pack, hand_mask
from bot.games.chinchon.melds import (UNIT, Arrangement, arrange, arrangement, can_close, close_cards, closable, deadwood,
                             is_chinchon)
from bot.games.chinchon.match import BOUGHT_BACK, ChinchonMatch
from bot.games.chinchon.scoring import score_round

#: The engine's phrases: key -> English template marked for translation ({closer}, {player},
#: {winner}...: seats, named by the UI in the reader's language).
PHRASES: dict[str, str] = {
    "chinchon.close": N_("{closer} closes round {round} with {points} points."),
    "chinchon.close_melded": N_("{closer} closes round {round} with every card melded: −10."),
    "chinchon.close_chinchon": N_("{closer} closes round {round} with a chinchón!"),
    "chinchon.lays_off": N_("{player} lays off {cards}."),
    "chinchon.out": N_("{player} reaches {total} and is out."),
    "chinchon.out_bought_back": N_("{player} reaches {total} and is out (already bought back once)."),
    "chinchon.may_buy_back": N_("{player} reaches {total} and may buy back in at {at}."),
    "chinchon.bought_back": N_("{player} buys back in at {total}."),
    "chinchon.declined": N_("{player} declines to buy back and is out."),
    "chinchon.win_chinchon": N_("{winner} wins the match with a chinchón in round {round}!"),
    "chinchon.win_last": N_("{winner} is the last player left and wins the match with {total} points."),
    "chinchon.win_lowest": N_("Everyone left reached {target}: {winner} wins with the lowest total, {total}."),
    "chinchon.win_lowest_2": N_("Everyone left reached {target}: {winner1} and {winner2} share the pot "
                                 "with {total}."),
    "chinchon.win_lowest_3": N_("Everyone left reached {target}: {winner1}, {winner2} and {winner3} share the pot "
                                 "with {total}."),
    "chinchon.win_lowest_4": N_("Everyone left reached {target}: {winner1}, {winner2}, {winner3} and {winner4} "
                                 "share the pot with {total}."),
    "chinchon.out_in_round": N_("out in round {round}"),
}

# --------------------------------------------------------------------------------------------
# The match state


class ChinchonState(ChinchonMatch):
    """A match of Chinchón: rounds until one player is left (or a chinchón, or everyone left
    reaching the target in one round)."""

    name, title = "chinchon", "Chinchón"

    def __init__(self, players: int, *, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        n = self.seat_count(players)
        opts = {k: v for k, v in (options or {}).items() if k != "players"}
        self.pk = get_pack(opts.get("deck", "french"))
        opts["deck"] = self.pk.name
        self.close_limit = int(opts.get("close_limit", 5))
        self.target = int(opts.get("target", 100))
        self.lay_off = bool(opts.get("lay_off", False))
        if self.close_limit < 0 or self.target <= 0:
            raise ValueError("close_limit must be ≥ 0 and target > 0")
        self.num_players = n
        self.options: dict[str, Any] = opts
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**63)
        self.pack = self.pk.pack(n)
        self._given = [pack_order(self.pack, seed=None, deck=d, parse=self.pk.parse) for d in (decks or [])]
        self.decks: list[list[str]] = []  # the pack of every round dealt so far, as dealt
        self.actions: list[list[Any]] = []
        self._start_match(n)
        self.round_results: list[dict[str, Any]] = []
        self.round = 0
        self.first = 0
        self.phase = "play"  # "play" | "buyback" | "over"
        self.step = "draw"  # in play: "draw" (draw or take) or "discard" (discard or close)
        self.current: int | None = 0
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.stock_cards: list[str] = []
        self.pile: list[str] = []  # the discard pile, bottom first
        self.reshuffles = 0
        self.drawn: str | None = None
        self.taken = False  # the drawn card came from the discard pile
        self.facedown: str | None = None  # the closer's card laid face down
        self.seen: set[str] = set()  # cards shown face up this round (public; the AI reads it)
        self.discarded: list[set[str]] = [set() for _ in range(n)]  # by seat, this round (public)
        self.chinchon = False
        self._deal()

    # -- protocol and public attributes ------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        if self.phase == "over":
            return ()
        if self.phase == "buyback":
            return (self.deciding[0],)
        return (self.current,)

    @property
    def top_discard(self) -> str | None:
        return self.pile[-1] if self.pile and self.phase == "play" else None

    @property
    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self.hands]

    # -- rounds -------------------------------------------------------------------------------

    def _deal(self) -> None:
        self.round += 1
        r = self.round
        if r > 1:
            self.first = self._next_in(self.first)
        if r <= len(self._given):
            cards = list(self._given[r - 1])
        else:
            cards = list(self.pack)
            round_rng(self.seed, r).shuffle(cards)
        self.decks.append(list(cards))
        self.hands = [[] for _ in range(self.num_players)]
        k = 0
        seat = self.first
        for __ in self.seats_in():
            self.hands[seat] = cards[k:k + HAND_SIZE]
            k += HAND_SIZE
            seat = self._next_in(seat)
        self.pile = [cards[k]]
        self.seen = {cards[k]}
        self.discarded = [set() for _ in range(self.num_players)]
        self.stock_cards = cards[k + 1:]
        self.reshuffles = 0
        self.current = self.first
        self.step = "draw"
        self.drawn = None
        self.taken = False
        self.facedown = None
        self.phase = "play"

    def _reshuffle(self) -> Event:
        self.reshuffles += 1
        cards = self.pile[:-1]
        reshuffle_rng(self.seed, self.round, self.reshuffles).shuffle(cards)
        self.stock_cards = cards
        self.pile = self.pile[-1:]
        return Event(None, "reshuffle")

    # -- legality -----------------------------------------------------------------------------

    def _hand_code(self, seat: int) -> tuple[int, int, int]:
        return hand_mask(self.pk, self.hands[seat])

    def close_cards(self, seat: int) -> list[str]:
        """Cards ``seat`` may lay face down to close now ([] if none)."""
        if self.phase != "play" or seat != self.current or self.step != "discard":
            return []
        H, jokers, value = self._hand_code(seat)
        return close_cards(self.pk, H, jokers, value, self.close_limit)

    def discardable(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        out = set(hand)
        if self.taken and hand.count(self.drawn) == 1:
            out.discard(self.drawn)
        return self.pk.sorted(out)

    def legal_actions(self, seat: int) -> list[str]:
        if self.phase == "buyback":
            return ["buyback", "decline"] if seat == self.deciding[0] else []
        if self.phase != "play" or seat != self.current:
            return []
        if self.step == "draw":
            return ["draw", "take"]
        return ["discard " + c for c in self.discardable(seat)] + ["close " + c for c in self.close_cards(seat)]

    def _card_arg(self, seat: int, rest: str, verb: str) -> str:
        parts = rest.split()
        if len(parts) != 1:
            raise IllegalAction(_("Name one card to lay face down: close <card>.") if verb == "close" else
                                _("Name one card to discard: discard <card>."))
        try:
            card = self.pk.parse(parts[0])
        except NotACard as exc:
            raise IllegalAction(_("{text} is not a card of this pack.").format(text=exc.text)) from None
        if card not in self.hands[seat]:
            raise IllegalAction(_("You do not have {card}.").format(card=card))
        return card

    def _close_refusal(self, seat: int, card: str) -> IllegalAction | None:
        """Why ``seat`` may not close laying ``card`` face down (None when it may)."""
        rest = list(self.hands[seat])
        rest.remove(card)
        H, jokers, value = hand_mask(self.pk, rest)
        if closable(self.pk, H, jokers, value, self.close_limit):
            return None
        arr = arrangement(self.pk, H, jokers, value, unit=UNIT)  # fewest unmatched cards
        left = arr.unmatched
        limit = self.close_limit
        if len(left) > 1:
            return IllegalAction(ngettext(
                "You cannot close: {count} unmatched card ({cards}) — at most one worth ≤ {limit}.",
                "You cannot close: {count} unmatched cards ({cards}) — at most one worth ≤ {limit}.",
                len(left)).format(count=len(left), cards=", ".join(left), limit=limit))
        worth = self.pk.card_value(left[0])
        return IllegalAction(_("You cannot close: {card} is unmatched and worth {worth} — at most one worth ≤ "
                               "{limit}.").format(card=left[0], worth=worth, limit=limit))

    # -- apply --------------------------------------------------------------------------------

    def apply(self, seat: int, action: str) -> list[Event]:
        verb, rest = split_action(action)
        if verb in ("buyback", "decline"):
            if rest:
                raise IllegalAction(_("{verb} takes nothing else.").format(verb=verb))
            return self._decide(seat, verb)
        if verb not in ("draw", "take", "discard", "close"):
            raise IllegalAction(_("Unknown action {verb}: use draw, take, discard or close.").format(verb=repr(verb)))
        if self.phase == "over":
            raise IllegalAction(_("The match is over."))
        if self.phase == "buyback":
            raise IllegalAction(_("The round is over: waiting for a buy-back decision."))
        if seat != self.current:
            raise IllegalAction(_("It is not your turn."))
        if verb in ("draw", "take"):
            if rest:
                raise IllegalAction(_("{verb} takes no card.").format(verb=verb))
            if self.step != "draw":
                raise IllegalAction(_("You have already drawn: discard a card or close."))
            return self._draw(seat, verb)
        if self.step != "discard":
            raise IllegalAction(_("Draw from the stock or take the top discard first."))
        card = self._card_arg(seat, rest, verb)
        if verb == "discard":
            if card not in self.discardable(seat):
                raise IllegalAction(_("You cannot discard {card}: you just took it from the discard pile.").format(
                    card=card))
            return self._discard(seat, card)
        refusal = self._close_refusal(seat, card)
        if refusal:
            raise refusal
        return self._close(seat, card)

    def _draw(self, seat: int, verb: str) -> list[Event]:
        if verb == "draw":
            card = self.stock_cards.pop(0)
            event = Event(seat, "draw")
        else:
            card = self.pile.pop()
            event = Event(seat, "take", (card,))
        self.hands[seat].append(card)
        self.drawn = card
        self.taken = verb == "take"
        self.step = "discard"
        self.actions.append([seat, verb])
        return [event]

    def _discard(self, seat: int, card: str) -> list[Event]:
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.seen.add(card)
        self.discarded[seat].add(card)
        self.actions.append([seat, f"discard {card}"])
        events = [Event(seat, "discard", (card,))]
        if not self.stock_cards:
            events.append(self._reshuffle())
        self.drawn = None
        self.taken = False
        self.step = "draw"
        self.current = self._next_in(seat)
        return events

    def _close(self, seat: int, card: str) -> list[Event]:
        self.hands[seat].remove(card)
        self.facedown = card
        self.actions.append([seat, f"close {card}"])
        self.drawn = None
        self.taken = False
        events = [Event(seat, "close")]
        events.append(self._end_round(seat))
        events += self._continue()
        return events

    # -- the end of a round -------------------------------------------------------------------

    def _end_round(self, closer: int) -> Event:
        n = self.num_players
        r = self.round
        seats = self.seats_in()
        order = [closer]
        while len(order) < len(seats):
            order.append(self._next_in(order[-1]))
        self.chinchon, scores = score_round(self.pk, [self.hands[s] for s in order], self.lay_off)
        points: list[int | None] = [None] * n
        hands: list[dict[str, Any] | None] = [None] * n
        lay_phrases = []
        for seat, score in zip(order, scores):
            points[seat] = score.points
            hands[seat] = score.as_dict()
            if score.laid_off:
                lay_phrases.append(Phrase("chinchon.lays_off", {"player": seat}, {"cards": " ".join(score.laid_off)}))
        phrases: list[Phrase] = []
        if self.chinchon:
            phrases.append(Phrase("chinchon.close_chinchon", {"closer": closer}, {"round": r}))
        elif points[closer] == -10:
            phrases.append(Phrase("chinchon.close_melded", {"closer": closer}, {"round": r}))
        else:
            phrases.append(Phrase("chinchon.close", {"closer": closer}, {"round": r, "points": points[closer]}))
        phrases += lay_phrases
        for seat in seats:
            self.totals[seat] += points[seat]
        result = {"round": r, "points": points, "totals": list(self.totals), "closer": closer,
                  "chinchon": self.chinchon, "hands": hands, "out": [], "phrases": []}
        self.round_results.append(result)
        if self.chinchon:
            self._finish([closer], [Phrase("chinchon.win_chinchon", {"winner": closer}, {"round": r})])
        else:
            phrases += self._reached(seats, result)
        result["phrases"] = [p.as_dict() for p in phrases]
        return Event(None, "round_end", phrases=tuple(phrases))

    # -- views and records --------------------------------------------------------------------

    def arrangement(self, seat: int) -> dict[str, Any]:
        H, jokers, value = self._hand_code(seat)
        return arrangement(self.pk, H, jokers, value).as_dict()

    def view(self, seat: int | None) -> dict[str, Any]:
        n = self.num_players
        own = seat is not None and 0 <= seat < n
        playing = self.phase == "play"
        mine = own and playing and bool(self.hands[seat])
        return {
            "game": "chinchon",
            "seat": seat,
            "num_players": n,
            "options": dict(self.options),
            "round": self.round,
            "totals": list(self.totals),
            "round_results": _copy_results(self.round_results),
            "in_match": list(self.in_match),
            "buybacks": list(self.buybacks),
            "pot": self.pot,
            "phase": self.phase,
            "step": self.step if playing else None,
            "first": self.first,
            "current": self.current,
            "to_act": list(self.to_act),
            "stock": self.stock,
            "top_discard": self.top_discard,
            "discards": self.discards,
            "hand_sizes": self.hand_sizes,
            "legal": self.legal_actions(seat) if own else [],
            "outcome": self._outcome_dict(),
            "hand": self.pk.sorted(self.hands[seat]) if mine else [],
            "arrangement": self.arrangement(seat) if mine else None,
            "can_close": self.close_cards(seat) if mine else [],
            "drawn": self.drawn if mine and seat == self.current else None,
            # the public history an AI plays from (every discard was shown face up): the pile
            # bottom first, the cards shown face up this round, each seat's discards this round
            "pile": list(self.pile) if playing else [],
            "seen": self.pk.sorted(self.seen) if playing else [],
            "discarded": [self.pk.sorted(d) for d in self.discarded] if playing else [[] for _ in range(n)],
            "reshuffles": self.reshuffles,
        }


def _copy_results(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        out.append({**r, "points": list(r["points"]), "totals": list(r["totals"]), "out": list(r["out"]),
                    "hands": [None if h is None else {"melds": [list(m) for m in h["melds"]],
                                                      "unmatched": list(h["unmatched"]),
                                                      "laid_off": list(h["laid_off"])} for h in r["hands"]],
                    "phrases": [dict(p, seats=dict(p["seats"]), values=dict(p["values"])) for p in r["phrases"]]})
    return out


GAME = Game.of(ChinchonState, deck="french", close_limit=5, lay_off=False, target=100)

__all__ = ["BOUGHT_BACK", "GAME", "HAND_SIZE", "JOKER", "PACKS", "PHRASES", "Arrangement", "ChinchonState", "Pack",
           "arrange", "can_close", "deadwood", "get_pack", "is_chinchon"]
