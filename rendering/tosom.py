"""The Tổ Tôm deck, Chắn subset (100 cards): tall narrow cards.

Codes: rank ``2``–``9`` + suit ``V`` (萬), ``W`` (文), ``S`` (索); Chi chi ``CC``.
Each face: the numeral (二..九) over the suit character, both in Chinese, and the ASCII code
small at the foot; Chi chi shows a large 枝 and its name. Red cards (``CC 8V 9V 8S 9S``,
the set of :data:`bot.games.tosom.RED_KINDS`) are inked red and carry a round red stamp.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.games.tosom import CJK_NUMERALS, CJK_SUITS, KINDS, RED_KINDS

from .fonts import FONT_LOCK, cjk_font
from .sprites import SCALE, Deck, register_deck

INK = (24, 24, 28, 255)
RED = (196, 28, 36, 255)
SUIT_INK = {"V": (24, 24, 28, 255), "W": (30, 64, 120, 255), "S": (28, 96, 52, 255)}
PAPER = (250, 244, 226, 255)
STAMP = (206, 40, 40, 255)
BACK_FILL = (38, 92, 70, 255)
BACK_LINE = (66, 130, 100, 255)
BACK_EDGE = (246, 240, 222, 255)


class ToSomDeck(Deck):
    name = "tosom"
    card_size = (48, 120)
    corner_radius = 5
    fan_step = (32, 40)

    def normalize(self, code: str) -> str:
        c = code.strip().upper()
        if c in KINDS:
            return c
        raise ValueError(f"not a Tổ Tôm card code: {code!r}")

    def codes(self) -> list[str]:
        return list(KINDS)

    # ------------------------------------------------------------------ drawing

    def _cjk(self, cv, cx: float, top: float, text: str, size: float, fill) -> tuple[float, float, float, float]:
        """Draw CJK ``text`` with its ink centred on ``cx`` and ink top at ``top`` (1x units)."""
        with FONT_LOCK:
            f = cjk_font(round(size * SCALE))
            x0, y0, x1, y1 = cv.draw.textbbox((0, 0), text, font=f, anchor="ls")
            px = cx * SCALE - (x0 + x1) / 2
            py = top * SCALE - y0
            cv.draw.text((px, py), text, font=f, fill=fill, anchor="ls")
        return ((px + x0) / SCALE, (py + y0) / SCALE, (px + x1) / SCALE, (py + y1) / SCALE)

    def _stamp(self, cv, cx: float, cy: float, r: float) -> None:
        cv.draw.ellipse(cv.box(cx - r, cy - r, cx + r, cy + r), outline=STAMP, width=round(cv.s(1.6)))
        cv.draw.ellipse(cv.box(cx - r * 0.45, cy - r * 0.45, cx + r * 0.45, cy + r * 0.45), fill=STAMP)

    def draw_face(self, code: str) -> Image.Image:
        red = code in RED_KINDS
        cv = self.canvas(fill=PAPER, border=(120, 110, 90, 255))
        W, H = self.card_size
        # inner frame
        cv.draw.rounded_rectangle(cv.box(3, 3, W - 3, H - 3), radius=cv.s(3),
                                  outline=RED if red else (150, 140, 120, 255), width=round(cv.s(0.8)))
        if code == "CC":
            ink = self._cjk(cv, W / 2, 14, "枝", 34, RED)
            cv.ink_text(W / 2, ink[3] + 8, "Chi", 10, RED)
            cv.ink_text(W / 2, ink[3] + 21, "chi", 10, RED)
            self._stamp(cv, W / 2, H - 22, 7)
        else:
            numeral, suit = CJK_NUMERALS[code[0]], CJK_SUITS[code[1]]
            color = RED if red else INK
            ink = self._cjk(cv, W / 2, 9, numeral, 26, color)
            top = max(ink[3] + 7, 38)
            ink = self._cjk(cv, W / 2, top, suit, 28, RED if red else SUIT_INK[code[1]])
            if red:
                self._stamp(cv, W / 2, ink[3] + 14, 6.5)
        cv.ink_text(W / 2, H - 13, code, 8.5, RED if red else INK)
        return cv.finish()

    def draw_back(self) -> Image.Image:
        cv = self.canvas(fill=BACK_EDGE)
        W, H = self.card_size
        s = cv.s
        m = 3.5
        inner = cv.box(m, m, W - m, H - m)
        layer = Image.new("RGBA", cv.image.size, (0, 0, 0, 0))
        d = ImageDraw.Draw(layer)
        d.rounded_rectangle(inner, radius=s(3), fill=BACK_FILL)
        lw = max(1, round(s(0.9)))
        for y in range(0, H + 8, 8):
            d.line((s(0), s(y), s(W), s(y + 4)), fill=BACK_LINE, width=lw)
        mask = Image.new("L", cv.image.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(inner, radius=s(3), fill=255)
        cv.image.paste(layer, (0, 0), mask)
        r = 10
        cv.draw.ellipse(cv.box(W / 2 - r, H / 2 - r, W / 2 + r, H / 2 + r), fill=BACK_FILL,
                        outline=BACK_EDGE, width=round(s(1.4)))
        self._cjk(cv, W / 2, H / 2 - 6.5, "牌", 13, BACK_EDGE)
        return cv.finish()


DECK = ToSomDeck()
register_deck(DECK)
