"""Time hand rendering: sprite cache warm-up, a cold first render, then ~200 warm renders.

    python benchmarks/render_hand.py [--n 200]

Then the widest hands of each deck (a Chắn or Tứ Sắc hand at the deal is ~1,000 px wide),
rendered ``--n`` times each. Each line gives the upload's size in KB next to the time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HAND = [["3H", "4H", "5H"], ["7C", "7D", "7S"], ["2S", "KD", "AC", "TD"]]
#: A big hand of each deck, as the games arrange it at the deal.
BIG_HANDS = {
    "french": [["3H", "4H", "5H", "6H"], ["7C", "7D", "7S"], ["JK=9S", "TS", "JS"], ["2S", "KD", "AC", "TD", "8D"]],
    "spanish": [["1O", "2O", "3O"], ["7C", "7E", "7B"], ["10E", "11E", "12E"], ["JK", "4B"]],
    "tosom": [["2V", "2V"], ["3W", "3W"], ["4S", "4S"], ["7V", "7V"], ["CC", "CC"], ["2W", "5S", "6V", "8W"],
              ["9S", "9V", "3S", "4V", "6W", "8S", "9W"]],
    "tusac": [["RK", "RK"], ["RR", "RR", "RR"], ["GK"], ["RC", "RC"], ["YE", "YE"], ["WA", "WA"],
              ["GN", "GP"], ["WR"], ["YC"], ["RN", "RP"], ["GE", "GR"], ["YK", "WK"]],
}


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
    for deck, groups in BIG_HANDS.items():
        warm_sprites(deck)
        width = rendering.hand.hand_image(groups, deck=deck).width
        cards = sum(len(g) for g in groups)
        print(f"{deck:8} {cards} cards, {width} px: {timed(groups, deck, 'Bài của Nguyễn Đức · {i} điểm')}")
    del rendering


if __name__ == "__main__":
    main()
