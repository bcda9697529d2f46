"""Every hint above a hand names only moves that are legal this turn (Chắn said "Select a card
and **Eat** 枝, or **Draw**" when only Draw was legal, and offered a select to pair with it)."""

from __future__ import annotations

import random
import re

import pytest

from bot import i18n
from bot.ai.levels import normal
from tests.tables.test_every_control import UIS

BOLD = re.compile(r"\*\*(.+?)\*\*")
#: a bold word of a hint that names a move -> the engine verbs that make the move
MOVES = {
    "draw": {"draw"}, "eat": {"eat"}, "take": {"take"}, "discard": {"discard"}, "pass": {"pass"},
    "chíu": {"chiu"}, "ù!": {"u"}, "show": {"show"}, "open": {"open"}, "meld": {"meld"},
    "lay off": {"layoff"}, "swap joker": {"swap"}, "close": {"close"}, "win!": {"win"}, "send": {"send"},
}


def moves_named(hint: str) -> set[str]:
    return {word.lower() for word in BOLD.findall(hint) if word.lower() in MOVES}


def random_games(ui, options, seeds=range(8)):
    """States of seeded games, half the moves the AI's and half random, at every seat count."""
    for seed in seeds:
        rng = random.Random(seed)
        players = ui.game.min_players + seed % (ui.game.max_players - ui.game.min_players + 1)
        state = ui.game.new(players, seed=seed, options=ui.engine_options(options))
        for _step in range(1500):
            if state.is_over:
                break
            yield state
            seat = state.to_act[0]
            legal = state.legal_actions(seat)
            state.apply(seat, normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(legal))


@pytest.mark.parametrize("ui, options", UIS, ids=lambda x: x.game.name if hasattr(x, "game") else str(x or ""))
def test_no_hint_names_a_move_that_is_not_legal(ui, options):
    named_somewhere: set[str] = set()
    with i18n.language("en"):
        for state in random_games(ui, options):
            names = [f"Player {s}" for s in range(state.num_players)]
            for seat in state.to_act:
                view = state.view(seat)
                hint = ui.hand_status(view, names)
                verbs = {action.split()[0] for action in state.legal_actions(seat)}
                for word in moves_named(hint):
                    named_somewhere.add(word)
                    assert MOVES[word] & verbs, f"{ui.game.name}: the hint names {word!r} but only {sorted(verbs)} " \
                                                f"are legal: {hint!r}"
    assert named_somewhere, "the hints name no move at all: the test would check nothing"


def test_chan_offers_no_card_to_pair_when_nothing_may_be_eaten():
    """The select pairs a hand card with the card on offer: without a legal eat there is none."""
    chan_ui = next(ui for ui, options in UIS if ui.game.name == "chan" and not options)
    seen = 0
    with i18n.language("en"):
        for state in random_games(chan_ui, {}):
            seat = state.to_act[0]
            view = state.view(seat)
            if view["phase"] in ("turn", "drawn") and view["active"] is not None \
                    and not any(a.startswith("eat ") for a in view["legal"]):
                seen += 1
                assert chan_ui.select(view, [], False) is None
                assert "eat" not in chan_ui.hand_status(view, ["A", "B", "C", "D"]).lower().replace("eaten", "")
    assert seen > 20
