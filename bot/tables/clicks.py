"""A click on one of the tables' controls, from Discord to the part it is for: the lobby, the
table message, a hand, an admin's. With several processes, a click on a table another process
drives goes to that process (:mod:`.driving`) and is applied there."""

from __future__ import annotations

import time
from typing import Any

import discord

from bot import i18n
from bot.backends import database_failure
from bot.i18n import _

from .admin import Admin
from .controls import ControlId
from .core import Core, Refused, answer_privately, database_away, log
from .driving import ROUTED, Driving
from .hands import Hands
from .lobby import Lobby
from .model import Table
from .people import People
from .play import Play
from .showing import Showing


class Clicks:
    """Every click on a table's controls: checked, routed to the table's driver, applied."""

    def __init__(self, core: Core, people: People, driving: Driving, lobby: Lobby, showing: Showing, play: Play,
                 hands: Hands, admin: Admin, metrics: Any = None) -> None:
        self.core = core
        self.people = people
        self.driving = driving
        self.lobby = lobby
        self.showing = showing
        self.play = play
        self.hands = hands
        self.admin = admin
        self.metrics = metrics  # bot.metrics.Metrics when the operator turned them on

    async def handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                     *, routed: bool = False) -> None:
        """A click on one of the tables' controls. With several processes, a click on a table
        another process drives is routed to it (``routed``: this is such a click, arrived)."""
        if self.metrics is None or routed:  # (a routed click is counted where Discord delivered it)
            with self.core.in_time(interaction):
                return await self._answer(interaction, control, values, routed=routed)
        started = time.perf_counter()
        try:
            with self.core.in_time(interaction):
                await self._answer(interaction, control, values, routed=routed)
        finally:
            table = self.core.tables.get(control.table_id) if control is not None else None
            self.metrics.clicked(table.game if table is not None else "other",
                                 control.kind if control is not None else "invalid", time.perf_counter() - started)

    async def _answer(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                      *, routed: bool) -> None:
        # what the clicker is told privately speaks his language; what the table shows, the
        # table's; his DMs, his own
        with i18n.language(await self.people.language_of(interaction)):
            try:
                await self._dispatch(interaction, control, values, routed=routed)
            except Refused as refusal:
                await answer_privately(interaction, str(refusal))
            except discord.HTTPException:
                # answering failed (Discord refused or timed out): what the click changed is
                # saved, and the outbox shows it
                log.warning("answering a click failed", exc_info=True)
            except Exception as exc:
                if not database_failure(exc):
                    raise
                await database_away(interaction, exc)

    async def _dispatch(self, interaction: discord.Interaction, control: ControlId | None, values: list[str],
                        *, routed: bool) -> None:
        if control is None:
            raise Refused(_("That control is not valid."))
        # an admin's click is checked where it arrives (Discord guards no button), before it goes
        # to the table's driver; a confirmation it asks for is answered right here
        if control.kind == "admin" and not routed and await self.admin.precheck(interaction, control):
            return
        leases = self.core.leases
        table = self.core.tables.get(control.table_id)
        if table is None and leases.enabled:
            if routed:  # it left this process on the way: closed (say so), or driven elsewhere now
                if not await self.driving.is_open(control.table_id):
                    raise Refused(_("This table is closed."))
                raise Refused(_("That could not be saved, so nothing changed. Please try again."))
            found = await self.driving.find_driver(interaction, control.table_id)
            if found is ROUTED:
                return
            table = found
        if table is None:
            raise Refused(_("This table is closed."))
        if leases.enabled and not routed:
            table = await self.driving.first_delivery(interaction, table)
            if table is None:
                return
        if control.kind == "lobby":
            await self.lobby.click(interaction, table, control.key, values)
        elif control.kind == "table":
            await self.table_click(interaction, table, control.key)
        elif control.kind == "admin":
            await self.admin.click(interaction, table, control)
        else:
            await self.hands.click(interaction, table, control, values)

    async def table_click(self, interaction: discord.Interaction, table: Table, key: str) -> None:
        """A click on the table message (**My hand**, **I'm back**), a round's result (**Next
        round**) or a game's (**Rematch**)."""
        seat = table.seat_of(interaction.user.id)
        if key == "rematch":
            return await self.lobby.rematch(interaction, table)
        if seat is None:
            raise Refused(_("You are not playing at this table."))
        if table.status != "playing":
            raise Refused(_("This game is over."))
        if key == "next":
            await self.play.ready_for_next_round(interaction, table, seat)
        elif key == "hand":
            await self.showing.show_my_hand(interaction, table, seat)
        elif key == "back":
            await self.play.back(interaction, table, seat)
        else:
            raise Refused(_("That control is not valid."))
