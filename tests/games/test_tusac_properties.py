"""Tứ Sắc engine: property tests (hypothesis)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.base import IllegalAction
from bot.games.tusac.game import GAME, PHRASES, hand_value, trash_count
from bot.games.tusac.ai import choose, quick_select
from bot.games.tusac.sets import CODES, FULL_PACK

MAX_STEPS = 600  # 71 draws at most, each with a pass, plus eats and discards

# Budget: the whole file runs in a few seconds on 2 cores. No deadlines (timings vary with load).
GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AI_GAMES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# invariants


def assert_conserved(state) -> None:
    cards = Counter()
    for seat in range(state.num_players):
        cards += state.private[seat]
        for meld in state.public[seat]:
            cards.update(meld.cards)
        cards.update(state.discards[seat])
        assert all(n > 0 for n in state.private[seat].values())
    cards.update(state.stock[state.stock_pos:])
    if state.active is not None:
        cards[state.active] += 1
    assert cards == Counter(FULL_PACK)


def public_view(view: dict) -> str:
    return json.dumps({k: v for k, v in view.items() if k != "khap_counts"}, sort_keys=True)


def assert_private(state, rng: random.Random) -> None:
    """A view is unchanged when the cards hidden from its viewer are dealt differently (the
    Khap counts aside: they are public and depend on the deal)."""
    if state.is_over:
        return
    n = state.num_players
    for viewer in [None, *range(n)]:
        others = [s for s in range(n) if s != viewer]
        hidden = [c for s in others for c in state.private[s].elements()] + state.stock[state.stock_pos:]
        rng.shuffle(hidden)
        other = copy.deepcopy(state)
        k = 0
        for s in others:
            size = sum(state.private[s].values())
            other.private[s] = Counter(hidden[k:k + size])
            k += size
        other.stock = other.stock[:other.stock_pos] + hidden[k:]
        assert public_view(other.view(viewer)) == public_view(state.view(viewer))


def snapshot(state) -> str:
    return json.dumps([state.record()] + [state.view(s) for s in [None, *range(state.num_players)]],
                      sort_keys=True, ensure_ascii=False)


def illegal_candidates(state, rng: random.Random) -> list[tuple[int, str]]:
    """Canonical-looking actions, some legal, for the current seat and for others."""
    seat = state.current
    hand = list(state.private[seat].elements())
    out = [(seat, f"discard {c}") for c in rng.sample(CODES, 5)]
    out += [(seat, "draw"), (seat, "pass"), (seat, "u"), (seat, "discard"), (seat, "eat")]
    for size in (1, 2, 3):
        if len(hand) >= size:
            out.append((seat, "eat " + " ".join(rng.sample(hand, size))))
    other = (seat + 1) % state.num_players
    out += [(other, "draw"), (other, f"discard {rng.choice(CODES)}")]
    return out


# --------------------------------------------------------------------------------------------
# random legal play


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play(players, seed):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed)
    steps = 0
    while not state.is_over:
        assert_conserved(state)
        if steps % 7 == 0:
            assert_private(state, rng)
        assert state.to_act == (state.current,)
        seat = state.current
        legal = state.legal_actions(seat)
        assert legal and len(legal) == len(set(legal))
        assert all(state.legal_actions(other) == [] for other in range(players) if other != seat)
        for action in legal:
            copy.deepcopy(state).apply(seat, action)
        before = snapshot(state)
        for who, action in illegal_candidates(state, rng):
            if who == seat and action in legal:
                continue
            try:
                state.apply(who, action)
            except IllegalAction:
                continue
            # a spelling of a legal action (cards in another order) is fine; nothing else is
            assert who == seat and state.record()["actions"][-1][1] in legal, (who, action, legal)
            state = GAME.replay(json.loads(before)[0])
        assert snapshot(state) == before
        state.apply(seat, rng.choice(legal))
        steps += 1
        assert steps <= MAX_STEPS
    assert_conserved(state)
    assert state.to_act == () and all(state.legal_actions(s) == [] for s in range(players))
    out = state.outcome()
    out.check_balanced()
    out.check_phrases(PHRASES)
    if out.winner is None:
        assert [r.rank for r in out.results] == [1] * players and not out.transfers
    else:
        assert sorted(r.rank for r in out.results) == list(range(1, players + 1))
        assert trash_count(state.private[out.winner]) == 0
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_replay_mid_game(players, seed, cut):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"worst_card_penalty": False})
    history = []
    while not state.is_over:
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        history.append(snapshot(state))
    stop = int(cut * (len(history) - 1))
    record = state.record()
    partial = dict(record, actions=record["actions"][: stop + 1])
    assert snapshot(GAME.replay(partial)) == history[stop]


# --------------------------------------------------------------------------------------------
# AI and Quick Select


def quick_action(state, seat: int) -> str:
    """What Quick Select and then the one enabled action button play."""
    selected = quick_select(state.view(seat))
    phase = state.phase
    if phase == "discard":
        assert len(selected) == 1
        return f"discard {selected[0]}"
    if phase == "declare":
        assert selected == []
        return "u"
    if selected:
        return "eat " + " ".join(selected)
    if "eat" in state.legal_actions(seat):
        return "eat"  # nothing selected: Eat lays down the active Tướng alone (it comes before Draw and Pass)
    return "draw" if phase == "take" else "pass"


@AI_GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_ai_and_quick_select_always_play_legally(players, seed):
    state = GAME.new(players, seed=seed)
    steps = 0
    while not state.is_over:
        seat = state.current
        legal = state.legal_actions(seat)
        action = choose(state.view(seat))
        assert action in legal
        assert quick_action(state, seat) == action
        if state.phase == "discard":
            assert action.split()[1] in state.worst(seat)
        elif any(a.split()[0] == "eat" for a in legal):
            assert action.split()[0] == "eat"  # an eat and its discard always cut the trash
        state.apply(seat, action)
        steps += 1
        assert steps <= MAX_STEPS
    state.outcome().check_balanced()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_ai_against_random_players(seed):
    rng = random.Random(seed)
    state = GAME.new(4, seed=seed)
    while not state.is_over:
        seat = state.current
        legal = state.legal_actions(seat)
        state.apply(seat, choose(state.view(seat)) if seat % 2 == 0 else rng.choice(legal))
    state.outcome().check_balanced()
    state.outcome().check_phrases(PHRASES)


# --------------------------------------------------------------------------------------------
# evaluation against brute force (no code shared with the engine)


def brute_set_value(cards: tuple[str, ...]) -> int | None:
    """Value of a private set, None if not a set (tusac.md "Sets" and "Payout")."""
    colours = {c[0] for c in cards}
    pieces = sorted(c[1] for c in cards)
    if len(cards) == 1:
        return 1 if pieces == ["K"] else None
    if len(cards) == 2:
        return 0 if cards[0] == cards[1] and pieces[0] != "K" else None
    if len(colours) == 1 and len(cards) == 3 and sorted(pieces) in (sorted("KAE"), sorted("RCN")):
        return 1
    if set(pieces) == {"P"} and len(colours) == len(cards) in (3, 4):
        return len(cards) - 2
    return None


def brute_partitions(cards: tuple[str, ...]):
    """Yield the value of every split of ``cards`` into sets."""
    if not cards:
        yield 0
        return
    first, rest = cards[0], cards[1:]
    for size in range(0, min(3, len(rest)) + 1):
        for others in set(combinations(rest, size)):
            value = brute_set_value((first, *others))
            if value is None:
                continue
            left = list(rest)
            for c in others:
                left.remove(c)
            for sub in brute_partitions(tuple(left)):
                yield value + sub


def brute_trash_and_value(cards: list[str]) -> tuple[int, int | None]:
    counts = Counter(cards)
    khaps = [c for c, n in counts.items() if n >= 3]
    free = sorted(c for c, n in counts.items() for _ in range(n - 3 if n >= 3 else n))
    value = None
    for removed in range(len(free) + 1):
        best = None
        for trash in set(combinations(free, removed)):
            left = list(free)
            for c in trash:
                left.remove(c)
            values = list(brute_partitions(tuple(left)))
            if values:
                best = max(values) if best is None else max(best, max(values))
        if best is not None:
            if removed == 0:
                value = best + 3 * len(khaps)
            return removed, value
    raise AssertionError("removing everything always works")


DENSE = [c + p for c in "RG" for p in "KAERCNP"] + ["YP", "WP"]  # few codes: many sets


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_trash_count_and_value_match_brute_force(data):
    pool = data.draw(st.sampled_from([DENSE, list(CODES)]))
    cards = data.draw(st.lists(st.sampled_from(pool), max_size=9))
    cards = [c for i, c in enumerate(cards) if cards[:i].count(c) < 4]
    trash, value = brute_trash_and_value(cards)
    assert trash_count(cards) == trash
    if value is None:
        with pytest.raises(ValueError):
            hand_value(cards)
    else:
        assert hand_value(cards) == value
