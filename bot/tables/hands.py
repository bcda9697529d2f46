"""Clicks on a hand (a DM, or the private answer to **My hand**): choosing cards, the helpers,
the game's other selects, and moves, each answered by editing the clicked hand."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator

import discord

from bot.games.base import IllegalAction
from bot.i18n import _

from . import messages, turns
from .controls import ControlId
from .core import Core, Refused, answering, defer, log, update_clicked
from .model import Table
from .play import Play

# A click is answered with its result in one call unless the table is busy this long.
ACKNOWLEDGE_WITHIN = 1.0


class Hands:
    """What a click on a hand does, and its answer."""

    def __init__(self, core: Core, play: Play) -> None:
        self.core = core
        self.play = play

    async def click(self, interaction: discord.Interaction, table: Table, control: ControlId,
                    values: list[str]) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise Refused(_("You are not playing at this table."))
        if table.status != "playing" or control.game_no != table.game_no:
            raise Refused(_("That game is over."))
        ui = self.core.ui_of(table)
        refusal = None
        table.clicked_at[seat] = self.core.presenter(table).now()  # he is looking: no turn notice for now
        # Choosing cards and the helpers work from any picture of this game's hand (a waiting
        # player's hand is not edited for every move); only a move must come from the current one.
        choosing = control.key == "sel" or control.key in ui.helper_keys
        async with self._lock_or_defer(table, interaction):
            # an admin may have closed the table, or the game ended, while the click waited
            if table.closed is not None:
                raise Refused(_("This table is closed."))
            if table.state.is_over or table.status != "playing":
                raise Refused(_("This game is over."))
            if (control.version != table.version and not choosing and control.key not in {
                    spec.key for spec in ui.extra_selects(table.state.view(seat), messages.seat_selection(
                        table, ui, table.state.view(seat), seat))}):
                refusal = _("That button is from an earlier turn; your hand is now up to date.")
            elif control.key == "sel":
                # a forged or stale select may carry anything: keep only cards this seat holds
                table.selection[seat] = ui.keep_selection(table.state.view(seat), values)
            elif control.key == "arrange":
                table.arranged[seat] = not table.arranged.get(seat, True)
            elif control.key in ui.helper_keys:
                if control.key == "quick" and seat not in table.state.to_act:
                    refusal = _("It is not your turn.")
                else:
                    try:
                        chosen = ui.helper(control.key, table.state, seat,
                                           messages.seat_selection(table, ui, table.state.view(seat), seat))
                    except IllegalAction as exc:
                        refusal = str(exc)
                    else:
                        table.selection[seat] = list(chosen)
                        table.picks[seat] = dict(getattr(chosen, "picks", {}))
                        if control.key == "quick" and not chosen and not table.picks[seat]:
                            refusal = _("Nothing to select: your move now needs no card.")
            elif control.key in {spec.key for spec in ui.extra_selects(
                    table.state.view(seat), messages.seat_selection(table, ui, table.state.view(seat), seat))}:
                # another select (a meld number...): one value, and only one of its options
                view = table.state.view(seat)
                spec = next(s for s in ui.extra_selects(view, messages.seat_selection(table, ui, view, seat))
                            if s.key == control.key)
                valid = {o.value for o in spec.options}
                picked = [value for value in values if value in valid][:1]
                picks = table.picks.setdefault(seat, {})
                if picked:
                    picks[control.key] = picked[0]
                else:
                    picks.pop(control.key, None)
            elif turns.paused(table, ui):
                refusal = _("This round is over: the next one starts {when}, or as soon as everyone clicks "
                            "**Next round** on the round's result.").format(when=f"<t:{int(table.pause_until or 0)}:R>")
            else:
                view = table.state.view(seat)
                try:
                    action = ui.action_for(control.key, view, messages.seat_selection(table, ui, view, seat))
                    await self.play.apply(table, seat, action, by_player=True)
                except IllegalAction as exc:
                    refusal = str(exc)
                except Exception:
                    log.exception("table %s: a move of seat %s could not be saved", table.id, seat)
                    refusal = _("Your move could not be saved, so nothing changed. Please try again.")
                else:
                    self.play.after_move(table)
            await self._answer_with_hand(interaction, table, seat, refusal)

    @contextlib.asynccontextmanager
    async def _lock_or_defer(self, table: Table, interaction: discord.Interaction) -> AsyncIterator[None]:
        """The table's lock; a click that would wait long for it is acknowledged first (Discord
        drops an interaction not answered within 3 s)."""
        if not table.lock.locked():
            await table.lock.acquire()  # the usual case: no timer needed
        else:
            try:
                await asyncio.wait_for(table.lock.acquire(), ACKNOWLEDGE_WITHIN)
            except asyncio.TimeoutError:
                await defer(interaction)
                await table.lock.acquire()
        try:
            yield
        finally:
            table.lock.release()

    async def _answer_with_hand(self, interaction: discord.Interaction, table: Table, seat: int,
                                refusal: str | None) -> None:
        """Answer a click on a hand (a DM or an ephemeral My hand) in as few calls as possible:
        the clicked message updated with the seat's current hand (one call, free of the global
        limit), and the refusal, if any, privately. The DM's slot remembers the click, so that
        its next edits go through it too."""
        presenter = self.core.presenter(table)
        message = interaction.message
        slot = presenter.get(f"hand:{seat}")
        if slot is None or message is None or message.id != slot.message_id:
            slot = None  # an ephemeral My hand, or an older DM
        ui = self.core.ui_of(table)
        shown = messages.hand_shown(table, ui, seat)
        upload = slot is None or slot.attachment_key != shown.image
        edit: dict[str, Any] = {}
        if slot is None or slot.shown != shown.signature:
            edit = {"content": shown.content, "view": shown.view}
            if upload:
                edit["attachments"] = [messages.png_file(await messages.render_hand(shown.image, ui.deck))]
        if slot is not None:
            slot.answering += 1
        try:
            async with answering(interaction):
                if not interaction.response.is_done():
                    if edit:
                        await update_clicked(interaction, **edit)
                    elif refusal:
                        await interaction.response.send_message(refusal, ephemeral=True)
                        return
                    else:
                        await interaction.response.defer()  # nothing to change on the message
                elif edit:
                    await interaction.edit_original_response(**edit)
            if slot is not None:
                presenter.confirmed(slot, shown.signature, shown.image if upload else None, interaction=interaction)
            if refusal:
                await interaction.followup.send(refusal, ephemeral=True)
        finally:
            if slot is not None:
                slot.answering -= 1
                presenter.touch(slot.key)  # shown again if the answer did not show it
