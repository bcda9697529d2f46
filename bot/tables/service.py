"""The table service: lobbies, turns, timers, AI seats, DMs and persistence for every game.

Every state change happens under the table's lock and is written to SQLite before anyone is
answered; everything shown on Discord is derived from the engine state afterwards, through a
per-table refresher that coalesces bursts of moves into one round of edits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import discord

from bot import ledger
from bot.db import Database
from bot.games.base import Event, IllegalAction

from . import messages
from .adapter import GameUI
from .commands import common_options
from .controls import ControlId
from .model import HandMessage, Seat, Table
from .retry import with_retries

if TYPE_CHECKING:
    from bot.app import ChieuBot

log = logging.getLogger(__name__)

# A finished table is rebuilt after a restart (so Rematch still works) for this long.
REMATCH_WINDOW = timedelta(days=1)
# A click is answered with its result in one call unless the table is busy this long.
ACKNOWLEDGE_WITHIN = 1.0
# AI moves closer together than this are shown as one burst (one edit of each message).
COALESCE_SECONDS = 0.5


class Refused(Exception):
    """A click that changes nothing; the message is shown privately to the clicker."""


def now() -> float:
    """Unix time from discord.py's clock (the simulator's virtual clock in tests)."""
    return discord.utils.utcnow().timestamp()


class TableService:
    def __init__(self, bot: "ChieuBot", db: Database) -> None:
        self.bot = bot
        self.db = db
        self.config = bot.config
        self.uis: dict[str, GameUI] = {}
        self.tables: dict[int, Table] = {}
        self._tasks: set[asyncio.Task] = set()
        # A pack to deal the next game from instead of a shuffle (tests and demos).
        self.next_deck: list[str] | None = None

    def register(self, ui: GameUI) -> None:
        self.uis[ui.game.name] = ui

    # ------------------------------------------------------------------ helpers
    def _spawn(self, coro: Any, name: str) -> asyncio.Task:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._log_failure)
        return task

    @staticmethod
    def _log_failure(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("table task %s failed", task.get_name(), exc_info=task.exception())

    async def close(self) -> None:
        for table in self.tables.values():
            for task in (table.timer, table.refresher, table.lobby_timer):
                if task is not None:
                    task.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    async def reply(interaction: discord.Interaction, text: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    def _channel(self, channel_id: int) -> discord.abc.Messageable:
        return self.bot.get_channel(channel_id) or self.bot.get_partial_messageable(channel_id)

    async def _save_table(self, table: Table, **fields: Any) -> None:
        await self.db.update_table(table.id, **fields)

    # ------------------------------------------------------------------ lobby
    async def open_lobby(self, interaction: discord.Interaction, game: str, **given: Any) -> None:
        """``/<game> new``: ``given`` holds the command's options, None where not given."""
        ui = self.uis[game]
        cfg = self.config
        if interaction.guild is None:
            return await self.reply(interaction, "Tables are opened in a server channel, not in DMs.")
        open_here = [t for t in self.tables.values() if t.channel_id == interaction.channel_id
                     and t.status in ("lobby", "playing")]
        mine = next((t for t in open_here if t.status == "lobby" and t.host_id == interaction.user.id), None)
        if mine is not None:
            return await self.reply(
                interaction, f"You already have an open lobby here (table #{mine.id}): start it or cancel it "
                             "before opening another.")
        if len(open_here) >= cfg.max_tables_per_channel:
            return await self.reply(interaction, f"This channel already has {len(open_here)} open tables.")
        # the limits Discord shows are the ones enforced here (a client may send anything)
        for option in (*common_options(ui, cfg), *ui.lobby_options):
            value = given.get(option.name)
            if value is None:
                continue
            if option.choices and value not in option.choices:
                return await self.reply(interaction, f"`{option.name}` must be one of {', '.join(option.choices)}.")
            if option.low is not None and not option.low <= value <= option.high:
                return await self.reply(interaction, f"`{option.name}` must be {option.low}–{option.high}.")
        stake = cfg.default_stake if given.get("stake") is None else given["stake"]
        options = {**ui.table_options(given, stake=stake), "stake": stake,
                   "seats": given.get("seats") or ui.game.max_players,
                   "turn_seconds": given.get("turn_seconds") or cfg.default_turn_seconds}
        host = Seat(interaction.user.id, interaction.user.display_name)
        table_id = await self.db.insert_table(guild_id=interaction.guild.id, channel_id=interaction.channel_id,
                                              game=game, options=options, host_id=host.user_id,
                                              seats=[host.to_json()])
        table = Table(id=table_id, guild_id=interaction.guild.id, channel_id=interaction.channel_id, game=game,
                      options=options, host_id=host.user_id, status="lobby", seats=[host])
        self.tables[table_id] = table
        table.lobby_expires_at = now() + cfg.lobby_timeout_seconds
        await interaction.response.send_message(embed=messages.lobby_embed(table, ui), view=messages.lobby_view(table))
        message = await interaction.original_response()
        table.lobby_message_id = message.id
        await self._save_table(table, lobby_message_id=message.id, lobby_expires_at=table.lobby_expires_at)
        self._arm_lobby_expiry(table)

    def _arm_lobby_expiry(self, table: Table) -> None:
        if table.lobby_timer is not None:
            table.lobby_timer.cancel()
        table.lobby_timer = self._spawn(self._expire_lobby(table), f"lobby-{table.id}")

    async def _expire_lobby(self, table: Table) -> None:
        """Close a lobby nobody started in time, so that no one can hold a channel's seats forever."""
        await asyncio.sleep(max(0.0, (table.lobby_expires_at or now()) - now()))
        async with table.lock:
            if table.status != "lobby" or table.lobby_expires_at is None or table.lobby_expires_at > now() + 0.5:
                return
            table.status = "cancelled"
            table.lobby_timer = None
            self.tables.pop(table.id, None)
            await self._save_table(table, status="cancelled")
        minutes = max(1, round(self.config.lobby_timeout_seconds / 60))
        channel = self._channel(table.play_channel_id if table.game_no else table.channel_id)
        if table.lobby_message_id is not None:
            try:
                await channel.get_partial_message(table.lobby_message_id).edit(
                    embed=messages.lobby_embed(table, self.uis[table.game],
                                               note=f"Expired: nobody started this table within {minutes} minutes."),
                    view=messages.lobby_view(table))
            except discord.HTTPException:
                log.info("could not mark the expired lobby of table %s", table.id)

    async def _lobby_click(self, interaction: discord.Interaction, table: Table, key: str) -> None:
        ui = self.uis[table.game]
        user = interaction.user
        async with table.lock:
            if table.status != "lobby":
                raise Refused("This lobby is closed.")
            seat = table.seat_of(user.id)
            if key == "join":
                if seat is not None:
                    raise Refused("You are already seated at this table.")
                if len(table.seats) >= table.max_seats:
                    raise Refused("This table is full.")
                table.seats.append(Seat(user.id, user.display_name))
            elif key == "leave":
                if seat is None:
                    raise Refused("You are not seated at this table.")
                del table.seats[seat]
                if user.id == table.host_id:
                    humans = [s for s in table.seats if not s.is_ai]
                    if not humans:
                        table.status = "cancelled"
                    else:
                        table.host_id = humans[0].user_id
            elif key == "ai":
                if seat is None:
                    raise Refused("Only seated players can add AI seats.")
                if len(table.seats) >= table.max_seats:
                    raise Refused("This table is full.")
                taken = {s.name for s in table.seats}
                table.seats.append(Seat(None, next(f"AI {n}" for n in range(1, 10) if f"AI {n}" not in taken)))
            elif key in ("start", "cancel"):
                if user.id != table.host_id:
                    raise Refused(f"Only the host, <@{table.host_id}>, can {key} this table.")
                if key == "cancel":
                    table.status = "cancelled"
                elif len(table.seats) < ui.game.min_players:
                    raise Refused(f"{ui.game.title} needs at least {ui.game.min_players} players "
                                  "(use **Add AI** to fill seats).")
            else:
                raise Refused("That control is not valid.")
            await self._save_table(table, seats=table.seats_json(), status=table.status,
                                   host_id=table.host_id)
            if table.status == "cancelled":
                self.tables.pop(table.id, None)
            if table.status != "lobby" and table.lobby_timer is not None:
                table.lobby_timer.cancel()
                table.lobby_timer = None
            await interaction.response.edit_message(embed=messages.lobby_embed(table, ui),
                                                    view=messages.lobby_view(table))
            if key == "start":
                await self._start_game(table, interaction.message)

    async def _start_game(self, table: Table, lobby_message: discord.Message | None) -> None:
        """Deal, persist, open the thread, post the table and send the hands. Caller holds the lock."""
        ui = self.uis[table.game]
        deck, self.next_deck = self.next_deck, None
        previous_winner = await self._previous_winner(table)
        state = ui.game.new(len(table.seats), seed=random.SystemRandom().randrange(2**63), deck=deck,
                            options=ui.engine_options(table.options, previous_winner=previous_winner))
        record = state.record()
        table.game_no += 1
        async with self.db.transaction():
            table.game_id = await self.db.insert_game(
                table_id=table.id, game_no=table.game_no, guild_id=table.guild_id, game=table.game,
                seats=table.seats_json(), options=record["options"], deck=record["deck"],
                stake=table.stake)
            await self.db.update_table(table.id, status="playing", game_no=table.game_no)
        table.status = "playing"
        table.state, table.version = state, 0
        table.log.clear()
        table.selection.clear()
        table.timeouts.clear()
        table.hand_messages.clear()
        table.dm_closed.clear()
        table.log.append(f"Game {table.game_no} dealt; {table.seats[0].name} opens.")
        if lobby_message is not None and table.thread_id is None:
            table.thread_id = await self._open_thread(table, lobby_message)
        channel = self._channel(table.play_channel_id)
        self._start_turn(table)
        message = await channel.send(embed=messages.table_embed(table, ui), view=messages.table_view(table))
        table.table_message_id = message.id
        await self._save_table(table, thread_id=table.thread_id, table_message_id=message.id,
                               turn_deadline=table.deadline, timeouts={})
        for seat in range(len(table.seats)):
            if not table.seats[seat].is_ai:
                await self._send_hand(table, seat)
        if state.is_over:  # e.g. a Phỏm hand dealt all in phỏm wins before anyone plays
            self._after_move(table)
        else:
            self._schedule(table)

    async def _previous_winner(self, table: Table) -> int | None:
        """The seat (in today's seating) of whoever won this table's previous game, if anyone did."""
        if table.game_no == 0:
            return None
        row = await self.db.current_game(table.id, table.game_no)
        if row is None or row["status"] != "finished" or not row["outcome"]:
            return None
        winner = json.loads(row["outcome"]).get("winner")
        if winner is None:
            return None
        who = json.loads(row["seats"])[winner]
        for index, seat in enumerate(table.seats):
            if (seat.user_id, seat.name) == (who["user_id"], who["name"]):
                return index
        return None

    async def _open_thread(self, table: Table, lobby_message: discord.Message) -> int | None:
        channel = lobby_message.channel
        if not isinstance(channel, discord.TextChannel):
            return None  # already in a thread, a DM or a voice chat: play right there
        me = channel.guild.me
        if me is None or not channel.permissions_for(me).create_public_threads:
            return None
        try:
            thread = await lobby_message.create_thread(name=f"{self.uis[table.game].game.title} #{table.id}")
        except discord.HTTPException:
            log.info("could not open a thread for table %s; playing in the channel", table.id)
            return None
        return thread.id

    async def _send_hand(self, table: Table, seat: int) -> None:
        user_id = table.seats[seat].user_id
        payload = await messages.hand_payload(table, self.uis[table.game], seat)
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            message = await user.send(content=payload["content"], file=messages.png_file(payload["png"]),
                                      view=payload["view"])
        except discord.HTTPException as exc:  # 50007: the user does not accept DMs from us
            log.info("cannot DM user %s (%s)", user_id, exc)
            table.dm_closed.add(seat)
            await self._channel(table.play_channel_id).send(
                f"<@{user_id}>, I can't send you a DM (your DMs are closed). "
                "Use **My hand** on the table message to play.",
                allowed_mentions=discord.AllowedMentions(users=True))
            return
        table.hand_messages[seat] = HandMessage(message.channel.id, message.id, payload["shown"])
        await self.db.save_hand_message(table.game_id, seat, message.channel.id, message.id)

    # ------------------------------------------------------------------ interactions
    async def handle(self, interaction: discord.Interaction, control: ControlId | None, values: list[str]) -> None:
        try:
            if control is None:
                raise Refused("That control is not valid.")
            table = self.tables.get(control.table_id)
            if table is None:
                raise Refused("This table is closed.")
            if control.kind == "lobby":
                await self._lobby_click(interaction, table, control.key)
            elif control.kind == "table":
                await self._table_click(interaction, table, control.key)
            else:
                await self._play_click(interaction, table, control, values)
        except Refused as refusal:
            await self.reply(interaction, str(refusal))

    async def _table_click(self, interaction: discord.Interaction, table: Table, key: str) -> None:
        seat = table.seat_of(interaction.user.id)
        if key == "rematch":
            return await self._rematch(interaction, table)
        if seat is None:
            raise Refused("You are not playing at this table.")
        if table.status != "playing":
            raise Refused("This game is over.")
        if key == "hand":
            payload = await messages.hand_payload(table, self.uis[table.game], seat)
            await interaction.response.send_message(content=payload["content"], file=messages.png_file(payload["png"]),
                                                    view=payload["view"], ephemeral=True)
        elif key == "back":
            async with table.lock:
                if not table.seats[seat].away:
                    raise Refused("You are not marked away.")
                table.seats[seat].away = False
                table.timeouts[seat] = 0
                self._start_turn(table)
                await self._save_table(table, seats=table.seats_json(), timeouts=table.timeouts,
                                       turn_deadline=table.deadline)
                self._schedule(table)
            await self.reply(interaction, "Welcome back! You play your own seat again.")
            self.request_refresh(table)
        else:
            raise Refused("That control is not valid.")

    async def _play_click(self, interaction: discord.Interaction, table: Table, control: ControlId,
                          values: list[str]) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise Refused("You are not playing at this table.")
        if table.status != "playing" or control.game_no != table.game_no:
            raise Refused("That game is over.")
        ui = self.uis[table.game]
        refusal = None
        async with self._lock_or_defer(table, interaction):
            if control.version != table.version or table.state.is_over:
                refusal = "That button is from an earlier turn; your hand is now up to date."
            elif control.key == "sel":
                # a forged or stale select may carry anything: keep only cards this seat holds
                table.selection[seat] = ui.keep_selection(table.state.view(seat), values)
            elif control.key == "arrange":
                table.arranged[seat] = not table.arranged.get(seat, True)
            elif control.key in ui.helper_keys:
                if control.key == "quick" and seat not in table.state.to_act:
                    refusal = "It is not your turn."
                else:
                    try:
                        table.selection[seat] = ui.helper(control.key, table.state, seat,
                                                          table.selection.get(seat, []))
                    except IllegalAction as exc:
                        refusal = str(exc)
            else:
                view = table.state.view(seat)
                try:
                    action = ui.action_for(control.key, view, table.selection.get(seat, []))
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
        payload = await messages.hand_payload(table, self.uis[table.game], seat, tracked.shown if is_dm else None)
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
        if payload is not None and is_dm:
            tracked.shown = payload["shown"]
        if refusal:
            await interaction.followup.send(refusal, ephemeral=True)

    async def _rematch(self, interaction: discord.Interaction, table: Table) -> None:
        if table.seat_of(interaction.user.id) is None:
            raise Refused("Only the players of this table can ask for a rematch.")
        async with table.lock:
            if table.status != "finished":
                raise Refused("A rematch is already open.")
            table.status = "lobby"
            if table.state is not None and table.state.is_over:
                # Winner first next game (after a draw the next seat opens).
                winner = table.state.outcome().winner
                first = winner if winner is not None else 1 % len(table.seats)
                table.seats = table.seats[first:] + table.seats[:first]
            for seat in table.seats:
                seat.away = False
            table.state = None
            await interaction.response.defer()
            channel = self._channel(table.play_channel_id)
            message = await channel.send(embed=messages.lobby_embed(table, self.uis[table.game]),
                                         view=messages.lobby_view(table))
            table.lobby_message_id = message.id
            table.lobby_expires_at = now() + self.config.lobby_timeout_seconds
            await self._save_table(table, status="lobby", lobby_message_id=message.id,
                                   seats=table.seats_json(), lobby_expires_at=table.lobby_expires_at)
            self._arm_lobby_expiry(table)

    # ------------------------------------------------------------------ moves
    async def _apply(self, table: Table, seat: int, action: str, *, by_player: bool = False,
                     timed_out: bool = False) -> list[Event]:
        """Apply and persist one action with the deadline of the next turn (and the seat's
        timeouts in a row when they change, in the same transaction); the caller holds the lock.
        Raises IllegalAction."""
        events = table.state.apply(seat, action)
        canonical = table.state.record()["actions"][-1][1]
        previous = (table.deadline, table.timeouts.get(seat, 0))
        if by_player:
            table.timeouts[seat] = 0
        self._start_turn(table)
        try:
            if timed_out or previous[1] != table.timeouts.get(seat, 0):
                async with self.db.transaction():
                    await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline)
                    await self.db.update_table(table.id, timeouts=table.timeouts)
            else:
                await self.db.append_action(table.game_id, table.version, seat, canonical, table.deadline)
        except Exception:
            # The move is not recorded, so it did not happen: rebuild the state from the record.
            table.deadline, table.timeouts[seat] = previous
            await self._reload_state(table)
            raise
        table.version += 1
        table.selection.pop(seat, None)
        names = table.names()
        table.log.extend(self.uis[table.game].event_text(event, names) for event in events)
        return events

    async def _reload_state(self, table: Table) -> None:
        row = await self.db.get_game(table.game_id)
        actions = await self.db.actions(table.game_id)
        record = {"game": row["game"], "version": 1, "options": json.loads(row["options"]),
                  "deck": json.loads(row["deck"]), "actions": actions}
        table.state = self.uis[table.game].game.replay(record)
        table.version = len(actions)

    def _after_move(self, table: Table) -> None:
        """Caller holds the lock: arm the next turn (its deadline is set) or finish, then refresh."""
        if table.state.is_over:
            self._cancel_timer(table)
            table.deadline = None
            self._spawn(self._finish(table), f"finish-{table.id}")
        else:
            self._schedule(table)
        self.request_refresh(table)

    def _cancel_timer(self, table: Table) -> None:
        if table.timer is not None and table.timer is not asyncio.current_task():
            table.timer.cancel()
        table.timer = None

    def _start_turn(self, table: Table) -> None:
        table.deadline = None if table.state is not None and table.state.is_over else now() + table.turn_seconds

    def _schedule(self, table: Table) -> None:
        """Arm the one pending wake-up of the table: an AI move now, or the human turn timer."""
        self._cancel_timer(table)
        if table.state is None or table.state.is_over:
            return
        to_act = table.state.to_act
        if any(table.seats[s].auto for s in to_act):
            table.timer = self._spawn(self._wake(table, table.version, self.config.ai_delay_seconds, False),
                                      f"ai-{table.id}")
        elif to_act:
            remaining = max(0.0, (table.deadline or now()) - now())
            table.timer = self._spawn(self._wake(table, table.version, remaining, True), f"timer-{table.id}")

    async def _wake(self, table: Table, version: int, delay: float, timed_out: bool) -> None:
        await asyncio.sleep(delay)
        async with table.lock:
            if table.version != version or table.state is None or table.state.is_over:
                return
            ui = self.uis[table.game]
            for seat in table.state.to_act:
                if not (timed_out or table.seats[seat].auto):
                    continue
                if timed_out and not table.seats[seat].auto:
                    table.timeouts[seat] = table.timeouts.get(seat, 0) + 1
                    table.log.append(f"⏰ {table.seats[seat].name} ran out of time; the AI played.")
                    if table.timeouts[seat] >= self.config.away_after_timeouts:
                        table.seats[seat].away = True
                        table.log.append(f"💤 {table.seats[seat].name} is away; the AI plays until they are back.")
                        await self._save_table(table, seats=table.seats_json())
                await self._apply(table, seat, ui.ai_action(table.state, seat), timed_out=timed_out)
                break  # one move per wake-up: the next one is scheduled from the new state
            table.timer = None
            self._after_move(table)

    # ------------------------------------------------------------------ showing the table
    def request_refresh(self, table: Table) -> None:
        table.dirty = True
        if table.refresher is None or table.refresher.done():
            table.refresher = self._spawn(self._refresh_loop(table), f"refresh-{table.id}")

    async def _refresh_loop(self, table: Table) -> None:
        while table.dirty:
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
        return (state is not None and not state.is_over and self.config.ai_delay_seconds < COALESCE_SECONDS
                and any(table.seats[s].auto for s in state.to_act))

    async def _refresh(self, table: Table) -> None:
        if table.state is None:
            return
        ui = self.uis[table.game]
        if table.table_message_id is not None:
            message = self._channel(table.play_channel_id).get_partial_message(table.table_message_id)
            over = table.state.is_over
            await message.edit(embed=messages.table_embed(table, ui),
                               view=None if over else messages.table_view(table))
        for seat, tracked in list(table.hand_messages.items()):
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

    # ------------------------------------------------------------------ the end
    async def _finish(self, table: Table) -> None:
        """Settle the finished game (retried until it is written), then post its result."""
        async with table.lock:
            if table.status != "playing" or table.state is None or not table.state.is_over:
                return
            try:
                await with_retries(f"settling game {table.game_id}", lambda: self._settle(table))
            except Exception:
                # Chips are never guessed: the game stays unsettled in SQLite and the next start
                # settles it again; the table itself finishes so nobody is stuck at it.
                table.log.append("⚠️ The chips of this game could not be recorded yet; they will be.")
            table.status = "finished"
            await self._save_table(table, status="finished", turn_deadline=None)
        await self._post_result(table)
        self.request_refresh(table)

    async def _settle(self, table: Table) -> None:
        outcome = table.state.outcome()
        outcome.check_balanced()
        ga_stake = int(table.options.get("ga_stake", 0))
        chips = outcome.chips(table.stake)
        winners = set(outcome.winners)
        entries = [
            ledger.Entry(seat=r.seat, user_id=table.seats[r.seat].user_id, name=table.seats[r.seat].name,
                         chips=chips[r.seat] + r.ga * ga_stake, ga=r.ga, rank=r.rank, points=r.points,
                         won=r.seat in winners, detail=r.notes)
            for r in outcome.results
        ]
        await ledger.settle(self.db, game_id=table.game_id, guild_id=table.guild_id, game=table.game,
                            entries=entries, outcome=table.state.view(None)["outcome"])

    async def _post_result(self, table: Table) -> None:
        """The result and Rematch reach the table: retried with backoff, and at the next start
        if they never did (the game row remembers the message)."""
        game_id, game_no = table.game_id, table.game_no
        try:
            message = await with_retries(f"posting the result of game {game_id}",
                                         lambda: self._send_result(table))
        except Exception:
            return
        await self.db.set_result_message(game_id, message.id)
        log.debug("result of table %s game %s posted", table.id, game_no)

    async def _send_result(self, table: Table) -> discord.Message:
        ui = self.uis[table.game]
        outcome = table.state.outcome()
        names = table.names()
        embed = messages.result_embed(table, ui, outcome, names)
        kwargs: dict[str, Any] = {"embed": embed, "view": messages.table_view(table, rematch=True)}
        try:
            png = await _render_rows(ui, table.state.view(None), names,
                                     f"{ui.game.title} · table #{table.id} · game {table.game_no}")
        except Exception:
            log.exception("rendering the result of table %s failed; posting it without the image", table.id)
        else:
            embed.set_image(url="attachment://result.png")
            kwargs["file"] = messages.png_file(png, "result.png")
        try:
            return await self._channel(table.play_channel_id).send(**kwargs)
        except (discord.Forbidden, discord.NotFound):
            if table.thread_id is None:
                raise
            # a locked, archived or deleted thread: the result goes to the table's channel
            if "file" in kwargs:
                kwargs["file"].reset()
            return await self._channel(table.channel_id).send(**kwargs)

    # ------------------------------------------------------------------ restart
    async def restore(self) -> None:
        """Rebuild every open table from the database after a (re)start."""
        since = (datetime.now(timezone.utc) - REMATCH_WINDOW).isoformat(timespec="seconds")
        for row in await self.db.open_tables(finished_since=since):
            if row["game"] not in self.uis:
                continue
            table = Table(id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], game=row["game"],
                          options=json.loads(row["options"]), host_id=row["host_id"], status=row["status"],
                          seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                          thread_id=row["thread_id"], lobby_message_id=row["lobby_message_id"],
                          table_message_id=row["table_message_id"], lobby_expires_at=row["lobby_expires_at"],
                          deadline=row["turn_deadline"],
                          timeouts={int(seat): count for seat, count in json.loads(row["timeouts"]).items()})
            self.tables[table.id] = table
            if table.status == "lobby":
                if table.lobby_expires_at is None:
                    table.lobby_expires_at = now() + self.config.lobby_timeout_seconds
                self._arm_lobby_expiry(table)
                continue
            game = await self.db.current_game(table.id, table.game_no)
            table.game_id = game["id"]
            await self._reload_state(table)
            if table.status == "finished":
                # kept for its Rematch button (which needs the winner); its result is posted
                # now if it never reached the table
                if game["result_message_id"] is None:
                    self._spawn(self._post_result(table), f"result-{table.id}")
                continue
            table.log.append("♻️ The bot restarted; the game goes on.")
            moved = await self.db.last_turn_deadline(table.game_id)
            if moved is not None:
                # deadlines only grow: the later of the last move's and the table's (set at the
                # deal and by I'm back) is the turn in progress
                table.deadline = max(moved, table.deadline or 0.0)
            for seat, (channel_id, message_id) in (await self.db.hand_messages(table.game_id)).items():
                table.hand_messages[seat] = HandMessage(channel_id, message_id)
            if table.state.is_over:
                self._spawn(self._finish(table), f"finish-{table.id}")
            else:
                if table.deadline is None:
                    self._start_turn(table)
                self._schedule(table)  # the restored timer fires when the original would have
            self.request_refresh(table)
        await self._settle_leftovers()

    async def _settle_leftovers(self) -> None:
        """Settle games that ended but were never settled (a settlement that kept failing)."""
        for row in await self.db.unsettled_games():
            ui = self.uis.get(row["game"])
            if ui is None:
                continue
            record = {"game": row["game"], "version": 1, "options": json.loads(row["options"]),
                      "deck": json.loads(row["deck"]), "actions": await self.db.actions(row["id"])}
            state = ui.game.replay(record)
            if not state.is_over:
                continue
            seats = [Seat.from_json(s) for s in json.loads(row["seats"])]
            table = Table(id=row["table_id"], guild_id=row["guild_id"], channel_id=0, game=row["game"],
                          options=json.loads(row["table_options"]), host_id=0, status="finished", seats=seats,
                          game_no=row["game_no"], game_id=row["id"], state=state)
            try:
                await self._settle(table)
                log.info("settled game %s, left unsettled before the restart", row["id"])
            except Exception:
                log.exception("game %s still cannot be settled", row["id"])


async def _render_rows(ui: GameUI, view: dict, names: list[str], title: str) -> bytes:
    from rendering.table import render_rows_async

    return await render_rows_async(ui.result_rows(view, names), title=title, deck=ui.deck)
