"""Concan engine — rules in docs/rules/concan.md, notation in docs/rules/notation.md.

One state is a whole set of ``rounds`` rounds (notation.md, "Matches of several rounds").

Public API (the names of its parts are re-exported here):

- ``GAME``: the :class:`~bot.games.base.Game` registry entry (2–6 players, ``multi_round``).
- ``PHRASES``: the English template of every :class:`~bot.games.base.Phrase` key emitted.
- Evaluation (concan.md): ``meld_value(meld)``, ``hand_penalty(cards, *, opened,
  announced_jokers=0)``, ``card_penalty(card)`` (:mod:`.melds`); ``best_opening(cards)`` (:mod:`.solver`).
- For the UI: ``split_opening(cards, open_min=0)``, ``split_choices(cards)``, ``best_melds(cards)``
  (:mod:`.solver`); on the state ``opening_for(seat)`` / ``can_open(seat)`` (:mod:`.table`).

The moves between the draw and the discard are :mod:`.table`'s; the end of a round and of the
set is scored by :mod:`.scoring`.

Round 1 is started by seat 0: the table stands for the draw of the first player by seating
the players in a drawn order (concan.md "Players and deal"), so the engine has no seating of
its own and its record replays from the seats it was given.

Events: ``Event(seat, "draw")`` (never the card), ``Event(seat, "take", (card,))``,
``Event(seat, "open", laid tokens, text="1 2")`` and ``Event(seat, "meld", tokens, text="3")``
(text: the numbers the new melds got), ``Event(seat, "layoff", (token,), text=meld no)``,
``Event(seat, "swap", (card,), text=meld no)`` (the card put in, the joker taken),
``Event(seat, "announce")``, ``Event(seat, "discard", (card,))``, ``Event(None, "reshuffle")``,
``Event(None, "round_end", phrases=...)`` (its first phrase says who won the round, or why
nobody did), ``Event(None, "round_start", text=str(round))`` and
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

Rule interpretations made here (beyond the *(decided)* points of the spec):

- A round ending without a winner is followed by a round started by the seat after the
  previous round's starter.
- A player must keep a card for his discard: ``open``, ``meld`` and ``layoff`` may not empty
  the hand (``swap`` keeps its size). He may open, meld and lay off in the turn he opens.
- ``take`` and ``swap`` before opening: see :mod:`.table`.
- ``announce`` (one joker each time) is a move of the play step, after opening. When a joker
  leaves the hand, unannounced jokers leave first (``announced`` never exceeds the jokers held).
- Jokers may be discarded; a card taken after opening may be discarded the same turn.
- Melds (:mod:`.melds`): every meld holds at least one natural card; a 13-card run
  ``2…K`` + ace counts the ace high; an ace laid off on ``2…K`` goes low.
- "When the stock runs out" is read literally: right after the draw that takes the last
  stock card, the discards but the top one are shuffled into a new stock (the drawer goes on
  with his turn), at most ``MAX_RESHUFFLES`` (2) times a round. The third time, or with fewer
  than two discards at that moment, there is no reshuffle: the drawer plays his turn to its
  end (he may still go out and win) and the round then ends without a winner
  (``concan.round_void_stock`` / ``concan.round_void``). (Fewer than two discards cannot
  happen from a real deal: every turn ends with a discard and only a draw empties the stock,
  so when a stock of ``s`` cards runs out the pile holds at least ``s`` ≥ 2 cards; the rule is
  kept and tested on a state set up by hand.)
- "300 turns of the round": a turn is counted when it ends, with its discard (the starter's
  discard-only turn is the first). A discard that empties the hand wins, even the 300th;
  any other 300th discard ends the round without a winner (``concan.round_void_turns``). The
  limits end rounds nobody can go out of: melds that take no more cards, hands of one or two
  cards, or players who only take and discard (the stock then never runs out).
- ``best_opening`` ignores the need to keep a card for the discard (the evaluation of
  concan.md); the listed ``open`` and the legality of ``take`` respect it.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any, Sequence

from bot.i18n import N_, Nn_, _
from bot.games.base import (Event, Game, IllegalAction, MatchOfRounds, NotACard, Outcome, Phrase, deal, outcome_dict,
                            reshuffle_rng, round_rng, split_action)
from bot.games.concan.melds import (MeldSpec, card_penalty, hand_penalty, is_joker_token, meld_value, not_a_card,
                                    token_identity)
from bot.games.concan.scoring import score_round, settle_set
from bot.games.concan.solver import best_melds, best_opening, split_choices, split_opening
from bot.games.concan.table import TableMeld, TablePlay
from bot.games.french import FULL_DECK, JOKER, parse_card, sort_key

#: Every phrase key this engine emits, with an English template ({name}: a seat's name), marked
#: for translation: the UI shows them in the reader's language.
PHRASES: dict[str, str | tuple[str, str, str]] = {
    "concan.round_won": N_("{winner} goes out and wins round {round} (−25)."),
    "concan.round_void": N_("Round {round} ends without a winner: the stock ran out."),
    "concan.round_void_stock": N_("Round {round} ends without a winner: the stock ran out a third time."),
    "concan.round_void_turns": Nn_("Round {round} ends without a winner: nobody went out in {turns} turn.",
                                     "Round {round} ends without a winner: nobody went out in {turns} turns.", "turns"),
    "concan.round_points": N_("{player} {points:+d} (total {total})"),
    "concan.round_points_closed": N_("{player} never opened: +100 (total {total})"),
    "concan.set_won": Nn_("{winner} wins the set with {total} point.", "{winner} wins the set with {total} points.",
                            "total"),
    "concan.set_shared": Nn_("{winner} shares the pot with {total} point.",
                               "{winner} shares the pot with {total} points.", "total"),
    "concan.final_total": N_("{player}: {total}"),
}

#: The 106 cards: two French packs and two jokers (identical copies share a code).
PACK: tuple[str, ...] = FULL_DECK + FULL_DECK + (JOKER, JOKER)


#: The most a first lay-down can be worth: 14 cards (one is kept to discard) of 10 points.
MAX_OPENING = 14 * 10

#: concan.md, Play 7: the discards are shuffled into a new stock at most this often a round; the
#: next time the stock runs out ends the round without a winner.
MAX_RESHUFFLES = 2
#: concan.md, Play 7: a round that nobody has won after this many turns ends without a winner.
MAX_TURNS = 300


class ConcanState(TablePlay, MatchOfRounds):
    """A set of Concan rounds. Seats play in order 0, 1, ..., N-1, 0, ...; the moves between
    the draw and the discard (open, meld, layoff, swap, announce) are
    :class:`~bot.games.concan.table.TablePlay`'s."""

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
        if not 0 <= open_min <= MAX_OPENING:
            raise ValueError(f"open_min must be 0–{MAX_OPENING}: no hand can open with more")
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
        hands, self.stock_cards = deal(cards, n, 15, 14, start=first)
        self.hands: list[Counter] = [Counter(hand) for hand in hands]
        self.pile: list[str] = []
        self.table: list[TableMeld] = []
        self.opened_flags = [False] * n
        self.announced_counts = [0] * n
        self.reshuffles = 0
        self.turns = 0  # turns of the round played to their end (each ends with a discard)
        #: the stock ran out and is not refilled: this turn is the last; the phrase key that says
        #: why the round then ends without a winner
        self.last_turn: str | None = None
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

    # -- legal actions ----------------------------------------------------------------------------

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
        out = self._play_actions(seat)
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

    def _remove(self, seat: int, used: Counter) -> None:
        hand = self.hands[seat]
        hand.subtract(used)
        self.hands[seat] = +hand
        self.announced_counts[seat] = min(self.announced_counts[seat], self.hands[seat][JOKER])

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
            if self.reshuffles >= MAX_RESHUFFLES:
                self.last_turn = "concan.round_void_stock"
            elif len(self.pile) >= 2:
                self.reshuffles += 1
                cards = self.pile[:-1]
                reshuffle_rng(self.seed, self.round, self.reshuffles).shuffle(cards)
                self.stock_cards = cards
                self.pile = self.pile[-1:]
                events.append(Event(None, "reshuffle"))
            else:
                self.last_turn = "concan.round_void"
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

    def _discard(self, seat: int, rest: str) -> list[Event]:
        self._need_step("discard")
        parts = rest.split()
        if len(parts) != 1:
            raise IllegalAction(_("Discard exactly one card."))
        try:
            card = parse_card(parts[0], joker=True)
        except NotACard as exc:
            raise not_a_card(exc) from None
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
        self.turns += 1
        if not self.hands[seat]:
            events += self._end_round(seat)
            return events
        if self.last_turn:
            events += self._end_round(None, Phrase(self.last_turn, {}, {"round": self.round}))
            return events
        if self.turns >= MAX_TURNS:
            events += self._end_round(None, Phrase("concan.round_void_turns", {}, {"round": self.round,
                                                                                   "turns": self.turns}))
            return events
        self.current = (seat + 1) % self.num_players
        self.step = "draw"
        return events

    # -- rounds and the end of the set (scored by :mod:`.scoring`) ---------------------------------

    def _end_round(self, winner: int | None, void: Phrase | None = None) -> list[Event]:
        """The round is over: won by ``winner``, or without a winner (``void`` says why)."""
        n = self.num_players
        score = score_round(self.round, winner, void, hands=[self.hand(s) for s in range(n)],
                            opened=self.opened_flags, announced=self.announced_counts, totals=self.totals)
        self.totals[:] = score.totals
        self.round_results.append({
            "round": self.round, "points": score.points, "totals": list(self.totals), "winner": winner,
            "hands": score.hands, "phrases": [p.as_dict() for p in score.phrases],
        })
        events = [Event(None, "round_end", phrases=tuple(score.phrases))]
        if self.round >= self.rounds:
            events.append(self._finish())
            return events
        first = winner if winner is not None else (self.first + 1) % n
        self._deal(self.round + 1, first)
        events.append(Event(None, "round_start", text=str(self.round)))
        return events

    def _finish(self) -> Event:
        self._outcome, summary = settle_set(self.totals)
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

__all__ = ["GAME", "JOKER", "MAX_RESHUFFLES", "MAX_TURNS", "PACK", "PHRASES", "ConcanState", "MeldSpec", "TableMeld",
           "best_melds", "best_opening", "card_penalty", "hand_penalty", "is_joker_token", "meld_value",
           "split_choices", "split_opening", "token_identity"]
