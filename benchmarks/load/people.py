"""The simulated people of the load benchmark: each one thinks, then clicks as a user would,
straight into the simulated gateway (see the package's docstring); and the lobbies they open."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections import Counter

from benchmarks.load.meters import ClickTimer
from tests.support.simhelpers import Players, buttons, dm, emit_component, play_channel

# Buttons that prepare a move or change the view, never a move themselves.
HELPERS = frozenset({"Quick Select", "Find Trash", "Auto-arrange", "I'm back", "My hand"})
# Buttons of the table's messages, not of a hand.
TABLE_BUTTONS = frozenset({"Next round", "Rematch", "Start", "Join", "Add AI", "Leave", "Cancel"})
# Among several lit moves, the one a person most likely means (a meld, an eat or a win before a
# discard, before drawing or passing): by Discord button style.
STYLE_ORDER = {"success": 0, "danger": 1, "primary": 2, "secondary": 3}
CLICK_TIMEOUT = 15.0


def lit_moves(message) -> list:
    """The enabled move buttons of a hand message, the likeliest first (links and helpers left out)."""
    if message is None:
        return []
    found = [b for label, b in buttons(message).items()
             if not b.disabled and not b.url and label not in HELPERS and label not in TABLE_BUTTONS]
    return sorted(found, key=lambda b: STYLE_ORDER.get(_style(b), 9))


def _style(button) -> str:
    style = getattr(button, "style", None)
    return getattr(style, "name", str(style))


def lit(message, label: str) -> bool:
    if message is None:
        return False
    button = buttons(message).get(label)
    return button is not None and not button.disabled


class Human:
    """One person at a table (``host``: the one who opened it, who starts rematches)."""

    def __init__(self, env, players: Players, member, host: bool, rng: random.Random, timer: ClickTimer,
                 think: float) -> None:
        self.env, self.players, self.member, self.host = env, players, member, host
        self.rng, self.timer, self.think = rng, timer, think
        self.latencies: list[float] = []
        self.move_latencies: list[float] = []
        self.clicks: Counter[str] = Counter()  # quick, move, next, rematch, start, back
        self.unanswered = 0
        self.games = 0
        self._next_clicked: set[int] = set()

    async def click(self, message, button, kind: str) -> None:
        start = time.perf_counter()
        record = emit_component(self.env, self.member.user, message, button.custom_id)
        future = self.timer.expect(record.token)
        try:
            done = await asyncio.wait_for(future, CLICK_TIMEOUT)
        except asyncio.TimeoutError:
            self.timer.forget(record.token)
            done = time.perf_counter()
            self.unanswered += 1
            print(f"  a {button.label} click was not answered within {CLICK_TIMEOUT:.0f} s", file=sys.stderr)
        self.latencies.append(done - start)
        if kind == "move":
            self.move_latencies.append(done - start)
        self.clicks[kind] += 1

    async def pause(self, until: float = float("inf")) -> None:
        """Think (never past the end of the run)."""
        await asyncio.sleep(max(0.0, min(self.rng.expovariate(1 / self.think), until - time.perf_counter())))

    async def run(self, until: float) -> None:
        while time.perf_counter() < until:
            await self.pause(until)
            if time.perf_counter() >= until:
                return
            await self.act(until)

    async def act(self, until: float) -> None:
        last = play_channel(self.players).last_message
        if self.host and lit(last, "Start"):  # a rematch lobby not started yet
            return await self.click(last, buttons(last)["Start"], "start")
        if last is not None and lit(last, "Rematch"):
            if self.host:
                self.games += 1
                await self.click(last, buttons(last)["Rematch"], "rematch")
                await self.pause(until)
                if time.perf_counter() >= until:
                    return
                lobby = play_channel(self.players).last_message
                if lit(lobby, "Start"):
                    await self.click(lobby, buttons(lobby)["Start"], "start")
            return
        hand = dm(self.member)
        if hand is not None:
            if lit(hand, "I'm back"):
                return await self.click(hand, buttons(hand)["I'm back"], "back")
            if lit(hand, "Quick Select"):
                await self.click(hand, buttons(hand)["Quick Select"], "quick")
                await self.pause(until)
                if time.perf_counter() >= until:
                    return
                hand = dm(self.member)
            moves = lit_moves(hand)
            if moves:
                return await self.click(hand, moves[0], "move")
        if last is not None and last.id not in self._next_clicked and lit(last, "Next round"):
            self._next_clicked.add(last.id)
            await self.click(last, buttons(last)["Next round"], "next")


async def open_table(env, players: Players, game: str, humans: int, ai: str = "normal"):
    """The lobby of ``/<game> new``, everyone seated and AI seats filled: its Start button."""
    host = players.members[0]
    await host.slash(players.channel, f"{game} new", seats=4, turn_seconds=600, ai=ai)
    for member in players.members[1:]:
        await member.click(players.channel.last_message, label="Join")
    for _ in range(4 - humans):
        await host.click(players.channel.last_message, label="Add AI")
    return players.channel.last_message


