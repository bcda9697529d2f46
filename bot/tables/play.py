"""Playing: hands by DM, clicks on them, moves, turn timers and AI seats, and refreshing
what people see (bursts of moves coalesced into one round of edits)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import discord

from bot import i18n
from bot.db import LeaseLost
from bot.games.base import Event, IllegalAction
from bot.i18n import _

from . import messages
from .controls import ControlId

from .core import Refused, log, now
from .model import Table
from .retry import retry_delay
from .showing import ShowFlow
from bot.ai.levels import level_of, quick_choice

# A click is answered with its result in one call unless the table is busy this long.
ACKNOWLEDGE_WITHIN = 1.0


class PlayFlow(ShowFlow):
    """Moves, timers and refreshes of a game in play."""

    async def _play_click(self, interaction: discord.Interaction, table: Table, control: ControlId,
                          values: list[str]) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise Refused(_("You are not playing at this table."))
        if table.status != "playing" or control.game_no != table.game_no:
            raise Refused(_("That game is over."))
        ui = self.ui_of(table)
        refusal = None
        table.clicked_at[seat] = self.presenter(table).now()  # he is looking: no turn notice for now
        # Choosing cards and the helpers work from any picture of this game's hand (a waiting
        # player's hand is not edited for every move); only a move must come from the current one.
        choosing = control.key == "sel" or control.key in ui.helper_keys
        async with self._lock_or_defer(table, interaction):
            if table.state.is_over or (control.version != table.version and not choosing and control.key not in {
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
                except Exception:
                    log.exception("table %s: a move of seat %s could not be saved", table.id, seat)
                    refusal = _("Your move could not be saved, so nothing changed. Please try again.")
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
                if not interaction.response.is_done():
                    await interaction.response.defer()
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
        message = interaction.message
        slot = self.presenter(table).get(f"hand:{seat}")
        if slot is None or message is None or message.id != slot.message_id:
            slot = None  # an ephemeral My hand, or an older DM
        ui = self.ui_of(table)
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
            if not interaction.response.is_done():
                if edit:
                    await interaction.response.edit_message(**edit)
                elif refusal:
                    return await interaction.response.send_message(refusal, ephemeral=True)
                else:
                    await interaction.response.defer()  # nothing to change on the message
            elif edit:
                await interaction.edit_original_response(**edit)
            if slot is not None:
                self.presenter(table).confirmed(slot, shown.signature, shown.image if upload else None,
                                                interaction=interaction)
            if refusal:
                await interaction.followup.send(refusal, ephemeral=True)
        finally:
            if slot is not None:
                slot.answering -= 1
                self.presenter(table).touch(slot.key)  # shown again if the answer did not show it

    async def _apply(self, table: Table, seat: int, action: str, *, by_player: bool = False,
                     timed_out: bool = False) -> list[Event]:
        """Apply and persist one action with the deadline of the next turn (and the seat's
        timeouts in a row when they change, in the same transaction); the caller holds the lock.
        Raises IllegalAction."""
        rounds_before = table.rounds_done()
        before = table.state.record()
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
        # several processes: the move is written only while this process holds the table's
        # lease (the fence holds it until the move commits), else LeaseLost and nothing changed
        lease = self.leases.lease(table.id)
        try:
            with self._fenced(table):
                if timed_out or new_decks or previous[1] != table.timeouts.get(seat, 0) or \
                        previous[2] != table.pause_until:
                    async with self.db.transaction():
                        await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline,
                                                    lease=lease)
                        await self.db.update_table(table.id, timeouts=table.timeouts, pause_until=table.pause_until)
                        await self.db.add_decks(table.game_id, table.decks_stored + 1, new_decks)
                else:
                    await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline,
                                                lease=lease)
        except BaseException:
            # The move is not recorded, so it did not happen: the state is the record before it.
            table.deadline, table.timeouts[seat], table.pause_until = previous
            table.state = self.ui_of(table).game.replay(before)
            raise
        table.decks_stored += len(new_decks)
        table.version += 1
        table.selection.pop(seat, None)
        table.picks.pop(seat, None)
        names = table.names()
        with i18n.language(table.language):
            # a round's deal is logged when the round starts, after the pause (_next_round)
            table.log.extend(self.ui_of(table).event_text(event, names) for event in events
                             if event.kind != "round_start")
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
            self._spawn(self._finish(table), f"finish-{table.id}", table)
        else:
            self._show_new_rounds(table)
            self._schedule(table)
            self._prompt_deciders(table)
        self._notify_turns(table)
        self.request_refresh(table)

    def _show_new_rounds(self, table: Table) -> None:
        """Each round that ended since the last look gets its result posted (once, in order)."""
        done = table.rounds_done()
        if done > table.rounds_shown:
            self._show_rounds_since(table, table.game_id, table.rounds_shown, done)
            table.rounds_shown = done

    def _start_turn(self, table: Table) -> None:
        table.deadline = None if table.state is not None and table.state.is_over else now() + table.turn_seconds

    def _schedule(self, table: Table) -> None:
        """Arm what moves the table without a click: an AI seat's move, or the table's clock
        (a person's time running out, the end of the pause between two rounds)."""
        if table.state is None or table.state.is_over:
            return
        paused = self._between_rounds(table) and not self._deciding(table)
        if not paused and any(table.seats[s].auto for s in table.state.to_act):
            # the game waits until every person at it has been shown his cards (shown, the
            # outbox schedules it again)
            if all(self.can_see_hand(table, s) for s, seat in enumerate(table.seats) if not seat.is_ai):
                self._spawn(self._ai_move(table, table.version), f"ai-{table.id}", table)
        elif table.clock is None or table.clock.done():
            table.clock = self._spawn(self._run_clock(table), f"clock-{table.id}", table)

    def _clock_due(self, table: Table) -> float | None:
        """When the table's clock must act next; None when there is nothing to time."""
        state = table.state
        if state is None or state.is_over or table.status != "playing":
            return None
        if self._between_rounds(table) and not self._deciding(table):
            return table.pause_until
        if state.to_act and not any(table.seats[s].auto for s in state.to_act):
            if not all(self.can_see_hand(table, s) for s in state.to_act):
                return None  # nobody plays for a person who was never shown his hand
            return table.deadline or now()
        return None

    async def _run_clock(self, table: Table) -> None:
        """The one sleeping task of a table. Deadlines only ever move later, so the clock is
        never cancelled: woken at a deadline that has since moved, it sleeps on to the new one
        (cancelling a timer on every move would leave a trail of dead timers behind). A move it
        cannot save (the database locked or full) is tried again after a pause, not dropped."""
        game_id = table.game_id
        failures = 0
        while table.game_id == game_id and not table.dropped:
            due = self._clock_due(table)
            if due is None:
                break
            if due > now():
                await asyncio.sleep(due - now())
                continue
            try:
                async with table.lock:
                    due = self._clock_due(table)
                    if due is None or due > now():
                        continue
                    if self._between_rounds(table) and not self._deciding(table):
                        await self._next_round(table)
                    else:
                        await self._time_out(table)
                failures = 0
            except LeaseLost:
                break  # another process drives the table now (this one stopped driving it)
            except Exception:
                failures += 1
                delay = retry_delay(failures)
                log.exception("table %s: the clock's move failed; trying again in %.0f s", table.id, delay)
                await asyncio.sleep(delay)
        if table.clock is asyncio.current_task():
            table.clock = None

    async def _time_out(self, table: Table) -> None:
        """The person to act ran out of time: the game's timeout move is played for him
        (caller holds the lock); timeouts in a row mark him away. Nothing changes unless the
        move is saved."""
        seat = table.state.to_act[0]
        timeouts = table.timeouts.get(seat, 0) + 1
        name = table.names()[seat]
        away = timeouts >= self.config.away_after_timeouts
        if away and not table.seats[seat].away:
            seats = table.seats_json()
            seats[seat]["away"] = True
            await self._save_table(table, seats=seats)
        table.timeouts[seat] = timeouts
        try:
            await self._apply(table, seat, self._auto_action(table, seat), timed_out=True)
        except BaseException:
            table.timeouts[seat] = timeouts - 1
            raise
        with i18n.language(table.language):
            table.log.append("⏰ " + _("{player} ran out of time; the AI played.").format(player=name))
            if away and not table.seats[seat].away:
                table.log.append("💤 " + _("{player} is away; the AI plays until they are back.").format(player=name))
        table.seats[seat].away = table.seats[seat].away or away
        self._after_move(table)

    async def _ai_move(self, table: Table, version: int, pause: float | None = None) -> None:
        """An AI seat (or the AI standing in for a person who is away) moves, after the pause
        that lets people follow. A move that cannot be saved is tried again after a longer pause."""
        delay = self.config.ai_delay_seconds if pause is None else pause
        if delay:
            await asyncio.sleep(delay)
        async with table.lock:
            state = table.state
            if table.version != version or state is None or state.is_over or table.status != "playing" or \
                    (self._between_rounds(table) and not self._deciding(table)):
                return
            seat = next((s for s in state.to_act if table.seats[s].auto), None)
            if seat is None:
                return
            move = self._auto_action(table, seat)
            try:
                await self._apply(table, seat, move)
            except LeaseLost:
                return  # another process drives the table now
            except Exception:
                table.ai_failures += 1
                retry = retry_delay(table.ai_failures)
                log.exception("table %s: an AI move could not be saved; trying again in %.0f s", table.id, retry)
                self._spawn(self._ai_move(table, version, retry), f"ai-{table.id}", table)
                return
            table.ai_failures = 0
            self._after_move(table)

    def _auto_action(self, table: Table, seat: int) -> str:
        """The move the AI makes for ``seat`` now, at the table's level: an AI seat's, or a
        person's whose time ran out or who is away (except where the game leaves a decision to
        the person: :meth:`GameUI.person_action`). Caller holds the lock."""
        view = table.state.view(seat)
        if not table.seats[seat].is_ai:
            forced = self.ui_of(table).person_action(view)
            if forced is not None:
                return forced
        return quick_choice(table.game, level_of(table.options), view)

    def _ai_move_imminent(self, table: Table) -> bool:
        """An AI seat moves next (the picture of the table is about to change again)."""
        state = table.state
        if state is None or state.is_over or (self._between_rounds(table) and not self._deciding(table)):
            return False
        return any(table.seats[s].auto for s in state.to_act)

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
                self._show_hand(table, seat, new_message=True)
                table.acting.add(seat)  # the new hand message tells him

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
                self._show_hand(table, seat, new_message=True)
        self._acting_now(table)  # each new hand message tells its player
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
