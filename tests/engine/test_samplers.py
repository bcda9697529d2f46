"""The strong AI's determinizers (issue #28): ``bot.games.<game>_sample.determinize(view, rng)``
returns a full state consistent with one seat's view.

Checked over seeded games at every seat count, in positions played by a mix of the normal AI
and random moves, for every seat (not only the one to act):

- the determinized state shows that seat exactly the same view (so the same legal actions);
- it holds exactly the cards of the real state (nothing lost, nothing doubled);
- what the view tells about hidden cards is kept (``Case.check``: e.g. Phỏm's eaten cards
  still in a phỏm, Concan's announced jokers still in hand);
- it reads nothing but the view: a JSON copy of the view gives the same state, and the view
  is not changed;
- the hidden cards really are re-dealt (some sample differs from the real hands);
- a rollout (the normal AI at every seat) plays on from it to the end of the round.

A game is added by one entry in ``SAMPLERS``: how to list every card of its state, and what
its hidden cards must keep.
"""

from __future__ import annotations

import copy
import importlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from bot.games import REGISTRY
from bot.games.concan_table import TableMeld
from bot.games.french import JOKER
from bot.games.phom_melds import feasible


def _phom_cards(state) -> Counter:
    cards = Counter(state.stock[state.stock_pos:])
    for s in range(state.num_players):
        cards.update(state.hands[s])
        cards.update(state.discards[s])
        cards.update(c for m in state.shown[s] for c in m)
    return cards


def _phom_check(state, seat: int) -> None:
    for s in range(state.num_players):
        assert state.unshown_eaten[s] <= state.hands[s]
        assert feasible(state.hands[s], state.unshown_eaten[s]), "an eaten card is left outside a phỏm"


def _chinchon_cards(state) -> Counter:
    cards = Counter(state.stock_cards) + Counter(state.pile) + Counter([state.facedown] if state.facedown else [])
    for hand in state.hands:
        cards.update(hand)
    return cards


def _chinchon_check(state, seat: int) -> None:
    if state.phase != "play":
        return
    # (the two jokers are one code: ``seen`` cannot tell whether both were shown)
    shown = state.seen - set(state.pile) - set(state.hands[seat]) - {JOKER}
    if state.reshuffles:
        assert set(state.stock_cards) - {JOKER} <= state.seen, "after a reshuffle the stock holds only discards"
    else:
        assert not shown & set(state.stock_cards), "before a reshuffle a card shown cannot be in the stock"


def _concan_cards(state) -> Counter:
    cards = Counter(state.stock_cards) + Counter(state.pile)
    for hand in state.hands:
        cards.update(hand)
    for meld in state.table:
        assert isinstance(meld, TableMeld)
        cards.update(JOKER if "=" in t else t for t in meld.spec.tokens)
    return cards


def _concan_check(state, seat: int) -> None:
    for s in range(state.num_players):
        assert state.hands[s][JOKER] >= state.announced_counts[s], "an announced joker left the hand"


@dataclass
class Case:
    """What the property test needs to know of one game's determinizer."""

    cards: Callable[[Any], Counter]  # every card of a state, copies counted
    check: Callable[[Any, int], None]  # what the view tells about the hidden cards is kept
    options: dict[str, Any] = field(default_factory=dict)
    games: int = 6  # seeded games (seat counts 2..max in turn)
    every: int = 1  # the positions checked: one action in this many (long games)
    rounds: Callable[[Any], Any] = lambda state: getattr(state, "round", 1)  # the round a rollout ends


#: the games whose determinizer is tested: add a game here when its ``<game>_sample`` lands
SAMPLERS: dict[str, Case] = {
    "phom": Case(_phom_cards, _phom_check),
    "phom+send": Case(_phom_cards, _phom_check, options={"send": True}),  # gửi: cards sent onto phỏm
    "chinchon": Case(_chinchon_cards, _chinchon_check, games=4, every=6),
    "concan": Case(_concan_cards, _concan_check, options={"rounds": 2}, games=4, every=4),
}


def _hidden(state, seat: int) -> Counter:
    """The cards ``seat`` cannot see, by place (for checking that a re-deal changed them)."""
    return Counter(json.dumps(state.view(s)["hand"]) for s in range(state.num_players) if s != seat)


def _positions(game: str, case: Case, rng: random.Random):
    """(state, seat) at every position of seeded games, for each seat."""
    engine = REGISTRY[game]
    normal = importlib.import_module(f"bot.games.{game}_ai").choose
    for k in range(case.games):
        players = engine.min_players + k % (engine.max_players - engine.min_players + 1)
        state = engine.new(players, seed=100 + k, options=case.options or None)
        for step in range(400):
            if state.is_over:
                break
            if step % case.every == 0:
                for seat in range(players):
                    yield state, seat
            seat = state.to_act[0]
            view = state.view(seat)
            state.apply(seat, normal(view) if rng.random() < 0.8 else rng.choice(view["legal"]))


def _rollout(state, case: Case) -> None:
    """The normal AI at every seat to the end of the round (at most 2,000 actions)."""
    game = state.name
    normal = importlib.import_module(f"bot.games.{game}_ai").choose
    start = case.rounds(state)
    for _ in range(2000):
        if state.is_over or case.rounds(state) != start:
            return
        seat = state.to_act[0]
        state.apply(seat, normal(state.view(seat)))
    raise AssertionError("a rollout from a determinized state did not end its round")


@pytest.mark.parametrize("key", sorted(SAMPLERS))
def test_a_determinized_state_shows_the_seat_the_same_view(key):
    case = SAMPLERS[key]
    game = key.partition("+")[0]
    determinize = importlib.import_module(f"bot.games.{game}_sample").determinize
    rng = random.Random(28)
    positions = redealt = rollouts = 0
    for state, seat in _positions(game, case, rng):
        view = state.view(seat)
        before = copy.deepcopy(view)
        seed = rng.randrange(2**32)
        other = determinize(view, random.Random(seed))
        assert view == before, "determinize changed the view"
        assert other.view(seat) == view, (game, seat, state.actions[-3:])
        assert other.legal_actions(seat) == state.legal_actions(seat)
        assert case.cards(other) == case.cards(state), "cards lost or doubled"
        case.check(other, seat)
        again = determinize(json.loads(json.dumps(view)), random.Random(seed))
        assert again.view(seat) == view and case.cards(again) == case.cards(other)
        assert [again.view(s) for s in range(state.num_players)] == [other.view(s) for s in range(state.num_players)]
        positions += 1
        redealt += _hidden(other, seat) != _hidden(state, seat)
        if positions % 20 == 0:
            _rollout(other, case)
            rollouts += 1
    assert positions >= 100 and rollouts >= 4
    assert redealt >= positions // 2, "the hidden cards are not re-dealt"


def test_phom_eaten_cards_get_partners_before_any_hand_is_filled():
    """Four seats, two eaters (seat 1 ate 9C, seat 2 ate 9D and JS): the partners of every
    eaten card are drawn before any hidden hand is filled, or the first hands take the cards
    the later eaters need (the re-deal then failed: 'hand sizes and stock do not add up')."""
    normal = importlib.import_module("bot.games.phom_ai").choose
    state = REGISTRY["phom"].new(4, seed=10)
    while not (set(state.eaten[1]) == {"9C"} and set(state.eaten[2]) == {"9D", "JS"}):
        seat = state.to_act[0]
        state.apply(seat, normal(state.view(seat)))
    determinize = importlib.import_module("bot.games.phom_sample").determinize
    view = state.view(3)
    for seed in range(20):
        other = determinize(view, random.Random(seed))
        assert other.view(3) == view
        _phom_check(other, 3)
