"""Tables rebuilt from the database: every open table after a (re)start, one table adopted
from a process that stopped driving it. Its game is replayed from the record, its timers
armed from the stored deadlines, and its outbox shows again whatever is not known to have
reached Discord."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from bot import i18n
from bot.backends import Row
from bot.i18n import _

from .core import Core, log, now
from .ending import Ending
from .lobby import Lobby
from .model import Seat, Table
from .notices import Notices
from .play import Play
from .results import Results
from .showing import Showing

# A finished table is rebuilt after a restart (so Rematch still works) for this long.
REMATCH_WINDOW = timedelta(days=1)


class Restoring:
    """Open tables rebuilt from their rows."""

    def __init__(self, core: Core, showing: Showing, notices: Notices, results: Results, lobby: Lobby,
                 play: Play, ending: Ending) -> None:
        self.core = core
        self.db = core.db
        self.showing = showing
        self.notices = notices
        self.results = results
        self.lobby = lobby
        self.play = play
        self.ending = ending

    async def restore(self) -> None:
        """Rebuild every open table from the database after a (re)start; its outbox shows again
        whatever is not known to have reached Discord. With several processes, only the tables
        no live process drives (each is taken by one). Then the games over that were never
        settled are."""
        since = (datetime.now(timezone.utc) - REMATCH_WINDOW).isoformat(timespec="seconds")
        for row in await self.db.open_tables(finished_since=since):
            if row["game"] not in self.core.uis or not await self.core.leases.take(row["id"]):
                continue
            try:
                await self.restore_table(row)
            except Exception:
                # One table whose record this engine no longer replays (a rule changed under a
                # live game) must not keep every other table from coming back: it stays as it
                # is in the database, for the operator, and this process does not drive it (its
                # lease, forgotten, runs out: another process may try, as after a failed adoption).
                log.exception("table %s could not be rebuilt; the other tables go on", row["id"])
        await self.ending.settle_leftovers()

    async def restore_table(self, row: Row) -> Table:
        """Rebuild one table from its row (this process holds its lease): its game replayed
        from the record, its timers armed from the stored deadlines, its messages shown again
        where they must be; it is this process's to drive once rebuilt."""
        table = Table(id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], game=row["game"],
                      options=json.loads(row["options"]), host_id=row["host_id"], status=row["status"],
                      seats=[Seat.from_json(s) for s in json.loads(row["seats"])], game_no=row["game_no"],
                      guild_name=row["guild_name"],
                      thread_id=row["thread_id"], lobby_message_id=row["lobby_message_id"],
                      table_message_id=row["table_message_id"], lobby_expires_at=row["lobby_expires_at"],
                      deadline=row["turn_deadline"], pause_until=row["pause_until"],
                      timeouts={int(seat): count for seat, count in json.loads(row["timeouts"]).items()})
        try:
            if table.status == "lobby":
                if table.lobby_expires_at is None:
                    table.lobby_expires_at = now() + self.core.config.lobby_timeout_seconds
                self.lobby.arm_expiry(table)
                self.showing.show_lobby(table, table.play_channel_id if table.game_no else table.channel_id,
                                        table.lobby_message_id)
            else:
                await self._restore_game(table)
            await self._restore_results(table)
        except BaseException:
            self.core.stop_driving(table, "rebuilding it failed")  # whatever it had started stops
            raise
        self.core.tables[table.id] = table
        return table

    async def _restore_game(self, table: Table) -> None:
        game = await self.db.current_game(table.id, table.game_no)
        assert game is not None  # (a table past its lobby has its game)
        table.game_id = game["id"]
        if game["result_message_id"] is not None:  # its result reached Discord (the finish may not be saved)
            table.result_message = (table.play_channel_id, game["result_message_id"], game["id"])
        await self.play.reload_state(table)
        table.rounds_shown = table.rounds_done()  # those not posted yet are found by _restore_results
        await self.notices.restore_notices(table)
        if table.status == "finished":
            return  # kept for its Rematch button (which needs the winner)
        with i18n.language(table.language):
            table.log.append("♻️ " + _("The bot restarted; the game goes on."))
        moved = await self.db.last_turn_deadline(game["id"])
        if moved is not None:
            # deadlines only grow: the later of the last move's and the table's (set at the
            # deal and by I'm back) is the turn in progress
            table.deadline = max(moved, table.deadline or 0.0)
        self.showing.show_table(table, table.table_message_id)
        hands = await self.db.hand_messages(game["id"])
        for seat, player in enumerate(table.seats):
            if not player.is_ai and not self.core.config.hands_by_dm:
                table.dm_closed.add(seat)  # he plays through My hand, as at the deal
            elif not player.is_ai:
                channel_id, message_id = hands.get(seat, (None, None))
                self.showing.show_hand(table, seat, channel_id=channel_id, message_id=message_id)
        if table.state.is_over:
            self.core.spawn(self.ending.finish(table), f"finish-{table.id}", table)
        else:
            if table.deadline is None:
                self.play.start_turn(table)
            self.play.schedule(table)  # the restored timer fires when the original would have

    async def _restore_results(self, table: Table) -> None:
        """Round results and results of this table's games that never reached Discord."""
        for game in await self.db.games_to_show(table.id):
            playing = game["id"] == table.game_id and table.status == "playing"
            state = table.state if game["id"] == table.game_id else await self.core.stored_state(game["id"])
            if state is None:
                continue
            rounds = len(getattr(state, "round_results", ()) or ())
            self.results.show_rounds_since(table, game["id"], game["rounds_posted"], rounds)
            if state.is_over and not playing:
                self.results.show_result(table, game["id"], rounds)
