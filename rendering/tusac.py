"""The Tứ Sắc deck (112 cards, 28 faces): small narrow cards.

Codes: colour ``R Y G W`` + piece ``K A E R C N P`` (``RK``, ``YC``, ``WP``...). Each face: the
piece's xiangqi character (red side 帥 仕 相 俥 炮 傌 兵 on red and yellow cards, black side
將 士 象 車 砲 馬 卒 on green and white ones) in a circle tinted by colour, repeated upside
down at the foot as on the real cards, with the ASCII code small in the middle. White cards
are inked blue-grey on a white disc so they stay visible on the cream card.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.games.tusac.sets import CODES, glyph

from .fonts import FONT_LOCK, cjk_font
from .sprites import SCALE, Deck, register_deck

PAPER = (248, 243, 230, 255)
EDGE = (140, 128, 106, 255)
#: colour -> (ink of the character, ring and frame; fill of the disc)
TINTS = {
    "R": ((196, 30, 38, 255), (253, 224, 220, 255)),
    "Y": ((172, 118, 0, 255), (255, 236, 172, 255)),
    "G": ((22, 118, 60, 255), (214, 240, 222, 255)),
    "W": ((88, 104, 130, 255), (255, 255, 255, 255)),
}
BACK_FILL = (112, 36, 40, 255)
BACK_LINE = (142, 62, 60, 255)
BACK_EDGE = (244, 232, 206, 255)


class TuSacDeck(Deck):
    name = "tusac"
    card_size = (42, 96)
    corner_radius = 5
    fan_step = (34, 46)  # the whole character stays visible when fanned

    def normalize(self, code: str) -> str:
        c = code.strip().upper()
        if c in CODES:
            return c
        raise ValueError(f"not a Tứ Sắc card code: {code!r}")

    def codes(self) -> list[str]:
        return list(CODES)

    # ------------------------------------------------------------------ drawing

    @staticmethod
    def _centred_glyph(cv, cx: float, cy: float, char: str, size: float, fill) -> None:
        """``char`` with the centre of its ink on (cx, cy), in 1x units."""
        with FONT_LOCK:
            f = cjk_font(round(size * SCALE))
            x0, y0, x1, y1 = cv.draw.textbbox((0, 0), char, font=f, anchor="ls")
            cv.draw.text((cx * SCALE - (x0 + x1) / 2, cy * SCALE - (y0 + y1) / 2), char, font=f,
                         fill=fill, anchor="ls")

    def draw_face(self, code: str) -> Image.Image:
        ink, disc = TINTS[code[0]]
        cv = self.canvas(fill=PAPER, border=EDGE)
        W, H = self.card_size
        cv.draw.rounded_rectangle(cv.box(2.5, 2.5, W - 2.5, H - 2.5), radius=cv.s(3),
                                  outline=ink, width=round(cv.s(0.9)))
        r, cy = 16.5, 21
        cv.begin_corner()
        cv.draw.ellipse(cv.box(W / 2 - r, cy - r, W / 2 + r, cy + r), fill=disc, outline=ink,
                        width=round(cv.s(1.6)))
        self._centred_glyph(cv, W / 2, cy, glyph(code), 24, ink)
        cv.end_corner()
        cv.ink_text(W / 2, H / 2 - 4, code, 8.5, ink)
        return cv.finish()

    def draw_back(self) -> Image.Image:
        cv = self.canvas(fill=BACK_EDGE)
        W, H = self.card_size
        s = cv.s
        inner = cv.box(3.5, 3.5, W - 3.5, H - 3.5)
        layer = Image.new("RGBA", cv.image.size, (0, 0, 0, 0))
        d = ImageDraw.Draw(layer)
        d.rounded_rectangle(inner, radius=s(3), fill=BACK_FILL)
        for y in range(-W, H + W, 6):  # diagonal hatching, clipped to the panel below
            d.line((s(0), s(y), s(W), s(y + W)), fill=BACK_LINE, width=max(1, round(s(1))))
        mask = Image.new("L", cv.image.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(inner, radius=s(3), fill=255)
        cv.image.paste(layer, (0, 0), mask)
        r = 11
        cv.draw.ellipse(cv.box(W / 2 - r, H / 2 - r, W / 2 + r, H / 2 + r), fill=BACK_FILL,
                        outline=BACK_EDGE, width=round(s(1.4)))
        self._centred_glyph(cv, W / 2, H / 2, "帥", 14, BACK_EDGE)
        return cv.finish()


DECK = TuSacDeck()
register_deck(DECK)
