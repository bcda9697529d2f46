"""What a table shows, as slots of its outbox: the lobby, the table message and each hand (a DM,
or the private answer to **My hand**). Each slot's draft is built from the table's state
(itself rebuilt from the database) at the moment it is sent; :mod:`.outbox` does the sending.
Round results and results are :mod:`.results`', notices :mod:`.notices`'."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

import discord

from bot import i18n
from bot.i18n import _

from . import messages, turns
from .core import Core, edit_answer, log, respond
from .model import Table
from .notices import ACTING_HAND, FIRST, LOBBY, RETIRED, TABLE, WAITING_HAND, Notices, hand_link, no_draft
from .outbox import Attachment, Draft, Slot
from .people import People

#: The picture of a hand being retired, whatever it was (the retiring edit removes it).
RETIRED_PICTURE = "a hand's picture"

#: What is told when a person may now see his hand (``seat``), or the table message with
#: **My hand** (None): a turn he could not see starts now (:meth:`.play.Play.now_visible`).
Visible = Callable[[Table, "int | None"], Awaitable[None]]


class Showing:
    """The lobby, the table message and the hands of each table."""

    def __init__(self, core: Core, people: People, notices: Notices, visible: Visible) -> None:
        self.core = core
        self.people = people
        self.notices = notices
        self.visible = visible

    def request_refresh(self, table: Table) -> None:
        """The table message and the hands should show the game as it is now."""
        presenter = self.core.presenter(table)
        presenter.touch(*[key for key in presenter.slots if key == "table" or key.startswith("hand:")])

    # ------------------------------------------------------------------------ the lobby
    def show_lobby(self, table: Table, channel_id: int, message_id: int | None = None) -> Slot:
        core = self.core

        async def posted(slot: Slot, message: discord.Message) -> None:
            table.lobby_message_id = message.id
            await core.save_table(table, lobby_message_id=message.id)

        return core.presenter(table).add(Slot("lobby", self._lobby_draft(table), channel_id=channel_id,
                                              message_id=message_id, order=LOBBY, posted=posted))

    def _lobby_draft(self, table: Table) -> Callable[[Slot], Awaitable[Draft]]:
        async def build(slot: Slot) -> Draft:
            with i18n.language(table.language):
                note = messages.closed_note(table) if table.closed else table.lobby_note
                embed = messages.lobby_embed(table, self.core.ui_of(table), note=note,
                                             hands_by_dm=self.core.config.hands_by_dm)
                # an admin closed the table: no control is left
                view = None if table.closed else messages.lobby_view(table, cancellable=self.cancellable(table))
            return Draft((embed.to_dict(), _components(view)), embed=embed, view=view)
        return build

    def cancellable(self, table: Table) -> bool:
        """A game nobody could see yet (its table message never reached Discord) may still be
        cancelled by its host."""
        if table.status != "playing":
            return False
        slot = self.core.presenter(table).get("table")
        return slot is None or slot.message_id is None

    async def answer_lobby(self, interaction: discord.Interaction, table: Table) -> None:
        """The lobby as it is now, shown through the click on it (free of the global limit);
        the outbox edits it if that answer fails."""
        presenter = self.core.presenter(table)
        slot = presenter.get("lobby") or self.show_lobby(
            table, interaction.channel_id or table.channel_id, interaction.message.id if interaction.message else None)
        draft = await slot.build(slot)
        assert draft is not None  # (a lobby always has one)
        slot.answering += 1
        try:
            await edit_answer(interaction, embed=draft.embed, view=draft.view)  # (acknowledged first: a deal)
        except discord.HTTPException:
            log.info("answering a lobby click of table %s failed; the outbox shows it", table.id)
            presenter.touch("lobby")
        else:
            presenter.confirmed(slot, draft.signature)
        finally:
            slot.answering -= 1
            presenter.touch("lobby")  # pushed only if it differs from what was confirmed

    # ------------------------------------------------------------------ the table message
    def show_table(self, table: Table, message_id: int | None = None) -> Slot:
        game_id = table.game_id
        core = self.core

        async def posted(slot: Slot, message: discord.Message) -> None:
            if table.game_id != game_id:
                return
            first = table.table_message_id is None
            table.table_message_id = message.id
            await core.save_table(table, table_message_id=message.id)
            if first:
                core.presenter(table).touch("lobby")  # no more Cancel: the game is on the table
                self.request_refresh(table)  # the hands link to it
                await self.visible(table, None)

        return core.presenter(table).add(Slot(
            "table", self._table_draft(table, game_id), channel_id=table.play_channel_id, message_id=message_id,
            # posted first, so that the hands can link to it
            order=lambda: TABLE if table.table_message_id is not None else FIRST,
            min_interval=core.config.table_edit_seconds, hold=lambda: self._hold_frame(table), posted=posted))

    def _table_draft(self, table: Table, game_id: int | None) -> Callable[[Slot], Awaitable[Draft | None]]:
        async def build(slot: Slot) -> Draft | None:
            if table.game_id != game_id or table.state is None:
                return None
            ui = self.core.ui_of(table)
            with i18n.language(table.language):
                picture = messages.table_picture(table, ui)
                embed = messages.table_embed(table, ui, picture=picture is not None)
                controls = None if table.state.is_over or table.closed else messages.table_view(table)
                if table.closed:
                    embed.description = f"🛑 **{messages.closed_note(table)}**\n{embed.description or ''}".strip()
            attachment = None if picture is None else Attachment("table.png", picture,
                                                                  lambda: messages.table_png_bytes(picture))
            return Draft((embed.to_dict(), controls is None, picture), embed=embed, view=controls,
                         attachment=attachment)
        return build

    def _hold_frame(self, table: Table) -> float:
        """Seconds to hold the table's next frame while AI seats play in front of a person: his
        turn is shown with one edit once they have played (never longer than two frames' time)."""
        imminent = turns.ai_move_imminent(table, self.core.ui_of(table))
        return 2 * self.core.config.table_edit_seconds if imminent else 0.0

    # -------------------------------------------------------------------------- the hands
    def show_hand(self, table: Table, seat: int, *, channel_id: int | None = None,
                  message_id: int | None = None, new_message: bool = False, replaces: Slot | None = None) -> Slot:
        """The seat's hand DM; ``new_message``: a new DM (which notifies its player, where an
        edit would not) replaces the one it has; ``replaces``: the hand of an earlier game this
        one replaces. A replaced hand is retired once its successor has reached the player."""
        core = self.core
        presenter = core.presenter(table)
        key = f"hand:{seat}"
        previous = replaces if replaces is not None else presenter.get(key) if new_message else None
        if previous is not None and previous.message_id is not None:
            self._retire_hand(table, previous, key)
            channel_id = previous.channel_id
        game_id, user_id = table.game_id, table.seats[seat].user_id
        round_no = turns.round_in_hand(table, core.ui_of(table))

        async def posted(slot: Slot, message: discord.Message) -> None:
            await core.under_lease(table, core.db.save_hand_message, game_id, seat, message.channel.id, message.id)
            if table.game_id == game_id:
                await self.visible(table, seat)

        async def closed(slot: Slot) -> None:
            await self._dms_closed(table, seat)

        return presenter.add(Slot(key, self._hand_draft(table, seat, game_id), channel_id=channel_id,
                                  message_id=message_id, user_id=user_id,
                                  order=lambda: ACTING_HAND if turns.acting(table, seat) else WAITING_HAND,
                                  posted=posted, closed=closed, about=(table.game_no, round_no)))

    async def show_my_hand(self, interaction: discord.Interaction, table: Table, seat: int) -> None:
        """**My hand** on the table message: the seat's hand, privately, as the answer to the click."""
        table.clicked_at[seat] = self.core.presenter(table).now()
        ui = self.core.ui_of(table)
        shown = messages.hand_shown(table, ui, seat)
        png = await messages.render_hand(shown.image, ui.deck)
        # (only the click's own response is its "original": a followup after a deferred
        # click is not, and editing the original would then edit the table message)
        own = not interaction.response.is_done()
        message = await respond(interaction, content=shown.content, file=messages.png_file(png),
                                view=shown.view, ephemeral=True)
        if own:
            self._show_private_hand(table, seat, interaction, message, shown)

    def _show_private_hand(self, table: Table, seat: int, interaction: discord.Interaction,
                           message: discord.Message | None, shown: messages.HandShown) -> None:
        """The hand **My hand** has just shown privately is the seat's hand message when no DM
        reaches its player (his DMs are closed, or hands are not sent by DM): the outbox keeps
        it up to date through his click, as it does a hand DM, and his clicks on its controls
        renew that. The one it replaces keeps one line saying so."""
        if seat not in table.dm_closed or message is None:
            return
        presenter = self.core.presenter(table)
        key = f"hand:{seat}"
        previous = presenter.get(key)
        slot = Slot(key, self._hand_draft(table, seat, table.game_id), message_id=message.id,
                    user_id=table.seats[seat].user_id, ephemeral=True,
                    order=lambda: ACTING_HAND if turns.acting(table, seat) else WAITING_HAND,
                    about=previous.about if previous is not None else None)
        presenter.add(slot)
        presenter.confirmed(slot, shown.signature, shown.image, interaction=interaction)
        if previous is not None and previous.ephemeral and previous.message_id not in (None, message.id) \
                and presenter.reachable(previous):
            self._retire_hand(table, previous, key)

    def _hand_draft(self, table: Table, seat: int, game_id: int | None) -> Callable[[Slot], Awaitable[Draft | None]]:
        async def build(slot: Slot) -> Draft | None:
            if table.game_id != game_id or table.state is None:
                return None
            ui = self.core.ui_of(table)
            if table.closed:  # an admin closed the table: one line, no picture, no controls
                with i18n.language(await self.people.dm_language(table.seats[seat].user_id)):
                    text = "🛑 " + _("**{game} · table #{table}**:").format(
                        game=ui.game.title, table=table.id) + " " + messages.closed_note(table)
                return Draft(("closed", text), content=text)
            with i18n.language(await self.people.dm_language(table.seats[seat].user_id)):
                shown = messages.hand_shown(table, ui, seat)
            free = self.core.presenter(table).reachable(slot)
            if slot.message_id is not None and slot.shown is not None and not free \
                    and not turns.acting(table, seat) and slot.shown[0] == shown.material:
                # a player who is not to act needs no paid edit for words alone: his cards and
                # controls are as shown, and the table message says the rest
                return None
            return _hand_draft(shown, ui.deck)
        return build

    def _retire_hand(self, table: Table, old: Slot, successor: str) -> None:
        """The hand message ``old`` was replaced by a new one (the slot ``successor``). Once that
        one has reached the player (never before: during a DM outage the old hand stays as it
        was), the old message keeps one line, which table, which game and round, and a link to
        the newest hand, without its picture and controls: a player's DMs show one live hand
        per table. Edited through the player's last click on it while that is recent (free)."""
        presenter = self.core.presenter(table)
        if old.ephemeral:  # a private hand: removed once the newer one is there (no line left behind)
            presenter.add(Slot(f"retire:{old.message_id}", no_draft, channel_id=old.channel_id,
                               message_id=old.message_id, user_id=old.user_id, once=True, delete=True,
                               order=RETIRED, after=successor, interaction=old.interaction,
                               interaction_at=old.interaction_at, ephemeral=True))
            return
        title = self.core.ui_of(table).game.title
        game_no, round_no = old.about or (table.game_no, None)

        async def build(slot: Slot) -> Draft:
            link = hand_link(presenter.get(successor)) or table.jump_url
            with i18n.language(await self.people.dm_language(old.user_id)):
                where = _("game {number}").format(number=game_no) if round_no is None else \
                    _("game {number}, round {round}").format(number=game_no, round=round_no)
                if old.ephemeral:  # (the newer one is the private answer just below: no link reaches it)
                    text = _("**{game} · table #{table}** · {where}: this hand has moved to a newer message, "
                             "below.").format(game=title, table=table.id, where=where)
                else:
                    text = _("**{game} · table #{table}** · {where}: this hand has moved to a newer message: "
                             "{link}").format(game=title, table=table.id, where=where, link=link)
            return Draft(("retired", text), content=text)

        presenter.add(Slot(f"retire:{old.message_id}", build, channel_id=old.channel_id, message_id=old.message_id,
                           user_id=old.user_id, once=True, edit_only=True, order=RETIRED, after=successor,
                           # it shows a picture (the edit removes it), and may be edited through a click
                           attachment_key=RETIRED_PICTURE, interaction=old.interaction,
                           interaction_at=old.interaction_at, ephemeral=old.ephemeral))

    def can_see_hand(self, table: Table, seat: int) -> bool:
        """Whether the person at ``seat`` has been shown his hand (by DM, or by the table message's
        **My hand** when his DMs are closed)."""
        presenter = self.core.presenter(table)
        if seat in table.dm_closed:
            table_slot = presenter.get("table")
            return table_slot is not None and table_slot.message_id is not None
        slot = presenter.get(f"hand:{seat}")
        return slot is not None and slot.message_id is not None

    async def _dms_closed(self, table: Table, seat: int) -> None:
        """Discord says this player accepts no DM from the bot (50007): he plays through **My
        hand**, and the table says so."""
        user_id = table.seats[seat].user_id
        log.info("user %s does not accept DMs (table %s)", user_id, table.id)
        table.dm_closed.add(seat)
        with i18n.language(table.language):
            text = _("{player}, I can't send you a DM (your DMs are closed). Use **My hand** on the table "
                     "message to play.").format(player=f"<@{user_id}>")
        self.notices.show_notice(table, f"dms-closed:{table.game_id}:{seat}", text,
                                 discord.AllowedMentions(users=[discord.Object(user_id)] if user_id else []))
        await self.visible(table, seat)


def _components(view: discord.ui.View | None) -> Any:
    return None if view is None else json.dumps(view.to_components(), sort_keys=True)


def _hand_draft(shown: messages.HandShown, deck: str) -> Draft:
    image = shown.image
    return Draft(shown.signature, content=shown.content, view=shown.view,
                 attachment=Attachment("hand.png", image, lambda: messages.render_hand(image, deck)))
