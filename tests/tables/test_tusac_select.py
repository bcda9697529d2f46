"""Tứ Sắc's card select marks as trash only the copies the picture shows as trash: a card held
twice, one copy in a set and one apart, is 'trash' at the second position only, and picking
that label picks that very copy."""

from __future__ import annotations

from bot.games import REGISTRY
from bot.games.base import tokens_for
from bot.games.tusac.ai import choose
from cogs.tusac import TuSacUI, private_groups


def a_discard_with_a_card_both_in_a_set_and_in_trash():
    """The first seeded position (seed 0) where the seat to discard holds such a card."""
    state = REGISTRY["tusac"].new(4, seed=0)
    while not state.is_over:
        seat = state.to_act[0]
        view = state.view(seat)
        if view["phase"] == "discard":
            flat = [c for g in private_groups(view, True) for c in g]
            for card in view["trash_cards"]:
                if flat.count(card) > view["trash_cards"].count(card) and card not in view["khaps"]:
                    return view, flat, card
        state.apply(seat, choose(state.view(seat)))
    raise AssertionError("no such position in seed 0")


def test_only_the_trash_copy_is_labelled_trash():
    view, flat, card = a_discard_with_a_card_both_in_a_set_and_in_trash()
    trash_group = private_groups(view, True)[-1]
    assert card in trash_group
    trash_at = len(flat) - len(trash_group) + trash_group.index(card)  # 0-based, in the trash group
    set_at = flat.index(card)
    assert set_at < trash_at
    options = TuSacUI().select(view, [], True).options
    by_value = {option.value: option for option in options}
    tokens = tokens_for(flat)
    assert by_value[tokens[trash_at]].description in ("trash", "trash · worst")
    assert by_value[tokens[set_at]].description is None
    # the label names the position the picture shows that copy at
    assert by_value[tokens[trash_at]].label.startswith(f"{trash_at + 1} ")
