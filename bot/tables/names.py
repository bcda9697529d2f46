"""Names people chose, written into the bot's messages.

A member's display name is any text: ``@everyone``, ``<@&role>``, or markdown that fakes a line
of a ranking (``AI 1** · **+500 chips``). Every name written into a message's text or embed
goes through :func:`safe_name`; the raw name is kept for comparisons, the ledger and the
pictures (which draw it as text, where an escape would show as a backslash).
"""

from __future__ import annotations

from typing import Any

from discord.utils import escape_markdown, escape_mentions

from rendering.table_picture import picture_names as rendering_picture_names

from ..i18n import _


def safe_name(name: str) -> str:
    """``name`` as message text shows it: literally, pinging nobody, with no markdown effect."""
    return escape_markdown(escape_mentions(name))


def member_name(guild: Any, user_id: int | None) -> str:
    """A member of ``guild`` by name, as message text shows it (an embed, where a page that is
    not Discord, such as the local one, would show a mention as its raw id); a mention when the
    server does not know the member (any more)."""
    member = guild.get_member(user_id) if guild is not None and user_id is not None else None
    return safe_name(member.display_name) if member is not None else f"<@{user_id}>"


def picture_names(names: list[str]) -> list[str]:
    """The seats' names as the pictures draw them: without the characters no font of the
    pictures has (a Chinese name on an install without the ``cjk`` extra), and "Seat 3" for a
    name with nothing else, rather than an empty label or "???"."""
    return rendering_picture_names(names, lambda number: _("Seat {number}").format(number=number))
