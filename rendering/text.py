"""Text lines as cached masks, with ♠♥♦♣ drawn as vector shapes inline, and every other
character with the first font of the fallback chain that has it (:func:`rendering.fonts.face_runs`).

A rendered line is a :class:`TextLine`: its size and one ``L`` mask per colour (text colour,
and red for ♥♦). Pasting a solid colour through a mask blends correctly onto the RGB canvas.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .fonts import FONT_LOCK, face_font, face_runs, font, prepare_text
from .shapes import SUIT_CHARS, suit_mask

__all__ = ["TextLine", "crop_line", "line_size", "text_line", "wrap", "paste_text"]

Color = tuple[int, int, int]

_SUIT_ADVANCE = 0.82  # suit cell width, in em
_SUIT_HEIGHT = 0.66   # suit glyph height, in em


@dataclass(frozen=True)
class TextLine:
    width: int
    height: int
    baseline: int
    layers: tuple[tuple[Color, Image.Image], ...]


SUIT = -1  # the face index of a suit run


def _runs(text: str) -> list[tuple[int, str]]:
    """Split into (face, piece) runs: :data:`SUIT` for one suit symbol, else the index of the
    chain's font that draws the piece."""
    runs: list[tuple[int, str]] = []
    buf = ""
    for ch in text:
        if ch in SUIT_CHARS:
            if buf:
                runs += face_runs(buf)
                buf = ""
            runs.append((SUIT, ch))
        else:
            buf += ch
    if buf:
        runs += face_runs(buf)
    return runs


@lru_cache(maxsize=8192)
def _measure(text: str, size: int, bold: bool) -> int:
    """Advance width of prepared ``text``; the caller holds :data:`FONT_LOCK`. Cached."""
    width = 0.0
    for face, piece in _runs(text):
        if face == SUIT:
            width += size * _SUIT_ADVANCE
        elif _by_character(face, size, bold):
            width += sum(_advance(face, ch, size, bold) for ch in piece)
        else:
            width += face_font(face, size, bold).getlength(piece)
    return int(round(width))


@lru_cache(maxsize=256)
def _by_character(face: int, size: int, bold: bool) -> bool:
    """Whether a piece's advance is the sum of its characters' (the BASIC engine applies no
    kerning or shaping): then each character is measured once a size, not each text again,
    which a picture laid out at several sizes would pay for every word."""
    return face_font(face, size, bold).layout_engine == ImageFont.Layout.BASIC


@lru_cache(maxsize=16384)
def _advance(face: int, ch: str, size: int, bold: bool) -> float:
    return face_font(face, size, bold).getlength(ch)


@lru_cache(maxsize=4096)
def measure(text: str, size: int, bold: bool = False) -> int:
    """Advance width of ``text`` in px (after :func:`prepare_text`). Cached."""
    with FONT_LOCK:
        return _measure(prepare_text(text), size, bold)


@lru_cache(maxsize=8192)
def _line_size(text: str, size: int, bold: bool) -> tuple[int, int, int]:
    """(width, height, baseline) of prepared ``text``'s line; the caller holds :data:`FONT_LOCK`."""
    ascent, descent = font(size, bold).getmetrics()
    for face in {face for face, _ in _runs(text) if face > 0}:  # a fallback font may reach higher or lower
        more_ascent, more_descent = face_font(face, size, bold).getmetrics()
        ascent, descent = max(ascent, min(more_ascent, round(size * 1.25))), max(descent, min(more_descent,
                                                                                             round(size * 0.5)))
    pad_top = max(1, size // 8)  # room for stacked Vietnamese marks (Ể, Ẫ)
    return max(1, _measure(text, size, bold) + 2), ascent + descent + pad_top, ascent + pad_top


def line_size(text: str, size: int, bold: bool = False) -> tuple[int, int, int]:
    """(width, height, baseline) of :func:`text_line`'s line, without drawing it: a layout
    that may not be drawn measures its words this way."""
    with FONT_LOCK:
        return _line_size(prepare_text(text), size, bold)


@lru_cache(maxsize=512)
def text_line(text: str, size: int, bold: bool, color: Color,
              red: Color = (255, 110, 110)) -> TextLine:
    """One line of text; ♠♣ take ``color``, ♥♦ take ``red``. Cached."""
    text = prepare_text(text)
    with FONT_LOCK:
        runs = _runs(text)
        width, height, baseline = _line_size(text, size, bold)
        main = Image.new("L", (width, height), 0)
        reds = None
        draw = ImageDraw.Draw(main)
        x = 0.0
        for face, piece in runs:
            if face == SUIT:
                suit = SUIT_CHARS[piece]
                gh = max(4, round(size * _SUIT_HEIGHT))
                gw = max(4, round(gh * 0.86))
                cell = size * _SUIT_ADVANCE
                gx = round(x + (cell - gw) / 2)
                gy = round(baseline - gh + size * 0.02)
                m = suit_mask(suit, gw, gh)
                if suit in "HD":
                    if reds is None:
                        reds = Image.new("L", (width, height), 0)
                    reds.paste(m, (gx, gy), m)
                else:
                    main.paste(m, (gx, gy), m)
                x += cell
            else:
                f = face_font(face, size, bold)
                draw.text((x, baseline), piece, font=f, fill=255, anchor="ls")
                x += f.getlength(piece)
    layers: list[tuple[Color, Image.Image]] = [(color, main)]
    if reds is not None:
        layers.append((red, reds))
    return TextLine(width, height, baseline, tuple(layers))


def crop_line(line: TextLine, top: int, bottom: int) -> TextLine:
    """``line``'s rows from ``top`` to ``bottom`` (a number's digits without the room for
    accents and descenders above and below them)."""
    top, bottom = max(0, top), min(line.height, bottom)
    return TextLine(line.width, bottom - top, line.baseline - top,
                    tuple((colour, mask.crop((0, top, line.width, bottom))) for colour, mask in line.layers))


def paste_text(canvas: Image.Image, line: TextLine, xy: tuple[int, int]) -> None:
    x, y = xy
    for color, mask in line.layers:
        canvas.paste(color, (x, y, x + line.width, y + line.height), mask)


@lru_cache(maxsize=1024)
def wrap(text: str, size: int, bold: bool, max_width: int) -> tuple[str, ...]:
    """Greedy word wrap to ``max_width`` px; explicit newlines are kept. Cached."""
    text = prepare_text(text)
    lines: list[str] = []
    with FONT_LOCK:
        for para in text.split("\n"):
            words = para.split(" ")
            cur = ""
            for word in words:
                cand = word if not cur else cur + " " + word
                if not cur or _measure(cand, size, bold) <= max_width:
                    cur = cand
                else:
                    lines.append(cur)
                    cur = word
            # a single over-long word: cut it by characters
            while _measure(cur, size, bold) > max_width and len(cur) > 1:
                cut = len(cur) - 1
                while cut > 1 and _measure(cur[:cut], size, bold) > max_width:
                    cut -= 1
                lines.append(cur[:cut])
                cur = cur[cut:]
            lines.append(cur)
    return tuple(lines)
