"""The engine protocol every game implements (no discord import anywhere under bot.games).

Modelled on OpenSpiel's state/action API:

- ``game.new(players, *, seed=None, deck=None, options=None) -> state``
- ``state.to_act``                 seats that may act now (several for out-of-turn claims)
- ``state.legal_actions(seat)``    the complete list of canonical action strings
- ``state.apply(seat, action)``    returns ``list[Event]`` or raises ``IllegalAction``
- ``state.view(seat)``             JSON-able dict of what that seat may know (``None``: spectator)
- ``state.is_over`` / ``state.outcome()``
- ``state.record()`` / ``game.replay(record)``  (record format: docs/rules/notation.md)

Matches of several rounds (Chinchón, Concan; notation.md, "Matches of several rounds") are one
state from the first deal to the match winner. Their :class:`Game` has ``multi_round=True``;
``game.new`` then also takes ``decks`` (the packs of the first rounds) and their records carry
``"decks"`` and ``"seed"`` instead of ``"deck"``. Such states also expose, on the state and in
every view, ``round`` (1-based), ``totals``, ``round_results`` and ``in_match``.

Actions and cards use the notation of ``docs/rules/notation.md``.

Languages (bot/i18n.py): an ``IllegalAction`` message is built with ``_()``/``ngettext()``
when it is raised (the framework calls the engine in the player's language), one sentence per
message with named placeholders. What an outcome keeps (notes, transfer reasons, event texts,
phrases) stays English or native: a fixed English note is a plain string marked with ``N_()``
(the UI translates it when it shows it), a note with a number in it is a :class:`Phrase` dict
whose template is in the engine's ``PHRASES``; native words (ù, móm, Quan...) stay as they are.
"""

from __future__ import annotations

import functools
import random
import string
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Protocol, Sequence

from babel.lists import format_list

from bot.i18n import _, current


class IllegalAction(ValueError):
    """An action the rules forbid; ``str(exc)`` is a short reason fit to show the player, in
    the language current when it was raised (build it with ``_()``)."""


class NotACard(ValueError):
    """``text`` is not a card code (the parsers raise it, so that the engines can refuse the
    action with a translated message naming what the player wrote)."""

    def __init__(self, text: str, message: str) -> None:
        super().__init__(message)
        self.text = text


def or_list(items: Iterable[str]) -> str:
    """``"A or B"``, ``"A, B, or C"`` as the current language writes such a choice."""
    return format_list(list(items), style="or", locale=current())


def and_list(items: Iterable[str]) -> str:
    """``"A and B"``, ``"A, B, and C"`` in the current language."""
    return format_list(list(items), locale=current())


@dataclass(frozen=True)
class Phrase:
    """A sentence kept as data, so that it can be shown with names, in the reader's language.

    ``key`` names a template of the engine's ``PHRASES`` (``"phom.win"``: an English template
    marked with ``N_()``, or a ``(singular, plural, count key)`` tuple); ``seats`` maps template
    placeholders to seat indices (the UI fills them with the seats' names); ``values`` holds
    the other placeholders (numbers, cards, native words). Engines never write a seat's name
    or number into text: a name like "Seat 1" must not be able to rewrite a result.
    """

    key: str
    seats: dict[str, int] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "seats": dict(self.seats), "values": dict(self.values)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Phrase":
        return cls(data["key"], dict(data.get("seats", {})), dict(data.get("values", {})))


#: a result's note or a transfer's reason: a string (native, or English marked with ``N_()``)
#: or a :class:`Phrase` dict (``Phrase.as_dict()``) whose key is in the engine's ``PHRASES``
Note = str | dict[str, Any]


@dataclass(frozen=True)
class Event:
    """Something that happened, holding only public information.

    ``kind`` is the verb (``discard``, ``draw``, ``eat``, ``show``, ``pass``, ``chiu``, ``u``,
    ``claim``, ``timeout``...), ``cards`` the cards everybody sees, ``text`` an optional
    extra phrase without any seat in it ("ăn chốt", "ù before discarding": native words stay
    plain, English is marked with ``N_()`` and translated by the UI). ``phrases`` say
    what needs other seats' names (the end of a game: its summary). A draw never carries the
    drawn card.
    """

    seat: int | None
    kind: str
    cards: tuple[str, ...] = ()
    text: str = ""
    phrases: tuple[Phrase, ...] = ()


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``payee`` ``units`` stake units for ``reason``: a readable name (a native
    word, or English marked with ``N_()``), or a :class:`Phrase` dict when it holds a number."""

    payer: int
    payee: int
    units: int
    reason: Note


@dataclass
class SeatResult:
    seat: int
    rank: int  # 1 is the winner; equal ranks only for a drawn game
    points: int | None = None  # the game's own score (leftover points, hand value...)
    payout: int = 0  # net stake units, positive = received; equals the transfers' sum
    ga: int = 0  # gà points won (Chắn), negative for payers
    #: named factors / penalties / "móm" (a :data:`Note`: a phrase dict when it holds a number)
    notes: list[Note] = field(default_factory=list)


@dataclass
class Outcome:
    winner: int | None  # None for a drawn game; the earliest seat when several share a pot
    results: list[SeatResult]
    transfers: list[Transfer] = field(default_factory=list)
    summary: tuple[Phrase, ...] = ()  # e.g. (Phrase("phom.u", {"winner": 2}),): "Lan ù before discarding"
    #: matches played for a pot: the stake units each seat paid in, and the seats sharing it
    pot: list[int] | None = None
    pot_winners: list[int] | None = None

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def winners(self) -> list[int]:
        if self.pot_winners is not None:
            return list(self.pot_winners)
        return [] if self.winner is None else [self.winner]

    def chips(self, stake: int) -> list[int]:
        """Each seat's net chips at ``stake`` chips per unit. A shared pot is split in chips,
        the odd chips to the earlier seats, so that it always sums to zero."""
        if self.pot is None or not self.pot_winners:
            return [r.payout * stake for r in sorted(self.results, key=lambda r: r.seat)]
        shares = split_pot(sum(self.pot) * stake, self.pot_winners)
        return [shares.get(seat, 0) - paid * stake for seat, paid in enumerate(self.pot)]

    def check_balanced(self) -> None:
        assert sum(r.payout for r in self.results) == 0, "payouts must sum to zero"
        assert sum(r.ga for r in self.results) == 0, "gà must sum to zero"
        assert sum(self.chips(1)) == 0 and sum(self.chips(7)) == 0, "chips must sum to zero"

    def check_phrases(self, phrases: Mapping[str, str]) -> None:
        """Every phrase of the outcome (the summary, and notes and transfer reasons that are
        phrase dicts) names a template of ``phrases`` (the engine's ``PHRASES``) and fills
        exactly its placeholders; every other note or reason is a string."""
        found = [phrase.as_dict() for phrase in self.summary]
        for note in [n for r in self.results for n in r.notes] + [t.reason for t in self.transfers]:
            if isinstance(note, dict):
                found.append(note)
            else:
                assert isinstance(note, str) and note, f"a note must be a string or a phrase dict: {note!r}"
        for data in found:
            assert data["key"] in phrases, f"no template for {data['key']!r}"
            fields = {name for _lit, name, _spec, _conv in string.Formatter().parse(phrases[data["key"]]) if name}
            assert fields == set(data["seats"]) | set(data["values"]), data


def split_pot(total: int, winners: Sequence[int]) -> dict[int, int]:
    """``total`` shared equally by ``winners``; the remainder goes one each to the earliest seats."""
    ordered = sorted(winners)
    share, odd = divmod(total, len(ordered))
    return {seat: share + (1 if i < odd else 0) for i, seat in enumerate(ordered)}


def pot_outcome(num_players: int, *, paid: Sequence[int], winners: Sequence[int], ranks: Sequence[int],
                points: Sequence[int | None] | None = None, notes: Sequence[list[Note]] | None = None,
                summary: Sequence[Phrase] = ()) -> Outcome:
    """The outcome of a match played for a pot: ``paid[seat]`` stake units paid in, shared by ``winners``.

    Per-seat ``payout`` is the net in stake units (the split at one chip a unit); the exact
    chips at any stake come from :meth:`Outcome.chips`.
    """
    shares = split_pot(sum(paid), winners)
    results = [SeatResult(seat=s, rank=ranks[s], points=None if points is None else points[s],
                          payout=shares.get(s, 0) - paid[s], notes=list(notes[s]) if notes else [])
               for s in range(num_players)]
    return Outcome(winner=min(winners) if winners else None, results=results, summary=tuple(summary),
                   pot=list(paid), pot_winners=sorted(winners))


def outcome_from_transfers(
    num_players: int, winner: int | None, ranks: Sequence[int], transfers: Sequence[Transfer],
    points: Sequence[int | None] | None = None, notes: Sequence[list[Note]] | None = None,
    summary: Sequence[Phrase] = (),
) -> Outcome:
    """Build an Outcome whose per-seat payouts are the net of ``transfers``."""
    results = []
    for seat in range(num_players):
        net = sum(t.units for t in transfers if t.payee == seat) - sum(
            t.units for t in transfers if t.payer == seat
        )
        results.append(
            SeatResult(
                seat=seat,
                rank=ranks[seat],
                points=None if points is None else points[seat],
                payout=net,
                notes=list(notes[seat]) if notes else [],
            )
        )
    return Outcome(winner=winner, results=results, transfers=list(transfers), summary=tuple(summary))


def outcome_dict(outcome: Outcome) -> dict[str, Any]:
    """The JSON form of an outcome that views carry: winner, summary, results and transfers."""
    return {
        "winner": outcome.winner,
        "winners": outcome.winners,
        "summary": [phrase.as_dict() for phrase in outcome.summary],
        "results": [{"seat": r.seat, "rank": r.rank, "points": r.points, "payout": r.payout, "ga": r.ga,
                     "notes": list(r.notes)} for r in outcome.results],
        "pot": outcome.pot,
        "transfers": [{"payer": t.payer, "payee": t.payee, "units": t.units, "reason": t.reason}
                      for t in outcome.transfers],
    }


def make_record(game: str, players: int, options: dict[str, Any], deck: Sequence[str],
                actions: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """A game record (docs/rules/notation.md): enough to replay the game exactly."""
    return {"game": game, "version": 1, "options": {"players": players, **options}, "deck": list(deck),
            "actions": [[seat, action] for seat, action in actions]}


class EngineState:
    """What every engine's state shares: its name, its seat count, when it is over.

    A subclass sets ``name``, ``title`` and its seat range, keeps ``phase`` ("over" at the
    end), ``num_players``, ``options`` and ``actions`` (the record's ``[seat, action]`` list).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    phase: str
    num_players: int
    options: dict[str, Any]
    actions: list[list[Any]]

    @classmethod
    def seat_count(cls, players: int) -> int:
        n = int(players)
        if not cls.min_players <= n <= cls.max_players:
            raise ValueError(f"{cls.title} needs {cls.min_players}–{cls.max_players} players")
        return n

    @property
    def is_over(self) -> bool:
        return self.phase == "over"


class GameOfOnePack(EngineState):
    """A game dealt once from one pack (Phỏm, Chắn, Tứ Sắc): ``deck`` is the pack as dealt,
    ``stock[stock_pos:]`` what is left to draw."""

    deck: list[str]
    stock: list[str]
    stock_pos: int
    current: int
    to_act: tuple[int, ...]

    @property
    def stock_left(self) -> int:
        return len(self.stock) - self.stock_pos

    def view_header(self, seat: int | None) -> dict[str, Any]:
        """The fields that open every view of the game (``seat`` None: a spectator)."""
        return {"game": self.name, "seat": seat, "num_players": self.num_players,
                "current": None if self.is_over else self.current, "to_act": list(self.to_act),
                "phase": self.phase, "stock": self.stock_left}

    def record(self) -> dict[str, Any]:
        return make_record(self.name, self.num_players, self.options, self.deck, self.actions)


class MatchOfRounds(EngineState):
    """A match of several rounds (Chinchón, Concan): ``decks`` holds every round's pack as
    dealt, ``seed`` shuffles the rest; ``stock_cards`` and ``pile`` are the current round's."""

    seed: int
    decks: list[list[str]]
    stock_cards: list[str]
    pile: list[str]

    @property
    def stock(self) -> int:
        return len(self.stock_cards)

    @property
    def discards(self) -> int:
        return len(self.pile)

    def record(self) -> dict[str, Any]:
        return make_match_record(self.name, self.num_players, self.options, self.seed, self.decks, self.actions)


class GameState(Protocol):
    num_players: int

    @property
    def to_act(self) -> tuple[int, ...]: ...

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self, seat: int) -> list[str]: ...

    def apply(self, seat: int, action: str) -> list[Event]: ...

    def view(self, seat: int | None) -> dict[str, Any]: ...

    def outcome(self) -> Outcome: ...

    def record(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Game:
    """A registry entry: the factory and metadata of one game."""

    name: str  # "phom"
    title: str  # "Phỏm"
    min_players: int
    max_players: int
    new_state: Any  # callable(players, *, seed, deck, options[, decks]) -> state
    default_options: dict[str, Any] = field(default_factory=dict)
    #: one state is a match of several rounds (``new_state`` also takes ``decks``)
    multi_round: bool = False

    @classmethod
    def of(cls, state: type[EngineState], **options: Any) -> "Game":
        """The registry entry of an engine state class, with its default options."""
        return cls(name=state.name, title=state.title, min_players=state.min_players,
                   max_players=state.max_players, new_state=state, default_options=options,
                   multi_round=issubclass(state, MatchOfRounds))

    def new(self, players: int, *, seed: int | None = None, deck: Sequence[str] | None = None,
            decks: Sequence[Sequence[str]] | None = None, options: dict[str, Any] | None = None):
        merged = {**self.default_options, **(options or {})}
        if not self.multi_round:
            if decks is not None:
                raise ValueError(f"{self.title} is played in one round: give deck, not decks")
            return self.new_state(players, seed=seed, deck=deck, options=merged)
        if deck is not None:
            decks = [deck, *(decks or [])[1:]]
        if seed is None:
            # The record must replay reshuffles and undealt rounds, so a match always has a seed.
            seed = random.SystemRandom().randrange(2**63)
        return self.new_state(players, seed=seed, decks=None if decks is None else [list(d) for d in decks],
                              options=merged)

    def replay(self, record: dict[str, Any]):
        if record.get("game") != self.name:
            raise ValueError(f"record is for {record.get('game')!r}, not {self.name!r}")
        options = dict(record.get("options", {}))
        players = options.pop("players")
        state = self.new(players, seed=record.get("seed"), deck=record.get("deck"), decks=record.get("decks"),
                         options=options)
        for seat, action in record["actions"]:
            state.apply(seat, action)
        return state


def deal(cards: Sequence[str], players: int, first: int, others: int,
         start: int = 0) -> tuple[list[list[str]], list[str]]:
    """The hands and the stock (notation.md, "Deal"): seat ``start`` takes the first ``first``
    cards, each next seat in turn the next ``others``; the rest is the stock."""
    hands: list[list[str]] = [[] for _ in range(players)]
    k = 0
    for i in range(players):
        size = first if i == 0 else others
        hands[(start + i) % players] = list(cards[k:k + size])
        k += size
    return hands, list(cards[k:])


def shuffled(pack: Sequence[str], seed: int | None) -> list[str]:
    """The pack shuffled with ``random.Random(seed)`` (notation.md: reproducible from the seed)."""
    cards = list(pack)
    random.Random(seed).shuffle(cards)
    return cards


def round_rng(seed: int, round_no: int) -> random.Random:
    """The RNG that shuffles round ``round_no`` (1-based) of a match when its pack is not given."""
    return random.Random(f"{seed}:{round_no}")


def reshuffle_rng(seed: int, round_no: int, n: int) -> random.Random:
    """The RNG of the ``n``-th (1-based) reshuffle of the discards into a new stock in a round."""
    return random.Random(f"{seed}:{round_no}:{n}")


def make_match_record(game: str, players: int, options: dict[str, Any], seed: int,
                      decks: Sequence[Sequence[str]], actions: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The record of a match of several rounds: every round's pack as dealt, the seed, the actions."""
    return {"game": game, "version": 1, "options": {"players": players, **options}, "seed": seed,
            "decks": [list(d) for d in decks], "actions": [[seat, action] for seat, action in actions]}


def pack_order(pack: Sequence[str], *, seed: int | None, deck: Sequence[str] | None,
               parse: Callable[[str], str]) -> list[str]:
    """The order a game deals from: ``deck`` (each code parsed; it must hold exactly the cards of
    ``pack``, copies included) or else ``pack`` shuffled with ``seed``."""
    if deck is None:
        return shuffled(pack, seed)
    cards = [parse(c) for c in deck]
    if Counter(cards) != Counter(pack):
        raise ValueError(f"the deck must hold exactly the {len(pack)} cards of the pack")
    return cards


def ai_chooser(pick: Callable[[dict[str, Any], list[str]], str]) -> Callable[[dict[str, Any]], str]:
    """An AI's ``choose(view)`` from its ``pick(view, legal)``. An AI decides from its seat's
    view (``state.view(seat)``: its hand, the public table and history), never from the state,
    so that it cannot peek at hidden cards; ``legal`` is the view's ``"legal"``. A seat with
    nothing to do is the caller's error, a single legal action needs no thought."""

    @functools.wraps(pick)
    def choose(view: dict[str, Any]) -> str:
        legal = view["legal"]
        if not legal:
            raise ValueError(f"seat {view['seat']} has nothing to do")
        return legal[0] if len(legal) == 1 else pick(view, legal)

    return choose


def split_action(action: str) -> tuple[str, str]:
    """``"Discard  5H"`` -> ``("discard", "5H")``: the verb, lower case, and the rest, spaces
    collapsed. An empty action is refused."""
    verb, __, rest = " ".join(str(action).split()).partition(" ")
    if not verb:
        raise IllegalAction(_("Empty action."))
    return verb.lower(), rest


def split_groups(text: str) -> list[list[str]]:
    """``"AS 2S 3S | 5H 5D 5C"`` -> ``[["AS","2S","3S"], ["5H","5D","5C"]]``."""
    return [part.split() for part in text.split("|") if part.strip()]


# Hands of Chắn and Tứ Sắc hold identical copies, but a Discord select needs distinct values,
# so selections name copies: the k-th copy of X (in display order) is ``X#k``.
def copy_token(card: str, copy: int = 1) -> str:
    return f"{card}#{copy}"


def tokens_for(cards: Sequence[str]) -> list[str]:
    """Distinct selection tokens for ``cards`` in order: the k-th copy of X is ``X#k``."""
    seen: dict[str, int] = {}
    out = []
    for card in cards:
        seen[card] = seen.get(card, 0) + 1
        out.append(copy_token(card, seen[card]))
    return out


def card_of(token: str) -> str:
    return token.split("#", 1)[0]
