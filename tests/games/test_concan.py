"""Concan engine: worked examples and rules of docs/rules/concan.md, from fixed packs."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from bot.games import REGISTRY
from bot.i18n import english_form
from bot.games.base import Event, IllegalAction, Phrase, reshuffle_rng, round_rng
from bot.games.concan.game import (GAME, MAX_RESHUFFLES, MAX_TURNS, PACK, PHRASES, TableMeld, best_melds, best_opening,
                              hand_penalty, meld_value, split_choices, split_opening)
from bot.games.concan.ai import choose
from bot.games.concan.melds import resolve_meld
from bot.games.french import FULL_DECK, RANKS, parse_cards, sort_cards

# --------------------------------------------------------------------------------------------
# helpers


def _near(a: str, b: str) -> bool:
    """Cards that could share a meld (same rank, or same suit within two ranks, ace both ends)."""
    if a == b:
        return False
    if a[0] == b[0]:
        return True
    if a[1] != b[1]:
        return False
    d = abs(RANKS.index(a[0]) - RANKS.index(b[0]))
    return d <= 2 or d >= 11


def build_pack(hands: list[str], stock: str = "", *, first: int = 0) -> list[str]:
    """A 106-card pack dealing ``hands[seat]`` to each seat (the starter ``first`` 15 cards, the
    others 14, in blocks from the starter); short hands are filled with cards that make no meld
    with the rest of their hand without a joker (isolated cards, else twins, else a pair); then ``stock`` on top of the
    stock, then every other natural card in canonical order, the jokers last."""
    n = len(hands)
    given = [parse_cards(h, joker=True) for h in hands]
    top = parse_cards(stock, joker=True)
    pool = Counter(PACK)
    pool.subtract(Counter([c for h in given for c in h] + top))
    assert all(k >= 0 for k in pool.values()), "a card is used more often than the pack holds"
    order = [c for c in FULL_DECK for _ in range(pool[c])]
    for i in range(n):
        seat = (first + i) % n
        hand = given[seat]
        size = 15 if i == 0 else 14
        assert len(hand) <= size
        while len(hand) < size:
            naturals = [o for o in hand if o != "JK"]
            tiers = (
                lambda c: c not in hand and not any(_near(c, o) for o in naturals),  # isolated
                lambda c: not any(_near(c, o) for o in naturals),  # or a twin
                lambda c: (sum(1 for o in naturals if o[0] == c[0]) <= 1  # or a pair of one rank
                           and not any(_near(c, o) for o in naturals if o[0] != c[0])),
            )
            pick = next(c for ok in tiers for c in order if ok(c))
            order.remove(pick)
            hand.append(pick)
    deck = [c for i in range(n) for c in given[(first + i) % n]] + top + order + ["JK"] * pool["JK"]
    assert Counter(deck) == Counter(PACK)
    return deck


def new(hands: list[str], stock: str = "", **options):
    options.setdefault("rounds", 1)
    return GAME.new(len(hands), decks=[build_pack(hands, stock)], options=options)


def dump(state) -> str:
    """The current seat draws and discards the card drawn."""
    seat = state.current
    before = Counter(state.hands[seat])
    state.apply(seat, "draw")
    card = next(iter(Counter(state.hands[seat]) - before))
    state.apply(seat, f"discard {card}")
    return card


def first_discard(state, card: str | None = None) -> None:
    seat = state.current
    state.apply(seat, f"discard {card or state.hand(seat)[0]}")


# --------------------------------------------------------------------------------------------
# evaluation API: the worked examples of concan.md


def test_meld_value_worked_examples():
    assert meld_value("KH KS KD") == 30
    assert meld_value("AS 2S 3S") == 6
    assert meld_value("QD KD AD") == 30
    assert meld_value("7H 7H 7S") is None
    assert meld_value("KS AS 2S") is None
    assert meld_value("TH JK=JH QH") == 30


def test_meld_values_and_shapes():
    assert meld_value("AS AH AD") == 30  # an ace in a set is worth 10
    assert meld_value("JK=AS 2S 3S") == 6  # a joker is worth the card it stands for
    assert meld_value("QD KD JK=AD") == 30
    assert meld_value("5H JK=6H 7H") == 18
    assert meld_value("7H 7S 7D 7C") == 28
    assert meld_value("7H 7S 7D 7C JK=7H") is None  # five cards, a suit twice
    assert meld_value("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS") == 94  # 2…K A: the ace high
    assert meld_value("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS") == 94  # the same cards
    assert meld_value("JK=KS AS 2S") is None  # no wrapping, even with a joker
    assert meld_value("5H 7H 8H") is None
    assert meld_value("5H 5H") is None
    assert meld_value("5H 6H 7D") is None
    assert meld_value("XX 5H 6H") is None
    assert meld_value("5H 6H JK") == 18  # a bare joker counts as its best card (7H)
    assert meld_value("10h jh qh") == 30


def test_best_opening_worked_examples():
    assert best_opening("KH KS KD 7C 8C 9C") == 54
    assert best_opening("QH QS QD 4H 5H 6H") == 45
    assert best_opening("") == 0
    assert best_opening("2C 5D 9H KS") == 0
    assert best_opening("KH KS JK") == 30
    assert best_opening("7H 8H JK JK") == 7 + 8 + 9 + 10  # 7 8 9 T
    # disjoint melds only, and the better split wins: 5H 6H 7H + 7S 7D 7C beats using 7H twice
    assert best_opening("5H 6H 7H 7S 7D 7C") == 39
    assert best_opening("5H 6H 7H 7H 7S 7D") == 39  # two packs: 7H twice


def test_hand_penalty_worked_examples():
    assert hand_penalty("7D KC AS", opened=True) == 27
    assert hand_penalty("2C 3C", opened=False) == 100
    assert hand_penalty("JK JK 5C", opened=True) == 55
    assert hand_penalty("JK JK 5C", opened=True, announced_jokers=1) == 32
    assert hand_penalty("JK JK 5C", opened=True, announced_jokers=2) == 9
    assert hand_penalty("", opened=True) == 0


def test_split_helpers():
    assert split_opening("KH KS KD 7C 8C 9C", 51) == [["KS", "KH", "KD"], ["7C", "8C", "9C"]]
    assert split_opening("QH QS QD 4H 5H 6H", 51) is None
    assert split_opening("QH QS QD 4H 5H 6H") == [["QS", "QH", "QD"], ["4H", "5H", "6H"]]
    assert split_opening("QH QS QD 4H") is None  # every selected card must be used
    assert split_opening("5H 6H JK") == [["5H", "6H", "JK=7H"]]
    assert split_opening("5H 6H JK=4H") == [["5H", "6H", "JK=7H"]]  # a named joker is a joker
    choices = split_choices("5H 5S JK")
    assert [c["melds"] for c in choices] == [[["5S", "5H", "JK=5C"]], [["5S", "5H", "JK=5D"]]]
    assert [c["value"] for c in split_choices("5H 6H JK")] == [18, 15]
    assert split_choices("5H 9C JK") == []
    assert best_melds("KH KS KD 7C 8C 9C 2D JK") == {
        "melds": [["KS", "KH", "KD", "JK=KC"], ["7C", "8C", "9C"]], "rest": ["2D"], "value": 64}
    assert best_melds("KH KS KD", keep=1)["value"] == 0


# --------------------------------------------------------------------------------------------
# game entry, deal, starter


def test_registry_and_pack():
    assert REGISTRY["concan"] is GAME
    assert GAME.multi_round and GAME.min_players == 2 and GAME.max_players == 6
    assert GAME.default_options == {"rounds": 9, "open_min": 51}
    assert len(PACK) == 106 and Counter(PACK)["JK"] == 2 and Counter(PACK)["7H"] == 2


def test_deal_in_blocks_from_the_starter_and_record():
    deck = build_pack(["", "", ""])
    state = GAME.new(3, decks=[deck], seed=5)
    assert Counter(state.hands[0]) == Counter(deck[:15]) and state.hand(0) == sort_cards(deck[:15])
    assert Counter(state.hands[1]) == Counter(deck[15:29])
    assert Counter(state.hands[2]) == Counter(deck[29:43])
    assert state.stock == 106 - 43 and state.stock_cards == deck[43:]
    assert state.discards == 0 and state.top_discard is None
    assert state.round == 1 and state.rounds == 9 and state.first == 0 and state.step == "first_discard"
    rec = state.record()
    assert rec == {"game": "concan", "version": 1, "options": {"players": 3, "rounds": 9, "open_min": 51},
                   "seed": 5, "decks": [deck], "actions": []}
    # a shuffled round uses round_rng(seed, round)
    other = GAME.new(2, seed=77)
    pack = list(PACK)
    round_rng(77, 1).shuffle(pack)
    assert other.record()["decks"] == [pack]


def test_bad_packs_and_options():
    with pytest.raises(ValueError):
        GAME.new(2, decks=[list(PACK[:-1])])
    with pytest.raises(ValueError):
        GAME.new(2, decks=[list(PACK[:-1]) + ["AS"]])
    with pytest.raises(ValueError):
        GAME.new(7)
    with pytest.raises(ValueError):
        GAME.new(2, options={"rounds": 21})
    with pytest.raises(ValueError):
        GAME.new(2, options={"rounds": 0})


def test_starter_first_turn_is_a_discard_only():
    state = new(["KH KS KD 7C 8C 9C QH QS QD", ""])
    legal = state.legal_actions(0)
    assert legal and all(a.startswith("discard ") for a in legal)
    assert state.legal_actions(1) == []
    assert state.view(0)["step"] == "first_discard"
    for action in ("draw", "take", "open KH KS KD | 7C 8C 9C | QH QS QD", "announce"):
        with pytest.raises(IllegalAction, match="first turn of the round is a discard only"):
            state.apply(0, action)
    with pytest.raises(IllegalAction, match="not your turn"):
        state.apply(1, "draw")
    assert state.apply(0, "discard QD") == [Event(0, "discard", ("QD",))]
    assert state.current == 1 and state.step == "draw" and state.top_discard == "QD"
    with pytest.raises(IllegalAction, match="Draw a card or take the discard first"):
        state.apply(1, f"discard {state.hand(1)[0]}")
    assert state.legal_actions(1) == ["draw"]  # no opening with QD: take is not legal
    assert state.apply(1, "draw") == [Event(1, "draw")]
    with pytest.raises(IllegalAction, match="already drawn"):
        state.apply(1, "draw")


# --------------------------------------------------------------------------------------------
# opening


def opening_state():
    """Seat 1 holds KH KS KD 7C 8C 9C and QH QS QD 4H 5H 6H; seat 0 has discarded."""
    state = new(["", "KH KS KD 7C 8C 9C QH QS QD 4H 5H 6H"], stock="2D")
    first_discard(state)
    state.apply(1, "draw")
    return state


def test_opening_worth_51_or_more():
    state = opening_state()
    with pytest.raises(IllegalAction, match=r"^Your opening is worth 45; you need 51\.$"):
        state.apply(1, "open QH QS QD | 4H 5H 6H")
    assert not state.opened[1]
    events = state.apply(1, "open kh ks kd | 7c 8c 9c")
    assert events == [Event(1, "open", ("KS", "KH", "KD", "7C", "8C", "9C"), "1 2")]
    assert state.opened == [False, True]
    assert state.melds == [{"no": 1, "owner": 1, "kind": "set", "cards": ["KS", "KH", "KD"]},
                           {"no": 2, "owner": 1, "kind": "run", "cards": ["7C", "8C", "9C"]}]
    assert state.record()["actions"][-1] == [1, "open KS KH KD | 7C 8C 9C"]
    with pytest.raises(IllegalAction, match="already opened"):
        state.apply(1, "open QH QS QD | 4H 5H 6H")
    # after opening a meld of any value
    assert state.apply(1, "meld 4H 5H 6H") == [Event(1, "meld", ("4H", "5H", "6H"), "3")]
    assert state.melds[2]["no"] == 3


def test_open_min_option_and_listed_opening():
    state = new(["", "QH QS QD 4H 5H 6H"], stock="2D", open_min=40)
    first_discard(state)
    state.apply(1, "draw")
    assert state.view(1)["best_opening"] == 45
    assert "open QS QH QD | 4H 5H 6H" in state.legal_actions(1)
    assert state.can_open(1) and state.opening_for(1) == "open QS QH QD | 4H 5H 6H"
    state = opening_state()
    # the listed opening is the best one that keeps a card: all four melds (99)
    assert [a for a in state.legal_actions(1) if a.startswith("open")] == [
        "open QS QH QD | KS KH KD | 4H 5H 6H | 7C 8C 9C"]


def test_melds_refused_with_reasons():
    state = new(["", "7H 7H 7S KS AS 2S QD KD AD 5D 6D 8D JK"], stock="2C")
    first_discard(state)
    state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="a set needs cards of different suits"):
        state.apply(1, "open 7H 7H 7S | QD KD AD | KS JK AS")
    with pytest.raises(IllegalAction, match="never both"):
        state.apply(1, "open KS AS 2S | QD KD AD")
    with pytest.raises(IllegalAction, match="follow each other"):
        state.apply(1, "open 5D 6D 8D | QD KD AD")
    with pytest.raises(IllegalAction, match="at least 3 cards"):
        state.apply(1, "open 7H 7S | QD KD AD")
    with pytest.raises(IllegalAction, match=r"^You do not have 7C\.$"):
        state.apply(1, "open 7H 7S 7C | QD KD AD")
    with pytest.raises(IllegalAction, match="only one 5D"):
        state.apply(1, "open 5D 6D JK=7D | 5D 6D JK=7D")
    with pytest.raises(IllegalAction, match="Say what the joker stands for: JK=7D or JK=7C"):
        state.apply(1, "open 7H 7S JK | QD KD AD")
    with pytest.raises(IllegalAction, match="not a card"):
        state.apply(1, "open 7H 7S ZZ | QD KD AD")
    # a bare joker that can stand for one card only is named by the engine
    state.apply(1, "open 5D 6D JK 8D | QD KD AD")
    assert state.record()["actions"][-1] == [1, "open 5D 6D JK=7D 8D | QD KD AD"]
    assert state.melds[0]["cards"] == ["5D", "6D", "JK=7D", "8D"]


def test_ace_low_or_high_in_play():
    state = new(["", "AS 2S 3S AH AD AC QD KD AD 9C"], stock="4S")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open AS 2S 3S | QD KD AD | AH AD AC")  # 6 + 30 + 30
    assert state.melds[0]["cards"] == ["AS", "2S", "3S"]
    state.apply(1, "layoff 4S 1")
    assert state.melds[0]["cards"] == ["AS", "2S", "3S", "4S"]


def test_keep_a_card_to_discard():
    state = new(["", "KH KS KD QH QS QD JH JS JD TH TS TD 9H 9S"], stock="9D")
    first_discard(state)
    state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="Keep a card to discard"):
        state.apply(1, "open KH KS KD | QH QS QD | JH JS JD | TH TS TD | 9H 9S 9D")
    listed = [a for a in state.legal_actions(1) if a.startswith("open")]
    assert len(listed) == 1 and len(listed[0].replace("|", " ").split()) - 1 == 14
    state.apply(1, "open KH KS KD | QH QS QD | JH JS JD | TH TS TD")
    with pytest.raises(IllegalAction, match="Keep a card to discard"):
        state.apply(1, "meld 9H 9S 9D")


# --------------------------------------------------------------------------------------------
# take


def test_take_before_opening_needs_an_opening_with_that_card():
    state = new(["7C", "7S 7H KH KS KD QH QS QD"], stock="2D")
    first_discard(state, "7C")
    assert state.legal_actions(1) == ["draw", "take"]
    assert state.apply(1, "take") == [Event(1, "take", ("7C",))]
    assert state.view(1)["obligation"] == {"must_open_with": "7C"}
    assert state.view(0)["obligation"] is None
    with pytest.raises(IllegalAction, match=r"^You took 7C: open with it before you discard\.$"):
        state.apply(1, "discard 7S")
    assert not any(a.startswith("discard") for a in state.legal_actions(1))
    with pytest.raises(IllegalAction, match="must use 7C, the card you took"):
        state.apply(1, "open KH KS KD | QH QS QD")
    listed = [a for a in state.legal_actions(1) if a.startswith("open")]
    assert len(listed) == 1 and "7C" in listed[0]
    state.apply(1, "open 7S 7H 7C | KH KS KD")
    assert state.view(1)["obligation"] is None
    state.apply(1, "discard QD")
    # after opening, take freely
    state.apply(0, "draw")
    state.apply(0, "discard 2D")
    assert "take" in state.legal_actions(1)
    state.apply(1, "take")
    assert state.view(1)["obligation"] is None
    state.apply(1, "discard 2D")  # the card taken may go straight back after opening


def test_take_refused_without_an_opening_using_it():
    state = new(["7C", "7S KH KS KD QH QS"], stock="2D")
    first_discard(state, "7C")
    assert state.legal_actions(1) == ["draw"]
    with pytest.raises(IllegalAction, match=r"only to open with it this turn, and no opening worth 51 uses it"):
        state.apply(1, "take")
    assert state.top_discard == "7C" and state.step == "draw"


def test_take_must_leave_a_card_to_discard():
    # 14 cards + 7C meld completely: the opening would leave nothing to discard
    state = new(["7C", "7S 7H KH KS KD QH QS QD JH JS JD TH TS TD"], stock="2D")
    first_discard(state, "7C")
    assert "take" in state.legal_actions(1)  # leaving out TH TS TD still gives 21 + 90
    state = new(["7C", "7S 7H KH KS KD QH QS QD JH JS JD TH TS TD"], stock="2D", open_min=140)
    first_discard(state, "7C")
    assert state.legal_actions(1) == ["draw"]


# --------------------------------------------------------------------------------------------
# lay-offs


def layoff_state():
    """Seat 1 has opened with 5H 6H 7H | KS KH KD | 2C 3C 4C and holds 8H 4H KC 9C JK 2D."""
    state = new(["", "5H 6H 7H KS KH KD 2C 3C 4C 8H 4H KC 9C JK"], stock="2D 3D")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open 5H 6H 7H | KS KH KD | 2C 3C 4C")
    return state


def test_layoff_accepted_and_refused():
    state = layoff_state()
    legal = state.legal_actions(1)
    for action in ("layoff 8H 1", "layoff 4H 1", "layoff KC 2", "layoff JK=4H 1", "layoff JK=8H 1",
                   "layoff JK=KC 2", "layoff JK=AC 3", "layoff JK=5C 3"):
        assert action in legal, action
    assert "layoff 9C 1" not in legal
    with pytest.raises(IllegalAction, match=r"9C does not fit meld 1 \(5H 6H 7H\)"):
        state.apply(1, "layoff 9C 1")
    with pytest.raises(IllegalAction, match="no meld 4"):
        state.apply(1, "layoff 9C 4")
    with pytest.raises(IllegalAction, match="Say what the joker stands for: JK=4H or JK=8H"):
        state.apply(1, "layoff JK 1")
    assert state.apply(1, "layoff 8H 1") == [Event(1, "layoff", ("8H",), "1")]
    assert state.melds[0]["cards"] == ["5H", "6H", "7H", "8H"]
    state.apply(1, "layoff JK 2")  # a set of three takes one more suit: KC
    assert state.record()["actions"][-1] == [1, "layoff JK=KC 2"]
    assert state.melds[1]["cards"] == ["KS", "KH", "KD", "JK=KC"]
    with pytest.raises(IllegalAction, match="does not fit meld 2"):
        state.apply(1, "layoff KC 2")  # the set is full


def test_joker_fitting_both_ends_of_a_long_run():
    state = new(["", "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS JK"], stock="5D")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    layoffs = [a for a in state.legal_actions(1) if a.startswith("layoff")]
    assert layoffs == ["layoff JK=AS 1"]
    state.apply(1, "layoff JK 1")
    assert state.melds[0]["cards"][:2] == ["JK=AS", "2S"] and len(state.melds[0]["cards"]) == 13
    assert not any(a.startswith("layoff") for a in state.legal_actions(1))


def test_layoff_before_opening_refused_and_onto_other_players_melds():
    state = layoff_state()
    state.apply(1, "discard 9C")
    state.apply(0, "draw")
    with pytest.raises(IllegalAction, match="only after opening"):
        state.apply(0, f"layoff {state.hand(0)[0]} 1")
    assert not any(a.startswith(("layoff", "meld", "swap", "announce")) for a in state.legal_actions(0))


def test_ace_laid_off_high_or_low():
    state = new(["", "JS QS KS 2D 3D 4D AH AC AD AS AD 9C"], stock="5H")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open JS QS KS | 2D 3D 4D | AH AC AD")
    state.apply(1, "layoff AS 1")
    assert state.melds[0]["cards"] == ["JS", "QS", "KS", "AS"]
    state.apply(1, "layoff AD 2")
    assert state.melds[1]["cards"] == ["AD", "2D", "3D", "4D"]


# --------------------------------------------------------------------------------------------
# swaps and jokers


def test_swap_before_opening_refused_without_an_opening_with_the_joker():
    state = new(["5H 7H 8H KS KH KD JK QC", "6H 9S 2C"], stock="2D 3D 4D")
    first_discard(state, "QC")
    dump(state)
    state.apply(0, "draw")
    state.apply(0, "open 5H JK=6H 7H 8H | KS KH KD")
    state.apply(0, f"discard {state.hand(0)[0]}")
    state.apply(1, "draw")
    assert not any(a.startswith("swap") for a in state.legal_actions(1))
    with pytest.raises(IllegalAction, match="swap a joker only to open with it this turn"):
        state.apply(1, "swap 6H 1")
    with pytest.raises(IllegalAction, match="no joker standing for 5H"):
        state.apply(1, "swap 5H 1")


def test_swap_before_opening_with_the_joker_then_open():
    state = new(["5H 7H 8H KS KH KD JK QC", "6H QS QH 9D TD JD AS AH AD"], stock="2D 3D 4D")
    first_discard(state, "QC")
    dump(state)
    state.apply(0, "draw")
    state.apply(0, "open 5H JK=6H 7H 8H | KS KH KD")
    state.apply(0, f"discard {state.hand(0)[0]}")
    state.apply(1, "draw")
    assert "swap 6H 1" in state.legal_actions(1)
    assert state.apply(1, "swap 6H 1") == [Event(1, "swap", ("6H",), "1")]
    assert state.melds[0]["cards"] == ["5H", "6H", "7H", "8H"]
    assert state.hands[1]["JK"] == 1 and state.hands[1]["6H"] == 0
    assert state.view(1)["obligation"] == {"must_open_with": "JK"}
    with pytest.raises(IllegalAction, match="swapped a joker before opening: open with it"):
        state.apply(1, "discard 9D")
    with pytest.raises(IllegalAction, match="must use the joker you swapped"):
        state.apply(1, "open AS AH AD | 9D TD JD")
    state.apply(1, "open AS AH AD | QS QH JK=QC")
    assert state.announced == [0, 0] and state.view(1)["obligation"] is None
    state.apply(1, "discard 9D")


def test_swap_after_opening_counts_as_announced_and_announce():
    state = new(["5H 7H 8H KS KH KD JK QC", "6H 6S 6D 6C 9D TD JD QS QH QD 6H"], stock="2D 3D 4D")
    first_discard(state, "QC")
    state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="after opening"):
        state.apply(1, "announce")
    state.apply(1, "open 6S 6H 6D 6C | 9D TD JD | QS QH QD")
    state.apply(1, f"discard {state.hand(1)[0]}")
    state.apply(0, "draw")
    with pytest.raises(IllegalAction, match="Announce your jokers after opening"):
        state.apply(0, "announce")
    state.apply(0, "open 5H JK=6H 7H 8H | KS KH KD")
    assert [m["no"] for m in state.melds] == [1, 2, 3, 4, 5] and state.melds[3]["owner"] == 0
    with pytest.raises(IllegalAction, match="no joker to announce"):
        state.apply(0, "announce")
    state.apply(0, f"discard {state.hand(0)[0]}")
    state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="Meld 3 has no joker standing for 6H"):
        state.apply(1, "swap 6H 3")
    with pytest.raises(IllegalAction, match="Swap the joker with the card it stands for"):
        state.apply(1, "swap JK 4")
    assert "swap 6H 4" in state.legal_actions(1) and "announce" not in state.legal_actions(1)
    assert state.apply(1, "swap 6H 4") == [Event(1, "swap", ("6H",), "4")]
    assert state.melds[3]["cards"] == ["5H", "6H", "7H", "8H"]
    assert state.announced == [0, 1] and state.view(None)["announced"] == [0, 1]
    assert "announce" not in state.legal_actions(1)
    with pytest.raises(IllegalAction, match="already announced"):
        state.apply(1, "announce")


def test_announce_a_joker_in_hand():
    state = new(["", "6S 6H 6D 6C 9D TD JD QS QH QD JK"], stock="2D")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open 6S 6H 6D 6C | 9D TD JD | QS QH QD")
    assert "announce" in state.legal_actions(1)
    assert state.apply(1, "announce") == [Event(1, "announce")]
    assert state.announced == [0, 1] and "announce" not in state.legal_actions(1)
    assert state.view(1)["penalty_now"] == hand_penalty(state.hand(1), opened=True, announced_jokers=1)
    # laying the joker off: announced follows the jokers held
    state.apply(1, "layoff JK=8D 2")
    assert state.announced == [0, 0]


# --------------------------------------------------------------------------------------------
# a full round: scoring; rounds; the pot


def scoring_state():
    """4 players: seat 0 never opens, seat 1 opens and announces his joker, seat 2 opens and
    keeps his joker unannounced, seat 3 goes out in his first turn."""
    hands = ["",
             "5H 6H 7H AS AH AD 2C 3C 4C JK 9D JC KC 2S",
             "6S 6D 6C 7S 7D 7C 8S 8D 8C JK 2H TC QD 4D",
             "KH KS KD QH QS QD JH JS JD TH TS TD 8H 9H"]
    state = new(hands, stock="2D 3D 4S")
    first_discard(state)
    state.apply(1, "draw")
    state.apply(1, "open 5H 6H 7H | AS AH AD | 2C 3C 4C")
    state.apply(1, "announce")
    state.apply(1, "discard 2D")
    state.apply(2, "draw")
    state.apply(2, "open 6S 6D 6C | 7S 7D 7C | 8S 8D 8C")
    state.apply(2, "discard 3D")
    state.apply(3, "draw")
    state.apply(3, "open KH KS KD | QH QS QD | JH JS JD | TH TS TD")
    state.apply(3, "layoff 8H 1")
    state.apply(3, "layoff 9H 1")
    return state


def test_scoring_of_a_full_round_and_a_one_round_set():
    state = scoring_state()
    events = state.apply(3, "discard 4S")
    assert [e.kind for e in events] == ["discard", "round_end", "end"]
    result = state.round_results[0]
    assert result["winner"] == 3
    assert result["points"] == [100, 9 + 10 + 10 + 2 + 2, 2 + 10 + 10 + 4 + 25, -25]
    assert state.totals == result["totals"] == [100, 33, 51, -25]
    assert result["hands"][1] == {"cards": ["2S", "9D", "JC", "KC", "JK"], "penalty": 33, "opened": True,
                                  "announced": 1}
    assert result["hands"][2]["announced"] == 0 and result["hands"][2]["penalty"] == 51
    assert result["hands"][0]["opened"] is False and result["hands"][0]["penalty"] == 100
    assert result["hands"][3] == {"cards": [], "penalty": 0, "opened": True, "announced": 0}
    assert result["phrases"][0] == {"key": "concan.round_won", "seats": {"winner": 3}, "values": {"round": 1}}
    assert events[1].phrases[0] == Phrase("concan.round_won", {"winner": 3}, {"round": 1})
    assert state.is_over and state.phase == "over" and state.to_act == ()
    out = state.outcome()
    out.check_balanced()
    assert out.winner == 3 and out.winners == [3]
    assert [r.payout for r in out.results] == [-1, -1, -1, 3]
    assert [r.rank for r in out.results] == [4, 2, 3, 1]
    assert [r.points for r in out.results] == [100, 33, 51, -25]
    assert out.chips(5) == [-5, -5, -5, 15]
    assert out.summary[0] == Phrase("concan.set_won", {"winner": 3}, {"total": -25})
    view = state.view(None)
    assert view["outcome"]["winner"] == 3 and view["outcome"]["totals"] == [100, 33, 51, -25]
    for phrase in list(out.summary) + [Phrase.from_dict(p) for p in result["phrases"]]:
        assert phrase.key in PHRASES
        english_form(PHRASES[phrase.key], phrase.values).format_map(
            {**phrase.values, **{k: "Name" for k in phrase.seats}})
    assert GAME.replay(state.record()).view(None) == view


def go_out_hand() -> str:
    """14 cards that go out with 6C drawn: three sets and 2C–6C, plus one card to discard."""
    return "KH KS KD QH QS QD JH JS JD 2C 3C 4C 5C 9S"


def go_out(state, seat: int) -> list[Event]:
    state.apply(seat, "draw")
    state.apply(seat, "open KH KS KD | QH QS QD | JH JS JD | 2C 3C 4C 5C 6C")
    return state.apply(seat, "discard 9S")


def test_previous_winner_starts_the_next_round_and_shared_pot():
    packs = [build_pack(["", go_out_hand(), ""], stock="6C"),
             build_pack([go_out_hand(), "", ""], stock="2D 6C", first=1)]
    state = GAME.new(3, decks=packs, seed=9, options={"rounds": 2})
    first_discard(state)
    events = go_out(state, 1)
    assert [e.kind for e in events] == ["discard", "round_end", "round_start"]
    assert events[-1] == Event(None, "round_start", text="2")
    assert state.round_results[0]["points"] == [100, -25, 100]
    # round 2: seat 1 starts with 15 cards and a discard-only turn; packs dealt from him
    assert state.round == 2 and state.first == 1 and state.current == 1 and state.step == "first_discard"
    assert state.hand_sizes == [14, 15, 14]
    assert Counter(state.hands[1]) == Counter(packs[1][:15])
    assert Counter(state.hands[2]) == Counter(packs[1][15:29])
    assert Counter(state.hands[0]) == Counter(packs[1][29:43])
    assert state.opened == [False, False, False] and state.melds == [] and state.discards == 0
    mid = state.record()
    assert mid["decks"] == packs and len(mid["actions"]) == 4
    assert GAME.replay(mid).view(1) == state.view(1)  # replay between rounds
    first_discard(state)
    dump(state)  # seat 2
    go_out(state, 0)
    assert state.is_over
    assert state.totals == [75, 75, 200]
    out = state.outcome()
    out.check_balanced()
    assert out.winners == [0, 1] and out.winner == 0
    assert [r.payout for r in out.results] == [1, 0, -1]  # 3 units shared, the odd one to seat 0
    assert out.chips(5) == [3, 2, -5]
    assert [r.rank for r in out.results] == [1, 1, 3]
    assert [p.key for p in out.summary[:2]] == ["concan.set_shared", "concan.set_shared"]
    assert out.summary[0].seats == {"winner": 0} and out.summary[1].seats == {"winner": 1}
    assert GAME.replay(state.record()).view(0) == state.view(0)


def test_reshuffle_when_the_stock_runs_out():
    state = GAME.new(6, seed=4242, options={"rounds": 1})
    first_discard(state)
    assert state.stock == 21
    for _ in range(20):
        dump(state)
    seat = state.current
    pile = list(state.pile)
    events = state.apply(seat, "draw")
    assert events == [Event(seat, "draw"), Event(None, "reshuffle")]
    expected = pile[:-1]
    reshuffle_rng(4242, 1, 1).shuffle(expected)
    assert state.stock_cards == expected and state.pile == pile[-1:]
    assert state.step == "play" and state.current == seat
    replayed = GAME.replay(state.record())
    assert replayed.stock_cards == state.stock_cards and replayed.view(seat) == state.view(seat)


def test_round_without_winner_when_no_reshuffle_is_possible():
    """From a real deal the pile always holds 2+ cards when the stock runs out (see the module
    docstring), so this state is set up by hand: one stock card, one discard."""
    state = new(["", "6S 6H 6D 6C 9D TD JD QS QH QD 2C"], stock="KC 5S", rounds=2)
    first_discard(state)
    state.stock_cards = state.stock_cards[:1]
    assert state.discards == 1
    events = state.apply(1, "draw")
    assert events == [Event(1, "draw")] and state.stock == 0
    state.apply(1, "open 6S 6H 6D 6C | 9D TD JD | QS QH QD")
    events = state.apply(1, "discard 2C")
    assert [e.kind for e in events] == ["discard", "round_end", "round_start"]
    result = state.round_results[0]
    assert result["winner"] is None
    assert result["phrases"][0] == {"key": "concan.round_void", "seats": {}, "values": {"round": 1}}
    left = state.round_results[0]["hands"][1]["cards"]
    assert result["points"] == [100, hand_penalty(left, opened=True)] and -25 not in result["points"]
    assert state.round == 2 and state.first == 1  # the seat after the previous starter


def stuck_state(hands: list[str], *, stock: int, current: int = 1):
    """Two opened seats in a round nobody can go out of (concan.md, Play 7; 3 of 12,000 AI
    rounds once ran for ever this way): the table holds only full sets (four suits), both
    packs' A to 9, so no card or joker fits a meld and there is no joker to swap; the hands
    hold one or two cards (with at most three cards in play no meld can be laid keeping one
    for the discard). The free tens to kings not in a hand are ``stock`` cards of stock and the
    rest the discard pile. Set up by hand, as a real round reaches it after many turns."""
    state = GAME.new(2, seed=77, options={"rounds": 1})
    sets = [f"{rank}S {rank}H {rank}D {rank}C".split() for rank in "A23456789" for _ in range(2)]
    state.table = [TableMeld(no, no % 2, resolve_meld(cards)) for no, cards in enumerate(sets, 1)]
    state.hands = [Counter(parse_cards(h, joker=True)) for h in hands]
    free = Counter([c for c in FULL_DECK if c[0] in "TJQK"] * 2 + ["JK", "JK"])
    free -= state.hands[0] + state.hands[1]
    rest = sorted(free.elements())
    random.Random(5).shuffle(rest)
    state.stock_cards, state.pile = rest[:stock], rest[stock:]
    state.opened_flags = [True, True]
    state.current, state.step = current, "draw"
    assert sum(len(m.spec.tokens) for m in state.table) + len(rest) + sum(state.hand_sizes) == len(PACK)
    return state


def play_ai(state, limit: int) -> list[Event]:
    """The AI plays every seat until the round ends (failing after ``limit`` actions)."""
    for _ in range(limit):
        events = state.apply(state.current, choose(state.view(state.current)))
        if any(e.kind == "round_end" for e in events):
            return events
    raise AssertionError(f"the round is still going after {limit} actions")


def test_a_round_nobody_can_go_out_of_ends_when_the_stock_runs_out_a_third_time():
    """The AI holding both jokers never discards one while it holds another card; the other
    seat holds one card: every turn draws one card and discards one. Before Play 7's limit the
    discards were reshuffled for ever."""
    state = stuck_state(["JK JK", "KH"], stock=10)
    pile = state.discards
    events = play_ai(state, 2000)
    assert state.reshuffles == MAX_RESHUFFLES == 2
    # 10 draws; each reshuffle then makes a stock of the pile and 9 discards but the top one
    # (the turn of the draw that emptied the stock discards onto the new pile)
    draws = 10 + 2 * (pile + 9 - 1)
    assert state.round_results[0]["winner"] is None and state.is_over
    assert events[-2].phrases[0] == Phrase("concan.round_void_stock", {}, {"round": 1})
    result = state.round_results[0]
    assert result["phrases"][0] == {"key": "concan.round_void_stock", "seats": {}, "values": {"round": 1}}
    assert [h["announced"] for h in result["hands"]] == [2, 0]  # the AI announced its jokers
    assert result["points"] == [2 + 2, hand_penalty(result["hands"][1]["cards"], opened=True)]
    assert -25 not in result["points"] and state.totals == result["points"]
    assert len([a for a in state.actions if a[1] == "draw"]) == draws
    out = state.outcome()
    out.check_balanced()
    assert out.winners == [0] and out.chips(5) == [5, -5]  # the lower total takes the pot


def test_a_dealt_round_the_ai_played_for_ever_now_ends():
    """A real two-seat deal (1 of 12,000 AI rounds of benchmarks/concan_games.py): the table
    ends with six full sets, each AI holds a 2 and a joker it never discards while it holds
    another card. The stock ran out and was reshuffled for ever; now the third empty stock
    ends the round after 232 turns. Equal totals share the pot."""
    state = GAME.new(2, seed=20760, options={"rounds": 1})
    events = play_ai(state, 2000)
    assert events[-2].phrases[0] == Phrase("concan.round_void_stock", {}, {"round": 1})
    assert state.turns == 232 and state.reshuffles == 2
    assert all(len(m["cards"]) == 4 and m["kind"] == "set" for m in state.melds)
    result = state.round_results[0]
    assert [sorted(h["cards"]) for h in result["hands"]] == [["2S", "JK"], ["2H", "JK"]]
    assert result["points"] == [4, 4] and result["winner"] is None
    out = state.outcome()
    out.check_balanced()
    assert out.winners == [0, 1] and out.chips(5) == [0, 0]
    assert GAME.replay(state.record()).round_results == state.round_results


def test_a_round_of_takes_and_discards_ends_after_300_turns():
    """Opened players who only take the discard and throw it back never empty the stock: the
    round ends after its 300th turn; the next round is started by the seat after the starter."""
    state = stuck_state(["QH JC", "KH"], stock=20)
    state.rounds = 2
    state.turns = 1  # the starter's first discard
    for turn in range(2, MAX_TURNS + 1):
        seat = state.current
        assert state.round == 1 and "take" in state.legal_actions(seat)
        card = state.apply(seat, "take")[0].cards[0]
        events = state.apply(seat, f"discard {card}")
        assert state.turns == turn or state.round == 2
    assert [e.kind for e in events] == ["discard", "round_end", "round_start"]
    assert events[1].phrases[0] == Phrase("concan.round_void_turns", {}, {"round": 1, "turns": 300})
    assert state.round_results[0]["winner"] is None and state.stock_cards != []
    assert state.round == 2 and state.first == 1 and state.turns == 0 and state.reshuffles == 0
    text = english_form(PHRASES["concan.round_void_turns"], {"turns": 300}).format(round=1, turns=300)
    assert text == "Round 1 ends without a winner: nobody went out in 300 turns."


def test_going_out_on_the_last_turn_still_wins():
    state = stuck_state(["QH JC", "KH"], stock=20)
    kings = "KS KD KC".split()
    state.table.append(TableMeld(19, 0, resolve_meld(kings)))
    for card in kings:
        (state.pile if card in state.pile else state.stock_cards).remove(card)
    state.turns = MAX_TURNS - 1
    state.apply(1, "draw")
    state.apply(1, "layoff KH 19")
    events = state.apply(1, f"discard {state.hand(1)[0]}")
    assert events[1].phrases[0] == Phrase("concan.round_won", {"winner": 1}, {"round": 1})


# --------------------------------------------------------------------------------------------
# views


PUBLIC_KEYS = {"round", "rounds", "totals", "round_results", "in_match", "phase", "first", "current", "to_act",
               "step", "stock", "top_discard", "discards", "hand_sizes", "opened", "announced", "melds", "options",
               "legal", "obligation", "outcome"}
PRIVATE_KEYS = {"hand", "best_opening", "penalty_now", "groups"}


def test_views_public_and_private():
    state = opening_state()
    for seat in (None, 0, 1):
        view = state.view(seat)
        assert PUBLIC_KEYS | PRIVATE_KEYS <= set(view)
    own = state.view(1)
    assert own["hand"] == state.hand(1) and own["best_opening"] == best_opening(state.hand(1))
    assert own["penalty_now"] == 100 and own["groups"]["value"] == own["best_opening"]
    assert own["legal"] == state.legal_actions(1)
    other = state.view(0)
    assert other["legal"] == [] and other["obligation"] is None
    assert other["hand"] == state.hand(0) and other["best_opening"] == best_opening(state.hand(0))
    spectator = state.view(None)
    assert spectator["hand"] == [] and spectator["legal"] == [] and spectator["obligation"] is None
    assert spectator["best_opening"] is None and spectator["penalty_now"] is None and spectator["groups"] is None
    for view in (other, spectator):
        assert "KH KS KD" not in repr(view)
    assert own["hand_sizes"] == [14, 15] and own["stock"] == 106 - 29 - 1
    assert own["in_match"] == [True, True] and own["first"] == 0 and own["step"] == "play"
    assert own["round"] == 1 and own["rounds"] == 1 and own["totals"] == [0, 0] and own["round_results"] == []
    assert state.round == 1 and state.totals == [0, 0] and state.in_match == [True, True]


def test_view_of_a_finished_set_and_random_seeded_play_reproducible():
    rng = random.Random(3)
    a = GAME.new(3, seed=12, options={"rounds": 1})
    b = GAME.new(3, seed=12, options={"rounds": 1})
    assert a.record() == b.record()
    for _ in range(30):
        seat = a.current
        action = rng.choice(a.legal_actions(seat))
        a.apply(seat, action)
        b.apply(seat, action)
    assert a.view(0) == b.view(0)


def test_an_opening_no_hand_can_reach_is_refused():
    """15 cards, one kept to discard: at most 14 cards of 10 points can open (a lobby at 150
    would wait forever)."""
    GAME.new(2, seed=1, options={"open_min": 140})
    with pytest.raises(ValueError, match="0–140"):
        GAME.new(2, seed=1, options={"open_min": 141})


@pytest.mark.parametrize("name", ["concan.md", "concan.vi.md", "concan.es.md"])
def test_the_rules_the_bot_shows_tell_the_limits_of_a_round(name):
    from importlib import resources
    text = resources.files("bot").joinpath("rules", name).read_text(encoding="utf-8")
    assert f"{MAX_TURNS} " in text and "−25" in text  # 300 turns; nobody gets −25


def test_records_made_before_the_limits_replay_the_same():
    """Records of sets played by the engine before concan.md's Play 7 (unlimited reshuffles)
    replay to the same rounds and totals: under the limits the rules did not change. (Each
    holds a round with a reshuffle.)"""
    path = Path(__file__).with_name("concan_records_v1.json")
    for case in json.loads(path.read_text(encoding="utf-8")):
        state = GAME.replay(case["record"])
        assert state.is_over and state.record() == case["record"]
        assert state.totals == case["totals"]
        assert [[r["winner"], r["points"]] for r in state.round_results] == case["rounds"]
        assert case["reshuffles"] >= 1
