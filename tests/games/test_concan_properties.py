"""Concan engine: property tests (hypothesis), 2 to 6 players, sets of 1–2 rounds."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.games.base import IllegalAction
from bot.games.concan.game import GAME, MAX_RESHUFFLES, MAX_TURNS, PACK, PHRASES, best_opening, split_opening
from bot.games.concan.ai import choose, quick_select
from bot.games.french import FULL_DECK

MAX_STEPS = 4000  # a 2-round set of mostly random play; AI sets take a few hundred steps

# Budget: the whole file runs in about 20 s on 2 cores. No deadlines (timings vary with load).
GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AI_GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# invariants


def all_cards(state) -> Counter:
    cards: Counter = Counter()
    for hand in state.hands:
        cards += hand
    cards.update(state.stock_cards)
    cards.update(state.pile)
    for meld in state.melds:
        cards.update("JK" if t.startswith("JK") else t for t in meld["cards"])
    return cards


def assert_conserved(state) -> None:
    assert all_cards(state) == Counter(PACK)
    assert all(v > 0 for h in state.hands for v in h.values())
    assert all(0 <= state.announced[s] <= state.hands[s]["JK"] for s in range(state.num_players))
    assert all(state.announced[s] == 0 for s in range(state.num_players) if not state.opened[s])
    if not state.is_over:
        sizes = state.hand_sizes
        assert all(size >= 1 for size in sizes)
        assert state.stock >= 1 or state.last_turn
        assert state.discards >= 1 or state.step != "draw"


def assert_private(state, rng: random.Random) -> None:
    """A view is unchanged when the cards hidden from its viewer (the other hands, jokers they
    announced aside, and the stock) are dealt differently."""
    if state.is_over:
        return
    n = state.num_players
    for viewer in [None, *range(n)]:
        others = [s for s in range(n) if s != viewer]
        hidden = []
        kept = {}
        for s in others:
            hand = state.hands[s].copy()
            kept[s] = state.announced[s]
            hand["JK"] -= kept[s]
            hidden += list((+hand).elements())
        hidden += state.stock_cards
        rng.shuffle(hidden)
        other = copy.deepcopy(state)
        other._legal_cache = None
        k = 0
        for s in others:
            size = sum(state.hands[s].values()) - kept[s]
            other.hands[s] = Counter(hidden[k:k + size]) + Counter({"JK": kept[s]})
            k += size
        other.stock_cards = hidden[k:]
        assert json.dumps(other.view(viewer), sort_keys=True) == json.dumps(state.view(viewer), sort_keys=True)


def snapshot(state) -> str:
    return json.dumps([state.record()] + [state.view(s) for s in [None, *range(state.num_players)]],
                      sort_keys=True, ensure_ascii=False)


def illegal_candidates(state, rng: random.Random) -> list[tuple[int, str]]:
    """Canonical-looking actions, some legal, for the current seat and for others."""
    seat = state.current
    hand = state.hand(seat)
    out = [(seat, f"discard {c}") for c in rng.sample(FULL_DECK, 4)]
    out += [(seat, a) for a in ("draw", "take", "announce", "discard", "open", "meld", "pass", "swap 5H 1",
                                "layoff 5H 1", "layoff JK 1", "open AS 2S 3S | KH KS KD")]
    if len(hand) >= 3:
        out += [(seat, "meld " + " ".join(rng.sample(hand, 3))) for _ in range(2)]
        out += [(seat, "open " + " ".join(rng.sample(hand, 3)) + " | " + " ".join(rng.sample(hand, 3)))]
    if state.melds:
        no = rng.randint(1, len(state.melds))
        out += [(seat, f"layoff {c} {no}") for c in rng.sample(hand, min(2, len(hand)))]
        out += [(seat, f"swap {c} {no}") for c in rng.sample(hand, min(2, len(hand)))]
    other = (seat + 1) % state.num_players
    out += [(other, "draw"), (other, f"discard {rng.choice(FULL_DECK)}")]
    return out


def pick(state, seat: int, rng: random.Random, ai_share: float) -> str:
    legal = state.legal_actions(seat)
    if rng.random() < ai_share:
        return choose(state.view(seat))
    melding = [a for a in legal if a.startswith(("open", "meld", "layoff"))]
    if melding and rng.random() < 0.5:  # keeps random rounds short
        return rng.choice(melding)
    return rng.choice(legal)


# --------------------------------------------------------------------------------------------
# random legal play


@GAMES
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 2),
       ai_share=st.sampled_from([0.0, 0.5, 0.9]), cut=st.floats(0, 1))
@example(players=5, seed=2317513627, rounds=2, ai_share=0.0, cut=0.3)  # a joker fitting both ends of 2…K
def test_random_legal_play(players, seed, rounds, ai_share, cut):
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"rounds": rounds})
    steps = 0
    saved = None
    cut_step = int(cut * 150)
    while not state.is_over:
        assert_conserved(state)
        if steps % 7 == 0:
            assert_private(state, rng)
        assert state.to_act == (state.current,)
        seat = state.current
        legal = state.legal_actions(seat)
        assert legal and len(legal) == len(set(legal))
        for other in range(players):
            if other != seat:
                assert state.legal_actions(other) == []
        # every listed action applies without raising (all of them on a few steps, else a sample)
        for action in legal if steps % 5 == 0 else rng.sample(legal, min(3, len(legal))):
            copy.deepcopy(state).apply(seat, action)
        # everything else raises and changes nothing
        before = snapshot(state)
        for who, action in illegal_candidates(state, rng):
            if who == seat and action in legal:
                continue
            if who == seat and action.startswith(("open ", "meld ", "layoff JK ")):
                # not every open/meld is listed: one the engine accepts must be a valid move; a
                # bare joker laid off is accepted when it fits one way, recorded as listed
                trial = copy.deepcopy(state)
                try:
                    trial.apply(who, action)
                except IllegalAction as exc:
                    assert str(exc) and "\n" not in str(exc)
                else:
                    assert_conserved(trial)
                    assert trial.opened[seat] and any(m["owner"] == seat for m in trial.melds)
                    if action.startswith("layoff"):
                        assert trial.record()["actions"][-1][1] in legal
                continue
            with pytest.raises(IllegalAction):
                state.apply(who, action)
                print("accepted", who, action, legal)
        assert snapshot(state) == before
        round_before = state.round
        state.apply(seat, pick(state, seat, rng, ai_share))
        steps += 1
        if steps == cut_step:
            saved = (len(state.record()["actions"]), snapshot(state))
        if state.round != round_before:
            assert state.round == round_before + 1 and state.step == "first_discard"
            assert state.hand_sizes[state.first] == 15
        assert steps <= MAX_STEPS
    assert_conserved(state)
    assert state.to_act == () and all(state.legal_actions(s) == [] for s in range(players))
    assert len(state.round_results) == rounds
    assert state.totals == [sum(r["points"][s] for r in state.round_results) for s in range(players)]
    out = state.outcome()
    out.check_balanced()
    out.check_phrases(PHRASES)
    low = min(state.totals)
    assert out.winners == [s for s in range(players) if state.totals[s] == low]
    record = state.record()
    assert len(record["decks"]) == rounds
    assert snapshot(GAME.replay(record)) == snapshot(state)
    if saved is not None:
        partial = dict(record, actions=record["actions"][:saved[0]])
        assert snapshot(GAME.replay(partial)) == saved[1]


# --------------------------------------------------------------------------------------------
# AI and Quick Select


def selection_actions(verb: str, cards: list[str], open_min: int) -> list[str]:
    melds = split_opening(cards, open_min if verb == "open" else 0)
    assert melds, (verb, cards)
    if verb == "open":
        return ["open " + " | ".join(" ".join(m) for m in melds)]
    return ["meld " + " ".join(m) for m in melds]


@AI_GAMES
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 2))
def test_ai_sets(players, seed, rounds):
    state = GAME.new(players, seed=seed, options={"rounds": rounds})
    steps = 0
    while not state.is_over:
        seat = state.current
        legal = state.legal_actions(seat)
        action = choose(state.view(seat))
        assert action in legal
        verb, cards = quick_select(state.view(seat))
        assert Counter(cards) <= state.hands[seat]
        if verb in ("open", "meld"):
            trial = copy.deepcopy(state)
            for step in selection_actions(verb, cards, state.open_min):
                trial.apply(seat, step)
        elif verb in ("discard", "swap"):
            assert len(cards) == 1 and any(a.startswith(f"{verb} {cards[0]}") for a in legal)
        else:
            assert verb in ("draw", "take") and verb in legal and cards == []
        for other in range(players):
            if other != seat:
                assert quick_select(state.view(other)) == ("", [])
        state.apply(seat, action)
        steps += 1
        assert steps <= MAX_STEPS
    state.outcome().check_balanced()
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


@pytest.mark.parametrize("players,seed", [(2, 20085)])
def test_ai_rounds_end(players, seed):
    """Two opened AIs once passed 2C back and forth: each could meld it only with its whole hand."""
    state = GAME.new(players, seed=seed, options={"rounds": 1})
    for _ in range(1000):
        if state.is_over:
            break
        state.apply(state.current, choose(state.view(state.current)))
    assert state.is_over


# --------------------------------------------------------------------------------------------
# every round ends (concan.md, Play 7)

#: The most actions one turn can hold: a draw or take and a discard; at most 14 lays (open, meld,
#: lay off: each lays a card of a hand of at most 15 and one card is kept); at most 2 + 14 swaps
#: (a swap takes a joker off the table, where only a lay puts one); at most 2 + 14 announces (one
#: joker each, of at most two held; a count drops only when a lay takes a joker from the hand).
ACTIONS_PER_TURN = 2 + 14 + 16 + 16


def looping(state, seat: int, rng: random.Random, policy: str, got: str | None) -> str:
    """A seat that will not go out once opened (the AI plays it until then): ``"take"`` takes
    the discard whenever it may and throws back the card it ``got`` (so nobody needs the
    stock); ``"draw"`` draws and throws back the card drawn (the stock runs out again and
    again)."""
    if not state.opened[seat] or state.step == "first_discard":
        return choose(state.view(seat))
    legal = state.legal_actions(seat)
    if state.step == "draw":
        return "take" if policy == "take" and "take" in legal else "draw"
    if got is not None and f"discard {got}" in legal:
        return f"discard {got}"
    return rng.choice([a for a in legal if a.startswith("discard ")])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), open_min=st.sampled_from([0, 10, 51, 120, 140]),
       policies=st.lists(st.sampled_from(["ai", "random", "take", "draw"]), min_size=6, max_size=6))
@example(players=2, seed=1, open_min=10, policies=["take"] * 6)  # opened players passing one card back and forth
@example(players=6, seed=2, open_min=10, policies=["draw"] * 6)  # the stock runs out a third time
@example(players=2, seed=3, open_min=140, policies=["ai"] * 6)  # nobody can open
def test_every_round_ends(players, seed, open_min, policies):
    """Whoever plays a seat (the AI, random legal moves, a player taking the discard and
    throwing it back, a player drawing and throwing back), every round ends: at most 300
    turns, at most two reshuffles, each turn of a bounded number of actions; a round that
    reached a limit ends without a winner, and the record replays to the same state."""
    rng = random.Random(seed)
    state = GAME.new(players, seed=seed, options={"rounds": 2, "open_min": open_min})
    actions = 0
    got = None  # the card the seat to act took or drew this turn
    while not state.is_over:
        seat = state.current
        policy = policies[seat]
        if policy == "ai":
            action = choose(state.view(seat))
        elif policy == "random":
            action = pick(state, seat, rng, 0.0)
        else:
            action = looping(state, seat, rng, policy, got)
        round_no, hand = state.round, Counter(state.hands[seat])
        state.apply(seat, action)
        if action in ("take", "draw"):
            got = next(iter(state.hands[seat] - hand))
        actions += 1
        if state.round != round_no or state.is_over:
            result = state.round_results[-1]
            assert result["winner"] is not None or result["phrases"][0]["key"].startswith("concan.round_void")
            actions = 0
        assert state.turns <= MAX_TURNS and state.reshuffles <= MAX_RESHUFFLES
        assert actions <= MAX_TURNS * ACTIONS_PER_TURN
    state.outcome().check_balanced()
    assert snapshot(GAME.replay(state.record())) == snapshot(state)


# --------------------------------------------------------------------------------------------
# best_opening against brute force (no code shared with the engine)

RANK_NO = {r: i + 1 for i, r in enumerate("A23456789TJQK")}


def plain_value(cards) -> int | None:
    """The value of cards with every joker already named, or None if they are no meld."""
    n = len(cards)
    if n < 3:
        return None
    ranks = [c[0] for c in cards]
    suits = [c[1] for c in cards]
    if len(set(ranks)) == 1:
        if n <= 4 and len(set(suits)) == n:
            return n * (10 if ranks[0] in "ATJQK" else int(ranks[0]))
        return None
    if len(set(suits)) != 1 or len(set(ranks)) != n:
        return None
    best = None
    for ace in (1, 14):
        pos = sorted(ace if r == "A" else RANK_NO[r] for r in ranks)
        if pos == list(range(pos[0], pos[0] + n)):
            value = sum(1 if p == 1 else min(p, 10) for p in pos)
            best = value if best is None else max(best, value)
    return best


@lru_cache(maxsize=None)
def brute_meld_value(cards: tuple[str, ...], jokers: int) -> int | None:
    if not cards or len(cards) + jokers < 3:
        return None
    first = cards[0]
    names = sorted({r + first[1] for r in RANK_NO} | {first[0] + s for s in "SHDC"})
    best = None
    for named in combinations_with_replacement(names, jokers):
        value = plain_value(list(cards) + list(named))
        if value is not None and (best is None or value > best):
            best = value
    return best


def brute_best(hand: list[str]) -> int:
    naturals = sorted(c for c in hand if c != "JK")
    jokers = len(hand) - len(naturals)
    melds = []
    for k in range(1, len(naturals) + 1):
        for group in sorted(set(combinations(naturals, k))):
            for j in range(0, jokers + 1):
                value = brute_meld_value(group, j)
                if value is not None:
                    melds.append((Counter(group), j, value))
    best = 0
    have = Counter(naturals)

    def rec(start: int, used: Counter, used_j: int, total: int) -> None:
        nonlocal best
        best = max(best, total)
        for i in range(start, len(melds)):
            group, j, value = melds[i]
            if used_j + j <= jokers and all(used[c] + k <= have[c] for c, k in group.items()):
                rec(i, used + group, used_j + j, total + value)

    rec(0, Counter(), 0, 0)
    return best


DENSE = [r + s for r in "A2345QK" for s in "SH"] * 2  # aces both ends, repeats, two suits
WIDE = list(FULL_DECK)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_best_opening_matches_brute_force(data):
    pool = data.draw(st.sampled_from([DENSE, WIDE]))
    size = data.draw(st.integers(0, 7))
    hand = [pool[i] for i in data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size,
                                               unique=True))]
    hand += ["JK"] * data.draw(st.integers(0, 2))
    assert best_opening(hand) == brute_best(hand)


@pytest.mark.parametrize("hand", [
    "5H 6H 7H 7S 7D 7C JK JK", "AS 2S 3S QS KS JK", "AH 2H JK KH QH", "7H 7H 7S 7S JK JK",
    "AS AS 2S 2S 3S 3S", "KH KS KD KC KH JK", "2C 4C 6C 8C JK JK", "AD KD JK"])
def test_best_opening_tricky_hands(hand):
    cards = hand.split()
    assert best_opening(cards) == brute_best(cards)
