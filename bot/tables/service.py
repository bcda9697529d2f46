"""The table service: lobbies, turns, timers, AI seats, DMs and persistence for every game.

Every state change happens under the table's lock and is written to SQLite before anyone is
answered; everything shown on Discord is derived from the engine state afterwards. The service
is assembled from its parts: :mod:`.lobby`, :mod:`.play`, :mod:`.ending` on :mod:`.core`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import discord

from . import messages
from bot import i18n
from bot.i18n import _

from .controls import ControlId
from .core import Refused, now
from .ending import EndFlow
from .lobby import LobbyFlow
from .model import HandMessage, Seat, Table
from .play import PlayFlow

__all__ = ["Refused", "TableService", "now"]

# A finished table is rebuilt after a restart (so Rematch still works) for this long.
REMATCH_WINDOW = timedelta(days=1)


class TableService(LobbyFlow, PlayFlow, EndFlow):
    """Every table of the bot: Discord events in, engine actions applied, messages out."""

    async def handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str]) -> None:
        # what the clicker is told privately speaks his language; what the table shows, the
        # table's; his DMs, his own
        with i18n.language(await self.language_of(interaction)):
            try:
                if control is None:
                    raise Refused(_("That control is not valid."))
                table = self.tables.get(control.table_id)
                if table is None:
                    raise Refused(_("This table is closed."))
                if control.kind == "lobby":
                    await self._lobby_click(interaction, table, control.key)
                elif control.kind == "table":
                    await self._table_click(interaction, table, control.key)
                else:
                    await self._play_click(interaction, table, control, values)
            except Refused as refusal:
                await self.reply(interaction, str(refusal))

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
            payload = await messages.hand_payload(table, self.ui_of(table), seat)
            await interaction.response.send_message(content=payload["content"], file=messages.png_file(payload["png"]),
                                                    view=payload["view"], ephemeral=True)
        elif key == "back":
            async with table.lock:
                if not table.seats[seat].away:
                    raise Refused(_("You are not marked away."))
                table.seats[seat].away = False
                table.timeouts[seat] = 0
                self._start_turn(table)
                await self._save_table(table, seats=table.seats_json(), timeouts=table.timeouts,
                                       turn_deadline=table.deadline)
                self._schedule(table)
            await self.reply(interaction, _("Welcome back! You play your own seat again."))
            self.request_refresh(table)
        else:
            raise Refused(_("That control is not valid."))

    async def restore(self) -> None:
        """Rebuild every open table from the database after a (re)start."""
        since = (datetime.now(timezone.utc) - REMATCH_WINDOW).isoformat(timespec="seconds")
        for row in await self.db.open_tables(finished_since=since):
            if row["game"] not in self.uis:
                continue
            table = Table(id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], game=row["game"],
                          options=json.loads(row["options"]), host_id=row["host_id"], status=row["status"],
                          seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                          guild_name=row["guild_name"],
                          thread_id=row["thread_id"], lobby_message_id=row["lobby_message_id"],
                          table_message_id=row["table_message_id"], lobby_expires_at=row["lobby_expires_at"],
                          deadline=row["turn_deadline"], pause_until=row["pause_until"],
                          rounds_posted=row["rounds_posted"],
                          timeouts={int(seat): count for seat, count in json.loads(row["timeouts"]).items()})
            self.tables[table.id] = table
            if table.status == "lobby":
                if table.lobby_expires_at is None:
                    table.lobby_expires_at = now() + self.config.lobby_timeout_seconds
                self._arm_lobby_expiry(table)
                continue
            game = await self.db.current_game(table.id, table.game_no)
            table.game_id = game["id"]
            await self._reload_state(table)
            if table.status == "finished":
                # kept for its Rematch button (which needs the winner); its result is posted
                # now if it never reached the table
                if game["result_message_id"] is None:
                    self._spawn(self._post_result(table), f"result-{table.id}")  # round results first
                elif table.rounds_posted < table.rounds_done():
                    self._spawn(self._post_round_results(table), f"round-{table.id}")
                continue
            with i18n.language(table.language):
                table.log.append("♻️ " + _("The bot restarted; the game goes on."))
            moved = await self.db.last_turn_deadline(table.game_id)
            if moved is not None:
                # deadlines only grow: the later of the last move's and the table's (set at the
                # deal and by I'm back) is the turn in progress
                table.deadline = max(moved, table.deadline or 0.0)
            for seat, (channel_id, message_id) in (await self.db.hand_messages(table.game_id)).items():
                table.hand_messages[seat] = HandMessage(channel_id, message_id)
            if table.state.is_over:
                self._spawn(self._finish(table), f"finish-{table.id}")
            else:
                if table.rounds_posted < table.rounds_done():
                    self._spawn(self._post_round_results(table), f"round-{table.id}")
                if table.deadline is None:
                    self._start_turn(table)
                self._schedule(table)  # the restored timer fires when the original would have
            self.request_refresh(table)
        await self._settle_leftovers()
