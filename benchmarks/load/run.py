"""One process's run of the load benchmark: the bot in a simulated Discord, its tables opened
and dealt, the people clicking for the measured window, then the drain and the figures."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import cProfile
import gc
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from simcord import Env

from benchmarks.load.database import database_for
from benchmarks.load.figures import Figures
from benchmarks.load.meters import BotSleeps, ClickTimer, GcPauses, Heartbeat, RestCounter
from benchmarks.load.people import Human, open_table
from benchmarks.load.processes import DETACHED, MEASURED, READY, keep_ids_apart, step_together
from benchmarks.load.report import report
from benchmarks.load.tables import drain, settled_count, stuck_and_unsettled
from bot.app import create_bot
from bot.backends import is_postgres
from bot.config import load
from bot.tables.adapter import GameUI
from tests.support.simhelpers import Players, buttons, warm_every_deck

GAMES = ("phom", "chan", "tusac", "chinchon", "concan")


async def main(args) -> None:
    rng = random.Random(args.seed)
    games = GAMES if args.game == "all" else (args.game,)
    overrides = {} if args.ai_delay is None else {"ai_delay_seconds": args.ai_delay}
    if args.metrics:
        overrides["metrics_port"] = free_port()
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        database = await stack.enter_async_context(database_for(args.database, Path(tmp),
                                                                check_unused=not args.raw_out))
        # SimCord needs the shard count; and each simulated Discord is a new one, which has the
        # slash commands only once synced, whatever the database says was synced before
        config = load(database=database, shard_count=1, sync_commands="always", **overrides)
        bot = create_bot(config)
        # The AI pauses fire by SimCord's wall-clock fallback; under load its settling may
        # take longer than the default 5 s before it moves the virtual clock.
        env = Env(bot, settle_timeout=60)
        warm_every_deck()  # (the bot's own warm-up must not overrun SimCord's attach on a busy machine)
        keep_ids_apart(env, args.child)
        await env.start()
        if args.text_only:
            show_tables_in_text(bot)
        rest, timer, sleeps = RestCounter(), ClickTimer(bot), BotSleeps(config.ai_delay_seconds)
        rest.install()
        timer.install()
        measured = False
        try:
            print(f"setting up {args.tables} tables…", file=sys.stderr)
            servers = [Players(env, args.humans, names=tuple(f"t{number}p{i}" for i in range(args.humans)))
                       for number in range(args.tables)]
            await env.settle()
            # In production the servers, channels and members are in discord.py's cache before
            # the bot is ready, and the bot freezes them out of garbage collection then; here
            # the simulated world arrives after ready, so it is frozen once it exists.
            gc.collect()
            gc.freeze()
            table_games = [games[number % len(games)] for number in range(args.tables)]
            lobbies = [await open_table(env, players, game, args.humans, args.ai)
                       for players, game in zip(servers, table_games)]
            humans = [Human(env, players, member, index == 0, random.Random(rng.random()), timer, args.think)
                      for players in servers for index, member in enumerate(players.members)]
            sleeps.install()
            # Start every table at once, without settling: the AI seats pause in real time.
            starters = [Human(env, players, players.members[0], True, rng, timer, args.think) for players in servers]
            await asyncio.gather(*(starter.click(lobby, buttons(lobby)["Start"], "start")
                                   for starter, lobby in zip(starters, lobbies)))
            # the deals reach Discord (the budget spreads them: a table's deal is about 9 calls),
            # then the measured play begins; a deal left over would be counted as play
            dealing_until = time.perf_counter() + 10 + 2 * 9 * args.tables / config.rest_calls_here
            while any(t.presenter is not None and t.presenter.pending() for t in bot.tables.tables.values()):
                if time.perf_counter() > dealing_until:
                    print("WARNING: some deals had not reached Discord when the measuring began", file=sys.stderr)
                    break
                await asyncio.sleep(0.05)
            settled_before = await settled_count(bot)
            if args.raw_out:
                await step_together(READY)

            gc_pauses = GcPauses()
            gc.callbacks.append(gc_pauses.callback)
            beat, stop = Heartbeat(env.backend), asyncio.Event()
            ticking = asyncio.create_task(beat.run(stop))
            scraping = asyncio.create_task(scrape_every(config.metrics_port, SCRAPE_SECONDS, stop)) \
                if args.metrics else None
            errors_before = len(env.errors)
            rest.counting = True
            profiler = cProfile.Profile() if args.profile else None
            cpu0, wall0 = time.process_time(), time.perf_counter()
            until = wall0 + args.seconds
            print(f"measuring for {args.seconds:.0f} s…", file=sys.stderr)
            if profiler is not None:
                profiler.enable()  # the measured window only, not the setting up
            await asyncio.gather(*(human.run(until) for human in humans))
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            rest.counting = False
            stop.set()
            await ticking
            scrapes = await scraping if scraping is not None else 0
            gc.callbacks.remove(gc_pauses.callback)

            drain_seconds, playing_on = await drain(bot, rest, limit=10 + 4 * config.ai_delay_seconds)
            stuck, unsettled = await stuck_and_unsettled(bot)
            figures = Figures(
                tables=[args.tables], cpu=[cpu], wall=[wall],
                database="PostgreSQL" if is_postgres(config.database) else "SQLite",
                ai_delay=config.ai_delay_seconds,
                latencies=[x for h in humans for x in h.latencies],
                move_latencies=[x for h in humans for x in h.move_latencies],
                clicks=sum((h.clicks for h in humans), Counter()),
                unanswered=sum(h.unanswered for h in humans), games=sum(h.games for h in humans),
                calls=rest.calls, kinds=rest.kinds, uploads=rest.uploads, private_answers=rest.private_answers,
                refusals=rest.refusals, ai_pauses=list(sleeps.ai_pauses), overslept=list(sleeps.overslept),
                gaps=list(beat.gaps),
                gc_pauses=gc_pauses.pauses, settled=await settled_count(bot) - settled_before,
                stuck=stuck, unsettled=unsettled, drain_seconds=drain_seconds, playing_on=playing_on, scrapes=scrapes,
                errors=[describe(error) for error in env.errors[errors_before:]],
                ai=args.ai)
            if args.raw_out:
                Path(args.raw_out).write_text(figures.to_json())
                await step_together(MEASURED)
            else:
                report(args, figures)
            measured = True
        finally:
            sleeps.uninstall()
            timer.uninstall()
            rest.uninstall()
            await env.shutdown()
            if args.raw_out and measured:
                await step_together(DETACHED)
            await bot.release()


#: How often ``--metrics`` scrapes, as a Prometheus would (its default interval is 15 s).
SCRAPE_SECONDS = 15.0


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def scrape_every(port: int, seconds: float, stop: asyncio.Event) -> int:
    """Scrape the bot's /metrics and /healthz every ``seconds`` until ``stop``; how many times."""
    import aiohttp

    scrapes = 0
    # a connection closed after each scrape: one kept alive is work of the bot's that SimCord
    # waits for before it moves its clock (the AI's pauses would overrun)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
        while not stop.is_set():
            for path in ("/metrics", "/healthz"):
                async with session.get(f"http://127.0.0.1:{port}{path}") as response:
                    await response.read()
            scrapes += 1
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), seconds)
    return scrapes


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:120]}"




def show_tables_in_text(bot) -> None:
    """``--text-only``: every game's UI registered again (the table service's ``register``) as
    a copy whose table picture is :class:`~bot.tables.adapter.GameUI`'s: none, the table in
    text only."""
    for ui in list(bot.tables.uis.values()):
        text = copy.copy(ui)
        text.__dict__.pop("_at_stake", None)  # its copies at other stakes are made afresh, in text too
        text.__class__ = type(f"TextOnly{type(ui).__name__}", (type(ui),), {"table_picture": GameUI.table_picture})
        bot.tables.register(text)
