"""Time hand rendering: sprite cache warm-up, a cold first render, then ~200 warm renders.

    python benchmarks/render_hand.py [--n 200]

Then the largest hand of each game (the widest of the hands its cog shows in seeded AI
games, :func:`tests.support.hands.largest_hands`, with its real caption and marks), rendered ``--n``
times each: each line gives the picture's width×height in px, how tall a card's Chinese
character is once the picture is shown 400 px wide (Chắn, Tứ Sắc), and the upload's size
in KB next to the time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HAND = [["3H", "4H", "5H"], ["7C", "7D", "7S"], ["2S", "KD", "AC", "TD"]]
#: The height of each Chinese deck's character on its sprite, px (the font size it is drawn
#: at: rendering/tusac.py, rendering/tosom.py; the ink is ~0.9 of it).
GLYPHS = {"tusac": ("帥", 24), "tosom": ("萬", 28)}


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="warm renders to time")
    args = parser.parse_args()

    t0 = time.perf_counter()
    import rendering
    from rendering import fonts, render_hand, warm_sprites
    import_ms = _ms(t0)

    # cold: the first render draws the sprites it needs and loads the fonts
    t0 = time.perf_counter()
    data = render_hand(HAND, marked=[1, 4], selected=[8], title="Your hand — your turn",
                       caption="Leftover 16 points · locked: 7H")
    cold_ms = _ms(t0)

    t0 = time.perf_counter()
    n_sprites = warm_sprites("french")
    warm_ms = _ms(t0)

    def timed(groups, deck, caption):
        times, sizes = [], []
        for i in range(args.n):
            t0 = time.perf_counter()
            data = render_hand(groups, marked=[1, 4], selected=[i % 10], title="Your hand — your turn",
                               caption=caption.format(i=i), deck=deck)
            times.append(_ms(t0))
            sizes.append(len(data) / 1024)
        times.sort()
        p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
        return (f"median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, min {times[0]:.2f} ms, "
                f"max {times[-1]:.2f} ms · {statistics.median(sizes):.1f} KB {rendering.IMAGE_FORMAT}")

    hand_line = timed(HAND, "french", "Leftover {i} points · locked: 7H")
    print(f"font: {fonts.font_name()}")
    print(f"import rendering:          {import_ms:7.1f} ms")
    print(f"cold first render:         {cold_ms:7.1f} ms  ({len(data) / 1024:.1f} KB {rendering.IMAGE_FORMAT})")
    print(f"warm the rest of the cache:{warm_ms:7.1f} ms  ({n_sprites} sprites incl. back, and the palette)")
    print(f"10-card hand, {args.n} renders: {hand_line}")
    from rendering.fonts import cjk_font
    from rendering.sprites import SCALE
    from tests.support.hands import GAMES, largest_hands, ui_of

    for game in GAMES:
        deck = ui_of(game).deck
        image = largest_hands(game)[0]
        warm_sprites(deck)
        picture = rendering.hand.hand_image(image.groups, marked=image.marked, selected=image.selected,
                                            caption=image.caption, title=image.title, deck=deck)
        size = len(render_hand(image.groups, marked=image.marked, selected=image.selected,
                               caption=image.caption, title=image.title, deck=deck)) / 1024
        glyph = ""
        if deck in GLYPHS:
            char, font_size = GLYPHS[deck]
            box = cjk_font(round(font_size * SCALE)).getbbox(char, anchor="ls")
            glyph = f", {char} {(box[3] - box[1]) / SCALE * min(1, 400 / picture.width):.1f} px at 400"
        cards = sum(len(g) for g in image.groups)
        print(f"{game:16} {cards} cards in {len(image.groups)} groups: {picture.width}×{picture.height} px, "
              f"{size:.1f} KB{glyph}")
        print(f"{'':16} {timed(image.groups, deck, image.caption + ' · {i}')}")
    del rendering


if __name__ == "__main__":
    main()
