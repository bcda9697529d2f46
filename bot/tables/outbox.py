"""The one way a table shows anything on Discord: each message it owns is a :class:`Slot`
whose wanted content (a :class:`Draft`) is built from the table's stored state when it is
about to be sent, and a per-table :class:`Presenter` pushes what differs from what Discord last
confirmed, message by message.

- Only the latest state is ever sent: a slot is marked dirty, and its draft is built when its
  turn comes, so states nobody saw in time are skipped.
- One message failing never stops another; each is retried with backoff and jitter for as long
  as the table lives (a deleted message is posted anew), and what was never confirmed is shown
  again after a restart (the caller rebuilds the slots from SQLite).
- Every globally rate-limited call spends a token of the bot-wide :class:`~.budget.Budget`;
  a hand is edited through the player's last interaction when it can be, which Discord does
  not count against the global limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import io
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, cast

import discord

from .budget import Budget
from .retry import RETRY_FIRST_SECONDS, retry_delay

log = logging.getLogger(__name__)

#: Discord's code for "Cannot send messages to this user" (DMs closed, or the bot blocked).
DMS_CLOSED = 50007
#: An interaction's token lets its message be edited for 15 minutes; keep a margin.
INTERACTION_EDIT_SECONDS = 14 * 60
#: A presenter held back (its process may not speak for the table now) looks again this often.
HELD_BACK_SECONDS = 1.0


class HeldBack(Exception):
    """This process may not speak for the table now: nothing was sent, the message waits."""


@dataclass
class Attachment:
    """A picture to attach, rendered only when it is actually uploaded."""

    filename: str
    key: Any  # equal keys: the same picture (no need to upload it again)
    render: Callable[[], Awaitable[bytes]]


@dataclass
class Draft:
    """What one message should show now; ``signature`` equal to the confirmed one: nothing to send."""

    signature: Any
    content: str | None = None
    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    attachment: Attachment | None = None
    allowed_mentions: discord.AllowedMentions | None = None


@dataclass
class Slot:
    """One message a table owns (its lobby, table message, a hand DM, a result, a notice)."""

    key: str
    build: Callable[["Slot"], Awaitable[Draft | None]]  # None: nothing to show (yet)
    channel_id: int | None = None  # a DM slot learns its channel on the first send
    message_id: int | None = None  # None: to be posted
    user_id: int | None = None  # a DM to this user
    once: bool = False  # posted once (a result, a notice), then done
    edit_only: bool = False  # an edit of a message that, once gone, is not posted anew
    delete: bool = False  # the message is to be deleted (once-slots only)
    # shown to one person in answer to his click (a hand through My hand): only that click's
    # token can edit it, for 15 minutes; after that it waits for his next click on it
    ephemeral: bool = False
    order: int | Callable[[], int] = 50  # lower goes first
    after: str | None = None  # a once-slot waits for this slot to be confirmed
    fallback_channel_id: int | None = None  # where a once-slot goes when its channel refuses it
    # the same for every process that posts this message (≤ 25 characters): Discord makes a
    # second post with it within minutes return the first message instead of a new one, so a
    # process that died between the post and remembering it (``posted``) does not show it twice
    nonce: str | None = None
    min_interval: float = 0.0  # seconds between two edits of this message
    hold: Callable[[], float] | None = None  # seconds to hold the next frame (an AI is about to move)
    posted: Callable[["Slot", discord.Message], Awaitable[None]] | None = None  # remember the new message
    closed: Callable[["Slot"], Awaitable[None]] | None = None  # the user's DMs are closed (50007)
    deleted: Callable[["Slot"], Awaitable[None]] | None = None  # the message is gone (a delete slot)
    about: Any = None  # what the message is about, for its owner (a hand: its game and round)
    # what Discord confirmed
    shown: Any = None
    attachment_key: Any = None
    # bookkeeping
    dirty: bool = True
    done: bool = False  # a once-slot that reached Discord, or a DM slot whose user closed DMs
    failures: int = 0
    failing_since: float | None = None  # when the failures in a row began (metrics, /healthz)
    retry_at: float = 0.0
    pushed_at: float = float("-inf")
    dirty_since: float | None = None
    answering: int = 0  # clicks on this message being answered (their answer edits it)
    interaction: discord.Interaction | None = None  # the last click answered on this message
    interaction_at: float = float("-inf")
    unrecorded: discord.Message | None = None  # posted, but ``posted`` failed: to be remembered


class Presenter:
    """Pushes the dirty slots of one table, one message at a time, in order of urgency."""

    def __init__(self, name: str, bot: discord.Client, budget: Budget, clock: Callable[[], float],
                 spawn: Callable[[Any, str], asyncio.Task],
                 may_show: Callable[[], bool | Awaitable[bool]] = lambda: True) -> None:
        self.name = name
        self.bot = bot
        self.budget = budget
        self.now = clock
        self.spawn = spawn
        self.may_show = may_show  # asked right before each call to Discord
        self.slots: dict[str, Slot] = {}
        self.closed = False
        self._task: asyncio.Task | None = None
        self._sleeper: asyncio.Task | None = None  # the presenter task while it sleeps towards a frame
        self._pushing = False  # a message is being built or sent

    # ---------------------------------------------------------------- what callers use
    def add(self, slot: Slot) -> Slot:
        """Own a message (replacing a slot of the same key) and show it."""
        self.slots[slot.key] = slot
        slot.dirty_since = self.now()
        self._kick()
        return slot

    def get(self, key: str) -> Slot | None:
        return self.slots.get(key)

    def touch(self, *keys: str) -> None:
        """These messages should show the state as it is now."""
        stamp = self.now()
        for key in keys:
            slot = self.slots.get(key)
            if slot is not None and not slot.done:
                slot.dirty = True
                if slot.dirty_since is None:
                    slot.dirty_since = stamp
        self._kick()

    def confirmed(self, slot: Slot, signature: Any, attachment_key: Any = None, *,
                  interaction: discord.Interaction | None = None) -> None:
        """A click's answer showed ``signature`` on this slot's message (through the interaction)."""
        slot.shown = signature
        if attachment_key is not None:
            slot.attachment_key = attachment_key
        if interaction is not None:
            slot.interaction, slot.interaction_at = interaction, self.now()

    def drop(self, key: str) -> None:
        self.slots.pop(key, None)

    def close(self) -> None:
        self.closed = True
        if self._task is not None:
            self._task.cancel()

    def pending(self) -> bool:
        """Whether some message still waits to be shown (or is on its way)."""
        return self._pushing or any(slot.dirty and not slot.done for slot in self.slots.values())

    # ------------------------------------------------------------------- the presenter
    def _kick(self) -> None:
        if self.closed:
            return
        if self._task is None or self._task.done():
            self._task = self.spawn(self._run(), f"present-{self.name}")
        elif self._sleeper is self._task:
            # it sleeps towards a later frame; what was just marked may be due sooner
            self._task.cancel()
            self._task = self.spawn(self._run(), f"present-{self.name}")

    def _ready_at(self, slot: Slot) -> float | None:
        """When this slot may be pushed; None when it has nothing to push."""
        if not slot.dirty or slot.done or slot.answering:
            return None
        if slot.after is not None:
            before = self.slots.get(slot.after)
            if before is not None and not (before.done or (before.message_id is not None and not before.dirty)):
                return None
        at = max(slot.retry_at, slot.pushed_at + slot.min_interval)
        if slot.hold is not None and slot.message_id is not None:
            held = slot.hold()
            if held > 0 and slot.dirty_since is not None:
                at = max(at, slot.dirty_since + held)
        return at

    def _next(self) -> tuple[Slot | None, float | None]:
        """The most urgent slot due now, else when the next one will be."""
        now = self.now()
        due: list[Slot] = []
        wake: float | None = None
        for slot in self.slots.values():
            at = self._ready_at(slot)
            if at is None:
                continue
            if at <= now:
                due.append(slot)
            else:
                wake = at if wake is None else min(wake, at)
        if due:
            return min(due, key=lambda s: (s.order() if callable(s.order) else s.order, s.dirty_since or 0.0)), None
        return None, wake

    async def _run(self) -> None:
        # Supervised: whatever goes wrong with one message is logged and retried later; the
        # loop itself only ends when nothing is left to push.
        while not self.closed:
            try:
                slot, wake = self._next()
            except Exception:  # a slot that cannot say when it is due: never the end of the table
                log.exception("%s: choosing the next message failed", self.name)
                await asyncio.sleep(RETRY_FIRST_SECONDS)
                continue
            if slot is None:
                if wake is None:
                    return
                self._sleeper = asyncio.current_task()
                try:
                    await asyncio.sleep(max(0.0, wake - self.now()))
                finally:
                    if self._sleeper is asyncio.current_task():
                        self._sleeper = None
                continue
            self._pushing = True
            try:
                await self._push(slot)
            except asyncio.CancelledError:
                raise
            except HeldBack:
                log.info("%s: %s held back until this process may speak for the table again", self.name, slot.key)
                await asyncio.sleep(HELD_BACK_SECONDS)
            except Exception as exc:  # noqa: BLE001 - every failure is retried, none may stop the table
                self._failed(slot, exc)
            finally:
                self._pushing = False

    def _failed(self, slot: Slot, exc: BaseException) -> None:
        slot.failures += 1
        if slot.failing_since is None:
            slot.failing_since = self.now()
        delay = retry_delay(slot.failures)
        slot.retry_at = self.now() + delay
        level = logging.WARNING if slot.failures <= 3 else logging.ERROR
        log.log(level, "%s: showing %s failed (%s attempt%s): %r; retrying in %.0f s", self.name, slot.key,
                slot.failures, "" if slot.failures == 1 else "s", exc, delay)

    async def _push(self, slot: Slot) -> None:
        if slot.unrecorded is not None and slot.posted is not None:
            # it reached Discord, but remembering so failed: remember it now, never post it twice
            await slot.posted(slot, slot.unrecorded)
            slot.unrecorded = None
            self._shown(slot)
            return
        if slot.delete:
            return await self._delete(slot)
        if slot.ephemeral and not self.reachable(slot):
            if slot.once:
                self._shown(slot)  # (an edit nobody can make any more)
            else:  # his next click on it answers with what it should show (and renews the token)
                slot.dirty, slot.dirty_since = False, None
            return
        signature_before = slot.shown
        slot.dirty = False
        stamp = self.now()
        draft = await slot.build(slot)
        if draft is None or (draft.signature == signature_before and slot.message_id is not None):
            slot.dirty_since = self.now() if slot.dirty else None
            return
        try:
            await self._send(slot, draft)
        except BaseException:
            slot.dirty = True
            raise
        slot.pushed_at = stamp
        slot.shown = draft.signature
        if slot.unrecorded is not None:
            slot.dirty = True
            self._failed(slot, RuntimeError("the message was posted but could not be remembered"))
            return
        self._shown(slot)

    def _shown(self, slot: Slot) -> None:
        slot.failures = 0
        slot.failing_since = None
        slot.retry_at = 0.0
        slot.dirty_since = self.now() if slot.dirty else None
        if slot.once:
            slot.done = True
            if self.slots.get(slot.key) is slot:  # (not a newer slot of the same key, added meanwhile)
                del self.slots[slot.key]

    async def _spend(self) -> None:
        """Right before a call to Discord: a token of the global budget (waiting for it if need
        be), and the word that this process still speaks for the table."""
        await self.budget.spend(self.name)
        await self._vouched()

    async def _vouched(self) -> None:
        allowed = self.may_show()
        if inspect.isawaitable(allowed):  # (it asks the database)
            allowed = await allowed
        if not allowed:
            raise HeldBack(self.name)

    async def _delete(self, slot: Slot) -> None:
        if slot.ephemeral:  # a private message is deleted through the click that showed it, while it may be
            if slot.interaction is not None and self.reachable(slot):
                await self._vouched()
                with contextlib.suppress(discord.NotFound):
                    await slot.interaction.delete_original_response()
            return self._shown(slot)
        await self._spend()
        try:
            await self._message(slot).delete()
        except discord.NotFound:
            pass  # gone already
        if slot.deleted is not None:
            await slot.deleted(slot)  # (failing, the deletion is tried again: NotFound then)
        self._shown(slot)

    def reachable(self, slot: Slot) -> bool:
        """Whether the slot's message may be edited through the last click on it."""
        return slot.interaction is not None and self.now() - slot.interaction_at < INTERACTION_EDIT_SECONDS

    async def _send(self, slot: Slot, draft: Draft) -> None:
        if slot.ephemeral:  # (a failure is retried while the token lasts)
            return await self._edit(slot, draft, through=slot.interaction)
        if slot.message_id is not None and slot.interaction is not None:
            if self.reachable(slot):
                try:
                    return await self._edit(slot, draft, through=slot.interaction)
                except discord.HTTPException as exc:
                    log.debug("%s: editing %s through its interaction failed (%r)", self.name, slot.key, exc)
            slot.interaction = None  # expired or refused: edit it the ordinary way
        if slot.message_id is not None:
            try:
                return await self._edit(slot, draft)
            except discord.NotFound:
                if slot.edit_only:
                    return
                log.info("%s: the message of %s is gone; posting it anew", self.name, slot.key)
                slot.message_id = None
                slot.attachment_key = None
            except discord.Forbidden as exc:
                if exc.code == DMS_CLOSED and slot.user_id is not None:
                    return await self._dms_closed(slot)
                raise
        await self._post(slot, draft)

    async def _dms_closed(self, slot: Slot) -> None:
        slot.done = True
        slot.dirty = False
        if slot.closed is not None:
            await slot.closed(slot)

    async def _post(self, slot: Slot, draft: Draft) -> None:
        if slot.channel_id is None and slot.user_id is not None:
            await self._spend()
            channel = await self.bot.create_dm(discord.Object(slot.user_id))
            slot.channel_id = channel.id
        kwargs = await self._content(draft, with_attachment=True)
        try:
            message = await self._post_to(slot.channel_id, kwargs, slot.nonce)
        except discord.Forbidden as exc:
            if exc.code == DMS_CLOSED and slot.user_id is not None:
                return await self._dms_closed(slot)
            if slot.fallback_channel_id is None:
                raise
            message = await self._post_elsewhere(slot, draft, exc)
        except discord.NotFound as exc:
            if slot.fallback_channel_id is None:
                raise
            message = await self._post_elsewhere(slot, draft, exc)
        slot.message_id = message.id
        slot.channel_id = message.channel.id
        slot.attachment_key = draft.attachment.key if draft.attachment else None
        if slot.posted is not None:
            try:
                await slot.posted(slot, message)
            except Exception:
                log.exception("%s: %s was posted, but remembering it failed", self.name, slot.key)
                slot.unrecorded = message

    async def _post_elsewhere(self, slot: Slot, draft: Draft, exc: discord.HTTPException) -> discord.Message:
        log.info("%s: %s refused in its channel (%r); posting it in %s", self.name, slot.key, exc,
                 slot.fallback_channel_id)
        kwargs = await self._content(draft, with_attachment=True)
        return await self._post_to(slot.fallback_channel_id, kwargs, slot.nonce)

    async def _post_to(self, channel_id: int | None, kwargs: dict[str, Any], nonce: str | None) -> discord.Message:
        if channel_id is None:
            raise ValueError(f"{self.name}: a message with nowhere to go")
        await self._spend()
        channel = cast(discord.abc.Messageable,
                       self.bot.get_channel(channel_id) or self.bot.get_partial_messageable(channel_id))
        file = kwargs.pop("attachments", None)
        if file:
            kwargs["files"] = file
        if nonce is not None:
            kwargs["nonce"] = nonce  # (discord.py sends enforce_nonce with it)
        return await channel.send(**{k: v for k, v in kwargs.items() if v is not None or k == "content"})

    def _message(self, slot: Slot) -> discord.PartialMessage:
        """The slot's message on Discord, by its channel and id (known once it was posted)."""
        if slot.channel_id is None or slot.message_id is None:
            raise ValueError(f"{self.name}: {slot.key} has no message yet")
        return self.bot.get_partial_messageable(slot.channel_id).get_partial_message(slot.message_id)

    async def _edit(self, slot: Slot, draft: Draft, *, through: discord.Interaction | None = None) -> None:
        upload = draft.attachment is not None and draft.attachment.key != slot.attachment_key
        kwargs = await self._content(draft, with_attachment=upload)
        if draft.attachment is None and slot.attachment_key is not None:
            kwargs["attachments"] = []  # the picture is gone
        if through is not None:
            await self._vouched()
            await through.edit_original_response(**kwargs)
        else:
            await self._spend()
            await self._message(slot).edit(**kwargs)
        if upload and draft.attachment is not None:
            slot.attachment_key = draft.attachment.key

    @staticmethod
    async def _content(draft: Draft, *, with_attachment: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"content": draft.content, "embed": draft.embed, "view": draft.view}
        if draft.allowed_mentions is not None:
            kwargs["allowed_mentions"] = draft.allowed_mentions
        if with_attachment and draft.attachment is not None:
            data = await draft.attachment.render()
            kwargs["attachments"] = [discord.File(io.BytesIO(data), filename=draft.attachment.filename)]
        return kwargs
