"""Every control every game can show survives the trip through a custom id, and every
sentence an engine emits has a text (Chắn's Eat Cạ* once answered "That control is not valid."
to every click because its key did not parse)."""

from __future__ import annotations

import importlib
import random

import pytest

from bot.ai.levels import normal
from bot.app import EXTENSIONS
from bot.tables import messages
from bot.tables.adapter import Selection
from bot.tables.commands import GameCog
from bot.tables.controls import ControlId, button, parse
from bot.tables.model import Seat, Table


def game_uis():
    """Every game's UI, once per choice of each option that has choices (a Chinchón table with
    a Spanish pack shows other labels and sprites), with the engine options that go with it."""
    uis = []
    for extension in EXTENSIONS:
        module = importlib.import_module(extension)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, GameCog) and value is not GameCog:
                ui = value.ui_class()
                uis.append((ui, {}))
                for option in ui.lobby_options:
                    for choice in option.choices[1:]:
                        uis.append((ui.bind({option.name: choice}), {option.name: choice}))
                    if option.kind is bool:  # the other value of a switch (Phỏm's gửi), where it changes the game
                        switched = next(({option.name: value} for value in (True, False)
                                         if ui.engine_options({option.name: value}) != ui.engine_options({})), None)
                        if switched:
                            uis.append((ui.bind(switched), switched))
    return uis


UIS = game_uis()


def round_trip(control: ControlId) -> None:
    custom_id = str(control)
    assert len(custom_id) <= 100
    assert custom_id.startswith("chieu:")
    assert parse(custom_id.split(":", 1)[1]) == control, custom_id
    button(control, "label")  # discord.py accepts it


def test_every_registered_game_is_covered():
    assert {ui.game.name for ui, _ in UIS} >= {"phom", "chan", "tusac", "chinchon"}


@pytest.mark.parametrize("ui, options", UIS, ids=lambda x: x.game.name if hasattr(x, "game") else str(x or ""))
def test_every_button_and_select_of_random_games_parses(ui, options):
    keys_seen: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed)
        players = rng.randint(ui.game.min_players, ui.game.max_players)
        state = ui.game.new(players, seed=seed, options=ui.engine_options(options))
        names = [f"Player {s}" for s in range(players)]
        for step in range(2000):
            if state.is_over:
                break
            for seat in range(players):
                view = state.view(seat)
                selection = []
                if seat in state.to_act and "quick" in ui.helper_keys and view.get("legal"):
                    selection = ui.keep_selection(view, ui.helper("quick", state, seat, []))
                selects = ["sel", *(s.key for s in ui.extra_selects(view, Selection(selection)))]
                keys = [spec.key for spec in ui.buttons(view, selection)] + selects
                assert len(keys) == len(set(keys)), f"two controls share a custom id: {keys}"
                for key in selects:
                    round_trip(ControlId("play", 4_000_000_001, key, 17, step))
                for spec in ui.buttons(view, selection):
                    keys_seen.add(spec.key)
                    round_trip(ControlId("play", 4_000_000_001, spec.key, 17, step))
                    if spec.enabled and spec.key not in ui.helper_keys:
                        try:
                            ui.action_for(spec.key, view, selection)
                        except Exception as exc:  # a refusal is fine; an unknown control is not
                            assert "not valid" not in str(exc), (spec.key, exc)
            round_trip(ControlId("play", 4_000_000_001, "sel", 17, step))
            seat = rng.choice(state.to_act)
            for event in state.apply(seat, normal(state.name, state.view(seat))):
                assert ui.event_text(event, names).strip()  # every phrase key has its text
        assert state.is_over
        assert ui.summary_text(state.outcome().summary, names) or state.outcome().is_draw
    assert keys_seen, "the game showed no button at all"


def test_lobby_and_table_controls_parse():
    table = Table(id=4_000_000_001, guild_id=1, channel_id=2, game="phom", options={"seats": 4, "stake": 1,
                  "turn_seconds": 60}, host_id=3, status="lobby", seats=[Seat(3, "lan")])
    views = [messages.lobby_view(table), messages.table_view(table), messages.table_view(table, rematch=True)]
    for view in views:
        for item in view.children:
            custom_id = item.custom_id
            assert len(custom_id) <= 100 and parse(custom_id.split(":", 1)[1]) is not None, custom_id


def test_forged_ids_do_not_parse():
    for payload in ("play:1:1:1:", "play:1:1:1:Discard", "play:x:1:1:draw", "lobby:1:join;drop", "table:1",
                    "play:1:1:1:" + "a" * 21, "other:1:join"):
        assert parse(payload) is None, payload


LINK = "https://discord.com/channels/1/2/3"


def selections(ui, view, rng):
    """Selections a seat may hold on this view: none, Quick Select's, one card, three cards, each
    with the first option of every other select picked."""
    spec = ui.select(view, [], True)
    values = [o.value for o in spec.options] if spec else []
    out = [[]]
    if values:
        out += [[rng.choice(values)], rng.sample(values, min(3, len(values)))]
    picked = []
    for cards in out:
        selection = Selection(cards)
        picks = {s.key: s.options[0].value for s in ui.extra_selects(view, selection) if s.options}
        picked.append(selection)
        if picks:
            selection = Selection(cards, picks)
            picks.update({s.key: s.options[-1].value for s in ui.extra_selects(view, selection) if s.options})
            picked.append(Selection(cards, picks))
    return picked


def seated_views(ui, options):
    """(the game's rng, a seat's view) for every seat at every position of three seeded AI
    games; between two positions the AI plays, drawing from the same rng."""
    for seed in range(3):
        rng = random.Random(seed)
        players = rng.randint(ui.game.min_players, ui.game.max_players)
        state = ui.game.new(players, seed=seed, options=ui.engine_options(options))
        for _ in range(400):
            if state.is_over:
                break
            for seat in range(players):
                yield rng, state.view(seat)
            seat = rng.choice(state.to_act)
            state.apply(seat, normal(state.name, state.view(seat)))


@pytest.mark.parametrize("ui, options", UIS, ids=lambda x: x.game.name if hasattr(x, "game") else str(x or ""))
def test_hand_controls_layout(ui, options):
    """Buttons in the game's order (tests/tables/test_button_places.py: they keep their places
    while cards are picked), every usable move shown; never more than four rows (one left free);
    the "Go to table" link always last on the buttons' last row (only a select that comes and
    goes with the picked cards is under it); no two controls with one custom id."""
    import discord

    def control(key):
        return ControlId("play", 4_000_000_001, key, 17, 3)

    seen_rows = set()
    for rng, view in seated_views(ui, options):
        for selection in selections(ui, view, rng):
            selects, buttons = messages.hand_controls(ui, view, selection, True)
            every = ui.buttons(view, selection)
            shown = [b.key for b in buttons]
            assert shown == [b.key for b in every if b.key in shown], "not in the game's order"
            # every usable move (a helper may give its place up: three selects leave one row)
            assert [b.key for b in buttons if b.enabled and b.key not in ui.helper_keys] \
                == [b.key for b in every if b.enabled and b.key not in ui.helper_keys]
            items = messages.laid_out(selects, buttons, control, link=LINK)
            view_ = discord.ui.View(timeout=None)
            for item in items:
                view_.add_item(item)  # raises when a row overflows
            rows = [messages.item_row(item) for item in view_.children]
            assert None not in rows and max(rows) < 4, [(getattr(i, "custom_id", None), i.row) for i in view_.children]
            link = next(i for i in view_.children if isinstance(i, discord.ui.Button) and i.url)
            assert link.url == LINK
            assert link.row == max(messages.item_row(i) for i in view_.children if isinstance(i, discord.ui.Button))
            assert link.row == max(rows) - sum(spec.below for spec in selects)
            assert sum(isinstance(i, discord.ui.Button) and bool(i.url) for i in view_.children) == 1
            ids = [i.custom_id for i in view_.children if getattr(i, "custom_id", None)]
            assert len(ids) == len(set(ids)), ids
            seen_rows.add(max(rows))
    assert seen_rows


@pytest.mark.parametrize("ui, options", UIS, ids=lambda x: x.game.name if hasattr(x, "game") else str(x or ""))
def test_card_options_name_and_pick_the_card_drawn(ui, options):
    """Each card option's label starts with the position number the hand picture draws under
    that card, and picking it selects that very card in the picture (not another copy)."""
    checked = 0
    for _, view in seated_views(ui, options):
        for arranged in (True, False):
            spec = ui.select(view, [], arranged)
            if spec is None:
                continue
            if ui.game.name == "tusac":  # "trash" marks the trash copies only, not a copy in a set
                noted = [o for o in spec.options if o.description and "trash" in o.description]
                assert len(noted) == len(view["trash_cards"]), (noted, view["trash_cards"])
            if ui.game.name == "phom" and not any(a.startswith("eat ") for a in view["legal"]):
                assert "eat" not in spec.placeholder, spec.placeholder  # only Draw is legal
            image = ui.hand_image(view, [], arranged)
            flat = [card for group in image.groups for card in group]
            for option in spec.options:
                position = int(option.label.split(" · ", 1)[0])
                assert option.label.startswith(f"{position} · ")
                picked = ui.hand_image(view, [option.value], arranged).selected
                assert picked == [position - 1], (option, picked, flat)
                checked += 1
    assert checked


def test_a_concan_joker_has_one_identity():
    """A Concan joker is plain "Joker" until it stands for a card in the meld being made; then the
    select names it, the picture draws it and the "stands for" select offers that very card."""
    from cogs.concan import ConcanUI, card_label

    ui = ConcanUI()
    jokers_seen = named = 0
    for seed in range(8):
        rng = random.Random(seed)
        players = rng.randint(ui.game.min_players, ui.game.max_players)
        state = ui.game.new(players, seed=seed, options={})
        for step in range(400):
            if state.is_over:
                break
            seat = state.to_act[0]
            view = state.view(seat)
            if ui.select(view, [], True) is not None and "JK" in view["hand"]:
                for arranged in (True, False):
                    for selection in selections(ui, view, rng):
                        image = ui.hand_image(view, selection, arranged)
                        flat = [card for group in image.groups for card in group]
                        spec = ui.select(view, selection, arranged)
                        stands = [s for s in ui.extra_selects(view, selection) if s.key == "stands"]
                        for option in spec.options:
                            position = int(option.label.split(" · ", 1)[0])
                            drawn = flat[position - 1]
                            if not drawn.startswith("JK"):
                                continue
                            jokers_seen += 1
                            assert option.label == f"{position} · {card_label(drawn)}", (option.label, drawn)
                            if option.value not in selection:
                                assert drawn == "JK", drawn  # stands for nothing yet
                            elif drawn != "JK":
                                named += 1
                                if stands:
                                    chosen = [o.label for o in stands[0].options if o.value in stands[0].selected]
                                    assert card_label(drawn.split("=")[1]) in chosen[0], (drawn, chosen)
            state.apply(seat, normal(state.name, state.view(seat)))
    assert jokers_seen and named
