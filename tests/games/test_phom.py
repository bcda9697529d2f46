"""Phỏm engine: worked examples and rules of docs/rules/phom.md, from fixed decks."""

from __future__ import annotations

import pytest

from bot.games import french
from bot.games.base import Event, IllegalAction, Phrase
from bot.games.french import FULL_DECK, parse_cards
from bot.games.phom.game import GAME, PHRASES, arrange, best_points, is_phom, is_u

# --------------------------------------------------------------------------------------------
# helpers


def build_deck(hands: list[str], stock: str = "", players: int | None = None) -> list[str]:
    """A full deck dealing ``hands`` (seat 0 first; short hands are filled with cards that
    make no phỏm and no near-phỏm with the rest of that hand), then ``stock`` on top of the
    stock, then every other card in canonical order."""
    n = players or len(hands)
    given = [parse_cards(h) for h in hands] + [[] for _ in range(n - len(hands))]
    top = parse_cards(stock)
    used = [c for h in given for c in h] + top
    assert len(used) == len(set(used)), "a card is used twice"
    pool = [c for c in FULL_DECK if c not in set(used)]

    def isolated(card: str, hand: list[str]) -> bool:
        for other in hand:
            if other[0] == card[0]:
                return False
            if other[1] == card[1] and abs(french.rank(other) - french.rank(card)) <= 2:
                return False
        return True

    for seat, hand in enumerate(given):
        size = 10 if seat == 0 else 9
        assert len(hand) <= size
        while len(hand) < size:
            pick = next((c for c in pool if isolated(c, hand)), pool[0])
            pool.remove(pick)
            hand.append(pick)
    deck = [c for h in given for c in h] + top + pool
    assert sorted(deck) == sorted(FULL_DECK)
    return deck


def new(hands: list[str], stock: str = "", players: int | None = None):
    return GAME.new(players or len(hands), deck=build_deck(hands, stock, players))


def draw_and_dump(state) -> str:
    """Current seat draws and (after an empty show in the last round) discards the drawn card."""
    seat = state.current
    state.apply(seat, "draw")
    card = state.view(seat)["drawn"]
    if state.phase == "show":
        state.apply(seat, "show")
    if not state.is_over:
        state.apply(seat, f"discard {card}")
    return card


def play_until_draws(state, draws: int) -> None:
    """Draw-and-dump turns until ``draws`` draws happened (stops at a draw phase)."""
    while state.draws < draws:
        assert state.phase == "draw"
        draw_and_dump(state)


def payouts(state) -> list[int]:
    return [r.payout for r in state.outcome().results]


def reasons(state) -> list[tuple[int, int, int, str]]:
    return [(t.payer, t.payee, t.units, t.reason) for t in state.outcome().transfers]


# --------------------------------------------------------------------------------------------
# cards


def test_french_helpers():
    assert len(FULL_DECK) == 52 and len(set(FULL_DECK)) == 52
    assert french.parse_card("10h") == "TH"
    assert french.parse_card(" ks ") == "KS"
    assert parse_cards("as 10D  jc") == ["AS", "TD", "JC"]
    assert [french.rank(c) for c in ("AS", "TD", "JC", "QH", "KS")] == [1, 10, 11, 12, 13]
    assert french.suit("TD") == "D"
    assert french.sort_cards(["KS", "AH", "AS", "TD"]) == ["AS", "AH", "TD", "KS"]
    for bad in ("1S", "ZZ", "KX", "", "10"):
        with pytest.raises(ValueError):
            french.parse_card(bad)


# --------------------------------------------------------------------------------------------
# evaluation API: the worked examples of phom.md


def test_worked_examples():
    assert best_points("3H 4H 5H 7C 7D 7S 2S KD AC").points == 16
    p = best_points("5H 6H 7H 8H 7C 7D KS 2C AD")
    assert (p.points, p.mom) == (30, False)
    p = best_points("AS 3D 5C 7H 9S JD KC 2H 4S")
    assert (p.points, p.mom) == (55, True)
    assert is_u("AS 2S 3S 5H 5D 5C 9D TD JD")


def test_arrange_is_canonical():
    arr = arrange("5H 6H 7H 8H 7C 7D KS 2C AD")
    assert arr.melds == [["5H", "6H", "7H", "8H"]]
    assert arr.leftover == ["AD", "2C", "7D", "7C", "KS"]
    assert (arr.points, arr.mom) == (30, False)
    arr = arrange(["7s", "3h", "5H", "4H", "7D", "7C", "2S", "KD", "AC"])
    assert arr.melds == [["3H", "4H", "5H"], ["7S", "7D", "7C"]]
    assert arr.leftover == ["AC", "2S", "KD"]


def test_is_phom():
    assert is_phom("AS 2S 3S")
    assert not is_phom("QS KS AS")
    assert not is_phom("KS AS 2S")
    assert is_phom("5H 5D 5C 5S")
    assert is_phom("9d td jd qd")
    assert not is_phom("5H 5D")
    assert not is_phom("5H 6H 8H")
    assert not is_phom("5H 6D 7H")


def test_eaten_rule_in_evaluation():
    # 7H eaten: it must sit in a phỏm, so the sevens win over the run
    arr = arrange("5H 6H 7H 8H 7C 7D KS 2C AD", eaten="7H")
    assert ["5H", "6H", "7H", "8H"] in arr.melds
    arr = arrange("5H 6H 7H 8H 7C 7D KS 2C AD", eaten="7C")
    assert arr.melds == [["7H", "7D", "7C"]] and arr.points == 35
    # no phỏm may hold two eaten cards
    assert not is_u("AS 2S 3S 5H 5D 5C 9D TD JD", eaten="AS 2S")
    assert is_u("AS 2S 3S 5H 5D 5C 9D TD JD", eaten="AS 5H 9D")
    with pytest.raises(ValueError):
        best_points("5H 6H 7H KS", eaten="5H 6H")
    # an eaten card outside the listed cards counts as held
    assert best_points("5H 6H", eaten="7H").points == 0


# --------------------------------------------------------------------------------------------
# deal and protocol basics


def test_deal_in_blocks_and_record():
    deck = list(FULL_DECK[1::2] + FULL_DECK[::2])  # (the canonical order deals seat 0 an ù)
    state = GAME.new(3, deck=deck)
    assert state.view(0)["hand"] == french.sort_cards(deck[:10])
    assert state.view(1)["hand"] == french.sort_cards(deck[10:19])
    assert state.view(2)["hand"] == french.sort_cards(deck[19:28])
    assert state.view(None)["stock"] == 24
    assert state.to_act == (0,) and state.phase == "discard"
    assert state.legal_actions(1) == []
    assert all(a.startswith("discard ") for a in state.legal_actions(0))
    rec = state.record()
    assert rec == {"game": "phom", "version": 1, "options": {"players": 3, "send": False}, "deck": deck, "actions": []}


def test_bad_decks_and_seeds():
    with pytest.raises(ValueError):
        GAME.new(2, deck=FULL_DECK[:51])
    with pytest.raises(ValueError):
        GAME.new(2, deck=list(FULL_DECK[:51]) + ["AS"])
    with pytest.raises(ValueError):
        GAME.new(2, deck=list(FULL_DECK[:51]) + ["ZZ"])
    with pytest.raises(ValueError):
        GAME.new(5)
    a, b = GAME.new(4, seed=7), GAME.new(4, seed=7)
    assert a.record()["deck"] == b.record()["deck"]
    assert GAME.new(2, seed=1, options={"stake": 5}).record()["options"] == {"players": 2, "send": False,
                                                                            "stake": 5}


def test_turn_errors_and_parsing():
    state = new(["KS 5D", "5H 6H"])
    with pytest.raises(IllegalAction, match="not your turn"):
        state.apply(1, "draw")
    with pytest.raises(IllegalAction, match="Unknown action"):
        state.apply(0, "fold")
    with pytest.raises(IllegalAction, match="not a card"):
        state.apply(0, "discard XX")
    with pytest.raises(IllegalAction, match="do not have 5H"):
        state.apply(0, "discard 5H")
    with pytest.raises(IllegalAction):
        state.apply(0, "draw")
    with pytest.raises(IllegalAction):
        state.apply(0, "discard KS 5D")
    before = state.record()
    events = state.apply(0, "  DISCARD   ks ")
    assert events == [Event(0, "discard", ("KS",))]
    assert state.record()["actions"] == [[0, "discard KS"]] and before["actions"] == []
    assert state.phase == "draw" and state.to_act == (1,)
    with pytest.raises(IllegalAction, match="Draw or eat first"):
        state.apply(1, "discard 5H")
    assert state.apply(1, "Draw") == [Event(1, "draw")]
    assert state.view(1)["drawn"] is not None and state.view(0)["drawn"] is None


# --------------------------------------------------------------------------------------------
# eating


def test_eat_legality_and_locking():
    state = new(["7H 5C KD 8S", "5H 6H 5D 9C"])
    state.apply(0, "discard 7H")
    legal = state.legal_actions(1)
    assert legal == ["draw", "eat 5H 6H"]
    assert state.view(1)["active"] == "7H" and state.view(None)["active"] == "7H"
    with pytest.raises(IllegalAction, match=r"7H does not make a phỏm with 5H 9C\."):
        state.apply(1, "eat 9C 5H")
    with pytest.raises(IllegalAction, match="at least two"):
        state.apply(1, "eat 6H")
    with pytest.raises(IllegalAction, match="do not have 8H"):
        state.apply(1, "eat 6H 8H")
    snapshot = state.view(1)
    events = state.apply(1, "eat 6h 5h")
    assert snapshot != state.view(1)
    assert events == [Event(1, "eat", ("7H",))]
    assert state.record()["actions"][-1] == [1, "eat 5H 6H"]
    view = state.view(1)
    assert view["eaten"] == [[], ["7H"]] and view["discards"] == [[], []]
    assert view["phase"] == "discard" and "7H" in view["hand"]
    assert view["locked"] == ["5H", "6H", "7H"]
    assert "discard 5H" not in view["legal"] and "discard 9C" in view["legal"]
    with pytest.raises(IllegalAction, match="5H is locked: you need it for the phỏm with eaten 7H."):
        state.apply(1, "discard 5H")
    with pytest.raises(IllegalAction, match="7H is eaten"):
        state.apply(1, "discard 7H")
    # other seats see the eaten card but not the cards it was eaten with
    assert state.view(0)["locked"] == [] and "5H" not in str(state.view(0))
    state.apply(1, "discard 9C")
    # seat 0 discards 5C: eating it with 5H 5D would strand the eaten 7H
    state.apply(0, "draw")
    state.apply(0, "discard 5C")
    assert state.legal_actions(1) == ["draw"]
    with pytest.raises(IllegalAction, match=r"That would leave eaten card 7H outside a phỏm\."):
        state.apply(1, "eat 5H 5D")
    with pytest.raises(IllegalAction, match="two eaten cards"):
        state.apply(1, "eat 5D 7H")
    assert state.record()["actions"][-1] == [0, "discard 5C"]
    state.apply(1, "draw")
    # the eat paid 1
    assert state.transfers[0].payer == 0 and state.transfers[0].units == 1


def test_eat_choices_are_complete_and_canonical():
    state = new(["7H", "4H 5H 6H 8H 9H 7D 7C"])
    state.apply(0, "discard 7H")
    assert state.legal_actions(1) == [
        "draw", "eat 5H 6H", "eat 6H 8H", "eat 7D 7C", "eat 8H 9H",
        "eat 4H 5H 6H", "eat 5H 6H 8H", "eat 6H 8H 9H",
        "eat 4H 5H 6H 8H", "eat 5H 6H 8H 9H", "eat 4H 5H 6H 8H 9H"]
    for action in state.legal_actions(1):
        assert state.legal_actions(1).count(action) == 1
    state.apply(1, "eat 9h 8h")
    # locking is by arrangement, not by the named cards: 7H can sit in 7H 7D 7C
    assert state.view(1)["locked"] == ["7H"]


def test_eat_with_unshown_eaten_cards_must_not_share_a_phom():
    state = new(["7H 8H", "5H 6H 9H TH"])
    state.apply(0, "discard 7H")
    state.apply(1, "eat 5H 6H")
    state.apply(1, "discard " + next(c for c in state.view(1)["hand"] if c not in "5H 6H 7H 9H TH"))
    state.apply(0, "draw")
    state.apply(0, "discard 8H")
    # 8H with 9H TH is fine (7H keeps 5H 6H); with 6H 7H it would hold two eaten cards
    assert "eat 9H TH" in state.legal_actions(1)
    assert "eat 6H 7H" not in state.legal_actions(1)
    state.apply(1, "eat 9H TH")
    assert state.view(1)["locked"] == ["5H", "6H", "7H", "8H", "9H", "TH"]


# --------------------------------------------------------------------------------------------
# ù


U9 = "AS 2S 3S 5H 5D 5C 9D TD JD"  # a 9-card ù (phom.md's worked example)


def assert_over_at_the_deal(state, winner: int) -> None:
    assert state.is_over and state.phase == "over" and state.to_act == ()
    assert all(state.legal_actions(s) == [] for s in range(state.num_players))
    assert state.record()["actions"] == []
    again = GAME.replay(state.record())
    for seat in (None, *range(state.num_players)):
        assert again.view(seat) == state.view(seat)
    view = state.view(None)
    assert view["current"] is None and view["outcome"]["winner"] == winner
    assert view["outcome"]["hands"][winner]["leftover"] == [] and view["outcome"]["hands"][winner]["points"] == 0
    out = state.outcome()
    out.check_balanced()
    assert out.winner == winner and out.results[winner].rank == 1
    with pytest.raises(IllegalAction, match="over"):
        state.apply(0, "discard " + state.view(0)["hand"][0])


def test_seat_0_dealt_ten_cards_in_phom_wins_at_once_as_u_before_discarding():
    state = new([U9 + " QD"], players=4)
    assert len(state.view(0)["hand"]) == 10
    assert_over_at_the_deal(state, 0)
    out = state.outcome()
    assert payouts(state) == [36, -12, -12, -12]
    assert reasons(state) == [(1, 0, 12, "ù"), (2, 0, 12, "ù"), (3, 0, 12, "ù")]
    assert out.results[0].notes == ["ù before discarding"]
    assert out.summary == (Phrase("phom.u_before_discard", {"winner": 0}, {"each": 12}),)
    assert state.view(0)["outcome"]["hands"][0]["melds"] == [
        ["AS", "2S", "3S"], ["5H", "5D", "5C"], ["9D", "TD", "JD", "QD"]]


def test_another_seat_dealt_nine_cards_in_phom_wins_at_once_as_u():
    state = new(["", "", U9], players=3)
    assert_over_at_the_deal(state, 2)
    out = state.outcome()
    assert payouts(state) == [-6, -6, 12]
    assert out.results[2].notes == ["ù"]
    assert out.summary == (Phrase("phom.u", {"winner": 2}, {"each": 6}),)
    assert sorted(r.rank for r in out.results) == [1, 2, 3]


def test_several_seats_dealt_u_seat_order_decides():
    state = new(["", "AH 2H 3H 6S 6D 6C TC JC QC", "", U9], players=4)
    assert_over_at_the_deal(state, 1)
    assert payouts(state) == [-6, 18, -6, -6]
    state = new(["AH 2H 3H 6S 6D 6C TC JC QC KC", "", U9], players=3)
    assert_over_at_the_deal(state, 0)
    assert payouts(state) == [24, -12, -12]
    assert state.outcome().summary == (Phrase("phom.u_before_discard", {"winner": 0}, {"each": 12}),)


def test_seat_0_dealt_a_nine_card_u_among_ten_discards_first():
    # Not all 10 cards in phỏm: no ù at the deal; discarding the odd card is an ù (single).
    state = new([U9 + " KC", ""])
    assert not state.is_over and state.to_act == (0,) and state.phase == "discard"
    events = state.apply(0, "discard KC")
    assert [e.kind for e in events] == ["discard", "u", "end"]
    assert payouts(state) == [6, -6]
    # ... unless another seat was dealt an ù: it wins before seat 0 plays
    state = new([U9 + " KC", "AH 2H 3H 6S 6H 6C TC JC QC"])
    assert_over_at_the_deal(state, 1)
    assert payouts(state) == [-6, 6]


def test_u_before_discarding_is_double():
    state = new(["KS", "AS 2S 3S 4S 5H 5D 5C 9D TD"], stock="JD", players=4)
    state.apply(0, "discard KS")
    events = state.apply(1, "draw")
    assert events[0] == Event(1, "draw")
    assert events[1] == Event(1, "u", (), "ù before discarding")
    assert events[2].kind == "end" and events[2].seat is None
    assert state.is_over and state.to_act == () and state.legal_actions(1) == []
    assert payouts(state) == [-12, 36, -12, -12]
    out = state.outcome()
    assert out.winner == 1 and out.results[1].rank == 1 and out.results[1].points == 0
    assert out.results[1].notes == ["ù before discarding"]
    assert out.summary == (Phrase("phom.u_before_discard", {"winner": 1}, {"each": 12}),)
    with pytest.raises(IllegalAction, match="over"):
        state.apply(2, "draw")


def test_u_after_discard():
    state = new(["KS", "AS 2S 3S 5H 5D 5C 9D TD KC"], stock="JD", players=3)
    state.apply(0, "discard KS")
    assert len(state.apply(1, "draw")) == 1 and not state.is_over
    events = state.apply(1, "discard KC")
    assert [e.kind for e in events] == ["discard", "u", "end"]
    assert events[1].text == "ù"
    assert payouts(state) == [-6, 12, -6]
    assert state.outcome().results[1].notes == ["ù"]
    view = state.view(None)
    assert view["phase"] == "over" and view["current"] is None
    assert view["outcome"]["hands"][1]["leftover"] == []


def test_u_by_eating_with_u_den():
    # seat 1 eats three of seat 0's discards, the third gives ù: seat 0 pays for everyone
    state = new(["7H 9D KD", "5H 6H 8H 9S 9C JD QD 2C 4D", ""])
    state.apply(0, "discard 7H")
    state.apply(1, "eat 5H 6H")
    state.apply(1, "discard 2C")
    draw_and_dump(state)  # seat 2
    state.apply(0, "draw")
    state.apply(0, "discard 9D")
    state.apply(1, "eat 9S 9C")
    state.apply(1, "discard 4D")
    draw_and_dump(state)  # seat 2
    state.apply(0, "draw")
    state.apply(0, "discard KD")
    events = state.apply(1, "eat JD QD")
    assert events[1] == Event(1, "u", (), "ù before discarding")
    assert reasons(state) == [(0, 1, 1, "eat"), (0, 1, 1, "eat"), (0, 1, 1, "eat"),
                              (0, 1, 24, "ù đền")]
    assert payouts(state) == [-27, 27, 0]
    assert state.outcome().results[0].notes == ["ù đền"]
    assert state.outcome().summary == (
        Phrase("phom.u_before_discard_den", {"winner": 1, "payer": 0}, {"reason": "ù đền"}),)
    state.outcome().check_phrases(PHRASES)


def test_last_round_u_penalty_and_an_chot():
    # 3 players: the last round starts after 8 draws. Seat 0 eats seat 2's discard there
    # (ăn chốt, 4), then seat 1 ù: seat 2, whose discard was eaten last, pays for everyone.
    stock = "2D 3D 4D 6D 7D 8D 2H JH JD"
    state = new(["QH KH", "AS 2S 3S 4S 5H 5D 5C 9D TD", ""], stock=stock)
    state.apply(0, "discard " + next(c for c in state.view(0)["hand"] if c not in ("QH", "KH")))
    play_until_draws(state, 8)
    assert state.current == 0 and state.view(0)["active"] == "JH" and state.view(0)["last_round"]
    events = state.apply(0, "eat QH KH")
    assert events == [Event(0, "eat", ("JH",), "ăn chốt")]
    assert state.phase == "show"
    with pytest.raises(IllegalAction, match="show your phỏm first"):
        state.apply(0, "discard QH")
    with pytest.raises(IllegalAction, match="Eaten card JH must be shown"):
        state.apply(0, "show")
    assert state.legal_actions(0) == ["show JH QH KH"]
    assert state.apply(0, "show kh qh jh") == [Event(0, "show", ("JH", "QH", "KH"))]
    state.apply(0, "discard " + state.view(0)["hand"][-1])
    events = state.apply(1, "draw")
    assert events[1].kind == "u"
    assert reasons(state) == [(2, 0, 4, "ăn chốt"), (2, 1, 24, "ù đền")]
    assert payouts(state) == [4, 24, -28]
    assert state.outcome().results[2].notes == ["ù đền (last round)"]
    # the summary's template says "last round" itself, so that it is translated with it
    assert state.outcome().summary == (Phrase("phom.u_before_discard_den_last_round", {"winner": 1, "payer": 2}),)
    state.outcome().check_phrases(PHRASES)


def test_last_round_u_without_eats_pays_normally():
    state = new(["", "AS 2S 3S 4S 5H 5D 5C 9D TD", ""], stock="2D 3D 4D 6D 7D 8D 2H QH 6H JD")
    state.apply(0, "discard " + state.view(0)["hand"][0])
    play_until_draws(state, 8)
    draw_and_dump(state)  # seat 0, last round
    state.apply(1, "draw")
    assert state.is_over and payouts(state) == [-12, 24, -12]


def test_last_round_u_when_the_winner_was_the_last_victim():
    # 3 players. Seat 0's last-round discard is eaten by seat 1 (ăn chốt); seat 0 then ù:
    # the last victim is the winner himself, so everyone pays him normally.
    stock = "2D 3D 4D 6D 7D 2C 3H 4C 8H QS JD"
    state = new(["AS 2S 3S 4S 5H 5D 5C 9D TD KC", "6H 7H", ""], stock=stock)
    state.apply(0, "discard KC")
    play_until_draws(state, 8)
    state.apply(0, "draw")
    with pytest.raises(IllegalAction, match="Show all your phỏm"):
        state.apply(0, "show")
    state.apply(0, "show AS 2S 3S 4S | 5H 5D 5C")
    state.apply(0, "discard 8H")
    assert state.apply(1, "eat 6H 7H")[0].text == "ăn chốt"
    state.apply(1, "show 6H 7H 8H")
    state.apply(1, "discard " + state.view(1)["hand"][0])
    draw_and_dump(state)  # seat 2
    events = state.apply(0, "draw")  # JD: the 9D TD he kept make a phỏm with it
    assert events[1] == Event(0, "u", (), "ù before discarding")
    assert reasons(state) == [(0, 1, 4, "ăn chốt"), (1, 0, 12, "ù"), (2, 0, 12, "ù")]
    assert payouts(state) == [20, -8, -12]


# --------------------------------------------------------------------------------------------
# last round and normal end


def test_last_round_show_and_normal_end_two_players():
    # 2 players: last round from 5 draws; the game ends after the discard following draw 7
    s0 = "3S 4S 5S 9H 9D 9C KD QC 2H AH"
    s1 = "AC 3C 5D 7S 8D TH QS KH 6C"
    state = new([s0, s1])
    state.apply(0, "discard QC")
    play_until_draws(state, 5)
    assert state.current == 0
    state.apply(0, "draw")
    drawn = state.view(0)["drawn"]
    view = state.view(0)
    assert view["phase"] == "show" and view["last_round"]
    assert drawn == "TS" and view["legal"] == ["show 3S 4S 5S | 9H 9D 9C"]
    with pytest.raises(IllegalAction, match="3S 4S 9H is not a phỏm"):
        state.apply(0, "show 9h 3S 4S")
    with pytest.raises(IllegalAction, match="listed twice"):
        state.apply(0, "show 3S 4S 5S | 5S 9H 9D")
    with pytest.raises(IllegalAction, match="do not have 7H"):
        state.apply(0, "show 7H 8H 9H")
    events = state.apply(0, "show 9C 9H 9D|4S 5S 3S |")
    assert events == [Event(0, "show", ("3S", "4S", "5S", "9H", "9D", "9C"))]
    assert state.record()["actions"][-1] == [0, "show 3S 4S 5S | 9H 9D 9C"]
    with pytest.raises(IllegalAction, match="already shown"):
        state.apply(0, "show")
    with pytest.raises(IllegalAction, match="already shown"):
        state.apply(0, "discard 3S")
    state.apply(0, f"discard {drawn}")
    assert state.view(None)["shown"][0] == [["3S", "4S", "5S"], ["9H", "9D", "9C"]]
    assert state.draws == 6 and not state.is_over
    state.apply(1, "draw")
    assert state.phase == "show" and state.legal_actions(1) == ["show"]
    state.apply(1, "show")
    state.apply(1, f"discard {state.view(1)['drawn'] or 'KH'}")
    assert state.is_over and state.draws == 7
    out = state.outcome()
    assert [r.points for r in out.results] == [13 + 2 + 1, 1 + 3 + 5 + 7 + 8 + 10 + 12 + 13 + 6]
    assert [r.rank for r in out.results] == [1, 2]
    assert out.results[1].notes == ["móm"]
    assert reasons(state) == [(1, 0, 4, "móm")]
    hands = state.view(1)["outcome"]["hands"]
    assert hands[0] == {"melds": [["3S", "4S", "5S"], ["9H", "9D", "9C"]], "leftover": ["AH", "2H", "KD"],
                        "points": 16, "mom": False}


def test_a_show_must_lay_down_every_phom():
    s0 = "3S 4S 5S 9H 9D 9C KD QC 2H AH"
    s1 = "AC 2C 3C 7S 8D TH QS KH 6D"
    state = new([s0, s1])
    state.apply(0, "discard QC")
    play_until_draws(state, 5)
    state.apply(0, "draw")  # TS, last round
    assert state.legal_actions(0) == ["show 3S 4S 5S | 9H 9D 9C"]
    before = state.record()
    for action, left in [("show", "3S 4S 5S"), ("show 3S 4S 5S", "9H 9D 9C"), ("show 9C 9D 9H", "3S 4S 5S")]:
        with pytest.raises(IllegalAction, match=f"^Show all your phỏm: {left} would still be a phỏm among "
                                                "the cards you keep.$"):
            state.apply(0, action)
    assert state.record() == before and state.phase == "show"
    state.apply(0, "show 3S 4S 5S | 9H 9D 9C")
    state.apply(0, "discard TS")
    # draw 7, the last: seat 1 must show AC 2C 3C too
    state.apply(1, "draw")
    assert state.view(1)["drawn"] == "JS"
    assert state.legal_actions(1) == ["show AC 2C 3C"]
    with pytest.raises(IllegalAction, match="AC 2C 3C would still be a phỏm"):
        state.apply(1, "show")
    state.apply(1, "show AC 2C 3C")
    state.apply(1, "discard KH")
    assert state.is_over
    # the held cards score; nobody is móm: each had a phỏm and showed it
    out = state.outcome()
    assert [r.points for r in out.results] == [1 + 2 + 13, 6 + 7 + 8 + 10 + 11 + 12]
    assert [r.notes for r in out.results] == [[], []]
    assert reasons(state) == [(1, 0, 1, "rank 2")]


def test_a_drawn_card_completing_a_phom_must_be_shown():
    # 2 players. In the last round seat 0 draws 7C to his 7H 7D: he may not keep that phỏm
    # in hand (nor discard 7C without showing it).
    state = new(["7H 7D 3S 4S 5S 6S", ""], stock="2D 3D 4D 6D JH 7C")
    state.apply(0, "discard " + state.view(0)["hand"][-1])
    play_until_draws(state, 5)
    assert state.apply(0, "draw") == [Event(0, "draw")] and state.view(0)["drawn"] == "7C"
    # a run of four may be shown whole or without either end, but 7H 7D 7C must be shown
    assert state.legal_actions(0) == ["show 3S 4S 5S 6S | 7H 7D 7C", "show 3S 4S 5S | 7H 7D 7C",
                                      "show 4S 5S 6S | 7H 7D 7C"]
    with pytest.raises(IllegalAction, match="7H 7D 7C would still be a phỏm"):
        state.apply(0, "show 3S 4S 5S 6S")
    with pytest.raises(IllegalAction, match="already shown|show your phỏm first"):
        state.apply(0, "discard 7C")
    state.apply(0, "show 4S 5S 6S | 7C 7D 7H")
    assert state.legal_actions(0) == ["discard " + c for c in state.view(0)["hand"]]
    assert "3S" in state.view(0)["hand"]


def _showing_game(hands: list[str], stock: str = "") -> object:
    """Play to the end: draw, show the best arrangement in the last round, dump the drawn card."""
    state = new(hands, stock=stock)
    state.apply(0, "discard " + parse_cards(hands[0])[-1])
    while not state.is_over:
        seat = state.current
        state.apply(seat, "draw")
        drawn = state.view(seat)["drawn"]
        if state.phase == "show":
            melds = arrange([c for c in state.view(seat)["hand"] if c != drawn]).melds
            state.apply(seat, "show " + " | ".join(" ".join(m) for m in melds))
        state.apply(seat, f"discard {drawn}")
    return state


def test_ranking_with_mom_and_payments_four_players():
    hands = [
        "3S 4S 5S KD QD JC 9C 8H 6H 2D",  # phỏm, 13+12+11+9+8+6 = 59 (2D is discarded)
        "7H 7D 7C AS 2C 4D 6S 8S 9D",  # phỏm, 1+2+4+6+8+9 = 30
        "AH 3H 5C 7S 9H JH KC QS TD",  # móm 1+3+5+7+9+11+13+12+10 = 71
        "AC 2H 4H 6C 8D TS JS QC KS",  # móm 1+2+4+6+8+10+11+12+13 = 67
    ]
    state = _showing_game(hands, stock="")
    out = state.outcome()
    assert [r.points for r in out.results] == [59, 30, 71, 67]
    assert [r.rank for r in out.results] == [2, 1, 4, 3]
    assert out.winner == 1
    assert reasons(state) == [(0, 1, 1, "rank 2"), (3, 1, 4, "móm"), (2, 1, 4, "móm")]
    assert payouts(state) == [-1, 9, -4, -4]
    assert state.view(None)["stock"] == 0 and state.draws == 15


def test_ties_rank_the_later_last_discard_lower():
    hands = [
        "3S 4S 5S KD 2C 6H 8C TH QC JS",  # 3S-5S; leftover KD 2C 6H 8C = 29 after dumping JS
        "7H 7D 7C KH 2D 6C 8D TS QS",  # 777; KH 2D 6C 8D = 29 ... + TS QS
        "9S 9H 9C AS AH AD 3C 4D 5D",  # 999 AAA; 3C 4D 5D = 12
    ]
    hands[0] = "3S 4S 5S KD 2C 6H 8C TC QC JS"
    hands[1] = "7H 7D 7C KH 2D 6C 8D TD QH"
    state = _showing_game(hands)
    out = state.outcome()
    pts = [r.points for r in out.results]
    assert pts == [13 + 2 + 6 + 8 + 10 + 12, 13 + 2 + 6 + 8 + 10 + 12, 3 + 4 + 5]
    # seats 0 and 1 tie; seat 1 discarded later (3 players: draw 11 is seat 2's, 10 seat 1's)
    assert state.last_discard[1] > state.last_discard[0]
    assert [r.rank for r in out.results] == [2, 3, 1]
    assert reasons(state) == [(0, 2, 1, "rank 2"), (1, 2, 2, "rank 3")]


def test_all_mom_lowest_wins_others_pay_four():
    hands = [
        "AS 3D 5C 7H 9S JD KC 2H 4S QH",
        "AH 3C 5D 7S 9H JC KD 2D 4C",
        "2S 4D 6C 8H TS QC KH 3H 6S",
    ]
    state = GAME.new(3, deck=build_deck(hands))
    state.apply(0, "discard QH")
    play_until_draws(state, 11)
    out = state.outcome()
    assert all(r.notes == ["móm"] for r in out.results)
    # seats 0 and 1 tie on 55: seat 0 discarded earlier and wins
    assert [r.points for r in out.results] == [55, 55, 64]
    assert [r.rank for r in out.results] == [1, 2, 3]
    assert reasons(state) == [(1, 0, 4, "móm"), (2, 0, 4, "móm")]


@pytest.mark.parametrize("players,stock_left", [(2, 26), (3, 13), (4, 0)])
def test_stock_end(players, stock_left):
    state = GAME.new(players, deck=build_deck([""] * players))
    state.apply(0, "discard " + state.view(0)["hand"][0])
    turns = 0
    while not state.is_over:
        assert state.view(None)["last_round"] == (state.draws >= 3 * players - 1)
        draw_and_dump(state)
        turns += 1
    assert turns == state.draws == 4 * players - 1
    assert state.view(None)["stock"] == stock_left
    # every seat had exactly one last-round turn; the last discard is by the last seat
    assert state.record()["actions"][-1][0] == players - 1
    out = state.outcome()
    out.check_balanced()
    assert sorted(r.rank for r in out.results) == list(range(1, players + 1))


def test_eating_lengthens_the_game():
    # 2 players: seat 1 eats once, so the game needs one more turn before draw 7
    state = new(["7H", "5H 6H"])
    state.apply(0, "discard 7H")
    state.apply(1, "eat 5H 6H")
    hand = state.view(1)["hand"]
    state.apply(1, "discard " + next(c for c in hand if c not in ("5H", "6H", "7H")))
    turns = 0
    while not state.is_over:
        seat = state.current
        state.apply(seat, "draw")
        card = state.view(seat)["drawn"]
        if state.phase == "show":
            state.apply(seat, "show 5H 6H 7H" if seat == 1 else "show")
        state.apply(seat, f"discard {card}")
        turns += 1
    assert turns == 7 and state.draws == 7
    assert state.view(None)["shown"][1] == [["5H", "6H", "7H"]]
    # 9 turns instead of 8; without the eat seat 1 would have made draw 7, now seat 0 does
    actions = state.record()["actions"]
    assert len(actions) == 1 + 2 + 7 * 2 + 2  # opening, eat turn, draw turns, two shows
    assert actions[-1][0] == 0


def test_view_keys_and_privacy():
    state = new(["7H", "5H 6H"])
    keys = set(state.view(None))
    assert keys == {"game", "seat", "num_players", "current", "to_act", "phase", "stock", "draws",
                    "last_round", "active", "discards", "eaten", "shown", "send", "sent", "hand_sizes",
                    "hand", "drawn", "locked", "arrangement", "legal", "outcome"}
    for seat in (0, 1, None):
        assert set(state.view(seat)) == keys
    spectator = state.view(None)
    assert spectator["hand"] == [] and spectator["arrangement"] is None and spectator["legal"] == []
    assert spectator["hand_sizes"] == [10, 9]
    arr = state.view(0)["arrangement"]
    assert set(arr) == {"melds", "leftover", "points", "mom"}
    state.apply(0, "discard 7H")
    state.apply(1, "draw")
    drawn = state.view(1)["drawn"]
    assert drawn not in str(state.view(0)) and drawn not in str(state.view(None))


def test_replay_reproduces_state():
    state = new(["7H 9D KD", "5H 6H 8H 9S 9C JD QD 2C 4D", ""])
    state.apply(0, "discard 7H")
    state.apply(1, "eat 5H 6H")
    state.apply(1, "discard 2C")
    draw_and_dump(state)
    again = GAME.replay(state.record())
    for seat in (None, 0, 1, 2):
        assert again.view(seat) == state.view(seat)
    assert again.record() == state.record()


# --------------------------------------------------------------------------------------------
# option gửi (send): phom.md "Option: gửi"

SEND = {"send": True}
#: 2 players: seat 0 shows 3S 4S 5S and 9H 9D 9C at draw 6 (keeping KD 2H AH: 16 points);
#: seat 1 makes draw 7, the last, drawing 8C
SEND_S0 = "3S 4S 5S 9H 9D 9C KD QC 2H AH"
SEND_STOCK = "8D JH JC 5D TD 4H 8C"


def sending_game(s1: str, options=SEND):
    """Seat 1 at its last-round turn, having drawn 8C (draw 7): the game ends at its discard."""
    state = GAME.new(2, deck=build_deck([SEND_S0, s1], SEND_STOCK), options=options)
    state.apply(0, "discard QC")
    play_until_draws(state, 5)
    state.apply(0, "draw")  # 4H
    state.apply(0, "show 3S 4S 5S | 9H 9D 9C")
    state.apply(0, "discard 4H")
    state.apply(1, "draw")
    assert state.view(1)["drawn"] == "8C" and state.phase == "show"
    return state


def sends(state, seat: int) -> list[str]:
    return [a for a in state.legal_actions(seat) if a.startswith("send ")]


def test_send_extends_a_set_to_four_and_a_run_at_each_end_then_again():
    state = sending_game("AC 2C 3C 9S 2S 6S 7S KH QS")
    assert sends(state, 1) == []  # not before showing
    with pytest.raises(IllegalAction, match="last round, after showing"):
        state.apply(1, "send 9S 0:2")
    state.apply(1, "show AC 2C 3C")
    # the phỏm of seat 0 are numbered in the order he showed them: 1 = 3S 4S 5S, 2 = the nines
    assert sends(state, 1) == ["send 2S 0:1", "send 6S 0:1", "send 9S 0:2"]
    for bad, reason in [("send 7S 0:1", "7S does not fit on 3S 4S 5S"), ("send 9S 0:3", "no such phỏm"),
                        ("send 2S 1:1", "no such phỏm"), ("send KD 0:1", "do not have KD"),
                        ("send 9S", "send <card> <seat>:<phỏm number>")]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply(1, bad)
    events = state.apply(1, "send 9s 0:2")
    assert events == [Event(1, "send", ("9S",), phrases=(
        Phrase("phom.send", {"player": 1, "owner": 0}, {"card": "9S", "number": 2}),))]
    state.apply(1, "send 2S 0:1")
    state.apply(1, "send 6S 0:1")
    assert "send 7S 0:1" in sends(state, 1)  # onto the phỏm already extended
    state.apply(1, "send 7S 0:1")
    view = state.view(None)
    assert view["shown"][0] == [["2S", "3S", "4S", "5S", "6S", "7S"], ["9S", "9H", "9D", "9C"]]
    assert view["sent"] == [[[["2S", 1], ["6S", 1], ["7S", 1]], [["9S", 1]]], [[]]]
    assert view["hand_sizes"] == [3, 3] and state.view(1)["hand"] == ["8C", "QS", "KH"]
    assert sends(state, 1) == []
    state.apply(1, "discard KH")
    assert state.is_over
    # the sent cards count for nobody: seat 1 keeps 8C QS (20), seat 0 KD 2H AH (16)
    out = state.outcome()
    assert [r.points for r in out.results] == [16, 20] and out.winner == 0
    assert reasons(state) == [(1, 0, 1, "rank 2")]
    assert state.view(None)["outcome"]["hands"][0]["melds"] == view["shown"][0]
    assert state.record()["actions"][-5:] == [[1, "send 9S 0:2"], [1, "send 2S 0:1"], [1, "send 6S 0:1"],
                                              [1, "send 7S 0:1"], [1, "discard KH"]]
    again = GAME.replay(state.record())
    assert [again.view(s) for s in (None, 0, 1)] == [state.view(s) for s in (None, 0, 1)]


def test_a_mom_hand_may_not_send():
    state = sending_game("AC 3C 5H 9S 2S 6S JD KH QS")
    assert state.legal_actions(1) == ["show"]
    state.apply(1, "show")
    assert sends(state, 1) == []
    with pytest.raises(IllegalAction, match="Only a player who showed a phỏm may send"):
        state.apply(1, "send 9S 0:2")


def test_without_the_option_nobody_sends():
    state = sending_game("AC 2C 3C 9S 2S 6S 7S KH QS", options={})
    state.apply(1, "show AC 2C 3C")
    assert sends(state, 1) == [] and not state.view(1)["send"]
    with pytest.raises(IllegalAction, match="Unknown action"):
        state.apply(1, "send 9S 0:2")


def test_sending_never_makes_an_u():
    # seat 1 shows the run AC-8C, sends 9S and discards KH: his hand is empty, yet no ù
    state = sending_game("AC 2C 3C 4C 5C 6C 7C 9S KH")
    state.apply(1, "show AC 2C 3C 4C 5C 6C 7C 8C")
    assert sends(state, 1) == ["send 9S 0:2"]
    state.apply(1, "send 9S 0:2")
    with pytest.raises(IllegalAction, match="Keep your last card"):
        state.apply(1, "send KH 0:2")
    events = state.apply(1, "discard KH")
    assert [e.kind for e in events] == ["discard", "end"]
    out = state.outcome()
    assert [r.points for r in out.results] == [16, 0] and out.winner == 1
    assert [r.notes for r in out.results] == [[], []]
    assert reasons(state) == [(0, 1, 1, "rank 2")]
