"""Time hand rendering: sprite cache warm-up, a cold first render, then ~200 warm renders.

    python benchmarks/render_hand.py [--n 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HAND = [["3H", "4H", "5H"], ["7C", "7D", "7S"], ["2S", "KD", "AC", "TD"]]


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
    png = render_hand(HAND, marked=[1, 4], selected=[8], title="Your hand — your turn",
                      caption="Leftover 16 points · locked: 7H")
    cold_ms = _ms(t0)

    t0 = time.perf_counter()
    n_sprites = warm_sprites("french")
    warm_ms = _ms(t0)

    times = []
    for i in range(args.n):
        t0 = time.perf_counter()
        render_hand(HAND, marked=[1, 4], selected=[i % 10], title="Your hand — your turn",
                    caption=f"Leftover {i} points · locked: 7H")
        times.append(_ms(t0))
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]

    print(f"font: {fonts.font_name()}")
    print(f"import rendering:          {import_ms:7.1f} ms")
    print(f"cold first render:         {cold_ms:7.1f} ms  ({len(png)} bytes PNG)")
    print(f"warm the rest of the cache:{warm_ms:7.1f} ms  ({n_sprites} sprites incl. back)")
    print(f"10-card hand, {args.n} renders: median {statistics.median(times):.2f} ms, "
          f"p95 {p95:.2f} ms, min {times[0]:.2f} ms, max {times[-1]:.2f} ms")
    del rendering


if __name__ == "__main__":
    main()
