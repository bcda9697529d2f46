"""The load benchmark's report: the figures of a run (one process's, or several merged) as text."""

from __future__ import annotations

import statistics

from benchmarks.load.figures import Figures, percentile
from benchmarks.load.people import CLICK_TIMEOUT
from benchmarks.load.routes import GLOBAL, INTERACTION, tables_per_token


def report(args, figures: Figures) -> None:
    latencies = [x * 1000 for x in figures.latencies]
    move_latencies = [x * 1000 for x in figures.move_latencies]
    clicks = figures.clicks
    moves = clicks["move"]
    per_move = 1 / max(moves, 1)
    wall, table_minutes = figures.window, figures.table_minutes
    game = "five games" if args.game == "all" else args.game
    seats = "1 person + 3 AI" if args.humans == 1 else f"{args.humans} people" + \
        (f" + {4 - args.humans} AI" if args.humans < 4 else "")
    print(f"\n{tables_heading(figures.tables)} ({seats}, {game}{', text only' if args.text_only else ''}"
          f"{', metrics on' if args.metrics else ''}), "
          f"AI {figures.ai}, delay {figures.ai_delay:g} s, think {args.think:g} s, {wall:.0f} s measured "
          f"({table_minutes:.1f} table-minutes), {figures.database}")
    print(f"human clicks: {sum(clicks.values())} ({sum(clicks.values()) / wall:.1f}/s): {moves} moves, "
          f"{clicks['quick']} Quick Select, {clicks['next']} Next round, {clicks['rematch']} Rematch, "
          f"{clicks['start']} Start; private (ephemeral) answers {figures.private_answers}")

    global_calls = figures.of_kind(figures.calls, GLOBAL)
    interaction_calls = figures.of_kind(figures.calls, INTERACTION)
    global_per_table_minute = global_calls / max(table_minutes, 1e-9)
    print(f"globally limited REST calls: {global_per_table_minute:.1f} per table-minute, "
          f"{global_calls * per_move:.2f} per human move ({global_calls} calls, {global_calls / wall:.1f}/s "
          f"for the whole bot)")
    print(f"interaction calls (not globally limited): {interaction_calls / max(table_minutes, 1e-9):.1f} per "
          f"table-minute, {interaction_calls * per_move:.2f} per human move ({interaction_calls} calls)")
    print(f"tables one token can carry: {tables_per_token(global_per_table_minute):.0f} at 50 calls/s, "
          f"{tables_per_token(global_per_table_minute, 0.8):.0f} at 80 % (40/s)")
    up_global = figures.of_kind(figures.uploads, GLOBAL) / 1024
    up_interaction = figures.of_kind(figures.uploads, INTERACTION) / 1024
    print(f"KB uploaded per human move: {(up_global + up_interaction) * per_move:.0f} "
          f"(globally limited calls {up_global * per_move:.0f}, interaction calls {up_interaction * per_move:.0f}); "
          f"{(up_global + up_interaction) / 1024 / wall:.2f} MB/s for the whole bot")

    if latencies:
        print(f"click-to-done ms: p50 {statistics.median(latencies):.1f}  p95 {percentile(latencies, .95):.1f}"
              f"  p99 {percentile(latencies, .99):.1f}  max {max(latencies):.1f}"
              + (f"  (moves: p50 {statistics.median(move_latencies):.1f}  p95 {percentile(move_latencies, .95):.1f}"
                 f"  p99 {percentile(move_latencies, .99):.1f})" if move_latencies else ""))
    if figures.unanswered:
        print(f"clicks not answered within {CLICK_TIMEOUT:.0f} s: {figures.unanswered}")
    if figures.ai_pauses:
        lasted = figures.ai_pauses
        print(f"AI pauses ({figures.ai_delay:g} s asked, wall clock): {len(lasted)}, "
              f"p50 {statistics.median(lasted):.2f} s  p95 {percentile(lasted, .95):.2f} s  max {max(lasted):.2f} s")
    elif figures.ai_delay > 0 and args.humans < 4 and figures.clicks["move"]:
        print("WARNING: no AI pause was timed: do the bot's pauses still come from BotSleeps.TIMED_MODULES?")
    if figures.overslept:
        over = [x * 1000 for x in figures.overslept]
        print(f"the bot's timed pauses (AI, frames, retries): {len(over)}, overslept p50 {statistics.median(over):.0f} "
              f"ms  p95 {percentile(over, .95):.0f} ms  max {max(over):.0f} ms")
    if figures.simulator_behind():
        print("WARNING: the simulator did not keep up (the bot's pauses lasted longer than asked: SimCord settles "
              "all the bot's work before each wall-clock timer moves its clock); the latencies include its delays "
              "and the tables played slower, so the per-minute figures and tables per token understate the load; "
              "per-move figures stand")
    gaps = [g * 1000 for g in figures.gaps]
    print(f"event-loop stall ms (1 ms heartbeat): max {max(gaps):.1f}  p99 {percentile(gaps, .99):.1f}  "
          f"gaps > 50 ms: {sum(g > 50 for g in gaps)}")
    for generation, pauses in figures.gc_pauses.items():
        if pauses:
            print(f"gc gen {generation}: {len(pauses)} collections, max {max(pauses) * 1000:.1f} ms, "
                  f"total {sum(pauses) * 1000:.0f} ms")
    print(f"{cpu_spent(figures)}, {sum(figures.cpu) / max(sum(clicks.values()), 1) * 1000:.1f} ms per click"
          + (f"; metrics on, scraped {figures.scrapes} times" if args.metrics else "; metrics off"))
    print("routes: calls per human move · per table-minute · KB per human move  (G: globally limited, "
          "I: interaction)")
    for name, count in figures.calls.most_common(12):
        kind = "G" if figures.kinds[name] == GLOBAL else "I"
        print(f"  {kind} {count * per_move:5.2f} · {count / max(table_minutes, 1e-9):5.1f} · "
              f"{figures.uploads[name] / 1024 * per_move:5.0f}  {name}")
    print(f"games settled while measuring: {figures.settled}; games played to the end by humans: {figures.games}")
    print(f"drained in {figures.drain_seconds:.1f} s"
          + (f" ({figures.playing_on} tables where only AI seats still play)" if figures.playing_on else "")
          + f"; tables stuck: {figures.stuck}; games over but unsettled: {figures.unsettled}")
    if figures.refusals:
        print("private answers: " + "; ".join(f"{n}× {text!r}" for text, n in figures.refusals.most_common(4)))
    if figures.errors:
        print(f"errors recorded by SimCord: {len(figures.errors)}: " + "; ".join(figures.errors[:3]))


def tables_heading(tables: list[int]) -> str:
    if len(tables) == 1:
        return f"{tables[0]} tables"
    each = f"{tables[0]} each" if len(set(tables)) == 1 else " + ".join(map(str, tables))
    return f"{sum(tables)} tables on {len(tables)} processes, {each}"


def cpu_spent(figures: Figures) -> str:
    if figures.processes == 1:
        return f"process CPU: {figures.cpu[0]:.1f} s ({figures.cpu[0] / figures.wall[0] * 100:.0f}% of one core)"
    shares = ", ".join(f"{cpu / wall * 100:.0f}%" for cpu, wall in zip(figures.cpu, figures.wall))
    return (f"CPU of the {figures.processes} bot processes: {sum(figures.cpu):.1f} s in all ({shares} of one core "
            f"each; the PostgreSQL server not counted)")
