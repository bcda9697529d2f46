"""Every text the table's messages show through a seeded AI game of each game, in a language:
the table embed, each seat's private hand, the log, each round's result and the game's. The
word tests read them (numbers, signs, names) without Discord."""

from __future__ import annotations

from typing import Iterator

import discord

from bot import i18n, ledger
from bot.ai.levels import normal
from bot.tables import messages
from tests.support.picture_games import OPTIONS, UIS, table_of

GAMES = tuple(UIS)


def embed_texts(embed: discord.Embed) -> list[str]:
    texts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    for field in embed.fields:
        texts += [field.name or "", field.value or ""]
    return [text for text in texts if text]


def texts_of_a_game(game: str, lang: str, *, players: int = 2, seed: int = 5, stake: int = 10) -> Iterator[str]:
    """What a seeded AI game of ``game`` shows in ``lang`` (``stake`` chips a unit)."""
    ui = UIS[game]()
    table = table_of(game, players)
    table.options = {**OPTIONS.get(game, {}), "stake": stake, "language": lang}
    table.game_no = 1
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(OPTIONS.get(game, {}),
                                                                                        stake=stake)))
    table.state = state
    with i18n.language(lang):
        names = table.names()
        rounds_seen = 0
        for move in range(20000):
            if state.is_over:
                break
            seat = state.to_act[0]
            events = state.apply(seat, normal(state.name, state.view(seat)))
            table.log.extend(ui.event_text(event, names) for event in events)
            yield from table.log
            if move % 5 == 0:
                yield from embed_texts(messages.table_embed(table, ui))
                for index in range(players):
                    yield messages.hand_shown(table, ui, index).content
            results = state.view(None).get("round_results") or []
            if any(event.kind == "buyback" for event in events):  # decided during the pause
                view = {**state.view(None), "between_rounds": True}
                yield from (text for _label, text in ui.table_fields(view, names))
                yield from picture_texts(ui.table_picture(view, names, table))
            for index in range(rounds_seen, len(results)):
                view = state.view(None)
                yield from embed_texts(messages.round_embed(table, ui, view, names, index))
                view["between_rounds"] = True  # the pause: the table shows the round that ended
                yield from (text for _label, text in ui.table_fields(view, names))
                yield from picture_texts(ui.table_picture(view, names, table))
            rounds_seen = len(results)
        assert state.is_over
        yield from embed_texts(messages.table_embed(table, ui))
        outcome = state.outcome()
        paid = ledger.settlement(outcome, stake=stake)
        yield from embed_texts(messages.result_embed(table, ui, outcome, names, paid))
        yield from strings_in(ui.at_stake(stake).result_rows(state.view(None), names, paid))


def picture_texts(picture: object) -> Iterator[str]:
    """The words of a table picture: its title, each seat's box and each pile's."""
    if picture is None:
        return
    yield getattr(picture, "title", "")
    for box in getattr(picture, "seats", ()):
        yield box.detail
    for pile in getattr(picture, "piles", ()):
        yield pile.label
        yield pile.caption


def strings_in(value: object) -> Iterator[str]:
    """The texts in a picture's rows (tuples and lists of texts)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from strings_in(item)
