"""``/<game> new``: one slash command per game, built from the game's lobby options.

The limits Discord shows (stake, seats, turn_seconds) are the limits the table enforces:
both come from here and from the config, never from a second copy in a cog.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, Optional

import discord
from discord import app_commands
from discord.ext import commands

from .adapter import GameUI

if TYPE_CHECKING:
    from bot.config import Config

MAX_STAKE = 1_000_000


@dataclass(frozen=True)
class LobbyOption:
    """One option of ``/<game> new``: an int in [low, high], one of ``choices``, or a bool."""

    name: str
    description: str
    kind: type = int
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def annotation(self) -> Any:
        if self.choices:
            return Literal[self.choices]
        if self.kind is int and (self.low is not None or self.high is not None):
            return app_commands.Range[int, self.low, self.high]
        return self.kind


def common_options(ui: GameUI, config: "Config") -> list[LobbyOption]:
    game = ui.game
    return [
        LobbyOption("stake", ui.stake_description, int, 0, MAX_STAKE),
        LobbyOption("seats", f"Seats at the table, {game.min_players}–{game.max_players}", int,
                    game.min_players, game.max_players),
        LobbyOption("turn_seconds", f"Seconds per move before the AI plays for you "
                                    f"({config.min_turn_seconds}–{config.max_turn_seconds})",
                    int, config.min_turn_seconds, config.max_turn_seconds),
    ]


def new_table_command(ui: GameUI, config: "Config", open_lobby: Any) -> app_commands.Group:
    """The ``/<game>`` group with its ``new`` subcommand, which calls ``open_lobby(interaction, game, **options)``."""
    options = [*common_options(ui, config), *ui.lobby_options]

    async def new(interaction: discord.Interaction, **given: Any) -> None:
        await open_lobby(interaction, ui.game.name, **given)

    new.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)]
        + [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Optional[o.annotation()])
           for o in options])
    app_commands.describe(**{o.name: o.description for o in options})(new)
    group = app_commands.Group(name=ui.game.name, description=ui.description or ui.game.title, guild_only=True)
    group.add_command(app_commands.Command(name="new", description=f"Open a {ui.game.title} table in this channel",
                                           callback=new))
    return group


class GameCog(commands.Cog):
    """A game's cog: registers its :class:`GameUI` with the table service and publishes ``/<game> new``.

    Subclasses set ``ui_class``; everything else is shared.
    """

    ui_class: type[GameUI]

    def __init__(self, bot) -> None:
        self.bot = bot
        self.ui = self.ui_class()
        rules = resources.files("bot").joinpath(f"rules/{self.ui.game.name}.md")
        self.ui.rules_text = rules.read_text(encoding="utf-8") if rules.is_file() else ""
        bot.tables.register(self.ui)
        self.group = new_table_command(self.ui, bot.config, bot.tables.open_lobby)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)
