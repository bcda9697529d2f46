"""Playing: moves applied and saved, the next turn armed after each, turn timers, AI seats,
the pause between two rounds, and refreshing what people see (bursts of moves coalesced into
one round of edits). The clicks on a hand are :mod:`.hands`'."""

from __future__ import annotations

import asyncio

import discord

from bot import i18n
from bot.ai.levels import level_of, quick_choice
from bot.db import LeaseLost
from bot.games.base import Event
from bot.i18n import _

from . import turns
from .core import Core, Refused, log, now, reply
from .ending import Ending
from .model import Table
from .notices import Notices
from .results import Results
from .retry import retry_delay
from .showing import Showing


class Play:
    """Moves, timers and refreshes of the games in play."""

    def __init__(self, core: Core, showing: Showing, notices: Notices, results: Results, ending: Ending) -> None:
        self.core = core
        self.db = core.db
        self.showing = showing
        self.notices = notices
        self.results = results
        self.ending = ending

    async def apply(self, table: Table, seat: int, action: str, *, by_player: bool = False,
                    timed_out: bool = False) -> list[Event]:
        """Apply and persist one action with the deadline of the next turn (and the seat's
        timeouts in a row when they change, in the same transaction); the caller holds the lock.
        Raises IllegalAction."""
        core, db = self.core, self.db
        ui = core.ui_of(table)
        rounds_before = table.rounds_done()
        before = table.state.record()
        events = table.state.apply(seat, action)
        record = table.state.record()
        canonical = record["actions"][-1][1]
        new_decks = record.get("decks", [])[table.decks_stored:] if ui.game.multi_round else []
        previous = (table.deadline, table.timeouts.get(seat, 0), table.pause_until)
        if by_player:
            table.timeouts[seat] = 0
        if table.rounds_done() > rounds_before and not table.state.is_over:
            table.pause_until = now() + core.config.round_pause_seconds  # time to read the round's result
            table.ready.clear()
        self.start_turn(table)
        # several processes: the move is written only while this process holds the table's
        # lease (the fence holds it until the move commits), else LeaseLost and nothing changed
        lease = core.leases.lease(table.id)
        game_id = table.game_id
        assert game_id is not None  # (a game in play)
        try:
            with core.fenced(table):
                if timed_out or new_decks or previous[1] != table.timeouts.get(seat, 0) or \
                        previous[2] != table.pause_until:
                    async with db.transaction():
                        await db.append_action(game_id, table.version, seat, canonical, table.deadline, lease=lease)
                        await db.update_table(table.id, timeouts=table.timeouts, pause_until=table.pause_until)
                        await db.add_decks(game_id, table.decks_stored + 1, new_decks)
                else:
                    await db.append_action(game_id, table.version, seat, canonical, table.deadline, lease=lease)
        except BaseException:
            # The move is not recorded, so it did not happen: the state is the record before it.
            table.deadline, table.timeouts[seat], table.pause_until = previous
            table.state = ui.game.replay(before)
            raise
        table.decks_stored += len(new_decks)
        table.version += 1
        table.selection.pop(seat, None)
        table.picks.pop(seat, None)
        names = table.names()
        with i18n.language(table.language):
            # a round's deal is logged when the round starts, after the pause (next_round)
            table.log.extend(ui.event_text(event, names) for event in events if event.kind != "round_start")
        return events

    async def reload_state(self, table: Table) -> None:
        """The game in play, replayed from its record in the database."""
        assert table.game_id is not None  # (a game in play)
        table.state = await self.core.stored_state(table.game_id)
        record = table.state.record()
        table.version = len(record["actions"])
        table.decks_stored = len(record.get("decks", ())) or 1

    def after_move(self, table: Table) -> None:
        """Caller holds the lock: arm the next turn (its deadline is set) or finish, then refresh."""
        if table.state.is_over:
            table.deadline = None
            self.core.spawn(self.ending.finish(table), f"finish-{table.id}", table)
        else:
            self.results.show_new_rounds(table)
            self.schedule(table)
            self.prompt_deciders(table)
        self.notices.notify_turns(table)
        self.showing.request_refresh(table)

    @staticmethod
    def start_turn(table: Table) -> None:
        table.deadline = turns.turn_deadline(table, now())

    def schedule(self, table: Table) -> None:
        """Arm what moves the table without a click: an AI seat's move, or the table's clock
        (a person's time running out, the end of the pause between two rounds)."""
        if table.state is None or table.state.is_over:
            return
        if not turns.paused(table, self.core.ui_of(table)) and any(table.seats[s].auto for s in table.state.to_act):
            # the game waits until every person at it has been shown his cards (shown, the
            # outbox schedules it again)
            if all(self.showing.can_see_hand(table, s) for s, seat in enumerate(table.seats) if not seat.is_ai):
                self.core.spawn(self.ai_move(table, table.version), f"ai-{table.id}", table)
        elif table.clock is None or table.clock.done():
            table.clock = self.core.spawn(self._run_clock(table), f"clock-{table.id}", table)

    async def now_visible(self, table: Table, seat: int | None = None) -> None:
        """A person may now see his hand (it reached him, or the table message with **My hand**
        did): a turn he could not see starts now, not before."""
        state = table.state
        if state is None or state.is_over or table.status != "playing":
            return
        seats = [seat] if seat is not None else list(table.dm_closed)
        if not any(s in state.to_act and not table.seats[s].auto for s in seats):
            self.schedule(table)  # AI seats that waited for everyone to see his cards play now
            return
        async with table.lock:
            self.start_turn(table)
            await self.core.save_table(table, turn_deadline=table.deadline)
            self.schedule(table)
        self.showing.request_refresh(table)

    # ------------------------------------------------------------------- the table's clock
    def _clock_due(self, table: Table) -> float | None:
        return turns.clock_due(table, self.core.ui_of(table), self.showing.can_see_hand, now())

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
                    if turns.paused(table, self.core.ui_of(table)):
                        await self.next_round(table)
                    else:
                        await self.time_out(table)
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

    async def time_out(self, table: Table) -> None:
        """The person to act ran out of time: the game's timeout move is played for him
        (caller holds the lock); timeouts in a row mark him away. Nothing changes unless the
        move is saved."""
        seat = table.state.to_act[0]
        timeouts = table.timeouts.get(seat, 0) + 1
        name = table.names()[seat]
        away = timeouts >= self.core.config.away_after_timeouts
        if away and not table.seats[seat].away:
            seats = table.seats_json()
            seats[seat]["away"] = True
            await self.core.save_table(table, seats=seats)
        table.timeouts[seat] = timeouts
        try:
            await self.apply(table, seat, self._auto_action(table, seat), timed_out=True)
        except BaseException:
            table.timeouts[seat] = timeouts - 1
            raise
        with i18n.language(table.language):
            table.log.append("⏰ " + _("{player} ran out of time; the AI played.").format(player=name))
            if away and not table.seats[seat].away:
                table.log.append("💤 " + _("{player} is away; the AI plays until they are back.").format(player=name))
        table.seats[seat].away = table.seats[seat].away or away
        self.after_move(table)

    # ---------------------------------------------------------------------------- AI seats
    async def ai_move(self, table: Table, version: int, pause: float | None = None) -> None:
        """An AI seat (or the AI standing in for a person who is away) moves, after the pause
        that lets people follow. A move that cannot be saved is tried again after a longer pause."""
        delay = self.core.config.ai_delay_seconds if pause is None else pause
        if delay:
            await asyncio.sleep(delay)
        async with table.lock:
            if table.version != version or table.status != "playing" or turns.paused(table, self.core.ui_of(table)):
                return
            seat = turns.auto_seat(table)
            if seat is None:
                return
            move = self._auto_action(table, seat)
            try:
                await self.apply(table, seat, move)
            except LeaseLost:
                return  # another process drives the table now
            except Exception:
                table.ai_failures += 1
                retry = retry_delay(table.ai_failures)
                log.exception("table %s: an AI move could not be saved; trying again in %.0f s", table.id, retry)
                self.core.spawn(self.ai_move(table, version, retry), f"ai-{table.id}", table)
                return
            table.ai_failures = 0
            self.after_move(table)

    def _auto_action(self, table: Table, seat: int) -> str:
        """The move the AI makes for ``seat`` now, at the table's level: an AI seat's, or a
        person's whose time ran out or who is away (except where the game leaves a decision to
        the person: :meth:`GameUI.person_action`). Caller holds the lock."""
        view = table.state.view(seat)
        if not table.seats[seat].is_ai:
            forced = self.core.ui_of(table).person_action(view)
            if forced is not None:
                return forced
        return quick_choice(table.game, level_of(table.options), view)

    # ------------------------------------------------------------------ between two rounds
    def prompt_deciders(self, table: Table) -> None:
        """A person who must decide between two rounds gets a fresh DM (which notifies him, where
        an edit would not), with the decision's buttons and its countdown."""
        if not turns.between_rounds(table) or not turns.deciding(table, self.core.ui_of(table)):
            return
        for seat in table.state.to_act:
            if not table.seats[seat].is_ai and seat not in table.dm_closed:
                self.showing.show_hand(table, seat, new_message=True)
                table.acting.add(seat)  # the new hand message tells him

    async def next_round(self, table: Table) -> None:
        """The pause is over: the round already dealt starts (caller holds the lock)."""
        if table.state.is_over or turns.deciding(table, self.core.ui_of(table)):
            return
        table.pause_until = None
        table.ready.clear()
        self.start_turn(table)
        await self.core.save_table(table, pause_until=None, turn_deadline=table.deadline)
        round_no = table.rounds_done() + 1
        with i18n.language(table.language):
            table.log.append(_("Round {round} dealt.").format(round=round_no))
        self.schedule(table)
        for seat in turns.humans_in_match(table):
            if seat not in table.dm_closed:
                self.showing.show_hand(table, seat, new_message=True)
        self.notices.acting_now(table)  # each new hand message tells its player
        self.showing.request_refresh(table)

    async def ready_for_next_round(self, interaction: discord.Interaction, table: Table, seat: int) -> None:
        """**Next round**: the round starts as soon as every person still in has clicked it."""
        ui = self.core.ui_of(table)
        async with table.lock:
            if not turns.between_rounds(table) or table.status != "playing":
                raise Refused(_("There is no round to wait for."))
            if seat not in turns.humans_in_match(table):
                raise Refused(_("You are out of the match; the others play on."))
            table.ready.add(seat)
            waiting = [table.names()[s] for s in turns.humans_in_match(table) if s not in table.ready]
            if turns.deciding(table, ui):
                who = ", ".join(table.names()[s] for s in table.state.to_act)
                text = _("Ready. The next round starts once {players} has decided.").format(players=who)
            elif waiting:
                text = _("Ready. Waiting for {players} (or {when}).").format(
                    players=", ".join(waiting), when=f"<t:{int(table.pause_until or 0)}:R>")
            else:
                text = _("Everyone is ready: the next round starts.")
            if not waiting and not turns.deciding(table, ui):
                await self.next_round(table)
        await reply(interaction, text)

    # -------------------------------------------------------------------------- I'm back
    async def back(self, interaction: discord.Interaction, table: Table, seat: int) -> None:
        """**I'm back**: a person the AI played for while he was away plays his seat again."""
        async with table.lock:
            if not table.seats[seat].away:
                raise Refused(_("You are not marked away."))
            seats = table.seats_json()
            seats[seat]["away"] = False
            deadline = now() + table.turn_seconds
            try:
                await self.core.save_table(table, seats=seats, timeouts={**table.timeouts, seat: 0},
                                           turn_deadline=deadline)
            except Exception:
                log.exception("table %s: I'm back could not be saved", table.id)
                raise Refused(_("That could not be saved, so nothing changed. Please try again."))
            table.seats[seat].away = False
            table.timeouts[seat] = 0
            table.deadline = deadline
            self.schedule(table)
        await reply(interaction, _("Welcome back! You play your own seat again."))
        self.showing.request_refresh(table)
