"""``/<game> new``: one slash command per game, built from the game's lobby options.

The limits Discord shows (stake, seats, turn_seconds) are the limits the table enforces:
both come from here and from the config, never from a second copy in a cog.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Optional

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.i18n import C_, N_

from .adapter import GameUI
from bot.ai.levels import LEVELS

if TYPE_CHECKING:
    from bot.config import Config

MAX_STAKE = 1_000_000

#: the names of the options every /<game> new has, marked for the catalogs' "option name"
#: context (each game marks its own options' names where it declares them)
OPTION_NAMES = (C_("option name", "stake"), C_("option name", "seats"), C_("option name", "turn_seconds"),
                C_("option name", "language"), C_("option name", "ai"))


@dataclass(frozen=True)
class LobbyOption:
    """One option of ``/<game> new``: an int in [low, high], one of ``choices``, or a bool.

    ``name`` (a Python identifier, localized by the catalogs in the "option name" context),
    ``description`` and ``label`` (how the lobby names the option) are English msgids, marked
    for extraction where they are written. ``choice_names`` shows a choice other than by its
    value (translated in the "choice" context unless it is a language's own name).
    """

    name: str
    description: str
    kind: type = int
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    label: str = ""
    choice_names: tuple[tuple[str, str], ...] = ()

    def annotation(self) -> Any:
        if self.choices:
            return str  # the choices are given to discord.py with app_commands.choices
        if self.kind is int and (self.low is not None or self.high is not None):
            return app_commands.Range[int, self.low, self.high]
        return self.kind

    def choice_name(self, value: str) -> str:
        return dict(self.choice_names).get(value, value)

    def app_choices(self) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=self.choice_name(value), value=value) for value in self.choices]


LANGUAGE = LobbyOption("language", N_("The language of the lobby and table messages (default: yours)"),
                       choices=tuple(i18n.LANGUAGES), label=N_("language"),
                       choice_names=tuple(i18n.LANGUAGES.items()))


#: how well the AI seats play (:mod:`bot.ai.levels`); the server's default, else the config's
AI_LEVEL = LobbyOption("ai", N_("How well the AI seats play (default: the server's, else normal)"),
                       choices=LEVELS, label=N_("AI"),
                       choice_names=(("easy", C_("choice", "easy")), ("normal", C_("choice", "normal"))))


def common_options(ui: GameUI, config: "Config") -> list[LobbyOption]:
    game = ui.game
    return [
        LobbyOption("stake", ui.stake_description, int, 0, MAX_STAKE, label=N_("stake")),
        LobbyOption("seats", N_("Seats at the table"), int, game.min_players, game.max_players, label=N_("seats")),
        LobbyOption("turn_seconds", N_("Seconds per move before the AI plays for you"), int,
                    config.min_turn_seconds, config.max_turn_seconds, label=N_("seconds per move")),
        LANGUAGE,
        AI_LEVEL,
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
    app_commands.choices(**{o.name: o.app_choices() for o in options if o.choices})(new)
    group = app_commands.Group(name=ui.game.name, description=ui.description or ui.game.title, guild_only=True)
    group.add_command(app_commands.Command(name=C_("command name", "new"), description=ui.new_description,
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
        rules = resources.files("bot").joinpath("rules")
        english = rules.joinpath(f"{self.ui.game.name}.md")
        self.ui.rules_text = english.read_text(encoding="utf-8") if english.is_file() else ""
        self.ui.rules_texts = {lang: text.read_text(encoding="utf-8") for lang in i18n.LANGUAGES
                               if (text := rules.joinpath(f"{self.ui.game.name}.{lang}.md")).is_file()}
        bot.tables.register(self.ui)
        self.group = new_table_command(self.ui, bot.config, bot.tables.open_lobby)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)
