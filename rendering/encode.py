"""Pictures as the bytes the bot uploads: palette PNG, one palette per deck.

Every picture of a deck is drawn from the same few thousand colours: the deck's sprites, the
felt, the card shadows over it, the theme's text colours anti-aliased over the felt and the
seat boxes. So each deck gets one palette of :data:`PALETTE_COLOURS` colours, chosen once
(:func:`deck_palette`: a fast octree over the deck's sample sheet, which shows every card of
the deck in a hand, a table and a result picture), and every picture is mapped to it without
dithering (about 0.6 ms for a big table) and written as an 8-bit palette PNG at zlib level
:data:`COMPRESS_LEVEL`: 25 to 30 % of the RGB PNG's size, tables and hands alike, and on
average a level or so in 256 from the RGB drawing (``tests/support/uploads.py`` holds the bounds).

The sample sheet is drawn with the layouts, which sit above this module (they encode their
pictures here), so it is made in :mod:`rendering.palette_sample` and handed in by the
package (``rendering/__init__.py`` calls :func:`set_sample_sheet`): this module imports
nothing of :mod:`rendering` but :mod:`rendering.sprites`.

:data:`IMAGE_FORMAT` and :data:`IMAGE_EXTENSION` are the one place that names the format.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

from PIL import Image

from .sprites import Deck, get_deck, warm_sprites

__all__ = ["COMPRESS_LEVEL", "IMAGE_EXTENSION", "IMAGE_FORMAT", "PALETTE_COLOURS", "deck_palette",
           "encode_picture", "set_sample_sheet", "warm_deck"]

#: Pillow's name of the format every picture is uploaded in, and the extension of its files.
IMAGE_FORMAT = "PNG"
IMAGE_EXTENSION = "png"
#: zlib level: 6 is a fifth smaller than 3 for twice its ~1.5 ms on a big table; 9 is 5 % smaller for 5× the time.
COMPRESS_LEVEL = 6
PALETTE_COLOURS = 256

_palettes: dict[str, tuple[Deck, Image.Image]] = {}
_palettes_lock = threading.Lock()
_sample_sheet: Callable[[Deck], Image.Image] | None = None


def set_sample_sheet(sheet: Callable[[Deck], Image.Image]) -> None:
    """Set the function that draws a deck's sample sheet, the RGB picture its palette is
    chosen from (:func:`rendering.palette_sample.sample_sheet`, set by the package on import).
    Palettes already chosen are kept."""
    global _sample_sheet
    _sample_sheet = sheet


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
                if _sample_sheet is None:
                    raise RuntimeError("no sample sheet to choose palettes from: import rendering, "
                                       "which sets rendering.palette_sample.sample_sheet")
                palette = _sample_sheet(d).quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE)
                palette.load()
                entry = _palettes[d.name] = (d, palette)
    return entry[1]


def encode_picture(image: Image.Image, deck: str | Deck, box: tuple[int, int, int, int] | None = None) -> bytes:
    """The upload bytes of an RGB picture drawn with ``deck`` (or of its ``box``): a palette
    PNG in the deck's palette. Thread-safe."""
    if box is not None:
        image = image.crop(box)
    # (the picture is copied out first: building a deck's palette draws sample pictures, which
    # may reuse this thread's canvas)
    palette = deck_palette(deck)
    indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    indexed.save(buf, format=IMAGE_FORMAT, compress_level=COMPRESS_LEVEL)
    return buf.getvalue()


def warm_deck(deck: str | Deck = "french") -> int:
    """Draw every sprite of ``deck`` now (:func:`rendering.sprites.warm_sprites`), then choose
    the deck's palette (:func:`deck_palette`), e.g. at bot start-up; ``rendering.warm_sprites``.
    Returns how many sprites."""
    d = get_deck(deck)
    count = warm_sprites(d)
    deck_palette(d)
    return count
