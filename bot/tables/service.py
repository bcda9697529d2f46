"""The table service: lobbies, turns, timers, AI seats, DMs and persistence for every game.

Every state change happens under the table's lock and is written to the database before anyone
is answered; everything shown on Discord is derived from the engine state afterwards. The
service is assembled here from its parts, each built from the parts it uses:

- :mod:`.core`: the tables this process drives, their tasks and outboxes, the writes fenced by
  their leases; :mod:`.people`: each person's language and turn notifications;
- :mod:`.notices`, :mod:`.results`, :mod:`.showing`: what a table shows (notices, round
  results and results, the lobby, the table message and the hands);
- :mod:`.ending`: settlement; :mod:`.play`: moves, timers and AI seats (the pure turn
  questions are :mod:`.turns`'); :mod:`.hands`: clicks on a hand;
- :mod:`.lobby`, :mod:`.admin`: lobbies and deals, admins' closes and removals;
- :mod:`.restoring`: tables rebuilt from the database; :mod:`.driving`: leases, routing and
  adoption among several processes; :mod:`.clicks`: every click, to the part it is for.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.backends import Row
from bot.config import Config
from bot.db import Database

from .adapter import GameUI
from .admin import Admin
from .clicks import Clicks
from .controls import ControlId
from .core import Core, Refused, database_away, now
from .driving import Driving
from .ending import Ending
from .gauges import Gauges, gauges
from .hands import Hands
from .lobby import Lobby
from .model import Table
from .notices import Notices
from .people import People
from .play import Play
from .restoring import REMATCH_WINDOW, Restoring
from .results import Results
from .showing import Showing

__all__ = ["REMATCH_WINDOW", "Refused", "TableService", "now"]


class TableService:
    """Every table of the bot: Discord events in, engine actions applied, messages out. What the
    app, the cogs and the operator's metrics hold of it is below; its parts are attributes."""

    def __init__(self, bot: Any, db: Database) -> None:
        config: Config = bot.config
        self.core = core = Core(bot, db, config)
        self.people = people = People(db)
        self.notices = notices = Notices(core, people)
        self.results = results = Results(core)
        # a hand (or the table message with My hand) that reaches its player starts his turn
        self.showing = showing = Showing(core, people, notices, visible=self._now_visible)
        self.ending = ending = Ending(core, showing, results)
        self.play = play = Play(core, showing, notices, results, ending)
        self.hands = hands = Hands(core, play)
        self.lobby = lobby = Lobby(core, people, showing, notices, play)
        self.admin = admin = Admin(core, people, showing, notices, results, play)
        self.restoring = restoring = Restoring(core, showing, notices, results, lobby, play, ending)
        # a click another process routed here is applied as one this process received
        self.driving = driving = Driving(core, restoring, apply_click=self._apply_routed)
        self.clicks = Clicks(core, people, driving, lobby, showing, play, hands, admin,
                             metrics=getattr(bot, "metrics", None))
        # what every part shares, as the app and the cogs read it
        self.bot, self.db = bot, db
        self.uis, self.tables = core.uis, core.tables
        self.leases, self.budget, self.unsettled = core.leases, core.budget, core.unsettled

    async def _now_visible(self, table: Table, seat: int | None) -> None:
        await self.play.now_visible(table, seat)

    async def _apply_routed(self, interaction: discord.Interaction, control: ControlId | None,
                            values: list[str]) -> None:
        await self.clicks.handle(interaction, control, values, routed=True)

    @property
    def config(self) -> Config:
        return self.core.config

    @config.setter
    def config(self, config: Config) -> None:
        """Another configuration from now on (a test's)."""
        self.core.config = config

    # ---- the games, and the clicks and commands of their tables
    def register(self, ui: GameUI) -> None:
        self.core.register(ui)

    def ui_of(self, table: Table) -> GameUI:
        return self.core.ui_of(table)

    async def handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str]) -> None:
        """A click on one of the tables' controls (:class:`bot.app.Control`)."""
        await self.clicks.handle(interaction, control, values)

    async def open_lobby(self, interaction: discord.Interaction, game: str, **given: Any) -> None:
        """``/<game> new``: ``given`` holds the command's options, None where not given."""
        await self.lobby.open_lobby(interaction, game, **given)

    def describe_row(self, row: Row) -> str:
        """One stored open table in a line (``/admin tables``)."""
        return self.admin.describe_row(row)

    def remember_listing(self, interaction: discord.Interaction, buttons: list[tuple[int, str]]) -> None:
        """An admin's ``/admin tables`` answer, whose **Close #N** greys once table N is closed."""
        self.admin.remember_listing(interaction, buttons)

    # ---- people
    async def language_of(self, interaction: discord.Interaction) -> str:
        return await self.people.language_of(interaction)

    async def remember_language(self, user_id: int, language: str, *, chosen: bool) -> None:
        await self.people.remember_language(user_id, language, chosen=chosen)

    async def set_notify_mode(self, user_id: int, mode: str, language: str) -> None:
        await self.people.set_notify_mode(user_id, mode, language)

    @staticmethod
    async def database_away(interaction: discord.Interaction, exc: BaseException) -> None:
        """An interaction the database failed: nothing changed, and the person is told so."""
        await database_away(interaction, exc)

    # ---- starting and stopping
    async def restore(self) -> None:
        """Rebuild every open table from the database after a (re)start; with several
        processes, then start renewing this one's leases, adopting orphaned tables and hearing
        routed clicks; NameInUse if another live process has this one's name."""
        await self.leases.refuse_a_shared_name()  # (NameInUse: the process must not start)
        await self.restoring.restore()
        await self.driving.start()

    async def close(self) -> None:
        """A clean stop: the loops end, every table's timers and outbox stop, and the leases
        are given up so that other processes adopt the tables at once."""
        await self.driving.stop()
        await self.core.close()
        await self.driving.release_leases()

    # ---- what the service tells of itself
    def driven_count(self) -> int:
        """Tables in a lobby or a game that this process drives."""
        return self.driving.driven_count()

    def gauges(self) -> Gauges:
        """Its tables, outboxes, REST budget, pending settlements and leases, read now."""
        return gauges(self.core)
