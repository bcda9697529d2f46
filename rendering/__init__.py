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

Modules, each importing only those below it: fonts, shapes and text; sprites (the decks'
modules, loaded by name, import it); encode (the palette PNG); compose (a hand's card rows);
landscape (panels in a grid, the choice of an arrangement for a picture seen 400 px wide);
badges (the glyphs that say what a seat's number is); layout (the boxes the pictures shown in a
channel are made of: text, a seat's one-line header, cards, piles, frames, each measured before
it is drawn); the pictures (hand; table: a round's or result's rows; table_picture: the public
table); palette_sample (the sheet each deck's palette is chosen from, handed to encode here).

New decks: a module with a :class:`rendering.sprites.Deck` subclass, see
:mod:`rendering.french` and ``rendering.sprites._DECK_MODULES``.
"""

from . import encode, fonts, palette_sample
from .encode import IMAGE_EXTENSION, IMAGE_FORMAT
from .hand import render_hand, render_hand_async
from .sprites import BACK, Deck, back_sprite, card_sprite, get_deck, register_deck
from .table import render_rows, render_rows_async

# The palette of each deck is chosen from a sheet drawn with the layouts, which encode their
# pictures with rendering.encode: the package, above both, connects them.
encode.set_sample_sheet(palette_sample.sample_sheet)


def warm_sprites(deck: str | Deck = "french") -> int:
    """Every sprite of ``deck``, then its palette (:func:`rendering.encode.warm_deck`), and the
    fallback fonts' cmaps (:func:`rendering.fonts.warm_chain`), e.g. at bot start-up. Returns
    how many sprites."""
    count = encode.warm_deck(deck)
    fonts.warm_chain()
    return count


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
