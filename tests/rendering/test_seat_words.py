"""Text fits its box (issue #38): the layout measures before it draws, so no line of text leaves
the frame it is drawn in (a seat's box, a panel) nor the picture, and no two lines overlap; a
seat's header is one line (its name, then its badges: no fact of it wraps onto a line of its
own), a round's or result's row at most two. Every game, 2 to 6 seats, long names (Nguyễn Thị
Minh Khai), Chinese, Arabic and emoji, from the deal to the end, in every language."""

from __future__ import annotations

import pytest

from bot import i18n
from rendering import get_deck
from tests.support.drawn import record
from tests.support.picture_games import CASES, UIS, seeded_pictures


def overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("lang", sorted(i18n.LANGUAGES))
@pytest.mark.parametrize("game,players", CASES)
def test_no_text_leaves_its_box(game, players, lang, monkeypatch):
    card = get_deck(UIS[game].deck).card_size
    drawn = record(monkeypatch, {card})
    kinds, wrong = set(), []
    with i18n.language(lang):
        for kind, when, draw in seeded_pictures(game, players):
            drawn.clear()
            image = draw()
            kinds.add(kind)
            lines = [line for line in drawn.lines if line.text.strip()]
            assert lines, (kind, when)
            for line in lines:
                frame = drawn.frame_of(line) or (0, 0, image.width, image.height)
                box = line.box
                if not (frame[0] <= box[0] and frame[1] <= box[1] and box[2] <= frame[2] and box[3] <= frame[3]):
                    wrong.append((kind, when, "out of its box", line.text, box, frame))
            for k, line in enumerate(lines):
                for other in lines[k + 1:]:
                    if overlap(line.box, other.box):
                        wrong.append((kind, when, "over another line", line.text, other.text))
            # a frame's lines: the seat's header, on one line (a row of a round or result: two)
            for frame in set(filter(None, map(drawn.frame_of, lines))):
                tops = sorted({line.y + line.height // 2 for line in lines if drawn.frame_of(line) == frame})
                rows = 1 + sum(1 for a, b in zip(tops, tops[1:]) if b - a > min(line.height for line in lines) // 2)
                if rows > (1 if kind == "table" else 2):
                    wrong.append((kind, when, f"{rows} lines in a box",
                                  [line.text for line in lines if drawn.frame_of(line) == frame]))
    assert {"table", "result"} <= kinds
    assert not wrong, wrong[:6]
