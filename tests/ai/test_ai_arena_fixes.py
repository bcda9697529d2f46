"""What the arena (issue #28) changed in the AIs, each on a position where the old rule chose
otherwise (measured in docs/experiments.md)."""

from __future__ import annotations

from bot.games import REGISTRY
from bot.games.chinchon.ai import choose as chinchon_choose
from bot.games.phom.ai import choose as phom_choose


def test_phom_ai_keeps_a_near_run_rather_than_fear_feeding_the_next_player():
    state = REGISTRY["phom"].new(4, seed=1)
    view = state.view(0)
    assert view["hand"] == ["3S", "6S", "7H", "TS", "TH", "TD", "JC", "QS", "QD", "KD"]
    # the old AI threw K♦ (the next player could not eat it); the lone J♣ goes, Q♦ K♦ stay
    assert phom_choose(view) == "discard JC"


def test_chinchon_ai_at_four_seats_throws_a_high_card_before_a_low_one_with_outs():
    state = REGISTRY["chinchon"].new(4, seed=0)
    while len(state.actions) < 5:
        seat = state.to_act[0]
        state.apply(seat, chinchon_choose(state.view(seat)))
    view = state.view(2)
    assert view["hand"] == ["3S", "4C", "5H", "8H", "TH", "JH", "KH", "KC"]
    # the old weights (as at two seats) kept K♣ for its outs and threw 5♥: at four seats
    # someone closes sooner, and the outs count half
    assert chinchon_choose(view) == "discard KC"
