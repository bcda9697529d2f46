"""Who may do more than play: every permission check of the bot is made here, so that what a
server admin may do is decided in one place (docs/playing.md, "Who may do what").

- A **server admin** has Manage Server (or Administrator, which implies it) where he clicked.
  Discord itself keeps ``/admin`` from everyone else (``default_member_permissions``), and a
  server may grant the command to a role on its Integrations page.
- A **game master** holds the role a server's admins named (``/admin settings gm_role``). He may
  use what ``/admin`` shows (its buttons, which Discord does not guard): every admin button
  checks :func:`may_administer` itself.
"""

from __future__ import annotations

import discord


def is_server_admin(interaction: discord.Interaction) -> bool:
    """A member who manages the server where he clicked. In a DM nobody is: there is no
    server to manage."""
    return interaction.guild is not None and interaction.permissions.manage_guild


def is_game_master(interaction: discord.Interaction, gm_role_id: int | None) -> bool:
    """A member of the server holding its game-master role."""
    if interaction.guild is None or gm_role_id is None or not isinstance(interaction.user, discord.Member):
        return False
    return any(role.id == gm_role_id for role in interaction.user.roles)


def may_administer(interaction: discord.Interaction, gm_role_id: int | None) -> bool:
    """Whether the clicker may use the server's admin controls: a server admin, or its game
    master (``gm_role_id``: the role the server's settings name, if any)."""
    return is_server_admin(interaction) or is_game_master(interaction, gm_role_id)
