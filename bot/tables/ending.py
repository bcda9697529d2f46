"""The end of a game: settled exactly once (retried until it is), and its result posted
(retried, in the channel when the thread refuses, without the image when rendering fails)."""

from __future__ import annotations

import json
from typing import Any

import discord

from bot import ledger

from bot import i18n
from bot.i18n import _
from rendering.table import render_rows_async

from . import messages
from .core import ServiceCore, log
from .model import Seat, Table
from .retry import with_retries


class EndFlow(ServiceCore):
    """Settlement and result of finished games."""

    async def _finish(self, table: Table) -> None:
        """Settle the finished game (retried until it is written), then post its result."""
        async with table.lock:
            if table.status != "playing" or table.state is None or not table.state.is_over or table.finishing:
                return
            table.finishing = True
        # Outside the lock: a game that is over changes no more, and clicks and refreshes must
        # not wait for a settlement that is being retried.
        try:
            await with_retries(f"settling game {table.game_id}", lambda: self._settle(table))
        except Exception:
            # Chips are never guessed: the game stays unsettled in SQLite and the next start
            # settles it again; the table itself finishes so nobody is stuck at it.
            with i18n.language(table.language):
                table.log.append("⚠️ " + _("The chips of this game could not be recorded yet; they will be."))
        async with table.lock:
            table.status = "finished"
            table.finishing = False
            await self._save_table(table, status="finished", turn_deadline=None)
        await self._post_result(table)
        self.request_refresh(table)

    async def _settle(self, table: Table) -> None:
        outcome = table.state.outcome()
        outcome.check_balanced()
        ga_stake = int(table.options.get("ga_stake", 0))
        chips = outcome.chips(table.stake)
        winners = set(outcome.winners)
        entries = [
            ledger.Entry(seat=r.seat, user_id=table.seats[r.seat].user_id, name=table.seats[r.seat].name,
                         chips=chips[r.seat] + r.ga * ga_stake, ga=r.ga, rank=r.rank, points=r.points,
                         won=r.seat in winners, detail=r.notes, rounds=table.rounds_done() or None)
            for r in outcome.results
        ]
        await ledger.settle(self.db, game_id=table.game_id, guild_id=table.guild_id, game=table.game,
                            entries=entries, outcome=table.state.view(None)["outcome"])

    async def _post_result(self, table: Table) -> None:
        """The result and Rematch reach the table: retried with backoff, and at the next start
        if they never did (the game row remembers the message)."""
        game_id, game_no = table.game_id, table.game_no
        await self._post_round_results(table)  # a match's last round comes before its result
        try:
            message = await with_retries(f"posting the result of game {game_id}",
                                         lambda: self._send_result(table))
        except Exception:
            return
        await self.db.set_result_message(game_id, message.id)
        log.debug("result of table %s game %s posted", table.id, game_no)

    async def _send_result(self, table: Table) -> discord.Message:
        ui = self.ui_of(table)
        outcome = table.state.outcome()
        names = table.names()
        with i18n.language(table.language):
            embed = messages.result_embed(table, ui, outcome, names)
            kwargs: dict[str, Any] = {"embed": embed, "view": messages.table_view(table, rematch=True)}
            rows = ui.result_rows(table.state.view(None), table.raw_names())
            title = _("{game} · table #{table} · game {number}").format(game=ui.game.title, table=table.id,
                                                                         number=table.game_no)
        try:
            png = await _render_rows(rows, title, ui.deck)
        except Exception:
            log.exception("rendering the result of table %s failed; posting it without the image", table.id)
        else:
            embed.set_image(url="attachment://result.png")
            kwargs["file"] = messages.png_file(png, "result.png")
        try:
            return await self._channel(table.play_channel_id).send(**kwargs)
        except (discord.Forbidden, discord.NotFound):
            if table.thread_id is None:
                raise
            # a locked, archived or deleted thread: the result goes to the table's channel
            if "file" in kwargs:
                kwargs["file"].reset()
            return await self._channel(table.channel_id).send(**kwargs)

    async def _settle_leftovers(self) -> None:
        """Settle games that ended but were never settled (a settlement that kept failing)."""
        for row in await self.db.unsettled_games():
            if row["game"] not in self.uis:
                continue
            state = await self.stored_state(row["id"])
            if not state.is_over:
                continue
            seats = [Seat.from_json(s) for s in json.loads(row["seats"])]
            table = Table(id=row["table_id"], guild_id=row["guild_id"], channel_id=0, game=row["game"],
                          options=json.loads(row["table_options"]), host_id=0, status="finished", seats=seats,
                          game_no=row["game_no"], game_id=row["id"], state=state)
            try:
                await self._settle(table)
                log.info("settled game %s, left unsettled before the restart", row["id"])
            except Exception:
                log.exception("game %s still cannot be settled", row["id"])


async def _render_rows(rows: list, title: str, deck: str) -> bytes:
    return await render_rows_async(rows, title=title, deck=deck)
