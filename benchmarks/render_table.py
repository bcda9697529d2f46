"""Time the public table picture of each game at 4 players, from mid-game states.

    python -m benchmarks.render_table [--seeds 5] [--moves 30] [--repeat 100] [--profile GAME]

Each game is played by its AI from fixed seeds (the same states on every run). For every
seed, the pictures of ``--moves`` successive positions around the middle of the game are
kept (a position whose picture equals the previous one is skipped, as the table skips the
upload). Sprites are warmed first. Two figures per game, in ms (picture data to PNG bytes):

- *after each move*: every kept picture rendered once, in play order: what the table pays
  after a move;
- *same picture*: the middle position of the first seed rendered ``--repeat`` times.

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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PIL import Image  # noqa: E402

from bot.tables.model import Seat, Table  # noqa: E402
from rendering import fonts, warm_sprites  # noqa: E402
from rendering.table_picture import render_table_picture  # noqa: E402

GAMES = {
    "phom": ("cogs.phom", "PhomUI"),
    "chan": ("cogs.chan", "ChanUI"),
    "tusac": ("cogs.tusac", "TuSacUI"),
    "concan": ("cogs.concan", "ConcanUI"),
    "chinchon": ("cogs.chinchon", "ChinchonUI"),
}
NAMES = ["Lan", "AI 1", "Nguyễn Đức", "Hòa"]


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
    state.apply(seat, ui.ai_action(state, seat))


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


def stats(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def timed(picture) -> tuple[float, bytes]:
    start = time.perf_counter()
    png = render_table_picture(picture)
    return (time.perf_counter() - start) * 1000, png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=5, help="games per game type")
    parser.add_argument("--moves", type=int, default=30, help="successive positions kept per game")
    parser.add_argument("--repeat", type=int, default=100, help="renders of the same picture")
    parser.add_argument("--profile", choices=sorted(GAMES), help="profile this game's renders")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games to time")
    args = parser.parse_args()

    print(f"font: {fonts.font_name()} · {args.players} players · {args.seeds} seeds × {args.moves} positions")
    print(f"{'game':<9} {'after each move: median':>24} {'p95':>8} {'max':>8}   {'same picture: median':>21} "
          f"{'p95':>8}   size, PNG")
    for game in args.games.split(","):
        ui = ui_of(game)
        warm_sprites(ui.deck)
        pictures = [p for seed in range(1, args.seeds + 1)
                    for p in mid_game_pictures(game, args.players, seed, args.moves)]
        middle = pictures[len(pictures) // (2 * args.seeds)]
        for picture in pictures[:3]:  # fonts, text and shadow caches
            render_table_picture(picture)
        if args.profile == game:
            profiler = cProfile.Profile()
            profiler.enable()
        moves = [timed(p)[0] for p in pictures]
        if args.profile == game:
            profiler.disable()
        same = [timed(middle)[0] for _ in range(args.repeat)]
        png = render_table_picture(middle)
        size = Image.open(io.BytesIO(png)).size
        (m_med, m_p95), (s_med, s_p95) = stats(moves), stats(same)
        print(f"{game:<9} {m_med:21.2f} ms {m_p95:5.2f} ms {max(moves):5.2f} ms   {s_med:18.2f} ms {s_p95:5.2f} ms"
              f"   {size[0]}×{size[1]}, {len(png) // 1024} KB  ({len(moves)} pictures)")
        if args.profile == game:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
