"""The French 52-card deck (+ joker): Phỏm, Concan, Chinchón.

Codes: rank ``A 2-9 T J Q K`` (``10`` accepted for ``T``) + suit ``S H D C``; joker ``JK``;
a joker laid in a meld as a card: ``JK=5H`` (see :mod:`rendering.joker`).
Each face: rank and suit in the top-left corner and again rotated bottom-right, a large pip
in the middle; J/Q/K show a large letter on a tinted panel instead of artwork.
"""

from __future__ import annotations

from PIL import Image

from .joker import JOKER, corner_star, face_with_jokers, normalize_stand_in
from .shapes import draw_suit
from .sprites import CardCanvas, Deck, register_deck

RANKS = "A23456789TJQK"
SUITS = "SHDC"

RED = (200, 30, 42, 255)
BLACK = (24, 24, 28, 255)
FACE_TINT = {  # panel behind J/Q/K
    "red": (252, 233, 226, 255),
    "black": (230, 236, 244, 255),
}
BACK_RED = (150, 28, 44, 255)
BACK_LINE = (178, 52, 68, 255)
BACK_EDGE = (250, 246, 240, 255)


class FrenchDeck(Deck):
    name = "french"
    card_size = (72, 104)
    corner_radius = 7
    fan_step = (30, 44)

    def normalize(self, code: str) -> str:
        stand_in = normalize_stand_in(code, self.normalize)
        if stand_in is not None:
            return stand_in
        c = code.strip().upper()
        if c == JOKER:
            return c
        if c.startswith("10"):
            c = "T" + c[2:]
        if len(c) == 2 and c[0] in RANKS and c[1] in SUITS:
            return c
        raise ValueError(f"not a French card code: {code!r}")

    def codes(self) -> list[str]:
        return [r + s for s in SUITS for r in RANKS] + [JOKER]

    # ------------------------------------------------------------------ drawing

    def draw_face(self, code: str) -> Image.Image:
        return face_with_jokers(self, code, "JOKER", self._draw_card)

    def _draw_card(self, cv: CardCanvas, code: str, joker_star: bool = False) -> None:
        rank, suit = code[0], code[1]
        color = RED if suit in "HD" else BLACK
        W, H = self.card_size

        cv.begin_corner()
        self._corner(cv, "10" if rank == "T" else rank, suit, color, joker_star)
        cv.end_corner()

        if rank in "JQK":
            tint = FACE_TINT["red" if suit in "HD" else "black"]
            px0, py0, px1, py1 = 20, 13, W - 20, H - 13
            cv.draw.rounded_rectangle(cv.box(px0, py0, px1, py1), radius=cv.s(4), fill=tint,
                                      outline=color, width=round(cv.s(1.2)))
            letter = cv.ink_text(W / 2, 30, rank, 31, color)
            sw = 16
            top = letter[3] + 7
            draw_suit(cv.draw, suit, cv.box(W / 2 - sw / 2, top, W / 2 + sw / 2, top + sw * 1.08),
                      color)
        elif rank == "A":
            sw = 36
            draw_suit(cv.draw, suit,
                      cv.box(W / 2 - sw / 2, H / 2 - sw * 0.54, W / 2 + sw / 2, H / 2 + sw * 0.54),
                      color)
        else:
            sw = 28
            draw_suit(cv.draw, suit,
                      cv.box(W / 2 - sw / 2, H / 2 - sw * 0.54, W / 2 + sw / 2, H / 2 + sw * 0.54),
                      color)

    def _corner(self, cv, label: str, suit: str, color, joker_star: bool = False) -> None:
        """Rank over suit at the top-left (over a star when a joker stands for the card)."""
        cx = 11.5
        ink = cv.ink_text(cx, 5, label, 16.5, color, condensed=(len(label) > 1))
        sw = 11
        top = ink[3] + 3.5
        draw_suit(cv.draw, suit, cv.box(cx - sw / 2, top, cx + sw / 2, top + sw * 1.08), color)
        if joker_star:
            corner_star(cv, cx, top + sw * 1.08 + 3)

    def draw_back(self) -> Image.Image:
        cv = self.canvas(fill=BACK_EDGE)
        W, H = self.card_size
        s = cv.s
        inner = cv.lattice_panel(fill=BACK_RED, line=BACK_LINE, step=7, line_width=1.1, slope=1)
        # centre medallion
        cx, cy = W / 2, H / 2
        r = 13
        cv.draw.ellipse(cv.box(cx - r, cy - r, cx + r, cy + r), fill=BACK_RED,
                        outline=BACK_EDGE, width=round(s(1.5)))
        draw_suit(cv.draw, "H", cv.box(cx - 7, cy - 7.5, cx + 7, cy + 7.5), BACK_EDGE)
        cv.draw.rounded_rectangle(inner, radius=s(4), outline=BACK_EDGE, width=round(s(0.8)))
        return cv.finish()


DECK = FrenchDeck()
register_deck(DECK)
