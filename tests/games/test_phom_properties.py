"""Phỏm engine: property tests (hypothesis)."""

from __future__ import annotations

import copy
import json
import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.games.base import IllegalAction
from bot.games.french import FULL_DECK, sort_cards
from bot.games.french import sort_key as french_key
from bot.games.phom.game import GAME, PHRASES, arrange, best_points, find_phom, is_phom, is_u
from bot.ai import easy as simple_ai
from bot.games.phom.ai import choose, quick_select
from bot.games.phom.melds import card_points

MAX_STEPS = 400  # a game has at most 1 + 15 draw turns + a few dozen eat turns, 3 actions each

# Budget: the whole file runs in about 10 s on 2 cores. No deadlines (timings vary with load).
GAMES = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AI_GAMES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# invariants


def assert_conserved(state) -> None:
    cards: list[str] = []
    for seat in range(state.num_players):
        cards += list(state.hands[seat])
        cards += state.discards[seat]
        for meld in state.shown[seat]:
            cards += meld
        assert state.unshown_eaten[seat] <= state.hands[seat]
        # 10 cards: the player between drawing/eating and discarding, seat 0 before his first
        # discard, or a winner who ù'd before discarding.
        may_hold_ten = (seat == state.current and not state.is_over) or seat == 0 or (
            state.is_over and state.outcome().winner == seat)
        # gửi: a seat's shown phỏm may hold cards others sent, and its own sent cards are elsewhere
        received = sum(map(len, state.sent[seat]))
        own = len(state.hands[seat]) + sum(map(len, state.shown[seat])) - received + state.sends[seat]
        assert own in ((9, 10) if may_hold_ten else (9,))
        for k, meld in enumerate(state.shown[seat]):
            assert is_phom(meld) and {c for c, _sender in state.sent[seat][k]} <= set(meld)
    cards += state.stock[state.stock_pos:]
    assert len(cards) == 52 and set(cards) == set(FULL_DECK)


def assert_private(state) -> None:
    """No view shows a card another seat holds hidden, or a stock card, during play."""
    if state.is_over:
        return
    stock = set(state.stock[state.stock_pos:])
    for viewer in [None, *range(state.num_players)]:
        text = json.dumps(state.view(viewer), ensure_ascii=False)
        hidden = set(stock)
        for seat in range(state.num_players):
            if seat != viewer:
                hidden |= state.hands[seat] - state.unshown_eaten[seat]
        leaked = [c for c in hidden if f'"{c}"' in text or f"{c} " in text or f" {c}\"" in text]
        assert not leaked, (viewer, leaked)


def snapshot(state):
    return json.dumps([state.record()] + [state.view(s) for s in [None, *range(state.num_players)]],
                      sort_keys=True, ensure_ascii=False)


def illegal_candidates(state, rng: random.Random) -> list[tuple[int, str]]:
    """Canonical-looking actions, some legal, for the current seat and for others."""
    seat = state.current
    hand = sorted(state.hands[seat])
    out = [(seat, f"discard {c}") for c in rng.sample(FULL_DECK, 6)]
    out += [(seat, "draw"), (seat, "show"), (seat, "pass"), (seat, "discard")]
    if len(hand) >= 2:
        out += [(seat, "eat " + " ".join(sort_cards(rng.sample(hand, 2)))) for _ in range(3)]
    if len(hand) >= 3:
        out += [(seat, "show " + " ".join(sort_cards(rng.sample(hand, 3)))) for _ in range(3)]
    other = (seat + 1) % state.num_players
    out += [(other, "draw"), (other, f"discard {rng.choice(FULL_DECK)}")]
    return out


# --------------------------------------------------------------------------------------------
# random legal play


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), send=st.booleans())
@example(players=4, seed=4892, send=False)  # ends with a ù before discarding by a seat other than 0
def test_random_legal_play(players, seed, send):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"send": send})
    dealt_u = [s for s in range(players) if is_u(state.hands[s])]
    assert state.is_over == bool(dealt_u)  # a hand dealt all in phỏm ends the game at the deal
    if dealt_u:
        assert state.outcome().winner == dealt_u[0]
    steps = 0
    while not state.is_over:
        assert_conserved(state)
        assert_private(state)
        assert state.to_act == (state.current,)
        seat = state.current
        legal = state.legal_actions(seat)
        assert legal and len(legal) == len(set(legal))
        for other in range(players):
            if other != seat:
                assert state.legal_actions(other) == []
        # every listed action applies without raising
        for action in legal:
            copy.deepcopy(state).apply(seat, action)
        # everything else raises and changes nothing
        before = snapshot(state)
        for who, action in illegal_candidates(state, rng):
            if who == seat and action in legal:
                continue
            with pytest.raises(IllegalAction):
                state.apply(who, action)
                print("accepted", who, action, legal)
        assert snapshot(state) == before
        sends = [a for a in legal if a.startswith("send ")]  # rare among the legal: favoured
        state.apply(seat, rng.choice(sends if sends and rng.random() < 0.8 else legal))
        steps += 1
        assert steps <= MAX_STEPS
    assert_conserved(state)
    assert state.to_act == () and all(state.legal_actions(s) == [] for s in range(players))
    out = state.outcome()
    out.check_balanced()
    out.check_phrases(PHRASES)
    assert sorted(r.rank for r in out.results) == list(range(1, players + 1))
    if not any("ù" in note for r in out.results for note in r.notes):
        # a normal end: every phỏm was shown, so the held cards hold none (móm = no phỏm)
        assert all(find_phom(state.hands[s]) is None for s in range(players))
        assert all(r.notes == (["móm"] if not state.shown[r.seat] else []) for r in out.results)
        assert [r.points for r in out.results] == [sum(card_points(c) for c in state.hands[s]) for s in range(players)]
    if not send:
        assert not any(state.sends) and not any(a.startswith("send") for _seat, a in state.record()["actions"])
    replayed = GAME.replay(state.record())
    assert snapshot(replayed) == snapshot(state)


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1), send=st.booleans())
def test_replay_mid_game(players, seed, cut, send):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"note": "x", "send": send})
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
# AI


@AI_GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), send=st.booleans())
@example(players=2, seed=41, send=True)  # the AI sends three cards
def test_ai_games(players, seed, send):
    state = GAME.new(players, seed=seed, options={"send": send})
    steps = 0
    while not state.is_over:
        seat = state.current
        action = choose(state.view(seat))
        assert action in state.legal_actions(seat)
        selected = quick_select(state.view(seat))
        assert set(selected) <= state.hands[seat]
        verb, _, rest = action.partition(" ")
        if verb == "send":  # the card; the phỏm it goes onto is picked apart
            rest = rest.split()[0]
        eats = [a for a in state.legal_actions(seat) if a.startswith("eat ")]
        if verb == "draw" and eats:  # Quick Select still shows what Eat would take
            assert "eat " + " ".join(selected) in eats
        else:
            assert sorted(selected) == sorted(rest.replace("|", " ").split())
        if verb == "discard":
            assert selected[0] not in state.locked(seat)
        state.apply(seat, action)
        assert_conserved(state)
        steps += 1
        assert steps <= MAX_STEPS
    state.outcome().check_balanced()
    assert sum(r.payout for r in state.outcome().results) == 0


def test_quick_select_picks_the_eat_where_the_ai_would_draw():
    """Issue #41: Quick Select said "Nothing to select" in a turn where Eat is legal."""
    for seed in range(200):
        state = GAME.new(2, seed=seed)
        while not state.is_over:
            seat = state.current
            view = state.view(seat)
            eats = [a for a in view["legal"] if a.startswith("eat ")]
            if eats and choose(view) == "draw":
                assert "eat " + " ".join(quick_select(view)) in eats
                return
            state.apply(seat, choose(view))
    raise AssertionError("no deal where the AI draws while it could eat")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), send=st.booleans(), ai=st.sampled_from([choose, simple_ai.phom]))
def test_ai_against_random_players(seed, send, ai):
    rng = random.Random(seed)
    state = GAME.new(4, seed=seed, options={"send": send})
    while not state.is_over:
        seat = state.current
        legal = state.legal_actions(seat)
        if seat % 2 == 0:
            action = ai(state.view(seat))
            assert action in legal
        else:
            action = rng.choice(legal)
        state.apply(seat, action)
    state.outcome().check_balanced()
    state.outcome().check_phrases(PHRASES)


# --------------------------------------------------------------------------------------------
# evaluation against brute force (no code shared with the engine)

RANK_OF = {r: i + 1 for i, r in enumerate("A23456789TJQK")}


def brute_is_phom(cards) -> bool:
    if len(cards) < 3:
        return False
    ranks = sorted(RANK_OF[c[0]] for c in cards)
    if len(set(c[0] for c in cards)) == 1:
        return True
    if len(set(c[1] for c in cards)) != 1:
        return False
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def brute_best(cards, eaten=()):
    """(points, mom) over every set of disjoint phỏm, or None when the eaten rule fails."""
    cards = list(cards)
    eaten = set(eaten)
    phoms = [frozenset(c) for k in range(3, len(cards) + 1) for c in combinations(cards, k)
             if brute_is_phom(c) and len(eaten & set(c)) <= 1]
    best = None

    def rec(start, used, count):
        nonlocal best
        if eaten <= used:
            pts = sum(RANK_OF[c[0]] for c in cards if c not in used)
            key = (pts, count == 0)
            if best is None or key[0] < best[0]:
                best = key
        for k in range(start, len(phoms)):
            if not (phoms[k] & used):
                rec(k + 1, used | phoms[k], count + 1)

    rec(0, frozenset(), 0)
    return best


SMALL_POOL = [r + s for r in "A2345678" for s in "SHDC"]  # dense: many phỏm


@settings(max_examples=1000, deadline=None)
@given(data=st.data())
def test_best_points_matches_brute_force(data):
    pool = data.draw(st.sampled_from([SMALL_POOL, list(FULL_DECK)]))
    hand = data.draw(st.lists(st.sampled_from(pool), min_size=0, max_size=9, unique=True))
    eaten = data.draw(st.lists(st.sampled_from(hand), max_size=2, unique=True)) if hand else []
    want = brute_best(hand, eaten)
    if want is None:
        with pytest.raises(ValueError):
            best_points(hand, eaten)
        assert not is_u(hand, eaten)
        return
    got = best_points(hand, eaten)
    assert (got.points, got.mom) == want
    assert is_u(hand, eaten) == (want[0] == 0)
    arr = arrange(hand, eaten)
    assert arr.points == want[0]
    assert sorted(arr.leftover + [c for m in arr.melds for c in m]) == sorted(hand)
    assert all(brute_is_phom(m) for m in arr.melds)
    assert all(len(set(m) & set(eaten)) <= 1 for m in arr.melds)
    assert set(eaten) <= {c for m in arr.melds for c in m}
    assert sum(RANK_OF[c[0]] for c in arr.leftover) == arr.points


def brute_shows(hand, eaten) -> set[str]:
    """Every legal show: disjoint phỏm (at most one eaten card each) laying down every eaten
    card and leaving no phỏm among the cards kept (phom.md rule 4), in canonical spelling."""
    eaten = set(eaten)
    phoms = [c for k in range(3, len(hand) + 1) for c in combinations(hand, k)
             if brute_is_phom(c) and len(eaten & set(c)) <= 1]
    out = set()

    def rec(start, used, chosen):
        kept = [c for c in hand if c not in used]
        if eaten <= used and not any(brute_is_phom(c) for k in (3, 4) for c in combinations(kept, k)):
            melds = sorted((sort_cards(m) for m in chosen), key=lambda m: [french_key(c) for c in m])
            out.add(" ".join(["show", " | ".join(" ".join(m) for m in melds)]).strip())
        for k in range(start, len(phoms)):
            if used.isdisjoint(phoms[k]):
                rec(k + 1, used | set(phoms[k]), chosen + [phoms[k]])

    rec(0, frozenset(), [])
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_show_options_are_exactly_the_legal_shows(data):
    hand = data.draw(st.lists(st.sampled_from(SMALL_POOL), min_size=4, max_size=10, unique=True))
    eaten = data.draw(st.lists(st.sampled_from(hand), max_size=2, unique=True))
    if brute_best(hand, eaten) is None or is_u(hand, eaten):
        return  # states never reached: eaten cards always fit in phỏm; an ù ends the game
    state = GAME.new(2, deck=list(FULL_DECK[1::2] + FULL_DECK[::2]))
    state.hands[0], state.unshown_eaten[0] = set(hand), set(eaten)
    state.phase, state.turn_last = "show", True
    legal = state.legal_actions(0)
    assert legal and set(legal) == brute_shows(hand, eaten)
    for action in legal:
        copy.deepcopy(state).apply(0, action)
