"""Chắn engine: property tests (hypothesis)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.games.base import IllegalAction
from bot.games.chan.game import GAME, PHRASES, count
from bot.games.base import card_of
from bot.games.chan.ai import choose, quick_select
from bot.games.tosom import FULL_DECK, KINDS

MAX_STEPS = 1500  # at most 1 + 61 draws per game, each turn at most 4 actions

# Budget: a few seconds on 2 cores. No deadlines (timings vary with load).
GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AI_GAMES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# invariants


def assert_conserved(state) -> None:
    cards: list[str] = []
    for seat in range(state.num_players):
        cards += state.hands[seat] + [c for pair in state.laid[seat] for c in pair] + state.rows[seat]
        total = len(state.all_cards(seat))
        holding = not state.is_over and state.phase == "discard" and seat == state.current
        opening = state.phase == "open" and seat == 0
        assert total == (20 if holding or opening else 19) or state.is_over, (seat, total, state.phase)
    cards += state.stock[state.stock_pos:]
    if state.active is not None and state.active_from is None:
        cards.append(state.active)  # a drawn card on offer
    assert Counter(cards) == Counter(FULL_DECK)


def snapshot(state):
    return json.dumps([state.record()] + [state.view(s) for s in [None, *range(state.num_players)]],
                      sort_keys=True, ensure_ascii=False)


def assert_private(state, rng: random.Random) -> None:
    """Views are unchanged when the cards hidden from the viewer are dealt differently."""
    if state.is_over or state.phase == "offer":
        return  # an offer itself tells that someone holds three of a kind
    n = state.num_players
    for viewer in [None, *range(n)]:
        others = [s for s in range(n) if s != viewer]
        hidden = [c for s in others for c in state.hands[s]] + state.stock[state.stock_pos:]
        rng.shuffle(hidden)
        other = copy.deepcopy(state)
        k = 0
        for s in others:
            size = len(state.hands[s])
            other.hands[s] = sorted(hidden[k:k + size], key=KINDS.index)
            k += size
        other.stock = other.stock[:other.stock_pos] + hidden[k:]
        for s in others:  # what only the holder knows about his own hand
            other.skipped[s] = set(state.skipped[s])
        assert json.dumps(other.view(viewer), sort_keys=True) == json.dumps(state.view(viewer), sort_keys=True)


def candidates(state, seat: int, rng: random.Random) -> list[str]:
    out = [f"discard {c}" for c in rng.sample(KINDS, 5)] + [f"eat {c}" for c in rng.sample(KINDS, 5)]
    return out + ["draw", "pass", "chiu", "u", "show 2V", "discard", "eat 2V 2V"]


# --------------------------------------------------------------------------------------------
# random legal play


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), ask=st.booleans())
def test_random_legal_play(players, seed, ask):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"chiu": "ask" if ask else "auto"})
    steps = 0
    while not state.is_over:
        assert_conserved(state)
        if steps % 7 == 0:
            assert_private(state, rng)
        seat = rng.choice(state.to_act)
        legal = state.legal_actions(seat)
        assert legal and len(legal) == len(set(legal))
        for other in range(players):
            if other not in state.to_act:
                assert state.legal_actions(other) == []
        if steps % 5 == 0:
            for action in legal:
                copy.deepcopy(state).apply(seat, action)
            before = snapshot(state)
            for action in candidates(state, seat, rng):
                if action in legal:
                    continue
                with pytest.raises(IllegalAction):
                    state.apply(seat, action)
            assert snapshot(state) == before
        state.apply(seat, rng.choice(legal))
        steps += 1
        assert steps <= MAX_STEPS
    assert_conserved(state)
    assert state.to_act == () and all(state.legal_actions(s) == [] for s in range(players))
    out = state.outcome()
    out.check_balanced()
    out.check_phrases(PHRASES)
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_replay_mid_game(players, seed, cut):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"chiu": "ask"})
    history = []
    while not state.is_over:
        seat = rng.choice(state.to_act)
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        history.append(snapshot(state))
    stop = int(cut * (len(history) - 1))
    record = state.record()
    partial = dict(record, actions=record["actions"][: stop + 1])
    assert snapshot(GAME.replay(partial)) == history[stop]


# --------------------------------------------------------------------------------------------
# AI


@AI_GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), ask=st.booleans())
@example(players=2, seed=31012, ask=False)  # seat 0 is dealt a winning hand: thiên ù is the only move
def test_ai_games(players, seed, ask):
    state = GAME.new(players, seed=seed, options={"chiu": "ask" if ask else "auto"})
    steps = 0
    while not state.is_over:
        seat = state.to_act[0]
        action = choose(state.view(seat))
        legal = state.legal_actions(seat)
        assert action in legal
        selected = [card_of(t) for t in quick_select(state.view(seat))]
        if legal == ["u"]:
            assert selected == []  # nothing to select: the Ù! button is the move
        elif state.phase in ("open", "discard"):
            assert len(selected) == 1 and f"discard {selected[0]}" in legal
        else:
            assert sorted(f"eat {c}" for c in selected) == sorted(a for a in legal if a.startswith("eat "))
        if action == "draw" and state.active in state.hands[seat]:
            assert f"eat {state.active}" not in legal  # the AI keeps chắn
        state.apply(seat, action)
        steps += 1
        assert steps <= MAX_STEPS
    state.outcome().check_balanced()


# --------------------------------------------------------------------------------------------
# count against brute force (no code shared with the engine)


def brute_count(cards: tuple[str, ...]) -> tuple[int, int, int]:
    @lru_cache(maxsize=None)
    def best(rest: tuple[str, ...]) -> tuple[int, int, int]:
        """(trash, -chan, -ca), lexicographically smallest."""
        if not rest:
            return (0, 0, 0)
        first, others = rest[0], rest[1:]
        t, c, a = best(others)
        options = [(t + 1, c, a)]
        for i, other in enumerate(others):
            remaining = others[:i] + others[i + 1:]
            if other == first:
                t, c, a = best(remaining)
                options.append((t, c - 1, a))
            elif first != "CC" and other != "CC" and other[0] == first[0]:
                t, c, a = best(remaining)
                options.append((t, c, a - 1))
        return min(options)

    t, c, a = best(tuple(sorted(cards)))
    return t, -c, -a


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["2V", "2W", "2S", "3V", "3W", "5S", "5V", "CC"]), max_size=9)
       .filter(lambda cs: max(Counter(cs).values(), default=0) <= 4))
def test_count_matches_brute_force(cards):
    c = count(cards)
    assert (c.trash, c.chan, c.ca) == brute_count(tuple(cards))
    assert 2 * (c.chan + c.ca) + c.trash == len(cards)


def test_a_thien_u_names_no_card():
    """Found by the random-play property (seed 43331033, 2 players): the dealer's hand wins as
    dealt, on no card, and its summary phrase fills exactly the template without a card."""
    state = GAME.new(2, seed=43331033)
    outcome = state.outcome() if state.is_over else None
    while outcome is None:
        seat = state.to_act[0]
        state.apply(seat, state.legal_actions(seat)[0])
        outcome = state.outcome() if state.is_over else None
    outcome.check_phrases(PHRASES)
