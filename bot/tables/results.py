"""The round results and results of a table's games, as slots of its outbox: each posted once,
in order, its picture rendered once; a game's result shows the chips the ledger writes."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

import discord

from bot import i18n, ledger
from bot.i18n import _
from rendering.table import render_rows_async

from . import messages
from .core import Core, log
from .model import Seat, Table
from .notices import POSTED, fallback
from .outbox import Attachment, Draft, Slot

Build = Callable[[Slot], Awaitable[Draft]]


def unrecorded_note() -> str:
    """What the table and the result say of a game whose settlement is still being retried."""
    return "⚠️ " + _("The chips of this game could not be recorded yet; they will be.")


class Results:
    """Round results and results of a table's games, the finished ones replayed from the database."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.db = core.db

    async def game_shown(self, table: Table, game_id: int) -> tuple[Table, Any]:
        """The finished game as it was played: a copy of the table at that game (its seats,
        number and stake from the game's row) and its state replayed from its record."""
        if game_id == table.game_id and table.state is not None:
            return table, table.state
        row = await self.db.get_game(game_id)
        assert row is not None  # (a game of this table's)
        played = Table(id=table.id, guild_id=table.guild_id, channel_id=table.channel_id, game=table.game,
                       options={**table.options, "stake": row["stake"]}, host_id=table.host_id, status="finished",
                       seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                       thread_id=table.thread_id, game_id=game_id)
        played.state = await self.core.stored_state(game_id)
        return played, played.state

    # ---------------------------------------------------------------------- round results
    def show_new_rounds(self, table: Table) -> None:
        """Each round that ended since the last look gets its result posted (once, in order)."""
        done = table.rounds_done()
        if done > table.rounds_shown:
            assert table.game_id is not None  # (a game in play)
            self.show_rounds_since(table, table.game_id, table.rounds_shown, done)
            table.rounds_shown = done

    def show_rounds_since(self, table: Table, game_id: int, posted: int, done: int) -> None:
        for index in range(posted, done):
            if self.core.presenter(table).get(f"round:{game_id}:{index}") is None:
                self._show_round(table, game_id, index)

    def round_build(self, table: Table, game_id: int, index: int) -> Build:
        async def build(slot: Slot) -> Draft:
            played, state = await self.game_shown(table, game_id)
            return await self._round_draft(table, played, state, index)
        return build

    def _show_round(self, table: Table, game_id: int, index: int) -> Slot:
        core = self.core

        async def posted(slot: Slot, message: discord.Message) -> None:
            table.round_message = (message.channel.id, message.id, game_id, index)  # (its Next round, if closed)
            await core.under_lease(table, core.db.set_rounds_posted, game_id, index + 1)

        return core.presenter(table).add(Slot(
            f"round:{game_id}:{index}", self.round_build(table, game_id, index), channel_id=table.play_channel_id,
            once=True, order=POSTED,
            after=f"round:{game_id}:{index - 1}" if index else None, fallback_channel_id=fallback(table),
            posted=posted, nonce=f"g{game_id}r{index}"))

    async def _round_draft(self, table: Table, played: Table, state: Any, index: int) -> Draft:
        ui = self.core.ui_of(table)
        view = state.view(None)
        names = played.names()
        last = index == len(view["round_results"]) - 1
        live = played is table and last and table.pause_until is not None and not state.is_over
        with i18n.language(table.language):
            embed = messages.round_embed(played, ui, view, names, index)
            controls = messages.next_round_view(table) if live else None
            rows = ui.round_rows(view, played.picture_names(), index)
            title = _("{game} · table #{table} · round {round}").format(game=ui.game.title, table=table.id,
                                                                         round=index + 1)
        return await _rows_draft(("round", played.game_id, index), embed, controls, rows, title, ui.deck,
                                 "round.png")

    # ---------------------------------------------------------------------------- results
    def show_result(self, table: Table, game_id: int, rounds: int = 0) -> Slot:
        """The game's result, posted once (its round results before it)."""
        core = self.core

        async def posted(slot: Slot, message: discord.Message) -> None:
            table.result_message = (message.channel.id, message.id, game_id)  # (edited if an admin closes it)
            await core.under_lease(table, core.db.set_result_message, game_id, message.id)
            log.debug("result of table %s game %s posted", table.id, game_id)

        return core.presenter(table).add(Slot(
            f"result:{game_id}", self.result_build(table, game_id), channel_id=table.play_channel_id, once=True,
            order=POSTED, after=f"round:{game_id}:{rounds - 1}" if rounds else None,
            fallback_channel_id=fallback(table), posted=posted, nonce=f"g{game_id}"))

    def result_build(self, table: Table, game_id: int) -> Build:
        async def build(slot: Slot) -> Draft:
            played, state = await self.game_shown(table, game_id)
            ui = self.core.ui_of(table)
            outcome = state.outcome()
            names = played.names()
            with i18n.language(table.language):
                # the chips as the ledger writes them
                paid = ledger.settlement(outcome, stake=played.stake, ga_stake=played.ga_stake)
                embed = messages.result_embed(played, ui, outcome, names, paid)
                closed = table.closed is not None and table.game_id == game_id
                if closed:  # an admin closed the table before the chips were recorded, or after
                    embed.description = f"🛑 **{messages.closed_note(table)}**\n\n{embed.description or ''}".strip()
                elif game_id in self.core.unsettled:  # the chips shown are recorded later
                    embed.description = f"{embed.description}\n\n{unrecorded_note()}".strip()
                # a rematch belongs to the latest result, until its rematch is open (the result is
                # posted while the game's end is still being saved: its status may not say so yet)
                latest = table.game_id == game_id and table.status != "lobby"
                controls = None if closed else messages.table_view(table, rematch=True, lit=latest)
                rows = ui.result_rows(state.view(None), played.picture_names(), paid)
                title = _("{game} · table #{table} · game {number} — result").format(
                    game=ui.game.title, table=table.id, number=played.game_no)
            return await _rows_draft(("result", game_id), embed, controls, rows, title, ui.deck, "result.png")
        return build


async def _rows_draft(signature: Any, embed: discord.Embed, controls: discord.ui.View | None, rows: list,
                      title: str, deck: str, filename: str) -> Draft:
    """A round's or a game's result: its picture rendered once (a picture that cannot be drawn
    is left out rather than holding the result back)."""
    try:
        png = await render_rows_async(rows, deck=deck, title=title)
    except Exception:
        log.exception("rendering %s failed; posting it without the image", filename)
        return Draft(signature, embed=embed, view=controls)
    embed.set_image(url=f"attachment://{filename}")

    async def rendered() -> bytes:
        return png

    return Draft(signature, embed=embed, view=controls, attachment=Attachment(filename, signature, rendered))
