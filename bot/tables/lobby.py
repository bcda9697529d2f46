"""Lobbies: opening, joining, expiring, starting a game, and rematches."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import discord

from bot import i18n
from bot.backends import database_failure
from bot.db import LeaseLost
from bot.i18n import _, ngettext, pgettext
from bot.permissions import may_administer

from .adapter import GameUI
from .commands import common_options
from .core import Core, Refused, answering, database_away, defer, log, now, reply
from .messages import host_name, seat_value
from .model import Seat, Table
from .notices import Notices
from .people import People
from .play import Play
from .retry import retry_delay
from .server_settings import server_defaults
from .showing import Showing


@dataclass
class Dealing:
    """Where the next game's cards and seating come from."""

    # A pack (or, for a match, the packs of its first rounds) to deal the next game from
    # instead of a shuffle (tests and demos).
    next_deck: list[str] | None = None
    next_decks: list[list[str]] | None = None
    next_seed: int | None = None
    # The next game's seating as positions in the lobby (tests and demos): [2, 0, 1] seats
    # the lobby's third player first. Otherwise a game whose seats are drawn is seated by
    # seating_random (tests may seed it), the others as in the lobby.
    next_seating: list[int] | None = None
    seating_random: random.Random = field(default_factory=random.SystemRandom)
    # Where a game's seed comes from when none is given (tests seed it: a red CI must mean
    # that a change broke something, not an unlucky deal).
    deal_random: random.Random = field(default_factory=random.SystemRandom)


class Lobby:
    """Lobbies and their clicks, the deal of each game, and rematches."""

    def __init__(self, core: Core, people: People, showing: Showing, notices: Notices, play: Play) -> None:
        self.core = core
        self.db = core.db
        self.leases = core.leases
        self.people = people
        self.showing = showing
        self.notices = notices
        self.play = play
        self.dealing = Dealing()

    async def open_lobby(self, interaction: discord.Interaction, game: str, **given: Any) -> None:
        """``/<game> new``: ``given`` holds the command's options, None where not given."""
        with i18n.language(await self.people.language_of(interaction)):
            try:
                await self._open_lobby(interaction, game, given)
            except Exception as exc:
                if not database_failure(exc):
                    raise
                if interaction.response.is_done():  # the lobby is shown, and driven here
                    log.warning("a lobby was opened, but remembering its message failed (%r)", exc)
                else:
                    await database_away(interaction, exc)

    async def _open_lobby(self, interaction: discord.Interaction, game: str, given: dict[str, Any]) -> None:
        ui = self.core.uis[game]
        cfg = self.core.config
        channel_id = interaction.channel_id
        if interaction.guild is None or channel_id is None:
            return await reply(interaction, _("Tables are opened in a server channel, not in DMs."))
        # what this server's admins set (/admin settings) over the config's defaults
        server = server_defaults(await self.db.server_settings(interaction.guild.id), cfg)
        if game in server.disabled_games:
            allowed = [other.game.title for name, other in self.core.uis.items() if name not in server.disabled_games]
            return await reply(interaction, (_(
                "This server's admins have turned {game} off here, so no table of it can be opened. Games open "
                "here: {games}.") if allowed else _(
                "This server's admins have turned {game} off here, so no table of it can be opened.")).format(
                game=ui.game.title, games=", ".join(allowed)))
        # the database, not this process's tables: another process may drive some of the channel's
        open_here = await self.db.open_tables_in(channel_id)
        mine = next((t for t in open_here if t["status"] == "lobby" and t["host_id"] == interaction.user.id), None)
        if mine is not None:
            return await reply(interaction, _(
                "You already have an open lobby here (table #{table}): start it or cancel it before opening "
                "another.").format(table=mine["id"]))
        if len(open_here) >= server.max_tables:
            return await reply(interaction, ngettext(
                "This channel already has {n} open table.", "This channel already has {n} open tables.",
                len(open_here)).format(n=len(open_here)))
        # the limits Discord shows are the ones enforced here (a client may send anything)
        for option in (*common_options(ui, cfg), *ui.lobby_options):
            value = given.get(option.name)
            if value is None:
                continue
            if option.choices and value not in option.choices:
                return await reply(interaction, _("`{option}` must be one of {values}.").format(
                    option=pgettext("option name", option.name), values=", ".join(option.choices)))
            if option.low is not None and not option.low <= value <= option.high:
                return await reply(interaction, _("`{option}` must be {low}–{high}.").format(
                    option=pgettext("option name", option.name), low=option.low, high=option.high))
        # a table's own options win over the server's defaults, which win over the config's
        stake = server.stake if given.get("stake") is None else given["stake"]
        options = {**ui.table_options(given, stake=stake), "stake": stake,
                   "seats": given.get("seats") or ui.game.max_players,
                   "turn_seconds": given.get("turn_seconds") or server.turn_seconds,
                   # the lobby and the table speak the host's language unless the table or the
                   # server says otherwise
                   "language": given.get("language") or server.language or i18n.current(),
                   # kept with the table: its AI seats, and whoever the AI stands in for, play
                   # at this level in every game of it, after a restart too
                   "ai": given.get("ai") or server.ai_level}
        if not server.threads or not cfg.threads_allowed:
            options["in_channel"] = True  # kept with the table: its start, rematches and restarts follow it
        host = Seat(interaction.user.id, interaction.user.display_name)
        table = await self.new_table(guild_id=interaction.guild.id, channel_id=channel_id, game=game,
                                     options=options, host=host, guild_name=interaction.guild.name)
        await self._post_lobby(interaction, table)
        self.notices.welcome(interaction, table)

    async def new_table(self, *, guild_id: int, channel_id: int, game: str, options: dict[str, Any], host: Seat,
                        guild_name: str | None) -> Table:
        """A new lobby, saved and driven by this process (its lease is taken with its row, so
        no other process ever sees it without a driver); its expiry is armed."""
        if host.user_id is None:
            raise ValueError("an AI seat hosts no table")
        host_id, seats = host.user_id, [host.to_json()]
        if self.leases.enabled:
            async with self.db.transaction():
                table_id = await self.db.insert_table(guild_id=guild_id, channel_id=channel_id, game=game,
                                                      options=options, host_id=host_id, seats=seats,
                                                      guild_name=guild_name)
                if not await self.leases.take(table_id):
                    raise RuntimeError(f"the new table {table_id} has a lease already")
        else:
            table_id = await self.db.insert_table(guild_id=guild_id, channel_id=channel_id, game=game,
                                                  options=options, host_id=host_id, seats=seats,
                                                  guild_name=guild_name)
        table = Table(id=table_id, guild_id=guild_id, channel_id=channel_id, game=game, options=options,
                      host_id=host_id, status="lobby", seats=[host], guild_name=guild_name)
        self.core.tables[table_id] = table
        table.lobby_expires_at = now() + self.core.config.lobby_timeout_seconds
        await self.core.save_table(table, lobby_expires_at=table.lobby_expires_at)
        self.arm_expiry(table)
        return table

    async def _post_lobby(self, interaction: discord.Interaction, table: Table) -> None:
        """The lobby as the answer to the command or click that opened it (free of the global
        limit); if that answer fails, the outbox posts it in the channel instead."""
        slot = self.showing.show_lobby(table, interaction.channel_id or table.play_channel_id)
        slot.answering += 1
        message: discord.Message
        try:
            draft = await slot.build(slot)
            assert draft is not None and draft.embed is not None and draft.view is not None  # (an open lobby's)
            async with answering(interaction):
                if interaction.response.is_done():  # a click routed from another process
                    message = await interaction.followup.send(embed=draft.embed, view=draft.view, wait=True)
                else:
                    await interaction.response.send_message(embed=draft.embed, view=draft.view)
                    message = await interaction.original_response()
        except discord.HTTPException:
            log.info("the lobby of table %s could not be the answer; the outbox posts it", table.id)
        else:
            slot.message_id, slot.channel_id = message.id, message.channel.id
            self.core.presenter(table).confirmed(slot, draft.signature)
            table.lobby_message_id = message.id
            await self.core.save_table(table, lobby_message_id=message.id)
        finally:
            slot.answering -= 1
            self.core.presenter(table).touch("lobby")

    def arm_expiry(self, table: Table) -> None:
        if table.lobby_timer is not None:
            table.lobby_timer.cancel()
        table.lobby_timer = self.core.spawn(self._expire_lobby(table), f"lobby-{table.id}", table)

    async def _expire_lobby(self, table: Table) -> None:
        """Close a lobby nobody started in time, so that no one can hold a channel's seats forever."""
        failures = 0
        while True:
            await asyncio.sleep(max(0.0, (table.lobby_expires_at or now()) - now()))
            async with table.lock:
                if table.status != "lobby" or table.lobby_expires_at is None or \
                        table.lobby_expires_at > now() + 0.5:
                    return
                try:
                    await self.core.save_table(table, status="cancelled")
                except LeaseLost:
                    return  # another process drives the table now
                except Exception:  # the database is locked or full: the lobby closes a little later
                    failures += 1
                    table.lobby_expires_at = now() + retry_delay(failures)
                    log.exception("table %s: closing the expired lobby could not be saved", table.id)
                    continue
                table.status = "cancelled"
                table.lobby_timer = None
                self.core.close_table(table)
                break
        minutes = max(1, round(self.core.config.lobby_timeout_seconds / 60))
        with i18n.language(table.language):
            table.lobby_note = ngettext("Expired: nobody started this table within {n} minute.",
                                        "Expired: nobody started this table within {n} minutes.",
                                        minutes).format(n=minutes)
        self.core.presenter(table).touch("lobby")

    async def click(self, interaction: discord.Interaction, table: Table, key: str,
                    values: list[str] | None = None) -> None:
        ui = self.core.ui_of(table)
        user = interaction.user
        removed: Seat | None = None
        async with table.lock:
            if key == "cancel" and table.status == "playing" and self.showing.cancellable(table):
                return await self._cancel_unseen_game(interaction, table)
            if table.status != "lobby":
                raise Refused(_("This lobby is closed."))
            before = (list(table.seats), table.status, table.host_id)
            seat = table.seat_of(user.id)
            if key == "join":
                if seat is not None:
                    raise Refused(_("You are already seated at this table."))
                if len(table.seats) >= table.max_seats:
                    raise Refused(_("This table is full."))
                table.seats.append(Seat(user.id, user.display_name))
            elif key == "leave":
                if seat is None:
                    raise Refused(_("You are not seated at this table."))
                del table.seats[seat]
                if user.id == table.host_id:
                    people = [s.user_id for s in table.seats if s.user_id is not None]
                    if not people:
                        table.status = "cancelled"
                    else:
                        table.host_id = people[0]
            elif key == "ai":
                await self._check_host_or_admin(interaction, table, _(
                    "Only the host, {host}, or a game master can add AI seats to this table."))
                if len(table.seats) >= table.max_seats:
                    raise Refused(_("This table is full."))
                taken = {s.name for s in table.seats}
                table.seats.append(Seat(None, next(f"AI {n}" for n in range(1, 10) if f"AI {n}" not in taken)))
            elif key == "remove":
                removed = await self._remove_seat(interaction, table, values)
            elif key in ("start", "cancel"):
                if user.id != table.host_id:
                    raise Refused((_("Only the host, {host}, can start this table.") if key == "start" else
                                   _("Only the host, {host}, can cancel this table.")).format(host=host_name(table)))
                if key == "cancel":
                    table.status = "cancelled"
                elif len(table.seats) < ui.game.min_players:
                    raise Refused(ngettext("{game} needs at least {n} player (use **Add AI** to fill seats).",
                                           "{game} needs at least {n} players (use **Add AI** to fill seats).",
                                           ui.game.min_players).format(game=ui.game.title, n=ui.game.min_players))
            else:
                raise Refused(_("That control is not valid."))
            try:
                await self.core.save_table(table, seats=table.seats_json(), status=table.status, host_id=table.host_id)
                if key == "start":
                    await defer(interaction)  # the deal (a thread, SQLite) may take a moment
                    with i18n.language(table.language):
                        await self.start_game(table, interaction.message)
            except Exception:
                log.exception("table %s: a lobby click (%s) could not be saved", table.id, key)
                table.seats, table.status, table.host_id = before
                raise Refused(_("That could not be saved, so nothing changed. Please try again."))
            if table.status == "cancelled":
                self.core.close_table(table)
            if table.status != "lobby" and table.lobby_timer is not None:
                table.lobby_timer.cancel()
                table.lobby_timer = None
            await self.showing.answer_lobby(interaction, table)
            if key == "join":
                self.notices.welcome(interaction, table)
            if removed is not None and removed.user_id is not None:
                self.notices.tell_removed(table, removed.user_id)

    async def _check_host_or_admin(self, interaction: discord.Interaction, table: Table, refusal: str) -> None:
        """Refused unless the clicker hosts the table, or may administer its server (a game
        master or a server admin: docs/playing.md, "Who may do what")."""
        if interaction.user.id == table.host_id:
            return
        settings = await self.db.server_settings(table.guild_id)
        if not may_administer(interaction, settings.get("gm_role")):
            raise Refused(refusal.format(host=host_name(table)))

    async def _remove_seat(self, interaction: discord.Interaction, table: Table, values: list[str] | None) -> Seat:
        """The host (or a game master) takes back a seat of the lobby: an AI's, or a person's who
        joined and went quiet (he is told privately). The host's own seat is left with Leave."""
        await self._check_host_or_admin(interaction, table, _("Only the host, {host}, can remove a seat."))
        wanted = (values or [""])[0]
        index = next((i for i, s in enumerate(table.seats) if seat_value(s) == wanted and s.user_id != table.host_id),
                     None)
        if index is None:
            raise Refused(_("That seat is not in this lobby any more; nothing changed."))
        return table.seats.pop(index)

    async def _cancel_unseen_game(self, interaction: discord.Interaction, table: Table) -> None:
        """The host cancels a game whose table never reached Discord (caller holds the lock): it
        is aborted, no chip moves, and nobody is left at a table he cannot see."""
        if interaction.user.id != table.host_id:
            raise Refused(_("Only the host, {host}, can cancel this table.").format(host=host_name(table)))
        assert table.game_id is not None  # (its game is dealt)
        with self.core.fenced(table):
            async with self.db.transaction():
                await self.core.check_lease(table)
                await self.db.finish_game(table.game_id, "aborted", None)
                await self.db.update_table(table.id, status="cancelled", turn_deadline=None)
        table.status = "cancelled"
        table.deadline = None
        self.core.close_table(table)
        presenter = self.core.presenter(table)
        for key in [k for k in presenter.slots if k != "lobby"]:
            presenter.drop(key)
        self.notices.unnotify(table, list(table.notices))  # nobody's turn any more
        await self.showing.answer_lobby(interaction, table)

    async def start_game(self, table: Table, lobby_message: discord.Message | None) -> None:
        """Deal, persist, open the thread, post the table and send the hands. Caller holds the lock."""
        ui = self.core.ui_of(table)
        deck, self.dealing.next_deck = self.dealing.next_deck, None
        decks, self.dealing.next_decks = self.dealing.next_decks, None
        seed, self.dealing.next_seed = self.dealing.next_seed, None
        if seed is None:
            seed = self.dealing.deal_random.randrange(2**63)
        table.seats = self._seat_players(table, ui)
        previous_winner = await self._previous_winner(table)
        state = ui.game.new(len(table.seats), seed=seed, deck=deck, decks=decks,
                            options=ui.engine_options(table.options, previous_winner=previous_winner))
        record = state.record()
        dealt = record["decks"] if ui.game.multi_round else [record["deck"]]
        thread_id = table.thread_id
        if lobby_message is not None and thread_id is None:
            thread_id = await self._open_thread(table, lobby_message)
        game_no = table.game_no + 1
        deadline = now() + table.turn_seconds
        with self.core.fenced(table):
            async with self.db.transaction():
                await self.core.check_lease(table)
                game_id = await self.db.insert_game(
                    table_id=table.id, game_no=game_no, guild_id=table.guild_id, game=table.game,
                    seats=table.seats_json(), options=record["options"], decks=dealt, seed=record.get("seed"),
                    stake=table.stake)
                await self.db.update_table(table.id, status="playing", game_no=game_no, pause_until=None,
                                           thread_id=thread_id, table_message_id=None, turn_deadline=deadline,
                                           timeouts={}, seats=table.seats_json())
        table.status, table.game_no, table.game_id, table.thread_id = "playing", game_no, game_id, thread_id
        table.state, table.version = state, 0
        table.decks_stored = len(dealt)
        table.pause_until, table.deadline, table.table_message_id = None, deadline, None
        table.rounds_shown = 0
        for collection in (table.ready, table.log, table.selection, table.picks, table.timeouts, table.dm_closed):
            collection.clear()
        table.log.append(_("Game {number} dealt; {player} opens.").format(number=table.game_no,
                                                                           player=table.names()[0]))
        # the outbox posts the table and the hands; a person's clock starts once he sees his hand
        presenter = self.core.presenter(table)
        earlier = {slot.user_id: slot for key, slot in presenter.slots.items() if key.startswith("hand:")}
        for key in [k for k in presenter.slots if k.startswith(("hand:", "table"))]:
            presenter.drop(key)
        self.showing.show_table(table)
        for seat in range(len(table.seats)):
            if table.seats[seat].is_ai:
                continue
            if not self.core.config.hands_by_dm:  # he plays through My hand (a turn is told in the channel)
                table.dm_closed.add(seat)
            else:  # (the last game's hand retired once this one is there)
                self.showing.show_hand(table, seat, replaces=earlier.get(table.seats[seat].user_id))
        table.acting.clear()
        self.notices.acting_now(table)  # the new hand messages tell their players
        if state.is_over:  # e.g. a Phỏm hand dealt all in phỏm wins before anyone plays
            self.play.after_move(table)
        else:
            self.play.schedule(table)

    def _seat_players(self, table: Table, ui: GameUI) -> list[Seat]:
        """The seats of the game being dealt (the caller saves them as the table's and the
        game's seats, so that a restart restores them): ``next_seating`` if a test set one,
        else a new draw for a game whose first player is drawn (``ui.seats_drawn``), else the
        lobby's order.

        The draw belongs to the table, not the engine: concan.md has the table stand for the
        draw of the first player by seating the players in random order, and the engine starts
        round 1 at seat 0. An engine knows seat numbers only, while the seats are people known
        to the table: seating them is the table's job, as for every game, and the engine stays
        pure (no randomness but its seed) with a record that replays unchanged against the
        seats stored with the game."""
        seating, self.dealing.next_seating = self.dealing.next_seating, None
        if seating is None:
            seating = list(range(len(table.seats)))
            if ui.seats_drawn:
                self.dealing.seating_random.shuffle(seating)
        if sorted(seating) != list(range(len(table.seats))):
            raise ValueError(f"next_seating {seating} is not an order of {len(table.seats)} seats")
        return [table.seats[i] for i in seating]

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
        if not isinstance(channel, discord.TextChannel) or table.options.get("in_channel"):
            return None  # already in a thread, a DM or a voice chat, or the server says so: play right there
        me = channel.guild.me
        try:
            allowed = me is not None and channel.permissions_for(me).create_public_threads
        except Exception:  # a server this process has not cached (a click routed from another shard's)
            allowed = True  # Discord refuses the thread if it must, and the table plays in the channel
        if not allowed:
            return None
        try:
            await self.core.budget.spend(f"table {table.id}")
            thread = await lobby_message.create_thread(name=f"{self.core.ui_of(table).game.title} #{table.id}")
        except discord.HTTPException:
            log.info("could not open a thread for table %s; playing in the channel", table.id)
            return None
        return thread.id

    async def rematch(self, interaction: discord.Interaction, table: Table) -> None:
        """A new lobby with the same seats, winner first: saved before anything is shown, then
        shown as the answer to the click (the outbox posts it if that answer fails). The host
        asks for it (or a game master)."""
        await self._check_host_or_admin(interaction, table, _(
            "Only the host, {host}, or a game master can open a rematch of this table."))
        async with table.lock:
            if table.finishing:  # its result is shown, but that it finished is not saved yet
                raise Refused(_("The end of this game is still being saved. Please try again in a moment."))
            if table.status != "finished":
                raise Refused(_("A rematch is already open."))
            shown = table.result_message
            if shown is not None and interaction.message is not None and interaction.message.id != shown[1]:
                raise Refused(_("A rematch is opened from the latest result of this table."))
            seats = list(table.seats)
            if table.state is not None and table.state.is_over and not self.core.ui_of(table).seats_drawn:
                # Winner first next game (after a draw the next seat opens); a game whose
                # seats are drawn is seated by a new draw at the start.
                winner = table.state.outcome().winner
                first = winner if winner is not None else 1 % len(seats)
                seats = seats[first:] + seats[:first]
            seats = [Seat(seat.user_id, seat.name) for seat in seats]  # nobody is away any more
            expires = now() + self.core.config.lobby_timeout_seconds
            try:
                await self.core.save_table(table, status="lobby", lobby_message_id=None,
                                           seats=[seat.to_json() for seat in seats], lobby_expires_at=expires)
            except Exception:
                log.exception("table %s: a rematch could not be saved", table.id)
                raise Refused(_("The rematch could not be saved, so nothing changed. Please try again."))
            table.status, table.seats, table.lobby_expires_at = "lobby", seats, expires
            table.lobby_note, table.lobby_message_id = None, None
            table.state = None
            self.arm_expiry(table)
        await self._post_lobby(interaction, table)
