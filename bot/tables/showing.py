"""What a table shows, as slots of its outbox: the lobby, the table message, each hand DM,
each round result and result, and notices. Each slot's draft is built from the table's state
(itself rebuilt from SQLite) at the moment it is sent; :mod:`.outbox` does the sending."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import discord

from bot import i18n, ledger
from bot.i18n import _
from rendering.table import render_rows_async

from . import messages
from .core import ServiceCore, log
from .ending import unrecorded_note
from .model import Seat, Table
from .outbox import Attachment, Draft, Presenter, Slot

# Order of urgency: what a player must act on first, then the table, then the rest.
FIRST, ACTING_HAND, TABLE, LOBBY, POSTED, WAITING_HAND, RETIRED = 0, 10, 20, 25, 30, 40, 60
#: The picture of a hand being retired, whatever it was (the retiring edit removes it).
RETIRED_PICTURE = "a hand's picture"


class ShowFlow(ServiceCore):
    """Slots of every message a table owns, and what each of them shows."""

    def presenter(self, table: Table) -> Presenter:
        if table.presenter is None:
            # the presenter times frames and retries on the event loop's clock (what its sleeps use)
            table.presenter = Presenter(f"table {table.id}", self.bot, self.budget,
                                        asyncio.get_running_loop().time,
                                        lambda coro, name: self._spawn(coro, name, table),
                                        may_show=lambda: self.leases.vouch(table.id))
        return table.presenter

    def request_refresh(self, table: Table) -> None:
        """The table message and the hands should show the game as it is now."""
        presenter = self.presenter(table)
        presenter.touch(*[key for key in presenter.slots if key == "table" or key.startswith("hand:")])

    # ------------------------------------------------------------------------ the lobby
    def _show_lobby(self, table: Table, channel_id: int, message_id: int | None = None) -> Slot:
        async def posted(slot: Slot, message: discord.Message) -> None:
            table.lobby_message_id = message.id
            await self._save_table(table, lobby_message_id=message.id)

        return self.presenter(table).add(Slot("lobby", self._lobby_draft(table), channel_id=channel_id,
                                              message_id=message_id, order=LOBBY, posted=posted))

    def _lobby_draft(self, table: Table):
        async def build(slot: Slot) -> Draft:
            with i18n.language(table.language):
                note = messages.closed_note(table) if table.closed else table.lobby_note
                embed = messages.lobby_embed(table, self.ui_of(table), note=note,
                                             hands_by_dm=self.config.hands_by_dm)
                # an admin closed the table: no control is left
                view = None if table.closed else messages.lobby_view(table, cancellable=self._cancellable(table))
            return Draft((embed.to_dict(), _components(view)), embed=embed, view=view)
        return build

    def _cancellable(self, table: Table) -> bool:
        """A game nobody could see yet (its table message never reached Discord) may still be
        cancelled by its host."""
        if table.status != "playing":
            return False
        slot = self.presenter(table).get("table")
        return slot is None or slot.message_id is None

    # ------------------------------------------------------------------ the table message
    def _show_table(self, table: Table, message_id: int | None = None) -> Slot:
        game_id = table.game_id

        async def posted(slot: Slot, message: discord.Message) -> None:
            if table.game_id != game_id:
                return
            first = table.table_message_id is None
            table.table_message_id = message.id
            await self._save_table(table, table_message_id=message.id)
            if first:
                self.presenter(table).touch("lobby")  # no more Cancel: the game is on the table
                self.request_refresh(table)  # the hands link to it
                await self._now_visible(table)

        return self.presenter(table).add(Slot(
            "table", self._table_draft(table, game_id), channel_id=table.play_channel_id, message_id=message_id,
            # posted first, so that the hands can link to it
            order=lambda: TABLE if table.table_message_id is not None else FIRST, min_interval=self.config.table_edit_seconds, hold=lambda: self._hold_frame(table),
            posted=posted))

    def _table_draft(self, table: Table, game_id: int):
        async def build(slot: Slot) -> Draft | None:
            if table.game_id != game_id or table.state is None:
                return None
            ui = self.ui_of(table)
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
        return 2 * self.config.table_edit_seconds if self._ai_move_imminent(table) else 0.0

    # -------------------------------------------------------------------------- the hands
    def _show_hand(self, table: Table, seat: int, *, channel_id: int | None = None,
                   message_id: int | None = None, new_message: bool = False, replaces: Slot | None = None) -> Slot:
        """The seat's hand DM; ``new_message``: a new DM (which notifies its player, where an
        edit would not) replaces the one it has; ``replaces``: the hand of an earlier game this
        one replaces. A replaced hand is retired once its successor has reached the player."""
        presenter = self.presenter(table)
        key = f"hand:{seat}"
        previous = replaces if replaces is not None else presenter.get(key) if new_message else None
        if previous is not None and previous.message_id is not None:
            self._retire_hand(table, previous, key)
            channel_id = previous.channel_id
        game_id, user_id = table.game_id, table.seats[seat].user_id
        round_no = None
        if self.ui_of(table).game.multi_round:  # the round it shows (between two rounds: the one that ended)
            round_no = table.rounds_done() + (0 if self._between_rounds(table) else 1)

        async def posted(slot: Slot, message: discord.Message) -> None:
            await self._under_lease(table, self.db.save_hand_message, game_id, seat, message.channel.id, message.id)
            if table.game_id == game_id:
                await self._now_visible(table, seat)

        async def closed(slot: Slot) -> None:
            await self._dms_closed(table, seat)

        return presenter.add(Slot(key, self._hand_draft(table, seat, game_id), channel_id=channel_id,
                                  message_id=message_id, user_id=user_id,
                                  order=lambda: ACTING_HAND if self._acting(table, seat) else WAITING_HAND,
                                  posted=posted, closed=closed, about=(table.game_no, round_no)))

    def _show_private_hand(self, table: Table, seat: int, interaction: discord.Interaction,
                           message: discord.Message | None, shown: messages.HandShown) -> None:
        """The hand **My hand** has just shown privately is the seat's hand message when no DM
        reaches its player (his DMs are closed, or hands are not sent by DM): the outbox keeps
        it up to date through his click, as it does a hand DM, and his clicks on its controls
        renew that. The one it replaces keeps one line saying so."""
        if seat not in table.dm_closed or message is None:
            return
        presenter = self.presenter(table)
        key = f"hand:{seat}"
        previous = presenter.get(key)
        slot = Slot(key, self._hand_draft(table, seat, table.game_id), message_id=message.id,
                    user_id=table.seats[seat].user_id, ephemeral=True,
                    order=lambda: ACTING_HAND if self._acting(table, seat) else WAITING_HAND,
                    about=previous.about if previous is not None else None)
        presenter.add(slot)
        presenter.confirmed(slot, shown.signature, shown.image, interaction=interaction)
        if previous is not None and previous.ephemeral and previous.message_id not in (None, message.id) \
                and presenter.reachable(previous):
            self._retire_hand(table, previous, key)

    def _acting(self, table: Table, seat: int) -> bool:
        state = table.state
        return state is not None and not state.is_over and seat in state.to_act

    def _hand_draft(self, table: Table, seat: int, game_id: int):
        async def build(slot: Slot) -> Draft | None:
            if table.game_id != game_id or table.state is None:
                return None
            ui = self.ui_of(table)
            if table.closed:  # an admin closed the table: one line, no picture, no controls
                with i18n.language(await self.dm_language(table.seats[seat].user_id)):
                    text = "🛑 " + _("**{game} · table #{table}**:").format(
                        game=ui.game.title, table=table.id) + " " + messages.closed_note(table)
                return Draft(("closed", text), content=text)
            with i18n.language(await self.dm_language(table.seats[seat].user_id)):
                shown = messages.hand_shown(table, ui, seat)
            free = self.presenter(table).reachable(slot)
            if slot.message_id is not None and slot.shown is not None and not free \
                    and not self._acting(table, seat) and slot.shown[0] == shown.material:
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
        presenter = self.presenter(table)
        title = self.ui_of(table).game.title
        game_no, round_no = old.about or (table.game_no, None)

        async def build(slot: Slot) -> Draft:
            link = _hand_link(presenter.get(successor)) or table.jump_url
            with i18n.language(await self.dm_language(old.user_id)):
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

    async def _now_visible(self, table: Table, seat: int | None = None) -> None:
        """A person may now see his hand (it reached him, or the table message with **My hand**
        did): a turn he could not see starts now, not before."""
        state = table.state
        if state is None or state.is_over or table.status != "playing":
            return
        seats = [seat] if seat is not None else list(table.dm_closed)
        if not any(s in state.to_act and not table.seats[s].auto for s in seats):
            self._schedule(table)  # AI seats that waited for everyone to see his cards play now
            return
        async with table.lock:
            self._start_turn(table)
            await self._save_table(table, turn_deadline=table.deadline)
            self._schedule(table)
        self.request_refresh(table)

    def can_see_hand(self, table: Table, seat: int) -> bool:
        """Whether the person at ``seat`` has been shown his hand (by DM, or by the table message's
        **My hand** when his DMs are closed)."""
        presenter = self.presenter(table)
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
        self._show_notice(table, f"dms-closed:{table.game_id}:{seat}", text,
                          discord.AllowedMentions(users=[discord.Object(user_id)]))
        await self._now_visible(table, seat)

    def _show_notice(self, table: Table, key: str, text: str,
                     mentions: discord.AllowedMentions | None = None) -> Slot:
        async def build(slot: Slot) -> Draft:
            return Draft(text, content=text, allowed_mentions=mentions)

        return self.presenter(table).add(Slot(f"notice:{key}", build, channel_id=table.play_channel_id, once=True,
                                              order=POSTED, fallback_channel_id=self._fallback(table)))

    def _fallback(self, table: Table) -> int | None:
        """A post the table's thread refuses (locked, archived, deleted) goes to its channel."""
        return table.channel_id if table.thread_id is not None else None

    # ------------------------------------------------------------------ turn notifications
    def _notify_turns(self, table: Table) -> None:
        """Each person who has just become one of those to act is told so by a new message,
        which Discord notifies (an edit of his hand would not), unless he is looking at his
        hand already (he clicked it a moment ago). A notice lives only while it is true: once
        its player is no longer to act (he played, his time ran out, the game is over) it is
        deleted."""
        state = table.state
        acting = set() if state is None or state.is_over else {
            seat for seat in state.to_act if not table.seats[seat].auto}
        if self._between_rounds(table) and not self._deciding(table):
            acting = set()
        new, table.acting = acting - table.acting, acting
        self._unnotify(table, [seat for seat in table.notices if seat not in acting])
        quiet = self.config.notify_quiet_seconds
        for seat in new:
            if self.presenter(table).now() - table.clicked_at.get(seat, float("-inf")) < quiet:
                continue
            self._show_turn_notice(table, seat)

    def _unnotify(self, table: Table, seats) -> None:
        """Delete these seats' turn notices (a DM, or a mention in the thread)."""
        for seat in list(seats):
            notice = table.notices.pop(seat, None)
            if notice is not None:
                self._delete_notice(table, notice)

    def _delete_notice(self, table: Table, notice: tuple[int, int]) -> None:
        channel_id, message_id = notice

        async def deleted(slot: Slot) -> None:
            await self.db.notice_gone(message_id)

        self.presenter(table).add(Slot(f"unnotify:{message_id}", _no_draft, channel_id=channel_id,
                                       message_id=message_id, once=True, delete=True, order=RETIRED,
                                       deleted=deleted))

    async def _restore_notices(self, table: Table) -> None:
        """After a restart or an adoption: the turn notices still on Discord (written when posted,
        forgotten once deleted) are this table's again, and those no longer true go."""
        state = table.state
        table.acting = set() if state is None or state.is_over or table.status != "playing" else {
            seat for seat in state.to_act if not table.seats[seat].auto}
        for seat, channel_id, message_id in await self.db.notices(table.id):  # oldest first
            if seat in table.notices:
                self._delete_notice(table, table.notices[seat])
            table.notices[seat] = (channel_id, message_id)
        self._unnotify(table, [seat for seat in table.notices if seat not in table.acting])

    def _show_turn_notice(self, table: Table, seat: int) -> None:
        presenter = self.presenter(table)
        user_id = table.seats[seat].user_id
        game_id, version = table.game_id, table.version
        hand = presenter.get(f"hand:{seat}")
        self._unnotify(table, [seat])
        mode_of = self.notify_mode

        created = presenter.now()

        def current(slot: Slot) -> bool:
            return table.game_id == game_id and seat in table.acting and presenter.get(slot.key) is slot

        async def build(slot: Slot) -> Draft | None:
            mode = await mode_of(user_id)
            looked = table.clicked_at.get(seat, float("-inf")) >= created
            if mode == "off" or looked or not current(slot):
                return None  # silenced, or he is already playing this turn
            if mode == "mention" or seat in table.dm_closed:  # (no DM reaches him: the thread does)
                slot.channel_id, slot.user_id = table.play_channel_id, None
                with i18n.language(table.language):
                    text = _("{player}, it's your turn at table #{table}.").format(player=f"<@{user_id}>",
                                                                                   table=table.id)
                return Draft((game_id, version), content=text,
                             allowed_mentions=discord.AllowedMentions(users=[discord.Object(user_id)]))
            with i18n.language(await self.dm_language(user_id)):
                text = "🔔 " + _("Your turn at **{game}** table #{table} in {server}: {hand}").format(
                    game=self.ui_of(table).game.title, table=table.id, server=table.guild_name or _("a server"),
                    hand=_hand_link(hand) or f"<#{table.play_channel_id}>")
            return Draft((game_id, version), content=text)

        async def posted(slot: Slot, message: discord.Message) -> None:
            notice = (message.channel.id, message.id)
            await self.db.add_notice(table.id, seat, *notice)  # known again after a restart
            if current(slot):
                self._unnotify(table, [seat])
                table.notices[seat] = notice
            else:  # his turn passed (or a newer notice replaced it) while it was on its way
                self._delete_notice(table, notice)

        presenter.add(Slot(f"notify:{seat}", build, channel_id=hand.channel_id if hand else None, user_id=user_id,
                           once=True, order=ACTING_HAND, posted=posted))

    def _acting_now(self, table: Table) -> None:
        """Whoever is to act now was shown so by a new message already (a new hand): no notice,
        and the notices of earlier turns go."""
        state = table.state
        table.acting = set() if state is None or state.is_over else {
            seat for seat in state.to_act if not table.seats[seat].auto}
        self._unnotify(table, list(table.notices))

    # ------------------------------------------------------------ round results and results
    async def _game_shown(self, table: Table, game_id: int) -> tuple[Table, Any]:
        """The finished game as it was played: a copy of the table at that game (its seats,
        number and stake from the game's row) and its state replayed from its record."""
        if game_id == table.game_id and table.state is not None:
            return table, table.state
        row = await self.db.get_game(game_id)
        played = Table(id=table.id, guild_id=table.guild_id, channel_id=table.channel_id, game=table.game,
                       options={**table.options, "stake": row["stake"]}, host_id=table.host_id, status="finished",
                       seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                       thread_id=table.thread_id, game_id=game_id)
        played.state = await self.stored_state(game_id)
        return played, played.state

    def _round_build(self, table: Table, game_id: int, index: int):
        async def build(slot: Slot) -> Draft:
            played, state = await self._game_shown(table, game_id)
            return await self._round_draft(table, played, state, index)
        return build

    def _show_round(self, table: Table, game_id: int, index: int) -> Slot:
        async def posted(slot: Slot, message: discord.Message) -> None:
            table.round_message = (message.channel.id, message.id, game_id, index)  # (its Next round, if closed)
            await self._under_lease(table, self.db.set_rounds_posted, game_id, index + 1)

        return self.presenter(table).add(Slot(
            f"round:{game_id}:{index}", self._round_build(table, game_id, index), channel_id=table.play_channel_id,
            once=True, order=POSTED,
            after=f"round:{game_id}:{index - 1}" if index else None, fallback_channel_id=self._fallback(table),
            posted=posted))

    async def _round_draft(self, table: Table, played: Table, state: Any, index: int) -> Draft:
        ui = self.ui_of(table)
        view = state.view(None)
        names = played.names()
        last = index == len(view["round_results"]) - 1
        live = played is table and last and table.pause_until is not None and not state.is_over
        with i18n.language(table.language):
            embed = messages.round_embed(played, ui, view, names, index)
            controls = messages.next_round_view(table) if live else None
            rows = ui.round_rows(view, played.picture_names(), index)
            title = _("{game} · table #{table} · round {round}").format(game=ui.game.title, table=table.id,
                                                                         round=index + 1)
        return await _rows_draft(("round", played.game_id, index), embed, controls, rows, title, ui.deck,
                                 "round.png")

    def _show_result(self, table: Table, game_id: int, rounds: int = 0) -> Slot:
        """The game's result, posted once (its round results before it)."""
        async def posted(slot: Slot, message: discord.Message) -> None:
            table.result_message = (message.channel.id, message.id, game_id)  # (edited if an admin closes it)
            await self._under_lease(table, self.db.set_result_message, game_id, message.id)
            log.debug("result of table %s game %s posted", table.id, game_id)

        return self.presenter(table).add(Slot(
            f"result:{game_id}", self._result_build(table, game_id), channel_id=table.play_channel_id, once=True,
            order=POSTED, after=f"round:{game_id}:{rounds - 1}" if rounds else None,
            fallback_channel_id=self._fallback(table), posted=posted))

    def _result_build(self, table: Table, game_id: int):
        async def build(slot: Slot) -> Draft:
            played, state = await self._game_shown(table, game_id)
            ui = self.ui_of(table)
            outcome = state.outcome()
            names = played.names()
            with i18n.language(table.language):
                paid = ledger.settlement(outcome, stake=played.stake, ga_stake=played.ga_stake)  # as the ledger writes it
                embed = messages.result_embed(played, ui, outcome, names, paid)
                closed = table.closed is not None and table.game_id == game_id
                if closed:  # an admin closed the table before the chips were recorded, or after
                    embed.description = f"🛑 **{messages.closed_note(table)}**\n\n{embed.description or ''}".strip()
                elif game_id in self.unsettled:  # the chips shown are recorded later
                    embed.description = f"{embed.description}\n\n{unrecorded_note()}".strip()
                controls = None if closed else messages.table_view(table, rematch=True)
                rows = ui.result_rows(state.view(None), played.picture_names(), paid)
                title = _("{game} · table #{table} · game {number} — result").format(
                    game=ui.game.title, table=table.id, number=played.game_no)
            return await _rows_draft(("result", game_id), embed, controls, rows, title, ui.deck, "result.png")
        return build

    def _show_rounds_since(self, table: Table, game_id: int, posted: int, done: int) -> None:
        for index in range(posted, done):
            if self.presenter(table).get(f"round:{game_id}:{index}") is None:
                self._show_round(table, game_id, index)

    # ------------------------------------------------------------- answers through clicks
    async def _answer_lobby(self, interaction: discord.Interaction, table: Table) -> None:
        """The lobby as it is now, shown through the click on it (free of the global limit);
        the outbox edits it if that answer fails."""
        slot = self.presenter(table).get("lobby") or self._show_lobby(
            table, interaction.channel_id, interaction.message.id if interaction.message else None)
        draft = await slot.build(slot)
        slot.answering += 1
        try:
            if interaction.response.is_done():  # acknowledged first (a deal may take a moment)
                await interaction.edit_original_response(embed=draft.embed, view=draft.view)
            else:
                await interaction.response.edit_message(embed=draft.embed, view=draft.view)
        except discord.HTTPException:
            log.info("answering a lobby click of table %s failed; the outbox shows it", table.id)
            self.presenter(table).touch("lobby")
        else:
            self.presenter(table).confirmed(slot, draft.signature)
        finally:
            slot.answering -= 1
            self.presenter(table).touch("lobby")  # pushed only if it differs from what was confirmed


async def _no_draft(slot: Slot) -> None:
    """The draft of a slot that shows nothing (a deletion)."""
    return None


def _hand_link(hand: Slot | None) -> str | None:
    """A link to the hand DM, when it is known."""
    if hand is None or hand.channel_id is None or hand.message_id is None:
        return None
    return f"https://discord.com/channels/@me/{hand.channel_id}/{hand.message_id}"


def _components(view: discord.ui.View | None) -> Any:
    return None if view is None else json.dumps(view.to_components(), sort_keys=True)


def _hand_draft(shown: messages.HandShown, deck: str) -> Draft:
    image = shown.image
    return Draft(shown.signature, content=shown.content, view=shown.view,
                 attachment=Attachment("hand.png", image, lambda: messages.render_hand(image, deck)))


async def _rows_draft(signature: Any, embed: discord.Embed, controls: discord.ui.View | None, rows: list,
                      title: str, deck: str, filename: str) -> Draft:
    """A round's or a game's result: its picture rendered once (a picture that cannot be drawn
    is left out rather than holding the result back)."""
    try:
        png = await render_rows_async(rows, deck=deck, title=title)
    except Exception:
        log.exception("rendering %s failed; posting it without the image", filename)
        return Draft(signature, embed=embed, view=controls)
    embed.set_image(url=f"attachment://{filename}")

    async def rendered() -> bytes:
        return png

    return Draft(signature, embed=embed, view=controls, attachment=Attachment(filename, signature, rendered))
