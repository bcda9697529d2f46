"""What a Phỏm hand's caption says of it."""

from __future__ import annotations

from bot import i18n
from bot.games.french import FULL_DECK
from cogs.phom import PhomUI
from tests.games.test_phom import play_until_draws


# Seat 0 of a 2-player Phỏm deal holds no phỏm at all: móm, were the game to end now.
MOM_HAND = ["AS", "2H", "3D", "4S", "5C", "6D", "7H", "9S", "JD", "KC"]


def test_mom_is_shown_only_once_the_last_round_has_come():
    ui = PhomUI()
    rest = [c for c in FULL_DECK if c not in MOM_HAND]
    state = ui.game.new(2, deck=MOM_HAND + rest)
    view = state.view(0)
    assert view["arrangement"]["mom"] and not view["last_round"]
    with i18n.language("en"):
        caption = ui.hand_image(view, [], True).caption
        assert "Móm" not in caption and caption.startswith("Leftover "), caption
        state.apply(0, "discard KC")
        play_until_draws(state, state.last_round_from)  # each draw is discarded again: the same hand
        view = state.view(0)
        assert view["last_round"] and view["arrangement"]["mom"]
        caption = ui.hand_image(view, [], True).caption
        assert caption.startswith("Móm · "), caption


def test_the_mark_of_eaten_cards_is_explained():
    ui = PhomUI()
    rest = [c for c in FULL_DECK if c not in MOM_HAND]
    view = ui.game.new(2, deck=MOM_HAND + rest).view(0)
    with i18n.language("en"):
        assert "underlined" not in ui.hand_image(view, [], True).caption
        eating = dict(view, eaten=[["9S"], []])  # (as if Lan had eaten her 9♠)
        image = ui.hand_image(eating, [], False)
        assert image.marked and "underlined: eaten" in image.caption
