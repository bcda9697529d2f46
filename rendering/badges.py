"""Badges: the small glyphs that say what a number is, in every game's pictures alike.

A seat's header is one line: its name, then badges — a glyph and a value ("▮ 9": nine cards in
hand; "Σ 75": a total of 75; "★ 2": two jokers announced). A group of cards on the table is
told by its place and, where that is not enough, a glyph over its first card (↓: discards).
The glyphs are drawn as shapes, so they need no font and read at any size; each has a
character that looks like it (:data:`SYMBOLS`), for the line of the embed that explains them
(:func:`glyphs_used` names those a picture shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from .sprites import BACK, card_sprite, get_deck

__all__ = ["Badge", "GLYPHS", "SYMBOLS", "glyph_image", "glyph_width"]


@dataclass(frozen=True)
class Badge:
    """A fact of a seat: ``glyph`` (a key of :data:`GLYPHS`, or "" for the value alone: a round's
    points, "+3") and its ``value`` ("9", "75", "+3"; "" for the glyph alone: opened)."""
    glyph: str
    value: str = ""


#: what each glyph means to a player (the embed's legend says it in the table's language)
GLYPHS = ("hand", "total", "jokers", "opened", "closed", "went_out", "out", "bought_back", "khap",
          "discards", "eaten")

#: the character the embed's legend shows for each glyph (it looks like the picture's)
SYMBOLS = {"hand": "▮", "total": "Σ", "jokers": "★", "opened": "✓", "closed": "⚑", "went_out": "⚑",
           "out": "✗", "bought_back": "↺", "khap": "≡", "discards": "↓", "eaten": "▁"}

SS = 4  # supersampling
GOLD = (255, 200, 60)
MARKED = (255, 183, 56)  # eaten cards' bar (the hands' colour)
JOKER = (196, 140, 255)
GREEN = (120, 220, 140)
RED = (255, 120, 110)


def glyph_width(glyph: str, height: int, deck: str = "french") -> int:
    """How wide ``glyph`` is drawn ``height`` px tall."""
    if glyph == "hand":
        w, h = get_deck(deck).card_size
        return max(4, round(height * w / h))
    if glyph == "khap":
        return round(height * 1.05)
    if glyph == "eaten":
        return round(height * 0.9)
    return round(height * 0.86)


@lru_cache(maxsize=256)
def glyph_image(glyph: str, height: int, colour: tuple[int, int, int], deck: str = "french") -> Image.Image:
    """``glyph`` as an RGBA image ``height`` px tall (cached: do not modify). ``colour``: the
    text's, for the glyphs drawn in it (Σ, ↓); the others have their own."""
    width = glyph_width(glyph, height, deck)
    if glyph == "hand":  # the deck's own back, small: the stock's card
        back = card_sprite(BACK, deck)
        return back.resize((width, height), Image.Resampling.LANCZOS)
    big = Image.new("RGBA", (width * SS, height * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    w, h = width * SS, height * SS
    line = max(SS, round(h * 0.13))
    ink = colour + (255,)
    if glyph == "total":  # Σ
        draw.line([(w * 0.88, h * 0.12), (w * 0.12, h * 0.12), (w * 0.55, h * 0.5), (w * 0.12, h * 0.88),
                   (w * 0.88, h * 0.88)], fill=ink, width=line, joint="curve")
    elif glyph == "jokers":  # ★, in the jokers' purple
        points = [(w / 2 + w * 0.5 * (1 if k % 2 == 0 else 0.42) * math.sin(k * math.pi / 5),
                   h * 0.55 - h * 0.5 * (1 if k % 2 == 0 else 0.42) * math.cos(k * math.pi / 5)) for k in range(10)]
        draw.polygon(points, fill=JOKER + (255,))
    elif glyph == "opened":  # ✓
        draw.line([(w * 0.1, h * 0.55), (w * 0.4, h * 0.85), (w * 0.92, h * 0.15)], fill=GREEN + (255,),
                  width=round(line * 1.3), joint="curve")
    elif glyph in ("closed", "went_out"):  # ⚑: who ended the round
        draw.rectangle((w * 0.14, h * 0.05, w * 0.14 + line, h), fill=ink)
        draw.polygon([(w * 0.14 + line, h * 0.06), (w * 0.95, h * 0.3), (w * 0.14 + line, h * 0.56)],
                     fill=GOLD + (255,))
    elif glyph == "out":  # ✗
        draw.line([(w * 0.15, h * 0.15), (w * 0.85, h * 0.85)], fill=RED + (255,), width=line)
        draw.line([(w * 0.85, h * 0.15), (w * 0.15, h * 0.85)], fill=RED + (255,), width=line)
    elif glyph == "bought_back":  # ↺: a circle open at the top, its arrow turning left (drawn turning right)
        cx, cy, r = w / 2, h * 0.56, min(w, h) * 0.38
        draw.arc((cx - r, cy - r, cx + r, cy + r), start=-40, end=235, fill=ink, width=line)
        angle = math.radians(-40)  # where the arc starts; its arrow points back along it (anticlockwise)
        px, py = cx + r * math.cos(angle), cy + r * math.sin(angle)
        dx, dy = math.sin(angle), -math.cos(angle)  # the anticlockwise tangent
        nx, ny = -dy, dx
        size = line * 1.6
        draw.polygon([(px + dx * size, py + dy * size), (px + nx * size, py + ny * size),
                      (px - nx * size, py - ny * size)], fill=ink)
        big = big.transpose(Image.Transpose.FLIP_LEFT_RIGHT)  # drawn as ↻
    elif glyph == "khap":  # ≡: three like cards
        for k in range(3):
            x = w * (0.04 + 0.33 * k)
            draw.rounded_rectangle((x, h * 0.08, x + w * 0.26, h * 0.94), radius=SS, outline=ink,
                                   width=max(SS, line // 2))
    elif glyph == "discards":  # ↓ onto a line
        draw.line([(w / 2, h * 0.05), (w / 2, h * 0.66)], fill=ink, width=line)
        draw.polygon([(w * 0.18, h * 0.45), (w * 0.82, h * 0.45), (w / 2, h * 0.8)], fill=ink)
        draw.rectangle((w * 0.08, h * 0.86, w * 0.92, h * 0.86 + line), fill=ink)
    elif glyph == "eaten":  # the bar under an eaten card
        draw.rounded_rectangle((0, h * 0.7, w, h * 0.7 + line * 1.2), radius=SS, fill=MARKED + (255,))
    image = big.resize((width, height), Image.Resampling.LANCZOS)
    image.load()
    return image
