"""Jokers, shared by the decks that have them (French, Spanish).

``JK`` is the joker itself. ``JK=5H`` is a joker laid in a meld as the card ``5H``: its sprite
is that card's face on lilac paper inside a purple frame, with a purple star under each corner
index, so a fanned meld shows both facts in the strip that stays visible.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from .fonts import prepare_text
from .shapes import draw_star
from .sprites import CardCanvas, Deck

__all__ = [
    "JOKER",
    "JOKER_INK",
    "normalize_stand_in",
    "represented_card",
    "joker_face",
    "stand_in_canvas",
    "corner_star",
    "face_with_jokers",
]

JOKER = "JK"
JOKER_INK = (106, 48, 160, 255)
STAND_IN_PAPER = (231, 214, 251, 255)

_SEPARATOR = "="


def normalize_stand_in(code: str, normalize_card: Callable[[str], str]) -> str | None:
    """Canonical ``JK=<card>`` when ``code`` is a joker standing for a card, else ``None``.

    ``normalize_card`` is the deck's own parser for the represented card. A joker cannot
    stand for a joker, nor for another stand-in; both raise ``ValueError``.
    """
    joker, sep, card = code.partition(_SEPARATOR)
    if not sep:
        return None
    if joker.strip().upper() != JOKER:
        raise ValueError(f"only a joker can stand for a card: {code!r}")
    if _SEPARATOR in card:
        raise ValueError(f"a joker stands for a plain card: {code!r}")
    card = normalize_card(card)
    if card == JOKER:
        raise ValueError(f"a joker stands for a plain card: {code!r}")
    return JOKER + _SEPARATOR + card


def represented_card(code: str) -> str | None:
    """``"5H"`` for the canonical stand-in ``"JK=5H"``; ``None`` for any other code."""
    prefix = JOKER + _SEPARATOR
    return code[len(prefix):] if code.startswith(prefix) else None


def joker_face(deck: Deck, word: str, word_size: float = 10.5) -> Image.Image:
    """The joker itself: "JK" and a star in the corners, a large star and ``word`` below.

    ``word`` must stay clear of the mirrored corner star: about 36 px of ink at most.
    """
    cv = deck.canvas()
    W, H = deck.card_size
    cv.begin_corner()
    ink = cv.ink_text(11.5, 5, JOKER, 13, JOKER_INK, condensed=True)
    top = ink[3] + 3.5
    draw_star(cv.draw, cv.box(6, top, 17, top + 11), JOKER_INK)
    cv.end_corner()
    draw_star(cv.draw, cv.box(W / 2 - 19, H / 2 - 26, W / 2 + 19, H / 2 + 12), JOKER_INK)
    cv.ink_text(W / 2, H / 2 + 17, prepare_text(word), word_size, JOKER_INK, condensed=True)
    return cv.finish()


def stand_in_canvas(deck: Deck) -> CardCanvas:
    """A blank card for a stand-in: lilac paper, a purple edge and an inner purple frame."""
    cv = CardCanvas(deck.card_size, deck.corner_radius, STAND_IN_PAPER, JOKER_INK,
                    border_width=1.6)
    W, H = deck.card_size
    inset = 2.6
    cv.draw.rounded_rectangle(cv.box(inset, inset, W - inset, H - inset),
                              radius=cv.s(max(1, deck.corner_radius - inset)),
                              outline=JOKER_INK, width=round(cv.s(0.7)))
    return cv


def corner_star(cv: CardCanvas, cx: float, top: float, size: float = 10) -> None:
    """The small star a stand-in carries under its corner index."""
    draw_star(cv.draw, cv.box(cx - size / 2, top, cx + size / 2, top + size), JOKER_INK)


def face_with_jokers(deck: Deck, code: str, word: str, draw_card: Callable[[CardCanvas, str, bool], None],
                     word_size: float = 10.5) -> Image.Image:
    """A deck's face for ``code``: the joker (``word`` printed on it), a joker standing for a card
    (that card, starred, on the stand-in paper), or a plain card. ``draw_card(canvas, card,
    joker_star)`` is the deck's own card drawing."""
    if code == JOKER:
        return joker_face(deck, word, word_size=word_size)
    card = represented_card(code)
    if card is not None:
        cv = stand_in_canvas(deck)
        draw_card(cv, card, True)
    else:
        cv = deck.canvas()
        draw_card(cv, code, False)
    return cv.finish()

