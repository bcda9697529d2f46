"""Card sprites: the deck registry and the thread-safe sprite cache.

A deck is a small module that defines a :class:`Deck` subclass (how to parse a code and how
to draw one face) and is listed in :data:`_DECK_MODULES` (or passed to :func:`register_deck`).
Everything else — caching, the card back code, shadows, selection outlines, the hand and
table layouts — is shared. Decks draw at ``SCALE``x their size on a :class:`CardCanvas` and
are reduced once, so every shape is anti-aliased.

Sprites are RGBA images shared between threads: treat them as read-only.
"""

from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod

from PIL import Image, ImageDraw

from .fonts import FONT_LOCK, font
from .shapes import outline_mask, shadow_mask

__all__ = [
    "BACK",
    "Deck",
    "CardCanvas",
    "register_deck",
    "get_deck",
    "card_sprite",
    "back_sprite",
    "warm_sprites",
    "card_shadow",
    "card_outline",
]

#: Code for a face-down card, accepted in every deck (``"BACK"`` is an alias).
BACK = "??"
_BACK_ALIASES = {"??", "BACK", "XX"}

#: Supersampling factor decks draw at.
SCALE = 4


class CardCanvas:
    """A card-shaped RGBA drawing surface at ``SCALE``x, with helpers in 1x units."""

    def __init__(self, size: tuple[int, int], radius: int, fill, border, border_width: float = 1.0):
        self.size = size
        self.radius = radius
        w, h = size
        s = SCALE
        self.image = Image.new("RGBA", (w * s, h * s), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)
        bw = max(1, round(border_width * s))
        self.draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), radius=radius * s, fill=border)
        self.draw.rounded_rectangle(
            (bw, bw, w * s - 1 - bw, h * s - 1 - bw), radius=max(0, radius * s - bw), fill=fill
        )

    @staticmethod
    def s(v: float) -> float:
        return v * SCALE

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (x0 * SCALE, y0 * SCALE, x1 * SCALE, y1 * SCALE)

    def ink_text(self, cx: float, top: float, text: str, size: float, fill, *,
                 bold: bool = True, condensed: bool = False) -> tuple[float, float, float, float]:
        """Draw ``text`` with its ink centred on ``cx`` and its ink top at ``top`` (1x units).

        Returns the ink bbox in 1x units. Positioning by ink, not by font metrics, keeps
        glyphs like "10", "Q" and "J" visually aligned.
        """
        with FONT_LOCK:
            f = font(round(size * SCALE), bold, condensed)
            x0, y0, x1, y1 = self.draw.textbbox((0, 0), text, font=f, anchor="ls")
            px = cx * SCALE - (x0 + x1) / 2
            py = top * SCALE - y0
            self.draw.text((px, py), text, font=f, fill=fill, anchor="ls")
        return ((px + x0) / SCALE, (py + y0) / SCALE, (px + x1) / SCALE, (py + y1) / SCALE)

    def begin_corner(self) -> None:
        """Draw the corner index after this call; :meth:`end_corner` mirrors it."""
        self._base = self.image
        self.image = Image.new("RGBA", self._base.size, (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)

    def end_corner(self) -> None:
        """Composite what was drawn since :meth:`begin_corner`, and again rotated 180°."""
        layer = self.image
        self.image = self._base
        self.image.alpha_composite(layer)
        self.image.alpha_composite(layer.rotate(180))
        self.draw = ImageDraw.Draw(self.image)

    def finish(self) -> Image.Image:
        img = self.image.resize(self.size, Image.Resampling.LANCZOS)
        img.load()
        return img

    def lattice_panel(self, *, fill, line, step: float, line_width: float, slope: float) -> tuple:
        """A card back's inner panel: ``fill`` crossed by two sets of diagonal ``line``s ``step``
        apart, each crossing the card over ``slope`` times its height, clipped to the panel.
        Returns the panel's box (the caller draws its medallion and outline)."""
        W, H = self.size
        s = self.s
        m = 4.5
        inner = self.box(m, m, W - m, H - m)
        # lattice on a separate layer clipped to the inner panel
        layer = Image.new("RGBA", self.image.size, (0, 0, 0, 0))
        d = ImageDraw.Draw(layer)
        d.rounded_rectangle(inner, radius=s(4), fill=fill)
        lw = max(1, round(s(line_width)))
        for k in range(-int(H / step) - 2, int((W + H) / step) + 2):
            x = k * step
            d.line((s(x), s(0), s(x + H * slope), s(H)), fill=line, width=lw)
            d.line((s(x), s(H), s(x + H * slope), s(0)), fill=line, width=lw)
        mask = Image.new("L", self.image.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(inner, radius=s(4), fill=255)
        self.image.paste(layer, (0, 0), mask)
        return inner


class Deck(ABC):
    """A card deck's look. Subclass it in a small module (see :mod:`rendering.french`)."""

    #: registry name, e.g. ``"french"``
    name: str = ""
    #: sprite size in px (width, height)
    card_size: tuple[int, int] = (72, 104)
    corner_radius: int = 7
    #: horizontal step between overlapping cards of a group: (tightest, most generous)
    fan_step: tuple[int, int] = (32, 44)

    @abstractmethod
    def normalize(self, code: str) -> str:
        """Canonical code for ``code`` (any case, aliases); ``ValueError`` if not a card."""

    @abstractmethod
    def codes(self) -> list[str]:
        """Every distinct face code (used to pre-warm the cache and in tests)."""

    @abstractmethod
    def draw_face(self, code: str) -> Image.Image:
        """The RGBA sprite of canonical ``code``, exactly :attr:`card_size`. Called once."""

    @abstractmethod
    def draw_back(self) -> Image.Image:
        """The RGBA sprite of a face-down card, exactly :attr:`card_size`. Called once."""

    def canvas(self, fill=(253, 253, 250, 255), border=(150, 156, 164, 255)) -> CardCanvas:
        return CardCanvas(self.card_size, self.corner_radius, fill, border)


# ---------------------------------------------------------------------------- registry

#: Built-in decks, imported on first use: name -> module defining ``DECK``.
_DECK_MODULES = {
    "french": "rendering.french",
    "tosom": "rendering.tosom",
    "tusac": "rendering.tusac",
    "spanish": "rendering.spanish",
}

_decks: dict[str, Deck] = {}
_registry_lock = threading.Lock()


def register_deck(deck: Deck) -> None:
    """Make ``deck`` available under ``deck.name`` (replacing any previous one)."""
    with _registry_lock:
        _decks[deck.name] = deck
        _sprites.pop(deck.name, None)


def get_deck(name: str | Deck) -> Deck:
    # (a name first: isinstance of an abstract class costs ten times a dict's look-up, and the
    # layouts ask for a deck by name thousands of times a picture)
    deck = _decks.get(name) if type(name) is str else None
    if deck is not None:
        return deck
    if isinstance(name, Deck):
        return name
    module = _DECK_MODULES.get(name)
    if module is None:
        raise KeyError(f"unknown deck {name!r}; known: {sorted(set(_decks) | set(_DECK_MODULES))}")
    mod = importlib.import_module(module)
    with _registry_lock:
        return _decks.setdefault(name, mod.DECK)


# ---------------------------------------------------------------------------- sprite cache

_sprites: dict[str, dict[str, Image.Image]] = {}
_build_lock = threading.Lock()


def _canonical(deck: Deck, code: str) -> str:
    """:data:`BACK` for a back alias, else the deck's canonical code.

    Everything else, a joker standing for a card (``JK=5H``) included, is the deck's to
    parse; ``JK=BACK`` is refused there, as the joker stands for a face.
    """
    code = code.strip()
    if code.upper() in _BACK_ALIASES:
        return BACK
    return deck.normalize(code)


def card_sprite(code: str, deck: str | Deck = "french") -> Image.Image:
    """RGBA sprite of ``code`` (or :data:`BACK`), drawn once and cached; do not modify it.

    Codes outside :meth:`Deck.codes` that the deck accepts, such as a joker standing for a
    card (``JK=5H``), are drawn and cached the same way on first use.
    Safe to call from several threads: a missing sprite is built under a lock.
    """
    d = get_deck(deck)
    cache = _sprites.get(d.name)
    if cache is not None:
        img = cache.get(code)
        if img is not None:
            return img
    key = _canonical(d, code)
    with _build_lock:
        cache = _sprites.setdefault(d.name, {})
        img = cache.get(key)
        if img is None:
            img = d.draw_back() if key == BACK else d.draw_face(key)
            if img.size != tuple(d.card_size) or img.mode != "RGBA":
                raise ValueError(f"{d.name} sprite for {key} is {img.mode} {img.size}")
            img.load()
            cache[key] = img
        # also remember the caller's spelling, so the next lookup is one dict get
        if code != key and len(cache) < 1024:
            cache.setdefault(code, img)
    return img


def back_sprite(deck: str | Deck = "french") -> Image.Image:
    return card_sprite(BACK, deck)


def warm_sprites(deck: str | Deck = "french") -> int:
    """Draw every sprite of ``deck`` now. Returns how many sprites. ``rendering.warm_sprites``
    (:func:`rendering.encode.warm_deck`, what the bot calls at start-up) also chooses the
    deck's palette."""
    d = get_deck(deck)
    codes = d.codes()
    for code in codes:
        card_sprite(code, d)
    back_sprite(d)
    return len(codes) + 1


def card_shadow(deck: Deck) -> tuple[Image.Image, int]:
    return shadow_mask(deck.card_size, deck.corner_radius)


def card_outline(deck: Deck, width: int = 2) -> Image.Image:
    return outline_mask(deck.card_size, deck.corner_radius, width)
