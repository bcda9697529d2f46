"""Card images for Discord: hands (sent by DM) and tables, as upload bytes (palette PNG, see
:mod:`rendering.encode`; the file extension to give them is :data:`IMAGE_EXTENSION`).

Public API::

    render_hand(groups, *, marked=(), selected=(), caption="", title="", deck="french") -> bytes
    render_rows(rows, *, title="", deck="french") -> bytes
    await render_hand_async(...), await render_rows_async(...)   # off the event loop
    card_sprite(code, deck="french") -> PIL.Image (RGBA, cached), BACK, warm_sprites(deck)
    IMAGE_FORMAT, IMAGE_EXTENSION   # "PNG", "png": what the bytes are, what to name their files

Decks: ``"french"`` (52 + ``JK``), ``"spanish"`` (48 + ``JK``, also Chinchón's 40-card pack),
``"tosom"`` (Chắn), ``"tusac"`` (Tứ Sắc). In the two decks with jokers, ``JK=5H`` / ``JK=7O``
is a joker laid in a meld as that card (:mod:`rendering.joker`).

New decks: a module with a :class:`rendering.sprites.Deck` subclass, see
:mod:`rendering.french` and ``rendering.sprites._DECK_MODULES``.
"""

from .encode import IMAGE_EXTENSION, IMAGE_FORMAT
from .hand import render_hand, render_hand_async
from .sprites import BACK, Deck, back_sprite, card_sprite, get_deck, register_deck, warm_sprites
from .table import render_rows, render_rows_async

__all__ = [
    "BACK",
    "Deck",
    "IMAGE_EXTENSION",
    "IMAGE_FORMAT",
    "back_sprite",
    "card_sprite",
    "get_deck",
    "register_deck",
    "render_hand",
    "render_hand_async",
    "render_rows",
    "render_rows_async",
    "warm_sprites",
]
