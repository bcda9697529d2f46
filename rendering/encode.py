"""Pictures as the bytes the bot uploads: palette PNG, one palette per deck.

Every picture of a deck is drawn from the same few thousand colours: the deck's sprites, the
felt, the card shadows over it, the theme's text colours anti-aliased over the felt and the
seat boxes. So each deck gets one palette of :data:`PALETTE_COLOURS` colours, chosen once
(:func:`deck_palette`, an octree over a sample sheet that shows every card of the deck in a
hand, a table and a result picture), and every picture is mapped to it without dithering
(about 0.6 ms for a big table) and written as an 8-bit palette PNG at zlib level
:data:`COMPRESS_LEVEL`: 25 to 30 % of the RGB PNG's size, tables and hands alike, and on
average a level or so in 256 from the RGB drawing (``tests/uploads.py`` holds the bounds).

:data:`IMAGE_FORMAT` and :data:`IMAGE_EXTENSION` are the one place that names the format.
"""

from __future__ import annotations

import io
import threading

from PIL import Image

from .sprites import BACK, Deck, get_deck

__all__ = ["COMPRESS_LEVEL", "IMAGE_EXTENSION", "IMAGE_FORMAT", "PALETTE_COLOURS", "deck_palette",
           "encode_picture", "sample_sheet"]

#: Pillow's name of the format every picture is uploaded in, and the extension of its files.
IMAGE_FORMAT = "PNG"
IMAGE_EXTENSION = "png"
#: zlib level: 6 is a fifth smaller than 3 for twice its ~1.5 ms on a big table; 9 is 5 % smaller for 5× the time.
COMPRESS_LEVEL = 6
PALETTE_COLOURS = 256

_palettes: dict[str, tuple[Deck, Image.Image]] = {}
_palettes_lock = threading.Lock()


def deck_palette(deck: str | Deck) -> Image.Image:
    """The deck's palette, as a ``P`` image to quantize with; built on first use (~20 ms plus
    drawing the deck's sprites) and again when a new deck is registered under the name.
    Shared between threads: read-only."""
    d = get_deck(deck)
    entry = _palettes.get(d.name)
    if entry is None or entry[0] is not d:
        with _palettes_lock:
            entry = _palettes.get(d.name)
            if entry is None or entry[0] is not d:
                palette = sample_sheet(d).quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE)
                palette.load()
                entry = _palettes[d.name] = (d, palette)
    return entry[1]


def encode_picture(image: Image.Image, deck: str | Deck, box: tuple[int, int, int, int] | None = None) -> bytes:
    """The upload bytes of an RGB picture drawn with ``deck`` (or of its ``box``): a palette
    PNG in the deck's palette. Thread-safe."""
    palette = deck_palette(deck)
    if box is not None:
        image = image.crop(box)
    indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    indexed.save(buf, format=IMAGE_FORMAT, compress_level=COMPRESS_LEVEL)
    return buf.getvalue()


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
    from .compose import render_stack
    from .hand import hand_image
    from .table import rows_image
    from .table_picture import Group, Pile, Row, SeatBox, Section, TablePicture, _stack

    d = get_deck(deck)
    codes = list(d.codes())
    codes += _jokers(d, codes)
    names = ["Nguyễn Đức", "Lan", "AI 1", "Hòa"]
    count = len(codes)

    def cards(start: int, n: int) -> tuple[str, ...]:
        return tuple(codes[(start + k) % count] for k in range(n))

    rows = tuple(Row(name, (Group("discards", cards(7 * k, 5)), Group("shown ♥", cards(7 * k + 5, 3)),
                            Group("", cards(7 * k + 8, 2))), active=k == 1) for k, name in enumerate(names))
    table = TablePicture(
        title="Phỏm · bàn #42 · vòng cuối ♥♦♣♠ — 四色",
        seats=tuple(SeatBox(name, "13 cards · ù\ntotal −12 ♦", active=k == 1, dim=k == 3)
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
    parts = [render_stack(_stack(table)), hand, result]
    sheet = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts)), parts[0].getpixel((0, 0)))
    y = 0
    for part in parts:
        sheet.paste(part, (0, y))
        y += part.height
    return sheet
