"""The sample sheet a deck's palette is chosen from (:func:`rendering.encode.deck_palette`):
every card of the deck drawn with the real layouts, in a table, a hand and a result picture.

It sits above the layouts (:mod:`rendering.compose`, :mod:`rendering.hand`,
:mod:`rendering.table`, :mod:`rendering.table_picture`), which sit above
:mod:`rendering.encode`; the package hands :func:`sample_sheet` to
:func:`rendering.encode.set_sample_sheet`.
"""

from __future__ import annotations

from PIL import Image

from .badges import GLYPHS, Badge
from .hand import hand_image
from .sprites import BACK, Deck, get_deck
from .table import rows_image
from .table_picture import Group, Pile, Row, SeatBox, Section, TablePicture, table_picture_image

__all__ = ["sample_sheet"]


def _jokers(deck: Deck, codes: list[str]) -> list[str]:
    """A few jokers standing for a card (``JK=5H``), in the decks that have them: their faces
    are tinted."""
    jokers = []
    for code in codes[:: max(1, len(codes) // 4)]:
        try:
            jokers.append(deck.normalize(f"JK={code}"))
        except (ValueError, KeyError):
            break
    return jokers


def sample_sheet(deck: str | Deck) -> Image.Image:
    """Every card of ``deck`` (and a few jokers, and its back) in a table picture (seats,
    the one to act, one away; piles; labelled groups; rows), a hand (raised and marked
    cards) and a result picture, with text in every colour, one below the other: the
    colours the deck's pictures are made of. Drawn on its own canvas (not the thread's)."""
    d = get_deck(deck)
    codes = list(d.codes())
    codes += _jokers(d, codes)
    names = ["Nguyễn Đức", "Lan", "AI 1", "Hòa"]
    count = len(codes)

    def cards(start: int, n: int) -> tuple[str, ...]:
        return tuple(codes[(start + k) % count] for k in range(n))

    rows = tuple(Row(name, (Group("", cards(7 * k, 5), glyph="discards"), Group("12", cards(7 * k + 5, 3), (1,)),
                            Group("", cards(7 * k + 8, 2))), active=k == 1) for k, name in enumerate(names))
    every = tuple(Badge(glyph, "13") for glyph in GLYPHS)  # each glyph's colours
    table = TablePicture(
        title="Phỏm · bàn #42 · vòng cuối ♥♦♣♠ — 四色",
        seats=tuple(SeatBox(name, "13 cards · ù\ntotal −12 ♦", active=k == 1, dim=k == 3,
                            badges=every[3 * k:3 * k + 3])
                    for k, name in enumerate(names)),
        piles=(Pile("Stock", BACK, "42 cards"), Pile("Discard", codes[0], "by Nguyễn Đức"), Pile("Empty", None, "0")),
        sections=(Section("Melds ♦", tuple(Group(f"{k // 6 + 1} · Lan ♥", cards(k, 6)) for k in range(0, count, 6))),
                  Section("Rows", rows=rows + (Row("Hòa", ()),))),
        deck=d.name, notes=("Móm · 55 điểm ♥♦ — Ù!",))
    half = count // 2
    hand = hand_image([list(cards(0, half)), list(cards(half, count - half)), [BACK]], marked=[1, 2, half + 1],
                      selected=[3, half + 2], title="Bài của Nguyễn Đức — lượt bạn ♥",
                      caption="Còn 16 điểm · ♦ 7H ♣ · Unmatched", deck=d)
    result = rows_image([(name, [list(cards(5 * k, 6)), list(cards(5 * k + 6, 3))], "+3 stakes ♥ · −2 ♦", [1])
                         for k, name in enumerate(names)], title="Kết quả · ván 3", deck=d)
    parts = [table_picture_image(table), hand, result]
    sheet = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts)), parts[0].getpixel((0, 0)))
    y = 0
    for part in parts:
        sheet.paste(part, (0, y))
        y += part.height
    return sheet
