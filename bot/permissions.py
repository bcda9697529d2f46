"""Who may do more than play: every permission check of the bot is made here, so that what a
server admin may do is decided in one place."""

from __future__ import annotations

import discord


def is_server_admin(interaction: discord.Interaction) -> bool:
    """A member who manages the server where he clicked (Manage Server, or Administrator, which
    implies it). In a DM nobody is: there is no server to manage."""
    return interaction.guild is not None and interaction.permissions.manage_guild
