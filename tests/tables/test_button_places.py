"""Within one turn a button keeps its place: picking cards changes which buttons are enabled,
never where they are (Discard used to jump from last to first once a card was picked, and
Concan put Discard ahead of the Lay off just prepared)."""

from __future__ import annotations

import pytest

from bot import i18n
from bot.tables.adapter import Selection
from bot.tables.controls import ControlId
from bot.tables.messages import hand_controls, item_row, laid_out
from tests.tables.test_every_control import UIS
from tests.tables.test_hints import random_games


def places(ui, view, selection: Selection) -> dict[str, tuple[int, int]]:
    """Each shown button's (row, column) in the hand's controls, as Discord lays them out."""
    selects, buttons = hand_controls(ui, view, selection, False)
    items = laid_out(selects, buttons, lambda key: ControlId("play", 1, key, 1, 1), link="https://example.invalid")
    keys = {str(ControlId("play", 1, b.key, 1, 1)): b.key for b in buttons}
    out, columns = {}, {}
    for item in items:
        row = item_row(item)
        columns[row] = columns.get(row, -1) + 1
        custom_id = getattr(getattr(item, "item", item), "custom_id", None)
        if custom_id in keys:
            out[keys[custom_id]] = (row, columns[row])
    return out


def selections(ui, state, seat, view) -> list[Selection]:
    """What a player may pick this turn: nothing, each card alone, Quick Select's pick, and each
    of those with each choice of the other selects (Concan's meld to lay off onto)."""
    card_select = ui.select(view, [], False)
    singles = [[option.value] for option in card_select.options] if card_select else []
    picked = [[], *singles]
    if "quick" in ui.helper_keys and ui.takes_cards(view["legal"]):
        picked.append(ui.keep_selection(view, ui.helper("quick", state, seat, [])))
    out = []
    for cards in picked:
        out.append(Selection(cards))
        for spec in ui.extra_selects(view, Selection(cards)):
            out += [Selection(cards, {spec.key: option.value}) for option in spec.options[:3]]
    return out


@pytest.mark.parametrize("ui, options", UIS, ids=lambda x: x.game.name if hasattr(x, "game") else str(x or ""))
def test_buttons_keep_their_places_whatever_is_picked(ui, options):
    checked = 0
    with i18n.language("en"):
        for n, state in enumerate(random_games(ui, options, seeds=range(3))):
            if n % 4:
                continue  # every fourth position keeps the test quick
            seat = state.to_act[0]
            view = state.view(seat)
            layouts = [(list(s), s.picks, places(ui, view, s)) for s in selections(ui, state, seat, view)]
            first = layouts[0][2]
            moves = {key: place for key, place in first.items() if key not in ui.helper_keys}
            for cards, picks, layout in layouts[1:]:
                # the moves are all there, in place; a helper is in place or (no room) left out
                assert {key: place for key, place in layout.items() if key not in ui.helper_keys} == moves \
                    and all(first.get(key) == place for key, place in layout.items()), (
                    f"{ui.game.name}: picking {cards} {picks} moves buttons:\n"
                    f"nothing picked {first}\n{cards} {picks}: {layout}")
            checked += len(layouts) > 1
    assert checked > 10
