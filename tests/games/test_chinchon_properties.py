"""Chinchón engine: property tests (hypothesis)."""

from __future__ import annotations

import copy
import json
import random
import string
from collections import Counter
from functools import lru_cache
from itertools import combinations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st


from bot.games.base import IllegalAction
from bot.i18n import english_form
from bot.games.chinchon.game import GAME, PACKS, PHRASES, arrange, can_close, deadwood, is_chinchon
from bot.games.chinchon.ai import choose, quick_select

MAX_STEPS = 6000  # a match of half-AI play: a few hundred actions; random discards make rounds long

# Budget: the whole file runs in about 25 s on 2 shared cores. No deadlines (timings vary with load).
GAMES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AI_GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

options_st = st.fixed_dictionaries({
    "deck": st.sampled_from(["french", "spanish40", "spanish48"]),
    "lay_off": st.booleans(),
    "target": st.sampled_from([30, 60, 100]),
    "close_limit": st.sampled_from([5, 5, 10]),
})


# --------------------------------------------------------------------------------------------
# invariants


def assert_conserved(state) -> None:
    """Within each round, hands + discard pile + stock (+ the card laid face down) are the pack."""
    cards = [c for hand in state.hands for c in hand] + state.pile + state.stock_cards
    if state.facedown is not None:
        cards.append(state.facedown)
    assert Counter(cards) == Counter(state.pack)
    for seat in range(state.num_players):
        size = len(state.hands[seat])
        if state.phase == "play" and seat == state.current and state.step == "discard":
            assert size == 8
        elif state.phase == "play":
            assert size == (7 if state.in_match[seat] else 0)
        else:
            assert size in (0, 7)
    assert state.pot == state.num_players + sum(state.buybacks)
    assert state.view(None)["totals"] == state.totals


def snapshot(state) -> str:
    return json.dumps([state.record()] + [state.view(s) for s in [None, *range(state.num_players)]],
                      sort_keys=True, ensure_ascii=False)


def assert_private(state, rng: random.Random) -> None:
    """Views are unchanged when the cards hidden from the viewer are dealt differently."""
    if state.is_over:
        return
    n = state.num_players
    for viewer in [None, *range(n)]:
        others = [s for s in range(n) if s != viewer] if state.phase == "play" else []
        hidden = [c for s in others for c in state.hands[s]] + state.stock_cards
        rng.shuffle(hidden)
        other = copy.deepcopy(state)
        k = 0
        for s in others:
            size = len(state.hands[s])
            other.hands[s] = hidden[k:k + size]
            k += size
        other.stock_cards = hidden[k:]
        assert json.dumps(other.view(viewer), sort_keys=True) == json.dumps(state.view(viewer), sort_keys=True)


def assert_phrases(state) -> None:
    phrases = [p for r in state.round_results for p in r["phrases"]]
    if state.is_over:
        phrases += [p.as_dict() for p in state.outcome().summary]
    for p in phrases:
        assert p["key"] in PHRASES
        fields = {name for _, name, _, _ in string.Formatter().parse(english_form(PHRASES[p["key"]], p["values"]))
                  if name}
        assert fields == set(p["seats"]) | set(p["values"]), p
        assert all(isinstance(v, int) for v in p["seats"].values())


def illegal_candidates(state, rng: random.Random) -> list[tuple[int, str]]:
    seat = state.to_act[0]
    pack = sorted(set(state.pack))
    out = [(seat, f"discard {c}") for c in rng.sample(pack, 4)] + [(seat, f"close {c}") for c in rng.sample(pack, 4)]
    out += [(seat, "draw"), (seat, "take"), (seat, "buyback"), (seat, "decline"), (seat, "discard"), (seat, "pass"),
            (seat, "close")]
    other = (seat + 1) % state.num_players
    out += [(other, "draw"), (other, "buyback"), (other, f"discard {rng.choice(pack)}")]
    return out


def play_step(state, rng: random.Random) -> None:
    """Half the moves by the AI, half at random (closing whenever the random player can)."""
    seat = state.to_act[0]
    legal = state.legal_actions(seat)
    if rng.random() < 0.5:
        action = choose(state.view(seat))
    else:
        closes = [a for a in legal if a.startswith("close ")]
        action = rng.choice(closes) if closes else rng.choice(legal)
    state.apply(seat, action)


# --------------------------------------------------------------------------------------------
# random legal play


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=options_st)
def test_random_legal_play(players, seed, options):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options=options)
    steps = 0
    rounds_seen = {1}
    while not state.is_over:
        assert_conserved(state)
        assert len(state.to_act) == 1
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        assert legal and len(legal) == len(set(legal))
        assert state.view(seat)["legal"] == legal
        for other in range(players):
            if other != seat:
                assert state.legal_actions(other) == []
        if steps % 8 == 0 or state.phase == "buyback":
            assert_private(state, rng)
            for action in legal:  # every listed action applies
                copy.deepcopy(state).apply(seat, action)
            before = snapshot(state)
            for who, action in illegal_candidates(state, rng):
                if who == seat and action in legal:
                    continue
                with pytest.raises(IllegalAction):
                    state.apply(who, action)
            assert snapshot(state) == before
        play_step(state, rng)
        rounds_seen.add(state.round)
        steps += 1
        assert steps <= MAX_STEPS
    assert_conserved(state)
    assert_phrases(state)
    assert rounds_seen == set(range(1, state.round + 1))
    assert len(state.round_results) == state.round and len(state.record()["decks"]) == state.round
    assert state.to_act == () and all(state.legal_actions(s) == [] for s in range(players))
    out = state.outcome()
    out.check_balanced()
    out.check_phrases(PHRASES)
    assert out.pot == [1 + b for b in state.buybacks]
    assert sorted(r.rank for r in out.results)[0] == 1 and all(out.results[w].rank == 1 for w in out.winners)
    assert [r.points for r in out.results] == state.totals
    assert GAME.replay(state.record()).view(None) == state.view(None)


@GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=options_st, cut=st.floats(0, 1))
def test_replay_mid_round_and_between_rounds(players, seed, options, cut):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={**options, "note": "x"})
    history = []
    between = []
    while not state.is_over:
        play_step(state, rng)
        history.append(snapshot(state))
        if state.phase == "buyback":
            between.append(len(history) - 1)
    record = state.record()
    stops = {int(cut * (len(history) - 1))} | set(between[:2])
    for stop in stops:
        partial = dict(record, actions=record["actions"][: stop + 1])
        assert snapshot(GAME.replay(json.loads(json.dumps(partial)))) == history[stop]


# --------------------------------------------------------------------------------------------
# AI


@AI_GAMES
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=options_st)
def test_ai_and_quick_select_always_play_legally(players, seed, options):
    state = GAME.new(players, seed=seed, options=options)
    steps = 0
    while not state.is_over:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        action = choose(state.view(seat))
        assert action in legal
        selected = quick_select(state.view(seat))
        if state.phase == "play" and state.step == "discard":
            assert len(selected) == 1
            card = selected[0]
            assert f"discard {card}" in legal or f"close {card}" in legal
            if state.close_cards(seat):
                assert f"close {card}" in legal
            verb, _, rest = action.partition(" ")
            assert rest == card  # the pre-selected card is the one the AI plays
        else:
            assert selected == []
        for other in range(players):
            if other != seat:
                assert quick_select(state.view(other)) == []
        state.apply(seat, action)
        steps += 1
        assert steps <= MAX_STEPS
    state.outcome().check_balanced()
    assert_phrases(state)


# --------------------------------------------------------------------------------------------
# evaluation against brute force (no code shared with the engine)

FRENCH_RANKS = "A23456789TJQK"
ORDER = {"french": list(FRENCH_RANKS), "spanish48": [str(r) for r in range(1, 13)],
         "spanish40": ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]}
VALUE = {"french": {r: min(i + 1, 10) for i, r in enumerate(FRENCH_RANKS)},
         "spanish48": {str(r): r for r in range(1, 13)},
         "spanish40": {str(r): r for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)}}


def split(card: str) -> tuple[str, str]:
    return card[:-1], card[-1]


def brute_is_meld(deck: str, cards) -> bool:
    """3+ cards: one rank (at most 4, distinct suits) or a run of one suit; one joker at most
    fills in."""
    real = [split(c) for c in cards if c != "JK"]
    size = len(cards)
    if size < 3 or size - len(real) > 1 or len(set(real)) != len(real):
        return False
    ranks = {r for r, _ in real}
    if len(ranks) == 1 and size <= 4:
        return True
    if len({s for _, s in real}) != 1:
        return False
    pos = sorted(ORDER[deck].index(r) for r, _ in real)
    return pos[-1] - pos[0] + 1 <= size <= len(ORDER[deck])


def brute_value(deck: str, card: str) -> int:
    return 50 if card == "JK" else VALUE[deck][split(card)[0]]


def brute_arrangements(deck: str, cards):
    """Every set of unmatched cards left by some choice of disjoint melds."""
    items = list(range(len(cards)))
    melds = [frozenset(c) for k in range(3, len(cards) + 1) for c in combinations(items, k)
             if brute_is_meld(deck, [cards[i] for i in c])]

    @lru_cache(maxsize=None)
    def rec(left: frozenset):
        if not left:
            return {frozenset()}
        low = min(left)
        out = {frozenset([low]) | r for r in rec(left - {low})}
        for m in melds:
            if low in m and m <= left:
                out |= rec(left - m)
        return out

    return [[cards[i] for i in u] for u in rec(frozenset(items))]


def brute_deadwood(deck, cards) -> int:
    best = min(sum(brute_value(deck, c) for c in u) for u in brute_arrangements(deck, cards))
    return best if best else -10


def brute_closable(deck, cards7, limit) -> bool:
    return any(len(u) == 0 or (len(u) == 1 and brute_value(deck, u[0]) <= limit)
               for u in brute_arrangements(deck, cards7))


@st.composite
def hands(draw, max_size=8):
    deck = draw(st.sampled_from(["french", "spanish40", "spanish48"]))
    cards = list(PACKS[deck].cards)
    if draw(st.booleans()):  # dense: few ranks, many melds
        cards = [c for c in cards if PACKS[deck].index[c] & 15 < 5]
    jokers = draw(st.integers(0, 2))
    real = draw(st.lists(st.sampled_from(cards), min_size=0, max_size=max_size - jokers, unique=True))
    hand = real + ["JK"] * jokers
    draw(st.randoms()).shuffle(hand)
    return deck, hand


@settings(max_examples=600, deadline=None)
@given(data=hands())
@example(data=("french", "3H 4H JK JK 9C 9D 9S 9H".split()))  # two sets of 9s with a joker each
@example(data=("spanish40", "12O 11O JK JK 1C 2C 3C".split()))  # one joker a meld, both used
def test_deadwood_and_arrange_match_brute_force(data):
    deck, hand = data
    want = brute_deadwood(deck, hand)
    assert deadwood(hand, deck=deck) == want
    arr = arrange(hand, deck=deck)
    assert arr.deadwood == want
    melded = [c.split("=")[0] for m in arr.melds for c in m]
    assert sorted(melded + arr.unmatched) == sorted(hand)
    for m in arr.melds:
        assert brute_is_meld(deck, [c.split("=")[0] for c in m])
        stands = [c.split("=")[-1] for c in m]  # the cards the jokers stand for make it plainly
        assert len(set(stands)) == len(stands) and brute_is_meld(deck, stands)
        if len({split(c)[1] for c in stands}) == 1 and len({split(c)[0] for c in stands}) > 1:  # a run in order
            assert [ORDER[deck].index(split(c)[0]) for c in stands] == list(
                range(ORDER[deck].index(split(stands[0])[0]), ORDER[deck].index(split(stands[0])[0]) + len(m)))
    assert (sum(brute_value(deck, c) for c in arr.unmatched) or -10) == want


@settings(max_examples=300, deadline=None)
@given(data=hands(max_size=8), limit=st.sampled_from([0, 5, 10]))
def test_can_close_matches_brute_force(data, limit):
    deck, hand = data
    if len(hand) != 8:
        hand = (hand + [c for c in PACKS[deck].cards if c not in hand])[:8]
    want = sorted({c for i, c in enumerate(hand)
                   if brute_closable(deck, [x for k, x in enumerate(hand) if k != i], limit)}, key=PACKS[deck].sort_key)
    assert can_close(hand, limit, deck=deck) == want


@settings(max_examples=200, deadline=None)
@given(data=hands(max_size=7))
def test_is_chinchon(data):
    deck, hand = data
    order = ORDER[deck]
    want = len(hand) == 7 and "JK" not in hand and len({split(c)[1] for c in hand}) == 1 and sorted(
        order.index(split(c)[0]) for c in hand) == list(range(min(order.index(split(c)[0]) for c in hand),
                                                               min(order.index(split(c)[0]) for c in hand) + 7))
    assert is_chinchon(hand, deck=deck) == want
