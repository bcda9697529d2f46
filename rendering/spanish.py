"""The Spanish deck, 48 cards (+ jokers): Chinchón's ``spanish48`` and ``spanish40`` packs.

Codes: rank ``1``–``12`` + suit ``O`` oros, ``C`` copas, ``E`` espadas, ``B`` bastos; joker
``JK``; a joker laid in a meld as a card: ``JK=7O`` (see :mod:`rendering.joker`). The 40-card
pack is the subset without 8 and 9, so one deck draws both.

Each face: the numeral over the suit in the top-left corner and again rotated bottom-right,
inked in the suit's colour (ochre oros, red copas, blue espadas, green bastos). 1–9 show
that many pips, 1 a single large one; the figures 10 sota, 11 caballo and 12 rey show a
large S, C or R over the suit on a tinted panel (the rey's letter wears a crown) instead of
artwork. Same size as the French deck, so hands mix with the shared layout.
"""

from __future__ import annotations

from PIL import Image

from .joker import JOKER, corner_star, face_with_jokers, normalize_stand_in
from .shapes import SPANISH_SUIT_ASPECT, draw_spanish_suit
from .sprites import CardCanvas, Deck, register_deck

RANKS = tuple(str(n) for n in range(1, 13))
SUITS = "OCEB"
FIGURES = {"10": "S", "11": "C", "12": "R"}  # sota, caballo, rey

#: suit -> (ink of numerals and frames, shape fill, shape detail, figure panel tint)
PALETTE = {
    "O": ((158, 102, 0, 255), (238, 186, 40, 255), (168, 108, 8, 255), (253, 243, 208, 255)),
    "C": ((196, 28, 40, 255), (204, 34, 46, 255), (234, 176, 36, 255), (252, 230, 226, 255)),
    "E": ((28, 76, 168, 255), (44, 96, 186, 255), (206, 150, 30, 255), (226, 236, 252, 255)),
    "B": ((26, 112, 50, 255), (48, 132, 64, 255), (124, 78, 34, 255), (226, 242, 226, 255)),
}
CROWN = (214, 160, 30, 255)
BACK_FILL = (26, 70, 128, 255)
BACK_LINE = (52, 124, 132, 255)
BACK_EDGE = (246, 244, 236, 255)

# Pip layouts in card px (the card is 72 x 104): the box every pip must fit in, for the round
# suits (oros, copas) and for the slender ones (espadas, bastos, which may be taller because
# they are narrow), then the pip centres. 2-9 keep inside a frame at x 20.5-51.5, y 6.5-97.5,
# clear of the corner indices: pips level with a corner suit would read as one more pip.
_L, _M, _R = 29, 36, 43      # columns when a middle pip shares rows with the sides
_WL, _WR = 28.5, 43.5        # columns when it does not, so the pips may be wider
Box = tuple[float, float]
PIP_LAYOUT: dict[int, tuple[Box, Box, list[tuple[float, float]]]] = {
    1: ((40, 62), (40, 62), [(_M, 52)]),
    2: ((22, 26), (22, 34), [(_M, 28), (_M, 76)]),
    3: ((18, 22), (18, 24), [(_M, 21), (_M, 52), (_M, 83)]),
    4: ((13, 20), (13, 30), [(_WL, 28), (_WR, 28), (_WL, 76), (_WR, 76)]),
    5: ((13, 18), (13, 24), [(_WL, 24), (_WR, 24), (_M, 52), (_WL, 80), (_WR, 80)]),
    6: ((13, 18), (13, 24), [(_WL, 22), (_WR, 22), (_WL, 52), (_WR, 52), (_WL, 82), (_WR, 82)]),
    7: ((12, 14), (12, 16), [(_L, 17), (_R, 17), (_M, 34.5), (_L, 52), (_R, 52), (_L, 87),
                             (_R, 87)]),
    8: ((12, 14), (12, 16), [(_L, 17), (_R, 17), (_M, 34.5), (_L, 52), (_R, 52), (_M, 69.5),
                             (_L, 87), (_R, 87)]),
    # 4 + 1 + 4: the side rows leave the middle one room so round pips do not touch
    9: ((12, 12), (12, 13), [(_L, 15), (_R, 15), (_L, 37), (_R, 37), (_M, 52), (_L, 67),
                             (_R, 67), (_L, 89), (_R, 89)]),
}
_SLENDER = "EB"


def pip_box(suit: str, cx: float, cy: float, max_w: float, max_h: float):
    """The largest box of the suit's aspect centred on (cx, cy) inside max_w x max_h."""
    aspect = SPANISH_SUIT_ASPECT[suit]
    h = min(max_h, max_w / aspect)
    w = h * aspect
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


class SpanishDeck(Deck):
    name = "spanish"
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
        if len(c) >= 2 and c[:-1] in RANKS and c[-1] in SUITS:
            return c
        raise ValueError(f"not a Spanish card code: {code!r}")

    def codes(self) -> list[str]:
        return [r + s for s in SUITS for r in RANKS] + [JOKER]

    # ------------------------------------------------------------------ drawing

    def draw_face(self, code: str) -> Image.Image:
        return face_with_jokers(self, code, "COMODÍN", self._draw_card, word_size=8)

    def _draw_card(self, cv: CardCanvas, code: str, joker_star: bool = False) -> None:
        rank, suit = code[:-1], code[-1]
        ink = PALETTE[suit][0]
        cv.begin_corner()
        self._corner(cv, rank, suit, ink, joker_star)
        cv.end_corner()
        if rank in FIGURES:
            self._figure(cv, FIGURES[rank], suit)
        else:
            self._pips(cv, int(rank), suit)

    def _suit(self, cv: CardCanvas, suit: str, box) -> None:
        _, fill, detail, _ = PALETTE[suit]
        draw_spanish_suit(cv.draw, suit, cv.box(*box), fill, detail)

    def _corner(self, cv: CardCanvas, rank: str, suit: str, ink, joker_star: bool) -> None:
        """Numeral over suit at the top-left (over a star when a joker stands for the card)."""
        cx = 11.5
        text = cv.ink_text(cx, 5, rank, 16.5, ink, condensed=(len(rank) > 1))
        box = pip_box(suit, cx, 0, 11, 18)
        top = text[3] + 3
        box = (box[0], top, box[2], top + box[3] - box[1])
        self._suit(cv, suit, box)
        if joker_star:
            corner_star(cv, cx, box[3] + 3)

    def _pips(self, cv: CardCanvas, count: int, suit: str) -> None:
        if count > 1:
            self._frame(cv, suit)
        round_box, slender_box, centres = PIP_LAYOUT[count]
        max_w, max_h = slender_box if suit in _SLENDER else round_box
        for cx, cy in centres:
            self._suit(cv, suit, pip_box(suit, cx, cy, max_w, max_h))

    def _frame(self, cv: CardCanvas, suit: str) -> None:
        """The thin frame Spanish cards draw around the pips (see :data:`PIP_LAYOUT`)."""
        ink = PALETTE[suit][0]
        light = tuple(round(c + (255 - c) * 0.5) for c in ink[:3]) + (255,)
        W, H = self.card_size
        cv.draw.rounded_rectangle(cv.box(20.5, 6.5, W - 20.5, H - 6.5), radius=cv.s(2.5),
                                  outline=light, width=round(cv.s(0.8)))

    def _figure(self, cv: CardCanvas, letter: str, suit: str) -> None:
        ink, _, _, tint = PALETTE[suit]
        W, H = self.card_size
        cv.draw.rounded_rectangle(cv.box(20, 13, W - 20, H - 13), radius=cv.s(4), fill=tint,
                                  outline=ink, width=round(cv.s(1.2)))
        top = 24
        if letter == "R":
            self._crown(cv, W / 2, 17, 16, 8)
        text = cv.ink_text(W / 2, top, letter, 27, ink)
        self._suit(cv, suit, pip_box(suit, W / 2, (text[3] + H - 13) / 2 + 1, 20, 30))

    def _crown(self, cv: CardCanvas, cx: float, top: float, w: float, h: float) -> None:
        x0, x1, y1 = cx - w / 2, cx + w / 2, top + h
        points = [(x0, y1), (x0, top + h * 0.2), (cx - w / 4, top + h * 0.55), (cx, top),
                  (cx + w / 4, top + h * 0.55), (x1, top + h * 0.2), (x1, y1)]
        cv.draw.polygon([(cv.s(x), cv.s(y)) for x, y in points], fill=CROWN)

    def draw_back(self) -> Image.Image:
        cv = self.canvas(fill=BACK_EDGE)
        W, H = self.card_size
        s = cv.s
        inner = cv.lattice_panel(fill=BACK_FILL, line=BACK_LINE, step=9, line_width=1.3, slope=0.6)
        # centre medallion: a coin of oros
        cx, cy, r = W / 2, H / 2, 13
        cv.draw.ellipse(cv.box(cx - r, cy - r, cx + r, cy + r), fill=BACK_FILL,
                        outline=BACK_EDGE, width=round(s(1.5)))
        _, fill, detail, _ = PALETTE["O"]
        draw_spanish_suit(cv.draw, "O", cv.box(cx - 8.5, cy - 8.5, cx + 8.5, cy + 8.5), fill,
                          detail)
        cv.draw.rounded_rectangle(inner, radius=s(4), outline=BACK_EDGE, width=round(s(0.8)))
        return cv.finish()


DECK = SpanishDeck()
register_deck(DECK)
