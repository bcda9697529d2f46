"""What the load benchmark measures, and how: from outside the bot or at its public entries,
never by replacing its parts.

- :class:`RestCounter`: every REST call, on the simulator's side (SimCord's ``router.dispatch``,
  which every call of the bot goes through).
- :class:`ClickTimer`: when the bot has finished handling a click, at the public entry every
  click goes through (the table service's ``handle``, wrapped on that one object).
- :class:`BotSleeps`: how long the bot's timed pauses really lasted, through the standard
  library's ``asyncio.sleep`` the bot calls.
- :class:`Heartbeat`: event-loop stalls; :class:`GcPauses`: garbage-collector pauses.
"""

from __future__ import annotations

import asyncio
import sys
import time
from array import array
from collections import Counter

from simcord.http import router

from benchmarks.load.routes import classify, route, upload_size


class RestCounter:
    """Counts every REST call by route and kind, and the bytes it uploads, while ``counting``;
    ``last_call``: when the bot last called Discord (the drain waits for a quiet moment)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.uploads: Counter[str] = Counter()  # route -> bytes
        self.kinds: dict[str, str] = {}
        self.private_answers = 0  # ephemeral answers: refusals, "everyone is ready"…
        self.refusals: Counter[str] = Counter()
        self.counting = False
        self.last_call = time.perf_counter()
        self._original = router.dispatch

    def install(self) -> None:
        def dispatch(backend, method, path, **kwargs):
            self.last_call = time.perf_counter()
            if self.counting:
                name = f"{method} {route(path)}"
                self.calls[name] += 1
                self.kinds[name] = classify(method, path)
                size = upload_size(kwargs.get("files"))
                if size:
                    self.uploads[name] += size
                body = kwargs.get("json")
                if isinstance(body, dict) and body.get("type") == 4 and \
                        int((body.get("data") or {}).get("flags") or 0) & 64:
                    self.private_answers += 1
                    self.refusals[str(body["data"].get("content") or "")[:70]] += 1
            return self._original(backend, method, path, **kwargs)

        router.dispatch = dispatch

    def uninstall(self) -> None:
        router.dispatch = self._original


class ClickTimer:
    """Resolves a click when the bot has finished handling it (its answer, edits and any
    refusal have all reached Discord). Every click enters the bot through one public entry,
    the table service's ``handle`` (the ``ControlHandler`` that
    :class:`bot.tables.controls.Control` finds as ``bot.tables``): while installed, the service
    object answers through a wrapper of its own ``handle`` that signals when it has returned.
    (discord.py gives no way in before it: the dynamic item the clicks reach is registered
    again, as the bot's own class, with every message the bot sends.)"""

    def __init__(self, bot) -> None:
        self.service = bot.tables
        self.waiting: dict[str, asyncio.Future] = {}  # interaction token -> when it was handled

    def install(self) -> None:
        handle, waiting = self.service.handle, self.waiting

        async def timed(interaction, control, values, **kwargs):
            try:
                return await handle(interaction, control, values, **kwargs)
            finally:
                future = waiting.pop(interaction.token, None)
                if future is not None and not future.done():
                    future.set_result(time.perf_counter())

        self.service.handle = timed

    def uninstall(self) -> None:
        self.service.__dict__.pop("handle", None)  # the class's own again

    def expect(self, token: str) -> asyncio.Future:
        """A future that gets the time the click with this interaction token was handled."""
        future = self.waiting[token] = asyncio.get_running_loop().create_future()
        return future

    def forget(self, token: str) -> None:
        self.waiting.pop(token, None)


class BotSleeps:
    """How long the bot's timed pauses really lasted (the AI's pause before a move, the table
    message's frame holds, retries: the pauses of ``TIMED_MODULES``). While installed,
    ``asyncio.sleep`` — the standard library's, which the bot calls by that name — times the
    pauses those modules ask for and hands every other caller the original sleep, untouched.
    In SimCord a pause ends only when the simulator has settled all the bot's other work and
    moves its clock: a pause that lasts longer than asked is the simulator not keeping up,
    which the latencies then include."""

    #: the modules whose pauses are timed: the table's play (the AI's pause, the turn timers)
    #: and its outbox (frame holds, retries)
    TIMED_MODULES = frozenset({"bot.tables.play", "bot.tables.outbox"})

    def __init__(self, ai_delay: float) -> None:
        self.ai_delay = ai_delay
        self.ai_pauses = array("d")  # as they lasted
        self.overslept = array("d")  # seconds beyond what each pause asked (cancelled ones not counted)
        self._real_sleep = asyncio.sleep

    def install(self) -> None:
        real_sleep, timed_modules = self._real_sleep, self.TIMED_MODULES
        ai_delay, ai_pauses, overslept = self.ai_delay, self.ai_pauses, self.overslept

        async def timed(seconds, result):
            start = time.perf_counter()
            value = await real_sleep(seconds, result)
            lasted = time.perf_counter() - start
            overslept.append(max(0.0, lasted - seconds))
            if seconds == ai_delay:
                ai_pauses.append(lasted)
            return value

        def sleep(seconds, result=None):
            # the caller's module: a plain function, so the frame above is the one calling it
            if seconds > 0 and sys._getframe(1).f_globals.get("__name__") in timed_modules:
                return timed(seconds, result)
            return real_sleep(seconds, result)

        asyncio.sleep = sleep

    def uninstall(self) -> None:
        asyncio.sleep = self._real_sleep


class Heartbeat:
    """A 1 ms tick; also keeps the simulator's own request logs from growing without end (a
    real Discord keeps them in another process, not in the bot's heap)."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.gaps = array("d")  # not a list: a long list of floats would lengthen every GC pass

    async def run(self, stop: asyncio.Event) -> None:
        last = time.perf_counter()
        ticks = 0
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now
            ticks += 1
            if ticks % 200 == 0:
                self.backend.transcript.clear()
                self.backend.http_requests.clear()


class GcPauses:
    """The garbage collector's pauses by generation (a ``gc.callbacks`` entry)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._start = 0.0

    def callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._start)
