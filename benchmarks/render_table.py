"""Time the public table picture of each game at 4 players, from mid-game states.

    python -m benchmarks.render_table [--seeds 5] [--moves 30] [--repeat 100] [--passes 3] [--profile GAME]

Each game is played by its AI from fixed seeds (the same states on every run). For every
seed, the pictures of ``--moves`` successive positions around the middle of the game are
kept (a position whose picture equals the previous one is skipped, as the table skips the
upload). Sprites are warmed first. Two figures per game, in ms (picture data to upload bytes):

- *after each move*: every kept picture rendered once, in play order: what the table pays
  after a move;
- *same picture*: the middle position of the first seed rendered ``--repeat`` times.

Wall-clock median, p95 and max, and the median CPU time (the process's own: on a shared
machine it shows what other processes add to the wall clock). The figures are taken in
``--passes`` interleaved passes over the games. Then the upload's size: median and max KB
over the kept pictures, and the size of the middle one.

Then each game's round (Chinchón, Concan) and result pictures at the end of the first seed's
game: their size (width × height, KB) and their render time. Every picture's size is shown
with how large Discord shows it in an embed (at most 400 × 300 px): "shown 400×236".

``--profile phom`` prints where the time goes for that game (cProfile).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import os
import pstats
import statistics
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PIL import Image  # noqa: E402

from bot import ledger  # noqa: E402
from bot.ai.levels import normal  # noqa: E402
from bot.tables.model import Seat, Table  # noqa: E402
from rendering import IMAGE_FORMAT, fonts, warm_sprites  # noqa: E402
from rendering.table import render_rows  # noqa: E402
from rendering.table_picture import render_table_picture  # noqa: E402

GAMES = {
    "phom": ("cogs.phom", "PhomUI"),
    "chan": ("cogs.chan", "ChanUI"),
    "tusac": ("cogs.tusac", "TuSacUI"),
    "concan": ("cogs.concan", "ConcanUI"),
    "chinchon": ("cogs.chinchon", "ChinchonUI"),
}
NAMES = ["Lan", "AI 1", "Nguyễn Đức", "Hòa", "Minh", "Thảo"]


def ui_of(game: str):
    module, name = GAMES[game]
    return getattr(importlib.import_module(module), name)()


def table_of(game: str, players: int) -> Table:
    seats = [Seat(None if name.startswith("AI") else 100 + i, name) for i, name in enumerate(NAMES[:players])]
    return Table(id=12, guild_id=1, channel_id=1, game=game, options={}, host_id=100, status="playing", seats=seats)


def new_state(ui, players: int, seed: int):
    return ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options({}, stake=1)))


def play_ai(ui, state) -> None:
    seat = state.to_act[0]
    state.apply(seat, normal(state.name, state.view(seat)))


def mid_game_pictures(game: str, players: int, seed: int, moves: int) -> list:
    """The pictures of ``moves`` successive positions around the middle of an AI game."""
    ui, table = ui_of(game), table_of(game, players)
    state, total = new_state(ui, players, seed), 0
    while not state.is_over:
        play_ai(ui, state)
        total += 1
    first = max(0, total // 2 - moves // 2)
    state, done, pictures = new_state(ui, players, seed), 0, []
    while not state.is_over and len(pictures) < moves:
        if done >= first:
            picture = ui.table_picture(state.view(None), table.names(), table)
            if not pictures or picture != pictures[-1]:
                pictures.append(picture)
        play_ai(ui, state)
        done += 1
    return pictures


def end_rows(game: str, players: int, seed: int) -> list[tuple[str, list, str]]:
    """(kind, rows, title) of the round pictures (the first and the last round) and the result
    picture of a seeded AI game."""
    ui, table = ui_of(game), table_of(game, players)
    state = new_state(ui, players, seed)
    while not state.is_over:
        play_ai(ui, state)
    view, names = state.view(None), table.raw_names()
    pictures = []
    if view.get("round_results"):  # Chinchón, Concan
        last = len(view["round_results"]) - 1
        pictures += [("round", ui.round_rows(view, names, index), f"{ui.game.title} · table #12 · round {index + 1}")
                     for index in sorted({0, last})]
    paid = ledger.settlement(state.outcome(), stake=table.stake)
    pictures.append(("result", ui.result_rows(view, names, paid), f"{ui.game.title} · table #12 · game 1"))
    return pictures


def shown_scale(width: int, height: int) -> float:
    """How much Discord scales a picture down to show it in an embed (at most 400 × 300 px)."""
    return min(1.0, 400 / width, 300 / height)


def size_text(data: bytes) -> str:
    """"734×867 · 33.1 KB · shown 254×300": the picture's size, and as an embed shows it."""
    width, height = Image.open(io.BytesIO(data)).size
    scale = shown_scale(width, height)
    return (f"{width}×{height} · {len(data) / 1024:.1f} KB · shown {round(width * scale)}×{round(height * scale)}")


def machine_reference() -> float:
    """ms for zlib level 1 on 2 MB of felt, a fixed workload: on a shared machine it tells how
    fast the machine was while the figures were taken."""
    felt = bytes((28, 74, 52)) * 700_000
    times = []
    for _ in range(15):
        start = time.perf_counter()
        zlib.compress(felt, 1)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def stats(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def timed(picture) -> tuple[float, float]:
    """Wall and CPU ms to render ``picture`` to upload bytes."""
    wall, cpu = time.perf_counter(), time.process_time()
    render_table_picture(picture)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=5, help="games per game type")
    parser.add_argument("--moves", type=int, default=30, help="successive positions kept per game")
    parser.add_argument("--repeat", type=int, default=100, help="renders of the same picture")
    parser.add_argument("--passes", type=int, default=3,
                        help="passes over all the games (interleaved, so a busy moment hits every game a little)")
    parser.add_argument("--profile", choices=sorted(GAMES), help="profile this game's renders")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games to time")
    args = parser.parse_args()

    games = args.games.split(",")
    pictures, middles = {}, {}
    for game in games:
        warm_sprites(ui_of(game).deck)
        pictures[game] = [p for seed in range(1, args.seeds + 1)
                          for p in mid_game_pictures(game, args.players, seed, args.moves)]
        middles[game] = pictures[game][len(pictures[game]) // (2 * args.seeds)]
        for picture in pictures[game][:3]:  # fonts, text and shadow caches
            render_table_picture(picture)
    reference = machine_reference()
    moves = {game: [] for game in games}
    same = {game: [] for game in games}
    profiler = cProfile.Profile() if args.profile else None
    for _ in range(args.passes):
        for game in games:
            if game == args.profile:
                profiler.enable()
            moves[game] += [timed(p) for p in pictures[game]]
            if game == args.profile:
                profiler.disable()
            same[game] += [timed(middles[game]) for _ in range(max(1, args.repeat // args.passes))]

    print(f"font: {fonts.font_name()} · {args.players} players · {args.seeds} seeds × {args.moves} positions · "
          f"{args.passes} passes · ms")
    print(f"{'':9} {'after each move, ms':^33}   {'same picture, ms':^22}   {'KB, ' + IMAGE_FORMAT:^11}")
    print(f"{'game':9} {'median':>8} {'p95':>7} {'max':>7} {'cpu med':>8}   {'median':>7} {'p95':>7} {'cpu med':>8}"
          f"   {'median':>6} {'max':>4}   same picture")
    for game in games:
        kb = [len(render_table_picture(p)) / 1024 for p in pictures[game]]
        data = render_table_picture(middles[game])
        width, height = Image.open(io.BytesIO(data)).size
        walls = [w for w, _ in moves[game]]
        (m_med, m_p95), (s_med, s_p95) = stats(walls), stats([w for w, _ in same[game]])
        m_cpu, s_cpu = statistics.median(c for _, c in moves[game]), statistics.median(c for _, c in same[game])
        print(f"{game:9} {m_med:8.2f} {m_p95:7.2f} {max(walls):7.2f} {m_cpu:8.2f}   "
              f"{s_med:7.2f} {s_p95:7.2f} {s_cpu:8.2f}   {statistics.median(kb):6.1f} {max(kb):4.0f}   "
              f"{size_text(data)}  ({len(pictures[game])} pictures)")
    print("\nevery table picture: width×height (median, the tallest for its width), as shown in an embed")
    for game in games:
        sizes = [Image.open(io.BytesIO(render_table_picture(p))).size for p in pictures[game]]
        widths, heights = sorted(w for w, _ in sizes), sorted(h for _, h in sizes)
        tallest = max(sizes, key=lambda size: size[1] / size[0])
        shown = statistics.median(shown_scale(w, h) * w for w, h in sizes)
        print(f"{game:9} median {widths[len(widths) // 2]}×{heights[len(heights) // 2]}, tallest "
              f"{tallest[0]}×{tallest[1]}, shown {shown:.0f} px wide (median)")
    print("\nround and result pictures at the end of the first seed's game (ms: median of "
          f"{max(3, args.repeat // 10)} renders)")
    for game in games:
        for kind, rows, title in end_rows(game, args.players, 1):
            deck = ui_of(game).deck
            data = render_rows(rows, title=title, deck=deck)
            times = []
            for _ in range(max(3, args.repeat // 10)):
                start = time.perf_counter()
                render_rows(rows, title=title, deck=deck)
                times.append((time.perf_counter() - start) * 1000)
            print(f"{game:9} {kind:7} {statistics.median(times):6.2f} ms   {size_text(data)}")
    print(f"machine reference (zlib level 1, 2 MB of felt): {reference:.2f} ms before, "
          f"{machine_reference():.2f} ms after (2.5 ms on a quiet day of the machine these figures were taken on)")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
