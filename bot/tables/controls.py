"""Every button and select of every table (and of /admin) goes through one DynamicItem.

Custom ids name the table and the turn, never a card: ``chieu:<kind>:<table>[:<game_no>:<version>]:<key>``.

- ``chieu:lobby:12:join``            lobby buttons (join, leave, ai, start, cancel)
- ``chieu:play:12:1:34:discard``      a move or helper in game 1 of table 12, at version 34
- ``chieu:play:12:1:34:sel``          the card select
- ``chieu:table:12:hand``            public table buttons (hand, back, rematch)
- ``chieu:admin:12:close``           what /admin shows for a table (close, remove, and their
  confirmations; ``chieu:admin:12:remove:<user>`` names the player). Discord does not guard
  buttons: each admin click is checked (bot.permissions) before anything else.
- ``chieu:server:34:season:5:Spring`` an admin button of server 34 about no table (key ``season``,
  then what it carries): answered by the /admin part that showed it, its ``<key>_clicked``
  method, which checks the clicker itself (``Admin.refused``); one naming another server does
  nothing

Because the item is dynamic, the same ids keep working after a restart; anything that does
not parse is answered with a clear refusal instead of Discord's "interaction failed".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

import discord

PREFIX = "chieu"


class ControlHandler(Protocol):
    """What answers the clicks (the table service, found as ``bot.tables``)."""

    async def handle(self, interaction: discord.Interaction, control: "ControlId | None",
                     values: list[str]) -> None: ...


@dataclass(frozen=True)
class ControlId:
    kind: str
    table_id: int
    key: str
    game_no: int | None = None
    version: int | None = None
    target: int | None = None  # an admin control's player (a user id)

    def __str__(self) -> str:
        if self.kind == "play":
            return f"{PREFIX}:play:{self.table_id}:{self.game_no}:{self.version}:{self.key}"
        if self.target is not None:
            return f"{PREFIX}:{self.kind}:{self.table_id}:{self.key}:{self.target}"
        return f"{PREFIX}:{self.kind}:{self.table_id}:{self.key}"


@dataclass(frozen=True)
class AdminId:
    """An admin control of a whole server (about no table): ``chieu:server:<guild>:<key>:<arg>``."""
    guild_id: int
    key: str
    arg: str = ""

    def __str__(self) -> str:
        return f"{PREFIX}:server:{self.guild_id}:{self.key}:{self.arg}"


_PLAY = re.compile(r"play:(\d{1,12}):(\d{1,6}):(\d{1,6}):([a-z0-9_]{1,20})")
_OTHER = re.compile(r"(lobby|table):(\d{1,12}):([a-z0-9_]{1,20})")
_ADMIN = re.compile(r"admin:(\d{1,12}):([a-z_]{1,20})(?::(\d{1,20}))?")
_SERVER = re.compile(r"server:(\d{1,20}):([a-z0-9_]{1,20}):(.{0,70})", re.DOTALL)


def parse(payload: str) -> ControlId | None:
    if match := _PLAY.fullmatch(payload):
        table, game_no, version, key = match.groups()
        return ControlId("play", int(table), key, int(game_no), int(version))
    if match := _OTHER.fullmatch(payload):
        kind, table, key = match.groups()
        return ControlId(kind, int(table), key)
    if match := _ADMIN.fullmatch(payload):
        table, key, target = match.groups()
        return ControlId("admin", int(table), key, target=None if target is None else int(target))
    return None


def parse_admin(payload: str) -> AdminId | None:
    if match := _SERVER.fullmatch(payload):
        guild, key, arg = match.groups()
        return AdminId(int(guild), key, arg)
    return None


class Control(discord.ui.DynamicItem[discord.ui.Item], template=rf"{PREFIX}:(?P<payload>.*)"):
    def __init__(self, item: discord.ui.Item) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str], /):
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> Any:
        service: ControlHandler = interaction.client.tables  # type: ignore[attr-defined]
        payload = self.custom_id.split(":", 1)[1]
        values = list(getattr(self.item, "values", []) or [])
        if payload.startswith("server:"):
            admin = parse_admin(payload)
            cog = interaction.client.get_cog("Admin")  # type: ignore[attr-defined]
            handler = getattr(cog, f"{admin.key}_clicked", None) if admin else None
            if admin is not None and handler is not None and admin.guild_id == interaction.guild_id:
                return await handler(interaction, admin)
            # forged, or shown in another server: refused as any control that does not parse
            return await service.handle(interaction, None, values)
        await service.handle(interaction, parse(payload), values)


def button(control: ControlId | AdminId, label: str, *, style: str = "secondary", enabled: bool = True,
           row: int | None = None, emoji: str | None = None) -> Control:
    return Control(discord.ui.Button(label=label, custom_id=str(control), style=getattr(discord.ButtonStyle, style),
                                     disabled=not enabled, row=row, emoji=emoji))


def select(control: ControlId, *, placeholder: str, options: list[discord.SelectOption], max_values: int,
           row: int = 0) -> Control:
    return Control(discord.ui.Select(custom_id=str(control), placeholder=placeholder, options=options,
                                     min_values=0, max_values=max(1, min(max_values, len(options))), row=row))
