"""Notices of a table, as slots of its outbox: a line posted in the table's channel, and the
turn notices that tell a person it is his turn (a DM, or a mention in the thread), each kept
only while it is true."""

from __future__ import annotations

from typing import Iterable

import discord

from bot import i18n
from bot.i18n import _

from . import turns
from .core import Core
from .model import Table
from .outbox import Draft, Slot
from .people import People

# Order of urgency: what a player must act on first, then the table, then the rest.
FIRST, ACTING_HAND, TABLE, LOBBY, POSTED, WAITING_HAND, RETIRED = 0, 10, 20, 25, 30, 40, 60


class Notices:
    """Lines posted for the table, and each person's turn notices."""

    def __init__(self, core: Core, people: People) -> None:
        self.core = core
        self.db = core.db
        self.people = people

    def show_notice(self, table: Table, key: str, text: str,
                    mentions: discord.AllowedMentions | None = None) -> Slot:
        """A line posted once in the table's channel (its thread; the channel if that refuses it)."""
        async def build(slot: Slot) -> Draft:
            return Draft(text, content=text, allowed_mentions=mentions)

        return self.core.presenter(table).add(Slot(f"notice:{key}", build, channel_id=table.play_channel_id,
                                                   once=True, order=POSTED, fallback_channel_id=fallback(table)))

    def notify_turns(self, table: Table) -> None:
        """Each person who has just become one of those to act is told so by a new message,
        which Discord notifies (an edit of his hand would not), unless he is looking at his
        hand already (he clicked it a moment ago). A notice lives only while it is true: once
        its player is no longer to act (he played, his time ran out, the game is over) it is
        deleted."""
        acting = set() if turns.paused(table, self.core.ui_of(table)) else turns.people_to_act(table)
        new, table.acting = acting - table.acting, acting
        self.unnotify(table, [seat for seat in table.notices if seat not in acting])
        quiet = self.core.config.notify_quiet_seconds
        for seat in new:
            if self.core.presenter(table).now() - table.clicked_at.get(seat, float("-inf")) < quiet:
                continue
            self._show_turn_notice(table, seat)

    def acting_now(self, table: Table) -> None:
        """Whoever is to act now was shown so by a new message already (a new hand): no notice,
        and the notices of earlier turns go."""
        table.acting = turns.people_to_act(table)
        self.unnotify(table, list(table.notices))

    def unnotify(self, table: Table, seats: Iterable[int]) -> None:
        """Delete these seats' turn notices (a DM, or a mention in the thread)."""
        for seat in list(seats):
            notice = table.notices.pop(seat, None)
            if notice is not None:
                self._delete_notice(table, notice)

    async def restore_notices(self, table: Table) -> None:
        """After a restart or an adoption: the turn notices still on Discord (written when posted,
        forgotten once deleted) are this table's again, and those no longer true go."""
        table.acting = turns.people_to_act(table) if table.status == "playing" else set()
        for seat, channel_id, message_id in await self.db.notices(table.id):  # oldest first
            if seat in table.notices:
                self._delete_notice(table, table.notices[seat])
            table.notices[seat] = (channel_id, message_id)
        self.unnotify(table, [seat for seat in table.notices if seat not in table.acting])

    def _delete_notice(self, table: Table, notice: tuple[int, int]) -> None:
        channel_id, message_id = notice
        db = self.db

        async def deleted(slot: Slot) -> None:
            await db.notice_gone(message_id)

        self.core.presenter(table).add(Slot(f"unnotify:{message_id}", no_draft, channel_id=channel_id,
                                            message_id=message_id, once=True, delete=True, order=RETIRED,
                                            deleted=deleted))

    def _show_turn_notice(self, table: Table, seat: int) -> None:
        presenter = self.core.presenter(table)
        user_id = table.seats[seat].user_id
        assert user_id is not None  # (a person's seat)
        game_id, version = table.game_id, table.version
        hand = presenter.get(f"hand:{seat}")
        self.unnotify(table, [seat])
        mode_of, db, title = self.people.notify_mode, self.db, self.core.ui_of(table).game.title
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
            with i18n.language(await self.people.dm_language(user_id)):
                text = "🔔 " + _("Your turn at **{game}** table #{table} in {server}: {hand}").format(
                    game=title, table=table.id, server=table.guild_name or _("a server"),
                    hand=hand_link(hand) or f"<#{table.play_channel_id}>")
            return Draft((game_id, version), content=text)

        async def posted(slot: Slot, message: discord.Message) -> None:
            notice = (message.channel.id, message.id)
            await db.add_notice(table.id, seat, *notice)  # known again after a restart
            if current(slot):
                self.unnotify(table, [seat])
                table.notices[seat] = notice
            else:  # his turn passed (or a newer notice replaced it) while it was on its way
                self._delete_notice(table, notice)

        presenter.add(Slot(f"notify:{seat}", build, channel_id=hand.channel_id if hand else None, user_id=user_id,
                           once=True, order=ACTING_HAND, posted=posted))


def fallback(table: Table) -> int | None:
    """A post the table's thread refuses (locked, archived, deleted) goes to its channel."""
    return table.channel_id if table.thread_id is not None else None


async def no_draft(slot: Slot) -> None:
    """The draft of a slot that shows nothing (a deletion)."""
    return None


def hand_link(hand: Slot | None) -> str | None:
    """A link to the hand DM, when it is known."""
    if hand is None or hand.channel_id is None or hand.message_id is None:
        return None
    return f"https://discord.com/channels/@me/{hand.channel_id}/{hand.message_id}"
