"""Names people chose, written into the bot's messages.

A member's display name is any text: ``@everyone``, ``<@&role>``, or markdown that fakes a line
of a ranking (``AI 1** · **+500 chips``). Every name written into a message's text or embed
goes through :func:`safe_name`; the raw name is kept for comparisons, the ledger and the
pictures (which draw it as text, where an escape would show as a backslash).
"""

from __future__ import annotations

from discord.utils import escape_markdown, escape_mentions


def safe_name(name: str) -> str:
    """``name`` as message text shows it: literally, pinging nobody, with no markdown effect."""
    return escape_markdown(escape_mentions(name))
