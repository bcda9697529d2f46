"""/admin settings: a server's defaults for its new tables, the games it allows, where its
tables play and its game-master role (:mod:`bot.tables.server_settings`). Without options it shows
them all; with some, it changes only those, logs the change, and shows them all again.

A mixin of the /admin group (cogs/admin.py): it uses the cog's ``bot`` and ``refused``."""

from __future__ import annotations

import json
from typing import Any, Optional

import discord
from discord import app_commands

from bot import i18n
from bot.backends import database_failure
from bot.games import REGISTRY
from bot.i18n import C_, N_, _, ngettext, pgettext
from bot.permissions import is_server_admin
from bot.tables.server_settings import MAX_TABLES, SHOWN, server_defaults
from bot.tables.adapter import chips
from bot.tables.commands import AI_LEVEL, MAX_STAKE
from bot.tables.messages import COLOUR, option_value

NAMES = (C_("command name", "settings"), C_("option name", "max_tables"), C_("option name", "enable"),
         C_("option name", "disable"), C_("option name", "tables_in"), C_("option name", "gm_role"),
         C_("option name", "reset"), C_("option name", "ai_level"))
#: what each setting is called, in the list and as a choice of ``reset``
LABELS = {"language": C_("choice", "Table language"), "stake": C_("choice", "Stake"),
          "turn_seconds": C_("choice", "Seconds per move"), "max_tables": C_("choice", "Open tables per channel"),
          "disabled_games": C_("choice", "Games allowed"), "threads": C_("choice", "Where tables play"),
          "gm_role": C_("choice", "Game-master role"), "ai_level": C_("choice", "AI level")}
#: where tables play (``tables_in``): the choice -> the stored ``threads``
PLACES = {"threads": C_("choice", "A thread of their own"), "channel": C_("choice", "The channel itself")}
GAMES = [app_commands.Choice(name=game.title, value=name) for name, game in REGISTRY.items()]


def shown_value(key: str, server, settings: dict[str, Any]) -> str:
    """A setting's value as the list shows it (the current language)."""
    if key == "language":
        return i18n.LANGUAGES[server.language] if server.language else _("each table's host's")
    if key == "stake":
        return chips(server.stake)
    if key == "turn_seconds":
        return ngettext("{n} second", "{n} seconds", server.turn_seconds).format(n=server.turn_seconds)
    if key == "max_tables":
        return i18n.number(server.max_tables)
    if key == "disabled_games":
        allowed = [game.title for name, game in REGISTRY.items() if name not in server.disabled_games]
        off = [game.title for name, game in REGISTRY.items() if name in server.disabled_games]
        text = ", ".join(allowed) or _("none")
        return text + (" · " + _("turned off: {games}").format(games=", ".join(off)) if off else "")
    if key == "threads":
        return _("in a thread of their own") if server.threads else _("in the channel itself")
    if key == "gm_role":
        return f"<@&{server.gm_role}>" if server.gm_role else _("none")
    if key == "ai_level":
        return option_value(AI_LEVEL, server.ai_level)
    raise KeyError(key)


def settings_embed(settings: dict[str, Any], config) -> discord.Embed:
    """Every setting of the server, and whether the server set it or it is the default."""
    server = server_defaults(settings, config)
    lines = []
    for key in SHOWN:
        label, value = pgettext("choice", LABELS[key]), shown_value(key, server, settings)
        if key in settings and (key != "disabled_games" or settings[key]):
            lines.append(_("{setting}: **{value}**").format(setting=label, value=value))
        else:
            lines.append(_("{setting}: **{value}** (default)").format(setting=label, value=value))
    embed = discord.Embed(title=_("Server settings"), colour=COLOUR, description="\n".join(lines))
    command = "/{} {}".format(pgettext("command name", "admin"), pgettext("command name", "settings"))
    embed.set_footer(text=_("Change them with the options of {command}. A table's own options still win.").format(
        command=command))
    return embed


class SettingsCommands:
    """``/admin settings``, mixed into the /admin group."""

    @app_commands.command(name="settings", description=N_("Defaults for new tables, allowed games, game-master role "
                                                           "(no option: show them)"))
    @app_commands.describe(
        language=N_("The language of new tables (default: their host's)"),
        stake=N_("The stake of new tables"),
        turn_seconds=N_("Seconds per move of new tables"),
        max_tables=N_("Open tables allowed in one channel"),
        enable=N_("A game that may be opened here again"),
        disable=N_("A game that may not be opened here"),
        tables_in=N_("Whether new tables play in a thread of their own or in the channel itself"),
        gm_role=N_("The game-master role: its members administer the bot too (only admins may change it)"),
        reset=N_("A setting back to its default (the game-master role: none)"),
        ai_level=N_("How well the AI seats of new tables play"))
    @app_commands.choices(
        language=[app_commands.Choice(name=name, value=code) for code, name in i18n.LANGUAGES.items()],
        enable=GAMES, disable=GAMES,
        tables_in=[app_commands.Choice(name=name, value=value) for value, name in PLACES.items()],
        reset=[app_commands.Choice(name=LABELS[key], value=key) for key in SHOWN],
        ai_level=AI_LEVEL.app_choices())
    async def settings(self, interaction: discord.Interaction, language: Optional[str] = None,
                       stake: Optional[app_commands.Range[int, 0, MAX_STAKE]] = None,
                       turn_seconds: Optional[int] = None,
                       max_tables: Optional[app_commands.Range[int, 1, MAX_TABLES]] = None,
                       enable: Optional[str] = None, disable: Optional[str] = None, tables_in: Optional[str] = None,
                       gm_role: Optional[discord.Role] = None, reset: Optional[str] = None,
                       ai_level: Optional[str] = None) -> None:
        if await self.refused(interaction):
            return
        bot = self.bot
        with i18n.language(await bot.tables.language_of(interaction)):
            try:
                before = await bot.db.server_settings(interaction.guild_id)
                given = dict(language=language, stake=stake, turn_seconds=turn_seconds, max_tables=max_tables,
                             enable=enable, disable=disable, tables_in=tables_in, gm_role=gm_role, reset=reset,
                             ai_level=ai_level)
                problem = self.settings_problem(interaction, given)
                if problem:
                    return await interaction.response.send_message(problem, ephemeral=True)
                after, change = changed_settings(before, given)
                if after != before:
                    await bot.db.save_server_settings(interaction.guild_id, after)
                    await bot.db.log_admin_action(interaction.guild_id, interaction.user.id, "settings",
                                                  detail=json.dumps(change))
            except Exception as exc:
                if not database_failure(exc):
                    raise
                return await bot.tables.database_away(interaction, exc)
            text = _("Saved: {changes}.").format(changes=change_text(change, bot.config)) if after != before \
                else None
            await interaction.response.send_message(text, embed=settings_embed(after, bot.config), ephemeral=True,
                                                    allowed_mentions=discord.AllowedMentions.none())

    def settings_problem(self, interaction: discord.Interaction, given: dict[str, Any]) -> str | None:
        """Why the options given cannot be saved (nothing is saved then), or None."""
        config = self.bot.config
        seconds = given["turn_seconds"]
        if seconds is not None and not config.min_turn_seconds <= seconds <= config.max_turn_seconds:
            return _("`{option}` must be {low}–{high}.").format(option=pgettext("option name", "turn_seconds"),
                                                                 low=config.min_turn_seconds,
                                                                 high=config.max_turn_seconds)
        level = given.get("ai_level")
        if level is not None and level not in AI_LEVEL.choices:  # (a client may send anything)
            return _("`{option}` must be one of {values}.").format(option=pgettext("option name", "ai_level"),
                                                                    values=", ".join(AI_LEVEL.choices))
        if not config.threads_allowed and (given["tables_in"] == "threads" or given["reset"] == "threads"):
            return _("Tables play in the channel here: this page shows one channel and no thread, so a table "
                     "in a thread of its own could not be seen or played. Nothing changed.")
        if given["enable"] is not None and given["enable"] == given["disable"]:
            return _("A game cannot be enabled and disabled at once.")
        role = given["gm_role"]
        if (role is not None or given["reset"] == "gm_role") and not is_server_admin(interaction):
            # a game master may not hand his powers on, nor take them from the others
            return _("Only this server's admins (Manage Server) may change the game-master role.")
        if role is not None and role.is_default():
            return _("@everyone cannot be the game-master role: that would let every member administer the bot.")
        return None


def changed_settings(before: dict[str, Any], given: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The settings after the options given (a reset first, then the values), and what changed,
    for the admin log: the settings reset and the new values of those set (stored keys), which
    :func:`change_text` words as the settings list does, in the reader's language."""
    after = dict(before)
    reset, changed = [], []
    if given["reset"] is not None:
        after.pop(given["reset"], None)
        reset.append(given["reset"])
    for key in ("language", "stake", "turn_seconds", "max_tables", "ai_level"):
        if given.get(key) is not None:
            after[key] = given[key]
            changed.append(key)
    disabled = set(after.get("disabled_games") or ())
    if given["enable"] is not None:
        disabled.discard(given["enable"])
    if given["disable"] is not None:
        disabled.add(given["disable"])
    if given["enable"] is not None or given["disable"] is not None:
        after["disabled_games"] = sorted(disabled)
        changed.append("disabled_games")
        if not disabled:
            del after["disabled_games"]
    if given["tables_in"] is not None:
        after["threads"] = given["tables_in"] == "threads"
        changed.append("threads")
    if given["gm_role"] is not None:
        after["gm_role"] = given["gm_role"].id
        changed.append("gm_role")
    return after, {"reset": reset, "set": {key: after.get(key) for key in changed}}


def change_text(change: dict[str, Any], config) -> str:
    """What an admin changed, in the words of the settings list ("Where tables play: in the
    channel itself", "Table language back to its default"), in the current language."""
    values = {key: value for key, value in change["set"].items() if value is not None}
    server = server_defaults(values, config)
    parts = [_("{setting} back to its default").format(setting=pgettext("choice", LABELS[key]))
             for key in change["reset"] if key in LABELS]
    parts += [_("{setting}: {value}").format(setting=pgettext("choice", LABELS[key]),
                                             value=shown_value(key, server, values))
              for key in change["set"] if key in LABELS]
    return "; ".join(parts)
