"""What a server's admins do to a table (``/admin tables``, ``/admin remove``): close it, or
remove a player from it.

An admin's click is checked where it arrives (:func:`bot.permissions.may_administer`, and that
the table is this server's), since Discord guards no button; the confirmations are answered
there too, from the database. The click that does it (``closeyes``, ``removeyes``) is then a
click on the table like any other: with several processes it is routed to the table's driver
and applied there, under the table's lock and lease, so a close stops the very process whose
timers, AI seats and outbox run the table.

A close voids the game in play: its settlement's row is claimed with the close
(:meth:`bot.db.Database.void_game`), so a settlement that did not get there first never will,
and one that did stays. Earlier games of the table stay settled."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import discord

from bot import i18n
from bot.i18n import _, ngettext
from bot.permissions import may_administer

from . import messages
from .controls import ControlId, button
from .core import Core, Refused, edit_answer, respond
from .model import Seat, Table
from .names import safe_name
from .notices import RETIRED, Notices
from .outbox import Draft, Slot
from .people import People
from .play import Play
from .results import Results
from .showing import RETIRED_PICTURE, Showing

#: The keys that ask for a confirmation (answered where the click arrives) and those that act
#: (applied by the table's driver).
ASKING, ACTING = {"close"}, {"closeyes", "removeyes"}


def refusal_text() -> str:
    """What a member who may not administer is told (the words of cogs/admin.py's refusal)."""
    return _("Only this server's admins (Manage Server) and its game masters may do that.")


def timestamp(iso: str | None) -> str:
    """A stored ISO time as Discord shows it to each reader (relative: "3 minutes ago")."""
    return "—" if not iso else f"<t:{int(datetime.fromisoformat(iso).timestamp())}:R>"


def row_link(row: Any) -> str:
    """A link to a stored table's message (the table message, else its lobby), else its channel."""
    where = row["thread_id"] or row["channel_id"]
    message = row["table_message_id"] or row["lobby_message_id"]
    return f"https://discord.com/channels/{row['guild_id']}/{where}" + (f"/{message}" if message else "")


log = logging.getLogger(__name__)

#: how long an interaction's token may still edit its answer (Discord: 15 minutes), less a margin
LISTING_LIFE = 14 * 60


@dataclass
class Listing:
    """An admin's latest ``/admin tables`` answer, kept to grey its **Close #N** once table N is
    closed (a private message only its interaction's token may edit)."""
    interaction: discord.Interaction
    buttons: list[tuple[int, str]]  # (table, label) of each Close button, in order
    at: float = field(default_factory=time.monotonic)
    closed: set[int] = field(default_factory=set)

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for table_id, label in self.buttons:
            view.add_item(button(ControlId("admin", table_id, "close"), label, style="danger",
                                 enabled=table_id not in self.closed))
        return view


class Admin:
    """Admin clicks on tables: checked where they arrive, applied where the table is driven."""

    def __init__(self, core: Core, people: People, showing: Showing, notices: Notices, results: Results,
                 play: Play) -> None:
        self.core = core
        self.db = core.db
        self.people = people
        self.showing = showing
        self.notices = notices
        self.results = results
        self.play = play
        #: each admin's latest /admin tables answer, by user id (on the process it reached)
        self.listings: dict[int, Listing] = {}

    def remember_listing(self, interaction: discord.Interaction, buttons: list[tuple[int, str]]) -> None:
        now = time.monotonic()
        for user_id in [user for user, kept in self.listings.items() if now - kept.at > LISTING_LIFE]:
            del self.listings[user_id]  # its token has expired
        self.listings[interaction.user.id] = Listing(interaction, buttons)

    async def _grey_in_listing(self, admin_id: int, table_id: int) -> None:
        """The closing admin's list of tables keeps no lit **Close** for the table just closed."""
        listing = self.listings.get(admin_id)
        if listing is None or time.monotonic() - listing.at > LISTING_LIFE or \
                table_id not in {table for table, _label in listing.buttons}:
            return
        listing.closed.add(table_id)
        try:
            await listing.interaction.edit_original_response(view=listing.view())
        except discord.HTTPException:  # the list was dismissed: nothing to grey
            log.info("greying table #%d in an admin's list failed", table_id, exc_info=True)

    def describe_row(self, row: Any) -> str:
        """One stored open table in a line: game, link, seats, status, age, last move."""
        ui = self.core.uis.get(row["game"])
        title = ui.game.title if ui else row["game"]
        seats = [Seat.from_json(s) for s in json.loads(row["seats"])]
        options = json.loads(row["options"])
        names = ", ".join(discord.utils.escape_markdown(s.name) for s in seats) or "—"
        status = {"lobby": _("lobby"), "playing": _("playing game {number}"),
                  "finished": _("game {number} over, its chips not recorded yet")}.get(
            row["status"], row["status"]).format(number=row["game_no"])
        seat_text = ngettext("{taken}/{n} seat", "{taken}/{n} seats", int(options.get("seats", len(seats)))).format(
            taken=len(seats), n=int(options.get("seats", len(seats))))
        # (Discord shows a message's link as its channel and message, a jump button)
        return _("**#{table}** {game} · {link} · {seats}: {names} · {status} · opened {age} · "
                 "last move {last}").format(
            table=row["id"], game=title, link=row_link(row),
            seats=seat_text, names=names, status=status, age=timestamp(row["created_at"]),
            last=timestamp(row["last_move"]) if "last_move" in row.keys() else "—")

    async def precheck(self, interaction: discord.Interaction, control: ControlId) -> bool:
        """An admin click where it arrived, before it goes anywhere: refused (Refused) unless
        the clicker may administer this server and the table is this server's and open; a
        confirmation asked is answered here (True: nothing more to do)."""
        settings = await self.db.server_settings(interaction.guild_id) if interaction.guild_id else {}
        if not may_administer(interaction, settings.get("gm_role")):
            raise Refused(refusal_text())
        row = await self.db.get_table(control.table_id)
        if row is None or row["guild_id"] != interaction.guild_id:
            raise Refused(_("That button is not for a table of this server; nothing changed."))
        if await self.db.closable_table(row["id"]) is None:
            raise Refused(_("Table #{table} is not open any more; nothing changed.").format(table=row["id"]))
        if control.key in ACTING:
            return False
        if control.key not in ASKING:
            raise Refused(_("That control is not valid."))
        text = "\n".join([
            _("Close this table?"), self.describe_row(row),
            _("A game in play is void: no chips move for it (games already settled stay settled). Its messages "
              "say that you closed it, and its controls are removed."),
        ])
        view = discord.ui.View(timeout=None)
        view.add_item(button(ControlId("admin", row["id"], "closeyes"),
                             _("Close table #{table}").format(table=row["id"]), style="danger"))
        await respond(interaction, content=text, view=view, ephemeral=True,
                      allowed_mentions=discord.AllowedMentions.none())
        return True

    async def click(self, interaction: discord.Interaction, table: Table, control: ControlId) -> None:
        """An admin's close or removal, on the process that drives the table."""
        if interaction.guild_id != table.guild_id:  # (checked where it arrived; a routed click again)
            raise Refused(_("That button is not for a table of this server; nothing changed."))
        if control.key == "closeyes":
            return await self._close_by_admin(interaction, table)
        if control.key == "removeyes" and control.target is not None:
            return await self._remove_by_admin(interaction, table, control.target)
        raise Refused(_("That control is not valid."))

    async def _answer_admin(self, interaction: discord.Interaction, text: str) -> None:
        """The admin's confirmation message becomes the outcome (no more buttons)."""
        await edit_answer(interaction, content=text, view=None)

    # -------------------------------------------------------------------------- closing
    async def _close_by_admin(self, interaction: discord.Interaction, table: Table) -> None:
        admin = interaction.user
        title = self.core.ui_of(table).game.title
        async with table.lock:
            # a finished game may still wait for its settlement (retried behind its result)
            game_id = table.game_id
            game = await self.db.get_game(game_id) if table.status == "finished" and game_id is not None else None
            unsettled = game is not None and game["status"] == "playing"
            if table.status not in ("lobby", "playing") and not unsettled:
                raise Refused(_("Table #{table} is not open any more; nothing changed.").format(table=table.id))
            playing = table.status != "lobby" and game_id is not None
            with self.core.fenced(table):
                async with self.db.transaction():
                    await self.core.check_lease(table)
                    voided = game_id is not None and playing and \
                        await self.db.void_game(game_id, table.guild_id, admin.id)
                    await self.db.update_table(table.id, status="cancelled", turn_deadline=None, pause_until=None,
                                               closed_by=admin.id)
                    await self.db.log_admin_action(table.guild_id, admin.id, "close", table_id=table.id,
                                                   detail=title)
            table.status = "cancelled"
            table.deadline = table.pause_until = table.lobby_expires_at = None
            for task in (table.clock, table.lobby_timer):
                if task is not None and not task.done():
                    task.cancel()
            table.clock = table.lobby_timer = None
            if table.game_id is not None:
                self.core.unsettled.discard(table.game_id)  # void, or settled already: nothing to retry
            table.closed = {"by": admin.id, "name": admin.display_name, "playing": playing, "voided": voided,
                            "earlier": table.game_no > (1 if playing else 0)}
            with i18n.language(table.language):
                table.log.append("🛑 " + messages.closed_note(table))
            self.core.close_table(table)  # forgotten here, its lease given up: nobody drives or adopts it
            self._show_closed(table)
        with i18n.language(await self.people.language_of(interaction)):
            text = _("Table #{table} is closed.").format(table=table.id)
            if playing:
                text += " " + (_("Its game is void: no chips move for it.") if voided else
                               _("Its chips were recorded before the close and stay recorded."))
        await self._answer_admin(interaction, text)
        await self._grey_in_listing(admin.id, table.id)

    def _show_closed(self, table: Table) -> None:
        """Every message of the closed table says so, without controls: the lobby, the table
        message, the hands in DMs, and a round result still offering **Next round**."""
        presenter = self.core.presenter(table)
        for key in [k for k in presenter.slots if k.startswith("notify:")]:
            presenter.drop(key)
        self.notices.unnotify(table, list(table.notices))
        table.acting.clear()
        round_shown = table.round_message
        if round_shown is not None and round_shown[2] == table.game_id:
            channel_id, message_id, game_id, index = round_shown
            presenter.add(Slot(f"round:{game_id}:{index}", self.results.round_build(table, game_id, index),
                               channel_id=channel_id, message_id=message_id,
                               once=True, edit_only=True, order=RETIRED, attachment_key=("round", game_id, index)))
        result_shown = table.result_message
        if result_shown is not None and result_shown[2] == table.game_id:  # (its chips pending: now void)
            channel_id, message_id, game_id = result_shown
            presenter.add(Slot(f"result:{game_id}", self.results.result_build(table, game_id), channel_id=channel_id,
                               message_id=message_id, once=True, edit_only=True, order=RETIRED,
                               attachment_key=("result", game_id)))
        if presenter.get("lobby") is None and table.lobby_message_id is not None:
            self.showing.show_lobby(table, table.channel_id, table.lobby_message_id)
        presenter.touch(*presenter.slots)

    # ------------------------------------------------------------------- removing a player
    async def _remove_by_admin(self, interaction: discord.Interaction, table: Table, user_id: int) -> None:
        admin = interaction.user
        async with table.lock:
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refused(_("{player} does not sit at table #{table} any more; nothing changed.").format(
                    player=f"<@{user_id}>", table=table.id))
            name = table.names()[seat]
            if table.status == "lobby":
                text = await self._remove_from_lobby(table, seat, admin)
            elif table.status == "playing" and table.state is not None and not table.state.is_over:
                text = await self._hand_seat_to_ai(table, seat, admin)
            else:
                raise Refused(_("This game is over; nothing changed."))
        with i18n.language(await self.people.language_of(interaction)):
            await self._answer_admin(interaction, text().format(player=name, table=table.id))

    async def _remove_from_lobby(self, table: Table, seat: int, admin: discord.abc.User):
        admin_id = admin.id
        seats = table.seats[:seat] + table.seats[seat + 1:]
        host, status = table.host_id, "lobby"
        if table.seats[seat].user_id == host:
            people = [s.user_id for s in seats if s.user_id is not None]
            if people:
                host = people[0]
            else:
                status = "cancelled"
        closing: dict[str, Any] = {"closed_by": admin_id} if status == "cancelled" else {}
        with self.core.fenced(table):
            async with self.db.transaction():
                await self.core.check_lease(table)
                await self.db.update_table(table.id, seats=[s.to_json() for s in seats], status=status, host_id=host,
                                           **closing)
                await self.db.log_admin_action(table.guild_id, admin_id, "remove", table_id=table.id,
                                               detail=table.seats[seat].name)
        table.seats, table.status, table.host_id = seats, status, host
        if status == "cancelled":
            if table.lobby_timer is not None:
                table.lobby_timer.cancel()
                table.lobby_timer = None
            with i18n.language(table.language):
                table.lobby_note = _("Closed by an admin, {admin}: nobody is left at it.").format(
                    admin=safe_name(admin.display_name))
            self.core.close_table(table)
        self.core.presenter(table).touch("lobby")
        return lambda: _("{player} has left the lobby of table #{table}.")

    async def _hand_seat_to_ai(self, table: Table, seat: int, admin: discord.abc.User):
        admin_id = admin.id
        """The seat is the AI's for the rest of the game (its results so far stay the seat's;
        the game's settlement counts it as an AI seat); the player's hand DM says so."""
        removed = table.seats[seat]
        taken = {s.name for s in table.seats}
        ai = Seat(None, next(f"AI {n}" for n in range(1, 20) if f"AI {n}" not in taken))
        seats = table.seats_json()
        seats[seat] = ai.to_json()
        timeouts = {s: n for s, n in table.timeouts.items() if s != seat}
        assert table.game_id is not None  # (a game in play)
        with self.core.fenced(table):
            async with self.db.transaction():
                await self.core.check_lease(table)
                await self.db.update_table(table.id, seats=seats, timeouts=timeouts)
                await self.db.set_game_seats(table.game_id, seats)
                await self.db.log_admin_action(table.guild_id, admin_id, "remove", table_id=table.id,
                                               detail=removed.name)
        name = table.names()[seat]
        table.seats[seat], table.timeouts = ai, timeouts
        for per_seat in (table.selection, table.picks, table.arranged, table.clicked_at):
            per_seat.pop(seat, None)
        table.dm_closed.discard(seat)
        table.ready.discard(seat)
        table.acting.discard(seat)
        presenter = self.core.presenter(table)
        presenter.drop(f"notify:{seat}")
        self.notices.unnotify(table, [seat])
        hand = presenter.get(f"hand:{seat}")
        presenter.drop(f"hand:{seat}")
        if hand is not None and hand.message_id is not None:
            self._retire_removed_hand(table, hand, admin)
        with i18n.language(table.language):
            table.log.append("🚪 " + _("An admin, {admin}, removed {player}; the AI plays the seat as {ai} for the "
                                      "rest of the game.").format(admin=safe_name(admin.display_name), player=name, ai=ai.name))
        self.play.schedule(table)  # the AI moves at once if the seat is to act
        self.showing.request_refresh(table)
        return lambda: _("{player} was removed from table #{table}: the AI plays the seat for the rest of the game.")

    def _retire_removed_hand(self, table: Table, hand: Slot, admin: discord.abc.User) -> None:
        """The removed player's hand DM keeps one line saying what happened, without its picture
        and controls."""
        title, table_id = self.core.ui_of(table).game.title, table.id

        async def build(slot: Slot) -> Draft:
            with i18n.language(await self.people.dm_language(hand.user_id)):
                text = _("**{game} · table #{table}**: an admin, {admin}, removed you from this game; the AI plays "
                         "your seat for the rest of it.").format(game=title, table=table_id, admin=safe_name(admin.display_name))
            return Draft(("removed", text), content=text)

        self.core.presenter(table).add(Slot(f"removed:{hand.message_id}", build, channel_id=hand.channel_id,
                                       message_id=hand.message_id, user_id=hand.user_id, once=True, edit_only=True,
                                       order=RETIRED, attachment_key=RETIRED_PICTURE, interaction=hand.interaction,
                                       interaction_at=hand.interaction_at, ephemeral=hand.ephemeral))
