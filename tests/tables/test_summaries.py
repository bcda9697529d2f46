"""What the table says of a game, in every language: each move's line names its player, each
summary names the players it is about, and no placeholder is left unfilled."""

from __future__ import annotations

import random
import re

import pytest

from bot import i18n
from bot.ai.levels import normal
from cogs.chan import ChanUI
from cogs.chinchon import ChinchonUI
from cogs.concan import ConcanUI
from cogs.phom import PhomUI
from cogs.tusac import TuSacUI

UIS = {"phom": PhomUI, "chan": ChanUI, "tusac": TuSacUI, "chinchon": ChinchonUI, "concan": ConcanUI}
# short matches, so a seeded game ends quickly
OPTIONS = {"chinchon": {"target": 30}, "concan": {"rounds": 2}}
# names a seat number or a placeholder could be confused with
NAMES = ["Seat 1", "Lan", "{winner}", "Hòa 🌸", "AI 5", "Đức"]
UNFILLED = re.compile(r"\{\w*\}")


def played_events(game: str, players: int, seed: int):
    """Every event of a seeded game: the AI plays half the moves, chance the rest."""
    ui = UIS[game]()
    rng = random.Random(seed)
    options = ui.engine_options(ui.table_options(OPTIONS.get(game, {}), stake=1))
    state = ui.game.new(players, seed=seed, options=options)
    events = []
    for _ in range(5000):
        if state.is_over:
            break
        seat = state.to_act[0]
        action = normal(state.name, state.view(seat)) if rng.random() < 0.5 else rng.choice(state.legal_actions(seat))
        events += state.apply(seat, action)
    assert state.is_over
    return ui, state, events


CASES = [(game, players, seed) for game in UIS for players in (2, 4) for seed in (1, 2)]


@pytest.mark.parametrize("game,players,seed", CASES)
@pytest.mark.parametrize("lang", sorted(i18n.LANGUAGES))
def test_every_line_names_its_players_and_fills_every_placeholder(game, players, seed, lang):
    ui, state, events = played_events(game, players, seed)
    names = NAMES[:players]
    with i18n.language(lang):
        for event in events:
            text = ui.event_text(event, names)
            unfilled = UNFILLED.findall(text.replace("{winner}", ""))
            assert not unfilled, (event, text)
            if event.phrases:
                for phrase in event.phrases:
                    line = ui.phrase_text(phrase, names)
                    for key, seat in phrase_seats(phrase).items():
                        assert names[seat] in line, (key, line)
            elif event.seat is not None and event.kind not in ("round_start",):
                assert names[event.seat] in text, (event, text)
        outcome = state.outcome()
        summary = ui.summary_text(outcome.summary, names)
        assert not UNFILLED.findall(summary.replace("{winner}", "")), summary
        for result in outcome.results:
            for note in result.notes:
                assert not UNFILLED.findall(ui.note_text(note)), note
        for transfer in outcome.transfers:
            assert not UNFILLED.findall(ui.note_text(transfer.reason)), transfer


def phrase_seats(phrase) -> dict[str, int]:
    return phrase["seats"] if isinstance(phrase, dict) else dict(phrase.seats)
