"""The table service: lobbies, turns, timers, AI seats, DMs and persistence for every game.

Every state change happens under the table's lock and is written to SQLite before anyone is
answered; everything shown on Discord is derived from the engine state afterwards, through a
per-table refresher that coalesces bursts of moves into one round of edits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import discord

from bot import ledger
from bot.db import Database
from bot.games.base import Event, IllegalAction

from . import messages
from .adapter import GameUI
from .controls import ControlId
from .model import HandMessage, Seat, Table

if TYPE_CHECKING:
    from bot.app import ChieuBot

log = logging.getLogger(__name__)

# A finished table is rebuilt after a restart (so Rematch still works) for this long.
REMATCH_WINDOW = timedelta(days=1)


class Refused(Exception):
    """A click that changes nothing; the message is shown privately to the clicker."""


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
            for task in (table.timer, table.refresher):
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
    async def open_lobby(self, interaction: discord.Interaction, game: str, *, stake: int | None,
                         seats: int | None, turn_seconds: int | None, **extra: Any) -> None:
        ui = self.uis[game]
        cfg = self.config
        if interaction.guild is None:
            return await self.reply(interaction, "Tables are opened in a server channel, not in DMs.")
        open_here = [t for t in self.tables.values() if t.channel_id == interaction.channel_id
                     and t.status in ("lobby", "playing")]
        if len(open_here) >= cfg.max_tables_per_channel:
            return await self.reply(interaction, f"This channel already has {len(open_here)} open tables.")
        seats = seats or ui.game.max_players
        if not ui.game.min_players <= seats <= ui.game.max_players:
            return await self.reply(
                interaction, f"{ui.game.title} is for {ui.game.min_players}–{ui.game.max_players} players.")
        stake = cfg.default_stake if stake is None else stake
        if stake < 0:
            return await self.reply(interaction, "The stake cannot be negative.")
        turn_seconds = cfg.default_turn_seconds if turn_seconds is None else turn_seconds
        if not cfg.min_turn_seconds <= turn_seconds <= cfg.max_turn_seconds:
            return await self.reply(
                interaction, f"turn_seconds must be {cfg.min_turn_seconds}–{cfg.max_turn_seconds}.")
        options = {"stake": stake, "seats": seats, "turn_seconds": turn_seconds,
                   **{k: v for k, v in extra.items() if v is not None}}
        host = Seat(interaction.user.id, interaction.user.display_name)
        table_id = await self.db.insert_table(guild_id=interaction.guild.id, channel_id=interaction.channel_id,
                                              game=game, options=options, host_id=host.user_id,
                                              seats=[host.to_json()])
        table = Table(id=table_id, guild_id=interaction.guild.id, channel_id=interaction.channel_id, game=game,
                      options=options, host_id=host.user_id, status="lobby", seats=[host])
        self.tables[table_id] = table
        await interaction.response.send_message(embed=messages.lobby_embed(table, ui), view=messages.lobby_view(table))
        message = await interaction.original_response()
        table.lobby_message_id = message.id
        await self._save_table(table, lobby_message_id=message.id)

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
            await self._save_table(table, seats=[s.to_json() for s in table.seats], status=table.status,
                                   host_id=table.host_id)
            if table.status == "cancelled":
                self.tables.pop(table.id, None)
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
                seats=[s.to_json() for s in table.seats], options=record["options"], deck=record["deck"],
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
        await self._save_table(table, thread_id=table.thread_id, table_message_id=message.id)
        for seat in range(len(table.seats)):
            if not table.seats[seat].is_ai:
                await self._send_hand(table, seat)
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
            await interaction.response.defer(ephemeral=True, thinking=True)
            payload = await messages.hand_payload(table, self.uis[table.game], seat)
            await interaction.followup.send(content=payload["content"], file=messages.png_file(payload["png"]),
                                            view=payload["view"], ephemeral=True)
        elif key == "back":
            async with table.lock:
                if not table.seats[seat].away:
                    raise Refused("You are not marked away.")
                table.seats[seat].away = False
                table.timeouts[seat] = 0
                await self._save_table(table, seats=[s.to_json() for s in table.seats])
                self._start_turn(table)
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
        await interaction.response.defer()  # acknowledged at once; the message is edited below
        async with table.lock:
            if control.version != table.version or table.state.is_over:
                await self._update_clicked(interaction, table, seat)
                raise Refused("That button is from an earlier turn; your hand is now up to date.")
            if control.key == "sel":
                table.selection[seat] = values
            elif control.key == "arrange":
                table.arranged[seat] = not table.arranged.get(seat, True)
            elif control.key in ui.helper_keys:
                if control.key == "quick" and seat not in table.state.to_act:
                    raise Refused("It is not your turn.")
                try:
                    table.selection[seat] = ui.helper(control.key, table.state, seat,
                                                      table.selection.get(seat, []))
                except IllegalAction as exc:
                    raise Refused(str(exc)) from None
            else:
                view = table.state.view(seat)
                try:
                    action = ui.action_for(control.key, view, table.selection.get(seat, []))
                    await self._apply(table, seat, action)
                except IllegalAction as exc:
                    raise Refused(str(exc)) from None
                table.timeouts[seat] = 0
                self._after_move(table)
            await self._update_clicked(interaction, table, seat)

    async def _update_clicked(self, interaction: discord.Interaction, table: Table, seat: int) -> None:
        """Edit the message that was clicked (a DM or an ephemeral hand) to the seat's current hand."""
        message = interaction.message
        tracked = table.hand_messages.get(seat)
        is_dm = tracked is not None and message is not None and message.id == tracked.message_id
        payload = await messages.hand_payload(table, self.uis[table.game], seat, tracked.shown if is_dm else None)
        if payload is None:
            return
        kwargs: dict[str, Any] = {"content": payload["content"], "view": payload["view"]}
        if payload["png"] is not None:
            kwargs["attachments"] = [messages.png_file(payload["png"])]
        await interaction.edit_original_response(**kwargs)
        if is_dm:
            tracked.shown = payload["shown"]

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
            await self._save_table(table, status="lobby", lobby_message_id=message.id,
                                   seats=[s.to_json() for s in table.seats])

    # ------------------------------------------------------------------ moves
    async def _apply(self, table: Table, seat: int, action: str) -> list[Event]:
        """Apply and persist one action; the caller holds the lock. Raises IllegalAction."""
        events = table.state.apply(seat, action)
        canonical = table.state.record()["actions"][-1][1]
        try:
            await self.db.append_action(table.game_id, table.version, seat, canonical)
        except Exception:
            # The move is not recorded, so it did not happen: rebuild the state from the record.
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
        """Caller holds the lock: start the next turn or finish, then refresh what people see."""
        if table.state.is_over:
            self._cancel_timer(table)
            table.deadline = None
            self._spawn(self._finish(table), f"finish-{table.id}")
        else:
            self._start_turn(table)
            self._schedule(table)
        self.request_refresh(table)

    def _cancel_timer(self, table: Table) -> None:
        if table.timer is not None and table.timer is not asyncio.current_task():
            table.timer.cancel()
        table.timer = None

    def _start_turn(self, table: Table) -> None:
        table.deadline = time.time() + table.turn_seconds

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
            remaining = max(0.0, (table.deadline or time.time()) - time.time())
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
                        await self._save_table(table, seats=[s.to_json() for s in table.seats])
                await self._apply(table, seat, ui.ai_action(table.state, seat))
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
            try:
                await self._refresh(table)
            except discord.HTTPException:
                log.warning("refreshing table %s failed", table.id, exc_info=True)

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
        async with table.lock:
            if table.status != "playing" or table.state is None or not table.state.is_over:
                return
            await self._settle(table)
            ui = self.uis[table.game]
            outcome = table.state.outcome()
            names = table.names()
            view = table.state.view(None)
            embed = self._result_embed(table, ui, outcome, names)
            png = await _render_rows(ui, view, names, f"{ui.game.title} · table #{table.id} · game {table.game_no}")
            embed.set_image(url="attachment://result.png")
            table.status = "finished"
            await self._save_table(table, status="finished")
            await self._channel(table.play_channel_id).send(
                embed=embed, file=messages.png_file(png, "result.png"), view=messages.table_view(table, rematch=True))
        self.request_refresh(table)

    async def _settle(self, table: Table) -> None:
        outcome = table.state.outcome()
        outcome.check_balanced()
        ga_stake = int(table.options.get("ga_stake", 0))
        entries = [
            ledger.Entry(seat=r.seat, user_id=table.seats[r.seat].user_id, name=table.seats[r.seat].name,
                         chips=r.payout * table.stake + r.ga * ga_stake, ga=r.ga, rank=r.rank, points=r.points,
                         won=outcome.winner == r.seat, detail=r.notes)
            for r in outcome.results
        ]
        await ledger.settle(self.db, game_id=table.game_id, guild_id=table.guild_id, game=table.game,
                            entries=entries)
        await self.db.finish_game(table.game_id, "finished", table.state.view(None)["outcome"])

    def _result_embed(self, table: Table, ui: GameUI, outcome: Any, names: list[str]) -> discord.Embed:
        embed = discord.Embed(title=f"{ui.game.title} · table #{table.id} · game {table.game_no} — result",
                              colour=messages.COLOUR)
        summary = ui.summary_text(outcome.summary, names)
        embed.description = summary or ("Drawn game: no payments." if outcome.is_draw else "")
        ga_stake = int(table.options.get("ga_stake", 0))
        lines = []
        for r in sorted(outcome.results, key=lambda r: (r.rank, r.seat)):
            chips = r.payout * table.stake + r.ga * ga_stake
            points = "" if r.points is None else f" · {r.points} pts"
            notes = f" · {', '.join(r.notes)}" if r.notes else ""
            ga = f" · {r.ga:+d} gà" if r.ga else ""
            lines.append(f"**{r.rank}. {names[r.seat]}**{points}{notes} · **{chips:+d}** chips{ga}")
        embed.add_field(name="Ranking", value="\n".join(lines), inline=False)
        if outcome.transfers:
            transfers = [f"{names[t.payer]} → {names[t.payee]}: {t.units * table.stake} ({t.reason})"
                         for t in outcome.transfers]
            embed.add_field(name="Payments", value="\n".join(transfers)[:1024], inline=False)
        embed.set_footer(text="Chips record play among friends; they are not money. Rematch keeps the seats.")
        return embed

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
                          table_message_id=row["table_message_id"])
            self.tables[table.id] = table
            if table.status == "lobby":
                continue
            game = await self.db.current_game(table.id, table.game_no)
            table.game_id = game["id"]
            await self._reload_state(table)
            if table.status == "finished":
                continue  # kept for its Rematch button, which needs the winner
            table.log.append("♻️ The bot restarted; the game goes on.")
            for seat, (channel_id, message_id) in (await self.db.hand_messages(table.game_id)).items():
                table.hand_messages[seat] = HandMessage(channel_id, message_id)
            if table.state.is_over:
                self._spawn(self._finish(table), f"finish-{table.id}")
            else:
                self._start_turn(table)
                self._schedule(table)
            self.request_refresh(table)


async def _render_rows(ui: GameUI, view: dict, names: list[str], title: str) -> bytes:
    from rendering.table import render_rows_async

    return await render_rows_async(ui.result_rows(view, names), title=title, deck=ui.deck)
