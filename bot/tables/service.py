"""The table service: lobbies, turns, timers, AI seats, DMs and persistence for every game.

Every state change happens under the table's lock and is written to SQLite before anyone is
answered; everything shown on Discord is derived from the engine state afterwards. The service
is assembled from its parts: :mod:`.lobby`, :mod:`.play`, :mod:`.ending` on :mod:`.core`.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import discord

from . import messages
from bot import i18n
from bot.backends import database_failure
from bot.i18n import _

from .admin import AdminFlow
from .controls import ControlId
from .core import Refused, log, now
from .driving import REMATCH_WINDOW, ROUTED, DriveFlow
from .ending import EndFlow
from .lobby import LobbyFlow
from .model import Seat, Table
from .play import PlayFlow

__all__ = ["REMATCH_WINDOW", "Refused", "TableService", "now"]


class TableService(LobbyFlow, PlayFlow, EndFlow, DriveFlow, AdminFlow):
    """Every table of the bot: Discord events in, engine actions applied, messages out."""

    async def handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                     *, routed: bool = False) -> None:
        """A click on one of the tables' controls. With several processes, a click on a table
        another process drives is routed to it (``routed``: this is such a click, arrived)."""
        if self.metrics is None or routed:  # (a routed click is counted where Discord delivered it)
            return await self._answer(interaction, control, values, routed=routed)
        started = time.perf_counter()
        try:
            await self._answer(interaction, control, values, routed=routed)
        finally:
            table = self.tables.get(control.table_id) if control is not None else None
            self.metrics.clicked(table.game if table is not None else "other",
                                 control.kind if control is not None else "invalid", time.perf_counter() - started)

    async def _answer(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                      *, routed: bool) -> None:
        # what the clicker is told privately speaks his language; what the table shows, the
        # table's; his DMs, his own
        with i18n.language(await self.language_of(interaction)):
            try:
                await self._handle(interaction, control, values, routed=routed)
            except Refused as refusal:
                await self.answer_privately(interaction, str(refusal))
            except discord.HTTPException:
                # answering failed (Discord refused or timed out): what the click changed is
                # saved, and the outbox shows it
                log.warning("answering a click failed", exc_info=True)
            except Exception as exc:
                if not database_failure(exc):
                    raise
                await self.database_away(interaction, exc)

    async def _handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                      *, routed: bool) -> None:
        if control is None:
            raise Refused(_("That control is not valid."))
        # an admin's click is checked where it arrives (Discord guards no button), before it goes
        # to the table's driver; a confirmation it asks for is answered right here
        if control.kind == "admin" and not routed and await self._admin_precheck(interaction, control):
            return
        table = self.tables.get(control.table_id)
        if table is None and self.leases.enabled:
            if routed:  # it left this process on the way
                raise Refused(_("That could not be saved, so nothing changed. Please try again."))
            table = await self.find_driver(interaction, control.table_id)
            if table is ROUTED:
                return
        if table is None:
            raise Refused(_("This table is closed."))
        if self.leases.enabled and not routed:
            table = await self._first_delivery(interaction, table)
            if table is None:
                return
        if control.kind == "lobby":
            await self._lobby_click(interaction, table, control.key)
        elif control.kind == "table":
            await self._table_click(interaction, table, control.key)
        elif control.kind == "admin":
            await self._admin_click(interaction, table, control)
        else:
            await self._play_click(interaction, table, control, values)

    async def _table_click(self, interaction: discord.Interaction, table: Table, key: str) -> None:
        seat = table.seat_of(interaction.user.id)
        if key == "rematch":
            return await self._rematch(interaction, table)
        if seat is None:
            raise Refused(_("You are not playing at this table."))
        if table.status != "playing":
            raise Refused(_("This game is over."))
        if key == "next":
            return await self.ready_for_next_round(interaction, table, seat)
        if key == "hand":
            table.clicked_at[seat] = self.presenter(table).now()
            ui = self.ui_of(table)
            shown = messages.hand_shown(table, ui, seat)
            png = await messages.render_hand(shown.image, ui.deck)
            # (only the click's own response is its "original": a followup after a deferred
            # click is not, and editing the original would then edit the table message)
            own = not interaction.response.is_done()
            message = await self.respond(interaction, content=shown.content, file=messages.png_file(png),
                                         view=shown.view, ephemeral=True)
            if own:
                self._show_private_hand(table, seat, interaction, message, shown)
        elif key == "back":
            async with table.lock:
                if not table.seats[seat].away:
                    raise Refused(_("You are not marked away."))
                seats = table.seats_json()
                seats[seat]["away"] = False
                deadline = now() + table.turn_seconds
                try:
                    await self._save_table(table, seats=seats, timeouts={**table.timeouts, seat: 0},
                                           turn_deadline=deadline)
                except Exception:
                    log.exception("table %s: I'm back could not be saved", table.id)
                    raise Refused(_("That could not be saved, so nothing changed. Please try again."))
                table.seats[seat].away = False
                table.timeouts[seat] = 0
                table.deadline = deadline
                self._schedule(table)
            await self.reply(interaction, _("Welcome back! You play your own seat again."))
            self.request_refresh(table)
        else:
            raise Refused(_("That control is not valid."))

    async def restore(self) -> None:
        """Rebuild every open table from the database after a (re)start; its outbox shows again
        whatever is not known to have reached Discord. With several processes, only the tables
        no live process drives (each is taken by one), and this process starts renewing its
        leases, adopting orphaned tables and hearing routed clicks."""
        since = (datetime.now(timezone.utc) - REMATCH_WINDOW).isoformat(timespec="seconds")
        for row in await self.db.open_tables(finished_since=since):
            if row["game"] not in self.uis or not await self.leases.take(row["id"]):
                continue
            try:
                await self.restore_table(row)
            except Exception:
                # One table whose record this engine no longer replays (a rule changed under a
                # live game) must not keep every other table from coming back: it stays as it
                # is in the database, for the operator, and this process does not drive it (its
                # lease, forgotten, runs out: another process may try, as after a failed adoption).
                log.exception("table %s could not be rebuilt; the other tables go on", row["id"])
        await self._settle_leftovers()
        await self.start_driving()

    async def restore_table(self, row) -> Table:
        """Rebuild one table from its row (this process holds its lease): its game replayed
        from the record, its timers armed from the stored deadlines, its messages shown again
        where they must be; it is this process's to drive once rebuilt."""
        table = Table(id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], game=row["game"],
                      options=json.loads(row["options"]), host_id=row["host_id"], status=row["status"],
                      seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                      guild_name=row["guild_name"],
                      thread_id=row["thread_id"], lobby_message_id=row["lobby_message_id"],
                      table_message_id=row["table_message_id"], lobby_expires_at=row["lobby_expires_at"],
                      deadline=row["turn_deadline"], pause_until=row["pause_until"],
                      timeouts={int(seat): count for seat, count in json.loads(row["timeouts"]).items()})
        try:
            if table.status == "lobby":
                if table.lobby_expires_at is None:
                    table.lobby_expires_at = now() + self.config.lobby_timeout_seconds
                self._arm_lobby_expiry(table)
                self._show_lobby(table, table.play_channel_id if table.game_no else table.channel_id,
                                 table.lobby_message_id)
            else:
                await self._restore_game(table)
            await self._restore_results(table)
        except BaseException:
            self._stop_driving(table, "rebuilding it failed")  # whatever it had started stops
            raise
        self.tables[table.id] = table
        return table

    async def _restore_game(self, table: Table) -> None:
        game = await self.db.current_game(table.id, table.game_no)
        table.game_id = game["id"]
        await self._reload_state(table)
        table.rounds_shown = table.rounds_done()  # those not posted yet are found by _restore_results
        await self._restore_notices(table)
        if table.status == "finished":
            return  # kept for its Rematch button (which needs the winner)
        with i18n.language(table.language):
            table.log.append("♻️ " + _("The bot restarted; the game goes on."))
        moved = await self.db.last_turn_deadline(table.game_id)
        if moved is not None:
            # deadlines only grow: the later of the last move's and the table's (set at the
            # deal and by I'm back) is the turn in progress
            table.deadline = max(moved, table.deadline or 0.0)
        self._show_table(table, table.table_message_id)
        hands = await self.db.hand_messages(table.game_id)
        for seat, player in enumerate(table.seats):
            if not player.is_ai and not self.config.hands_by_dm:
                table.dm_closed.add(seat)  # he plays through My hand, as at the deal
            elif not player.is_ai:
                channel_id, message_id = hands.get(seat, (None, None))
                self._show_hand(table, seat, channel_id=channel_id, message_id=message_id)
        if table.state.is_over:
            self._spawn(self._finish(table), f"finish-{table.id}", table)
        else:
            if table.deadline is None:
                self._start_turn(table)
            self._schedule(table)  # the restored timer fires when the original would have

    async def _restore_results(self, table: Table) -> None:
        """Round results and results of this table's games that never reached Discord."""
        for game in await self.db.games_to_show(table.id):
            playing = game["id"] == table.game_id and table.status == "playing"
            state = table.state if game["id"] == table.game_id else await self.stored_state(game["id"])
            if state is None:
                continue
            rounds = len(getattr(state, "round_results", ()) or ())
            self._show_rounds_since(table, game["id"], game["rounds_posted"], rounds)
            if state.is_over and not playing:
                self._show_result(table, game["id"], rounds)
