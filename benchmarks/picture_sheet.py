"""The pictures people see, as they see them: every game's table (early, late, between two
rounds), round and result pictures at 2 seats and at the most, saved as PNG and measured, and
a contact sheet of them scaled to 400 px wide (a phone's width).

    python -m benchmarks.picture_sheet OUT_DIR [--seed 3]
    python -m benchmarks.picture_sheet --compare BEFORE_DIR AFTER_DIR SHEET_DIR

The first form writes ``OUT_DIR/<game>-<seats>-<kind>.png`` (full size), ``OUT_DIR/figures.tsv``
(width, height, width/height, card height shown 400 px wide, KB uploaded; the time to draw a
table picture is :mod:`benchmarks.render_table`'s) and
``OUT_DIR/sheet-<game>.png``. The second puts two such directories side by side, one sheet per
game (``SHEET_DIR/<game>.png``: before at the left, after at the right), and prints both
figures. Run the first form in a checkout of the old code to get the "before" (it only uses
the games' UIs and the rendering package's public functions).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PIL import Image, ImageDraw  # noqa: E402

from bot.tables.model import Seat, Table  # noqa: E402
from rendering import encode, get_deck, warm_sprites  # noqa: E402
from rendering.fonts import font  # noqa: E402
from rendering.table import rows_image  # noqa: E402
from rendering.table_picture import table_picture_image  # noqa: E402
from cogs.chan import ChanUI  # noqa: E402
from cogs.chinchon import ChinchonUI  # noqa: E402
from cogs.concan import ConcanUI  # noqa: E402
from cogs.phom import PhomUI  # noqa: E402
from cogs.tusac import TuSacUI  # noqa: E402

try:  # (and as the code of before bot/ai and bot/ledger did, for a sheet of how the pictures were)
    from bot.ai.levels import normal
    from bot.ledger import settlement

    def ai_move(ui, state, seat: int) -> str:
        return normal(state.name, state.view(seat))
except ImportError:  # pragma: no cover
    from bot.tables.adapter import Settlement

    def ai_move(ui, state, seat: int) -> str:
        return ui.ai_action(state, seat)

    settlement = Settlement.of

UIS = {"phom": PhomUI, "chan": ChanUI, "tusac": TuSacUI, "chinchon": ChinchonUI, "concan": ConcanUI}
OPTIONS = {"chinchon": {"target": 30}, "concan": {"rounds": 3}, "phom": {"send": True}}
NAMES = ["Lan", "🤖 AI 1", "Nguyễn Thị Minh Khai", "Hòa 🌸", "محمد", "李小龍"]
SHOWN = 400  # px: how wide a phone shows an embed's picture


def table_of(game: str, players: int) -> Table:
    seats = [Seat(None if "AI" in name else 100 + i, name) for i, name in enumerate(NAMES[:players])]
    return Table(id=42, guild_id=1, channel_id=1, game=game, options={}, host_id=100, status="playing", seats=seats)


def game_pictures(game: str, players: int, seed: int):
    """(kind, draw) for a seeded AI game: ``draw()`` makes the PIL image. Kinds: "table-early"
    (after each seat's first turns), "table-late" (the last position before the end), "pause"
    (the table between two rounds), "round" (the last round's picture), "result"."""
    ui, table = UIS[game](), table_of(game, players)
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(OPTIONS.get(game, {}),
                                                                                        stake=1)))
    names, raw = table.picture_names(), table.raw_names()
    views, pause, rounds_seen, moves = [], None, 0, 0
    while not state.is_over:
        view = state.view(None)
        done = len(view.get("round_results") or ())
        if done > rounds_seen and pause is None:
            pause = dict(view, between_rounds=True)
        rounds_seen = done
        views.append(view)
        seat = state.to_act[0]
        state.apply(seat, ai_move(ui, state, seat))
        moves += 1
    final = state.view(None)
    early = views[min(len(views) - 1, 3 * players + 1)]
    yield "table-early", lambda: table_picture_image(ui.table_picture(early, names, table))
    yield "table-late", lambda: table_picture_image(ui.table_picture(views[-1], names, table))
    if pause is not None:
        yield "pause", lambda: table_picture_image(ui.table_picture(pause, names, table))
    if final.get("round_results"):
        last = len(final["round_results"]) - 1
        yield "round", lambda: rows_image(ui.round_rows(final, raw, last),
                                          title=f"{ui.game.title} · table #42 · round {last + 1}", deck=ui.deck)
    paid = settlement(state.outcome(), stake=1)
    yield "result", lambda: rows_image(ui.result_rows(final, raw, paid),
                                       title=f"{ui.game.title} · table #42 · game 1", deck=ui.deck)


def upload_bytes(image: Image.Image, deck: str) -> bytes:
    return encode.encode_picture(image, deck)


def measured(draw, deck: str) -> tuple[Image.Image, int]:
    """The picture and its upload size."""
    image = draw()
    return image, len(upload_bytes(image, deck))


def card_height_shown(image: Image.Image, deck: str) -> float:
    """How tall a card (a strip in Tứ Sắc and Chắn) is once the picture is shown 400 px wide
    (every card is drawn at its sprite's size)."""
    return get_deck(deck).card_size[1] * min(1.0, SHOWN / image.width)


def shown(image: Image.Image) -> Image.Image:
    scale = min(1.0, SHOWN / image.width)
    return image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)


def caption(image: Image.Image, text: str) -> Image.Image:
    """``image`` with ``text`` above it, on white."""
    label = font(14)
    out = Image.new("RGB", (max(image.width, SHOWN), image.height + 22), (255, 255, 255))
    ImageDraw.Draw(out).text((2, 3), text, fill=(0, 0, 0), font=label)
    out.paste(image, (0, 22))
    return out


def stack(images: list[Image.Image], gap: int = 12, across: bool = False) -> Image.Image:
    if not images:
        return Image.new("RGB", (SHOWN, 10), (255, 255, 255))
    if across:
        size = (sum(i.width for i in images) + gap * (len(images) - 1), max(i.height for i in images))
    else:
        size = (max(i.width for i in images), sum(i.height for i in images) + gap * (len(images) - 1))
    out = Image.new("RGB", size, (255, 255, 255))
    at = 0
    for image in images:
        out.paste(image, (at, 0) if across else (0, at))
        at += (image.width if across else image.height) + gap
    return out


def figure_text(row: dict) -> str:
    return (f"{row['name']}  {row['width']}×{row['height']} · w/h {float(row['aspect']):.2f} · "
            f"card {float(row['card_px']):.0f} px · {float(row['kb']):.0f} KB")


def render_all(out: str, seed: int) -> None:
    os.makedirs(out, exist_ok=True)
    rows = []
    for game, ui in UIS.items():
        warm_sprites(ui.deck)
        for players in sorted({2, ui.game.max_players}):
            for kind, draw in game_pictures(game, players, seed):
                image, size = measured(draw, ui.deck)
                name = f"{game}-{players}-{kind}"
                image.save(os.path.join(out, name + ".png"))
                rows.append({"name": name, "width": image.width, "height": image.height,
                             "aspect": f"{image.width / image.height:.3f}",
                             "card_px": f"{card_height_shown(image, ui.deck):.1f}", "kb": f"{size / 1024:.1f}"})
                print(figure_text(rows[-1]), flush=True)
    with open(os.path.join(out, "figures.tsv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    for game in UIS:
        pictures = [caption(shown(Image.open(os.path.join(out, row["name"] + ".png"))), figure_text(row))
                    for row in rows if row["name"].startswith(game + "-")]
        stack(pictures).save(os.path.join(out, f"sheet-{game}.png"))


def read_figures(folder: str) -> dict[str, dict]:
    with open(os.path.join(folder, "figures.tsv")) as f:
        return {row["name"]: row for row in csv.DictReader(f, delimiter="\t")}


def compare(before: str, after: str, out: str) -> None:
    os.makedirs(out, exist_ok=True)
    old, new = read_figures(before), read_figures(after)
    for game in UIS:
        pairs = []
        for name in [n for n in new if n.startswith(game + "-")]:
            sides = [caption(shown(Image.open(os.path.join(folder, name + ".png"))), label + figure_text(rows[name]))
                     for folder, rows, label in ((before, old, "before "), (after, new, "after "))
                     if name in rows]
            pairs.append(stack(sides, gap=24, across=True))
        stack(pairs, gap=20).save(os.path.join(out, f"{game}.png"))
    print(f"{'picture':28} {'w/h':>11} {'card px @400':>13} {'KB':>11}")
    for name, row in new.items():
        was = old.get(name)
        if was is None:
            continue
        print(f"{name:28} {float(was['aspect']):5.2f}→{float(row['aspect']):4.2f} "
              f"{float(was['card_px']):6.0f}→{float(row['card_px']):<6.0f} "
              f"{float(was['kb']):5.0f}→{float(row['kb']):<5.0f}")
    for kind in ("table", "round", "result", "pause"):
        for label, rows in (("before", old), ("after", new)):
            chosen = [r for n, r in rows.items() if n.split("-", 2)[2].startswith(kind)]
            if chosen:
                card = statistics.median(float(r["card_px"]) for r in chosen)
                print(f"{kind:7} {label:6} median card {card:4.0f} px (lowest "
                      f"{min(float(r['card_px']) for r in chosen):.0f}) · "
                      f"lowest w/h {min(float(r['aspect']) for r in chosen):.2f} · "
                      f"median {statistics.median(float(r['kb']) for r in chosen):.0f} KB "
                      f"(max {max(float(r['kb']) for r in chosen):.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="where to write the pictures, their figures and sheets")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--compare", nargs=3, metavar=("BEFORE", "AFTER", "SHEETS"))
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.out:
        render_all(args.out, args.seed)
    else:
        parser.error("give OUT_DIR or --compare BEFORE AFTER SHEETS")


if __name__ == "__main__":
    main()
