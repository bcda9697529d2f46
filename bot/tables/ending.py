"""The end of a game: settled exactly once (retried until it is), and its result handed to the
outbox, which posts it once per game (in the channel when the thread refuses it)."""

from __future__ import annotations

import asyncio
import contextlib
import json

from bot import i18n, ledger
from bot.db import LeaseLost

from .core import Core, log
from .model import Seat, Table
from .results import Results, unrecorded_note
from .retry import retry_delay
from .showing import Showing

#: How long a game's result waits for its settlement (to say whether the chips are recorded).
SETTLE_WAIT_SECONDS = 1.0


class Ending:
    """Settlement and result of finished games."""

    def __init__(self, core: Core, showing: Showing, results: Results) -> None:
        self.core = core
        self.db = core.db
        self.leases = core.leases
        self.showing = showing
        self.results = results

    async def finish(self, table: Table) -> None:
        """Show the finished game's result at once, whatever the database does: settle it (one
        attempt here; a settlement that fails goes on behind, and the result says the chips will
        be recorded), show the result, then save that the table finished (retried until it is)."""
        async with table.lock:
            if table.status != "playing" or table.state is None or not table.state.is_over or table.finishing:
                return
            table.finishing = True
        game_id = table.game_id
        assert game_id is not None  # (a game in play)
        # Outside the lock: a game that is over changes no more, and clicks and refreshes must
        # not wait for a settlement that is being retried. The result waits a moment for the
        # settlement (to say whether the chips are recorded), never longer: a database that is
        # slow or refuses writes settles it behind the result.
        self.core.unsettled.add(game_id)  # until the settlement says otherwise
        attempt = self.core.spawn(self._settle_first(table, game_id), f"settle-{game_id}", table)
        if not attempt.done():
            await asyncio.wait({attempt}, timeout=SETTLE_WAIT_SECONDS)
        if table.dropped or table.closed:
            self.core.unsettled.discard(game_id)
            return  # another process drives the table now, and settles the game; or an admin closed it
        self.results.show_new_rounds(table)
        # once: a process that died after the result reached Discord (its message is recorded
        # before the finish is saved) left it shown, and its successor finishes without it
        shown = table.result_message is not None and table.result_message[2] == game_id
        if not shown:
            self.results.show_result(table, game_id, table.rounds_done())
        self.showing.request_refresh(table)
        failures = 0
        while not table.dropped:
            try:
                async with table.lock:
                    if table.closed:
                        return  # an admin closed it meanwhile (the settlement, if written, stays)
                    await self.core.save_table(table, status="finished", turn_deadline=None)
                    table.status = "finished"
                    table.finishing = False
                break
            except LeaseLost:
                return
            except Exception:
                failures += 1
                delay = retry_delay(failures)
                log.exception("table %s: finishing could not be saved; trying again in %.0f s", table.id, delay)
                await asyncio.sleep(delay)
        self.showing.request_refresh(table)

    async def _settle_first(self, table: Table, game_id: int) -> None:
        """The first attempt to settle a finished game; if it fails, the table says so and the
        settlement goes on behind (chips are never guessed: the game stays unsettled in the
        database until it is written, by a task that keeps trying, or at the next start)."""
        try:
            await self._settle(table)
        except LeaseLost:
            return  # another process drives the table now (it stopped here), and settles the game
        except Exception:
            log.warning("settling game %s failed; trying again in the background", game_id, exc_info=True)
            with i18n.language(table.language):
                table.log.append(unrecorded_note())
            self.showing.request_refresh(table)
            self.core.spawn(self._settle_later(table, game_id, 1), f"settle-later-{game_id}", table)
        else:
            self.core.unsettled.discard(game_id)

    async def _settle_later(self, table: Table, game_id: int, failures: int) -> None:
        """Go on settling a finished game (the table may have moved on to another game)."""
        while True:
            await asyncio.sleep(retry_delay(failures))
            failures += 1
            row = await self.db.get_game(game_id)
            if row is not None and row["status"] in ("finished", "aborted"):  # (aborted: an admin voided it)
                self.core.unsettled.discard(game_id)
                return
            played = await self.results.game_shown(table, game_id)
            try:
                await self._settle(played[0])
                self.core.unsettled.discard(game_id)
                return
            except LeaseLost:
                raise
            except Exception:
                log.exception("game %s still cannot be settled", game_id)

    async def _settle(self, table: Table, *, fenced: bool = True) -> None:
        """Settle the table's game (``fenced``: only while this process drives the table)."""
        outcome = table.state.outcome()
        outcome.check_balanced()
        paid = ledger.settlement(outcome, stake=table.stake, ga_stake=table.ga_stake)  # what the result shows
        entries = ledger.entries(outcome, paid, table.seats, rounds=table.rounds_done() or None)
        assert table.game_id is not None  # (a game over)
        with self.core.fenced(table) if fenced else contextlib.nullcontext():
            await ledger.settle(self.db, game_id=table.game_id, guild_id=table.guild_id, game=table.game,
                                entries=entries, outcome=table.state.view(None)["outcome"],
                                lease=self.leases.lease(table.id) if fenced else None)

    async def settle_leftovers(self) -> None:
        """Settle games that ended but were never settled (a settlement that kept failing)."""
        for row in await self.db.unsettled_games():
            if row["game"] not in self.core.uis:
                continue
            state = await self.core.stored_state(row["id"])
            if not state.is_over:
                continue
            seats = [Seat.from_json(s) for s in json.loads(row["seats"])]
            table = Table(id=row["table_id"], guild_id=row["guild_id"], channel_id=0, game=row["game"],
                          options={**json.loads(row["table_options"]), "stake": row["stake"]}, host_id=0,
                          status="finished", seats=seats, game_no=row["game_no"], game_id=row["id"], state=state)
            try:
                await self._settle(table, fenced=False)  # idempotent: whoever drives the table now
                log.info("settled game %s, left unsettled before the restart", row["id"])
            except Exception:
                log.exception("game %s still cannot be settled", row["id"])
