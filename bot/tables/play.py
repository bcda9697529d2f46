"""Playing: hands by DM, clicks on them, moves, turn timers and AI seats, and refreshing
what people see (bursts of moves coalesced into one round of edits)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import discord

from bot import i18n
from bot.games.base import Event, IllegalAction
from bot.i18n import _

from . import messages
from .controls import ControlId
from rendering.table import render_rows_async

from .core import Refused, ServiceCore, log, now
from .model import HandMessage, Table
from .retry import with_retries

# A click is answered with its result in one call unless the table is busy this long.
ACKNOWLEDGE_WITHIN = 1.0
# AI moves closer together than this are shown as one burst (one edit of each message).
COALESCE_SECONDS = 0.5


class PlayFlow(ServiceCore):
    """Moves, timers and refreshes of a game in play."""

    async def _send_hand(self, table: Table, seat: int, *, replace: bool = False) -> None:
        """The seat's hand as a new DM; ``replace``: the DM it succeeds keeps its picture but
        loses its buttons (a new round, or a decision that must notify its player)."""
        user_id = table.seats[seat].user_id
        previous = table.hand_messages.get(seat) if replace else None
        with i18n.language(await self.dm_language(user_id)):
            payload = await messages.hand_payload(table, self.ui_of(table), seat)
            moved = _("*This hand has moved to the newest message below.*")
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            message = await user.send(content=payload["content"], file=messages.png_file(payload["png"]),
                                      view=payload["view"])
        except discord.HTTPException as exc:  # 50007: the user does not accept DMs from us
            log.info("cannot DM user %s (%s)", user_id, exc)
            table.dm_closed.add(seat)
            with i18n.language(table.language):
                notice = _("{player}, I can't send you a DM (your DMs are closed). Use **My hand** on the table "
                           "message to play.").format(player=f"<@{user_id}>")
            await self._channel(table.play_channel_id).send(notice, allowed_mentions=discord.AllowedMentions(users=True))
            return
        table.hand_messages[seat] = HandMessage(message.channel.id, message.id, payload["shown"])
        await self.db.save_hand_message(table.game_id, seat, message.channel.id, message.id)
        if previous is not None:
            try:
                await self._channel(previous.channel_id).get_partial_message(previous.message_id).edit(
                    content=moved, view=None)
            except discord.HTTPException:
                log.info("could not retire an old hand message of table %s", table.id)

    async def _play_click(self, interaction: discord.Interaction, table: Table, control: ControlId,
                          values: list[str]) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise Refused(_("You are not playing at this table."))
        if table.status != "playing" or control.game_no != table.game_no:
            raise Refused(_("That game is over."))
        ui = self.ui_of(table)
        refusal = None
        async with self._lock_or_defer(table, interaction):
            if control.version != table.version or table.state.is_over:
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
            elif self._between_rounds(table) and not self._deciding(table):
                refusal = _("This round is over: the next one starts {when}, or as soon as everyone clicks "
                            "**Next round** on the round's result.").format(when=f"<t:{int(table.pause_until)}:R>")
            else:
                view = table.state.view(seat)
                try:
                    action = ui.action_for(control.key, view, messages.seat_selection(table, ui, view, seat))
                    await self._apply(table, seat, action, by_player=True)
                except IllegalAction as exc:
                    refusal = str(exc)
                else:
                    self._after_move(table)
            await self._answer_with_hand(interaction, table, seat, refusal)

    @contextlib.asynccontextmanager
    async def _lock_or_defer(self, table: Table, interaction: discord.Interaction):
        """The table's lock; a click that would wait long for it is acknowledged first (Discord
        drops an interaction not answered within 3 s)."""
        if not table.lock.locked():
            await table.lock.acquire()  # the usual case: no timer needed
        else:
            try:
                await asyncio.wait_for(table.lock.acquire(), ACKNOWLEDGE_WITHIN)
            except asyncio.TimeoutError:
                await interaction.response.defer()
                await table.lock.acquire()
        try:
            yield
        finally:
            table.lock.release()

    async def _answer_with_hand(self, interaction: discord.Interaction, table: Table, seat: int,
                                refusal: str | None) -> None:
        """Answer a click on a hand (a DM or an ephemeral My hand) in as few calls as possible:
        the clicked message updated with the seat's current hand (one call), and the refusal,
        if any, privately."""
        message = interaction.message
        tracked = table.hand_messages.get(seat)
        is_dm = tracked is not None and message is not None and message.id == tracked.message_id
        if is_dm:
            tracked.answering = True  # the refresher leaves this message to the answer
            try:
                await self._answer_on_message(interaction, table, seat, refusal, tracked)
            finally:
                tracked.answering = False
        else:
            await self._answer_on_message(interaction, table, seat, refusal, None)

    async def _answer_on_message(self, interaction: discord.Interaction, table: Table, seat: int,
                                 refusal: str | None, tracked: HandMessage | None) -> None:
        payload = await messages.hand_payload(table, self.ui_of(table), seat, tracked.shown if tracked else None)
        edit: dict[str, Any] = {}
        if payload is not None:
            edit = {"content": payload["content"], "view": payload["view"]}
            if payload["png"] is not None:
                edit["attachments"] = [messages.png_file(payload["png"])]
        if not interaction.response.is_done():
            if edit:
                await interaction.response.edit_message(**edit)
            elif refusal:
                return await interaction.response.send_message(refusal, ephemeral=True)
            else:
                await interaction.response.defer()  # nothing to change on the message
        elif edit:
            await interaction.edit_original_response(**edit)
        if payload is not None and tracked is not None:
            tracked.shown = payload["shown"]
        if refusal:
            await interaction.followup.send(refusal, ephemeral=True)

    async def _apply(self, table: Table, seat: int, action: str, *, by_player: bool = False,
                     timed_out: bool = False) -> list[Event]:
        """Apply and persist one action with the deadline of the next turn (and the seat's
        timeouts in a row when they change, in the same transaction); the caller holds the lock.
        Raises IllegalAction."""
        rounds_before = table.rounds_done()
        events = table.state.apply(seat, action)
        record = table.state.record()
        canonical = record["actions"][-1][1]
        new_decks = record.get("decks", [])[table.decks_stored:] if self.ui_of(table).game.multi_round else []
        previous = (table.deadline, table.timeouts.get(seat, 0), table.pause_until)
        if by_player:
            table.timeouts[seat] = 0
        if table.rounds_done() > rounds_before and not table.state.is_over:
            table.pause_until = now() + self.config.round_pause_seconds  # time to read the round's result
            table.ready.clear()
        self._start_turn(table)
        try:
            if timed_out or new_decks or previous[1] != table.timeouts.get(seat, 0) or previous[2] != table.pause_until:
                async with self.db.transaction():
                    await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline)
                    await self.db.update_table(table.id, timeouts=table.timeouts, pause_until=table.pause_until)
                    await self.db.add_decks(table.game_id, table.decks_stored + 1, new_decks)
            else:
                await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline)
        except Exception:
            # The move is not recorded, so it did not happen: rebuild the state from the record.
            table.deadline, table.timeouts[seat], table.pause_until = previous
            await self._reload_state(table)
            raise
        table.decks_stored += len(new_decks)
        table.version += 1
        table.selection.pop(seat, None)
        table.picks.pop(seat, None)
        names = table.names()
        with i18n.language(table.language):
            table.log.extend(self.ui_of(table).event_text(event, names) for event in events)
        return events

    async def _reload_state(self, table: Table) -> None:
        table.state = await self.stored_state(table.game_id)
        record = table.state.record()
        table.version = len(record["actions"])
        table.decks_stored = len(record.get("decks", ())) or 1

    def _after_move(self, table: Table) -> None:
        """Caller holds the lock: arm the next turn (its deadline is set) or finish, then refresh."""
        if table.state.is_over:
            table.deadline = None
            self._spawn(self._finish(table), f"finish-{table.id}")
        else:
            if table.rounds_done() > table.rounds_posted:
                self._spawn(self._post_round_results(table), f"round-{table.id}")
            self._schedule(table)
            self._prompt_deciders(table)
        self.request_refresh(table)

    def _start_turn(self, table: Table) -> None:
        table.deadline = None if table.state is not None and table.state.is_over else now() + table.turn_seconds

    def _schedule(self, table: Table) -> None:
        """Arm what moves the table without a click: an AI seat's move, or the table's clock
        (a person's time running out, the end of the pause between two rounds)."""
        if table.state is None or table.state.is_over:
            return
        paused = self._between_rounds(table) and not self._deciding(table)
        if not paused and any(table.seats[s].auto for s in table.state.to_act):
            self._spawn(self._ai_move(table, table.version), f"ai-{table.id}")
        elif table.clock is None or table.clock.done():
            table.clock = self._spawn(self._run_clock(table), f"clock-{table.id}")

    def _clock_due(self, table: Table) -> float | None:
        """When the table's clock must act next; None when there is nothing to time."""
        state = table.state
        if state is None or state.is_over or table.status != "playing":
            return None
        if self._between_rounds(table) and not self._deciding(table):
            return table.pause_until
        if state.to_act and not any(table.seats[s].auto for s in state.to_act):
            return table.deadline or now()
        return None

    async def _run_clock(self, table: Table) -> None:
        """The one sleeping task of a table. Deadlines only ever move later, so the clock is
        never cancelled: woken at a deadline that has since moved, it sleeps on to the new one
        (cancelling a timer on every move would leave a trail of dead timers behind)."""
        game_id = table.game_id
        while table.game_id == game_id:
            due = self._clock_due(table)
            if due is None:
                break
            if due > now():
                await asyncio.sleep(due - now())
                continue
            async with table.lock:
                due = self._clock_due(table)
                if due is None or due > now():
                    continue
                if self._between_rounds(table) and not self._deciding(table):
                    await self._next_round(table)
                else:
                    await self._time_out(table)
        if table.clock is asyncio.current_task():
            table.clock = None

    async def _time_out(self, table: Table) -> None:
        """The person to act ran out of time: the game's timeout move is played for him
        (caller holds the lock); timeouts in a row mark him away."""
        seat = table.state.to_act[0]
        table.timeouts[seat] = table.timeouts.get(seat, 0) + 1
        name = table.names()[seat]
        with i18n.language(table.language):
            table.log.append("⏰ " + _("{player} ran out of time; the AI played.").format(player=name))
            if table.timeouts[seat] >= self.config.away_after_timeouts:
                table.seats[seat].away = True
                table.log.append("💤 " + _("{player} is away; the AI plays until they are back.").format(player=name))
        if table.seats[seat].away:
            await self._save_table(table, seats=table.seats_json())
        await self._apply(table, seat, self.ui_of(table).timeout_action(table.state, seat), timed_out=True)
        self._after_move(table)

    async def _ai_move(self, table: Table, version: int) -> None:
        """An AI seat (or the AI standing in for a person who is away) moves, after the pause
        that lets people follow."""
        if self.config.ai_delay_seconds:
            await asyncio.sleep(self.config.ai_delay_seconds)
        async with table.lock:
            state = table.state
            if table.version != version or state is None or state.is_over or \
                    (self._between_rounds(table) and not self._deciding(table)):
                return
            seat = next((s for s in state.to_act if table.seats[s].auto), None)
            if seat is None:
                return
            ui = self.ui_of(table)
            player = table.seats[seat]
            action = ui.ai_action(state, seat) if player.is_ai else ui.timeout_action(state, seat)
            await self._apply(table, seat, action)
            self._after_move(table)

    def request_refresh(self, table: Table) -> None:
        table.dirty = True
        if table.refresher is None or table.refresher.done():
            table.refresher = self._spawn(self._refresh_loop(table), f"refresh-{table.id}")

    async def _refresh_loop(self, table: Table) -> None:
        while table.dirty:
            async with table.lock:
                pass  # let a move being applied finish: never show a state halfway through a move
            table.dirty = False
            if self._ai_move_imminent(table):
                return  # that move refreshes again: one round of edits for the whole burst
            try:
                await self._refresh(table)
            except discord.HTTPException:
                log.warning("refreshing table %s failed", table.id, exc_info=True)

    def _ai_move_imminent(self, table: Table) -> bool:
        """An AI seat moves next, too soon for anyone to follow a picture of the move before."""
        state = table.state
        if state is None or state.is_over or (self._between_rounds(table) and not self._deciding(table)):
            return False
        return self.config.ai_delay_seconds < COALESCE_SECONDS and any(table.seats[s].auto for s in state.to_act)

    async def _refresh(self, table: Table) -> None:
        if table.state is None:
            return
        ui = self.ui_of(table)
        if table.table_message_id is not None:
            over = table.state.is_over
            with i18n.language(table.language):
                picture = messages.table_picture(table, ui)
                embed = messages.table_embed(table, ui, picture=picture is not None)
                controls = None if over else messages.table_view(table)
            shown = (embed.to_dict(), over, picture)
            if shown != table.table_shown:  # a burst may ask twice for the same picture
                kwargs: dict[str, Any] = {}
                if picture is not None and picture != table.picture_shown:
                    kwargs["attachments"] = [await messages.table_png(picture)]
                message = self._channel(table.play_channel_id).get_partial_message(table.table_message_id)
                await message.edit(embed=embed, view=controls, **kwargs)
                table.table_shown, table.picture_shown = shown, picture
        for seat, tracked in list(table.hand_messages.items()):
            if tracked.answering:
                continue
            with i18n.language(await self.dm_language(table.seats[seat].user_id)):
                payload = await messages.hand_payload(table, ui, seat, tracked.shown)
            if payload is None:
                continue
            kwargs: dict[str, Any] = {"content": payload["content"], "view": payload["view"]}
            if payload["png"] is not None:
                kwargs["attachments"] = [messages.png_file(payload["png"])]
            try:
                await self._channel(tracked.channel_id).get_partial_message(tracked.message_id).edit(**kwargs)
            except discord.NotFound:
                table.hand_messages.pop(seat, None)
                continue
            tracked.shown = payload["shown"]

    # ------------------------------------------------------------------ between two rounds
    @staticmethod
    def _between_rounds(table: Table) -> bool:
        return table.pause_until is not None

    def _deciding(self, table: Table) -> bool:
        state = table.state
        return state is not None and not state.is_over and bool(state.to_act) and \
            self.ui_of(table).deciding(state.view(None))

    def _humans_in_match(self, table: Table) -> list[int]:
        in_match = getattr(table.state, "in_match", None) or [True] * len(table.seats)
        return [seat for seat, player in enumerate(table.seats) if not player.is_ai and in_match[seat]]

    def _prompt_deciders(self, table: Table) -> None:
        """A person who must decide between two rounds gets a fresh DM (which notifies him, where
        an edit would not), with the decision's buttons and its countdown."""
        if not self._between_rounds(table) or not self._deciding(table):
            return
        for seat in table.state.to_act:
            if not table.seats[seat].is_ai and seat not in table.dm_closed:
                self._spawn(self._send_hand(table, seat, replace=True), f"decide-{table.id}-{seat}")

    async def _next_round(self, table: Table) -> None:
        """The pause is over: the round already dealt starts (caller holds the lock)."""
        if table.state.is_over or self._deciding(table):
            return
        table.pause_until = None
        table.ready.clear()
        self._start_turn(table)
        await self._save_table(table, pause_until=None, turn_deadline=table.deadline)
        round_no = table.rounds_done() + 1
        with i18n.language(table.language):
            table.log.append(_("Round {round} dealt.").format(round=round_no))
        self._schedule(table)
        for seat in self._humans_in_match(table):
            if seat not in table.dm_closed:
                self._spawn(self._send_hand(table, seat, replace=True), f"hand-{table.id}-{seat}")
        self.request_refresh(table)

    async def ready_for_next_round(self, interaction: discord.Interaction, table: Table, seat: int) -> None:
        """**Next round**: the round starts as soon as every person still in has clicked it."""
        async with table.lock:
            if not self._between_rounds(table) or table.status != "playing":
                raise Refused(_("There is no round to wait for."))
            if seat not in self._humans_in_match(table):
                raise Refused(_("You are out of the match; the others play on."))
            table.ready.add(seat)
            waiting = [table.names()[s] for s in self._humans_in_match(table) if s not in table.ready]
            if self._deciding(table):
                who = ", ".join(table.names()[s] for s in table.state.to_act)
                text = _("Ready. The next round starts once {players} has decided.").format(players=who)
            elif waiting:
                text = _("Ready. Waiting for {players} (or {when}).").format(
                    players=", ".join(waiting), when=f"<t:{int(table.pause_until)}:R>")
            else:
                text = _("Everyone is ready: the next round starts.")
            if not waiting and not self._deciding(table):
                await self._next_round(table)
        await self.reply(interaction, text)

    async def _post_round_results(self, table: Table) -> None:
        """Every finished round's result reaches the table once, in order (retried like results)."""
        async with table.post_lock:
            game_id = table.game_id
            while table.game_id == game_id and table.rounds_posted < table.rounds_done():
                index = table.rounds_posted
                try:
                    await with_retries(f"posting round {index + 1} of game {game_id}",
                                       lambda: self._send_round_result(table, index))
                except Exception:
                    return  # posted at the next start
                table.rounds_posted = index + 1
                await self._save_table(table, rounds_posted=table.rounds_posted)

    async def _send_round_result(self, table: Table, index: int) -> discord.Message:
        ui = self.ui_of(table)
        view = table.state.view(None)
        names = table.names()
        last = index == len(view["round_results"]) - 1
        with i18n.language(table.language):
            embed = messages.round_embed(table, ui, view, names, index)
            kwargs: dict[str, Any] = {"embed": embed}
            if last and self._between_rounds(table) and not table.state.is_over:
                kwargs["view"] = messages.next_round_view(table)
            rows = ui.round_rows(view, table.raw_names(), index)
            title = _("{game} · table #{table} · round {round}").format(game=ui.game.title, table=table.id,
                                                                         round=index + 1)
        try:
            png = await render_rows_async(rows, deck=ui.deck, title=title)
        except Exception:
            log.exception("rendering round %s of table %s failed; posting it without the image", index + 1, table.id)
        else:
            embed.set_image(url="attachment://round.png")
            kwargs["file"] = messages.png_file(png, "round.png")
        return await self._channel(table.play_channel_id).send(**kwargs)
