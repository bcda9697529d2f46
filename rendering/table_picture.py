"""The public table as one picture: the seats around it, the piles, and groups of cards.

A game describes its table as a :class:`TablePicture` (plain data, built from the public view
by the game's UI: the per-game layer); this module lays every game's out the same way, with
the boxes of :mod:`rendering.layout`:

- the piles at the left: the stock (a card back, its count under it), the card on offer...;
- a panel per seat: a header line (the name, then badges: :mod:`rendering.badges`) over the
  cards the seat has in front of it (a row of the section whose rows are named as the seats:
  discards, melds laid...), outlined when it is to act;
- the groups of a section (Concan's numbered melds) under the seats.

The picture is drawn for the size it is seen at: Discord shows it about 400 px wide, so the
cards are given most of that width (a card at least :data:`CARD_PX` tall there) and the text
is sized for the width chosen (:func:`rendering.landscape.readable_size`); of the arrangements
tried (widths, columns of seats, piles stacked or side by side) the one shown largest in an
embed that is landscape (:data:`MIN_ASPECT`) is drawn (:func:`rendering.landscape.best`).
Jokers standing for a card (``JK=5H``) are drawn as such by the decks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image

from . import _async
from .badges import GLYPHS, Badge
from .compose import THEME, Block
from .encode import encode_picture
from .landscape import PICTURE_THEME, Beside, Column, Grid, Loss, best, column_counts, readable_size, widths_for
from .layout import (ACTIVE, Box, Cards, Header, Mark, Piles, Style, Text, common_step, facts, printable,
                     shadowed_sprite)
from .sprites import get_deck

__all__ = ["Badge", "CARD_PX", "Group", "MIN_ASPECT", "Pile", "Row", "SeatBox", "Section", "TablePicture",
           "glyphs_used", "picture_names", "printable", "render_table_picture", "render_table_picture_async",
           "shadowed_sprite", "table_picture_image"]


def _cached_hash(self) -> int:
    """A frozen dataclass's hash, computed once: the layouts' caches are keyed by whole seats
    and rows, looked up thousands of times a picture."""
    found = self.__dict__.get("_hash")
    if found is None:
        found = hash(tuple(getattr(self, name) for name in self.__dataclass_fields__))
        object.__setattr__(self, "_hash", found)
    return found


def _state(self) -> dict:
    """What pickling keeps: not the hash (another process hashes strings otherwise)."""
    return {name: value for name, value in self.__dict__.items() if name != "_hash"}


@dataclass(frozen=True)
class SeatBox:
    __hash__, __getstate__ = _cached_hash, _state
    name: str
    detail: str = ""  # the seat's facts in words ("14 cards · opened"): drawn when it has no badges
    active: bool = False  # the player to act
    dim: bool = False  # out of the match, or away
    badges: tuple[Badge, ...] = ()  # drawn after the name: cards in hand, total...


@dataclass(frozen=True)
class Pile:
    label: str  # "Stock", "Discard" (told by its place in the picture: not drawn)
    card: str | None  # a code, BACK for a face-down pile, None for an empty one
    caption: str = ""  # "42 cards": its facts ("·") a line each under the card


@dataclass(frozen=True)
class Group:
    __hash__, __getstate__ = _cached_hash, _state
    label: str  # a short label drawn over the group's first card: a meld's number ("3")
    cards: tuple[str, ...]
    #: positions (in ``cards``) of the cards underlined, as the hand marks its eaten cards
    marked: tuple[int, ...] = ()
    glyph: str = ""  # a glyph over the group's first card (:data:`rendering.badges.GLYPHS`: "discards")


@dataclass(frozen=True)
class Row:
    """A player's cards on the table: ``groups`` (his discards, his melds...), in the panel of
    the seat named ``label``. Rows of a section share one fan step, so their cards line up."""
    __hash__, __getstate__ = _cached_hash, _state
    label: str
    groups: tuple[Group, ...]
    active: bool = False  # the player to act: his panel is outlined


@dataclass(frozen=True)
class Section:
    title: str  # "Melds on the table" (told by its place: not drawn)
    groups: tuple[Group, ...] = ()
    empty: str = "—"  # shown when no group and no row holds a card
    rows: tuple[Row, ...] = ()  # each in the panel of the seat it is named as (else a panel of its own)


@dataclass(frozen=True)
class TablePicture:
    __hash__, __getstate__ = _cached_hash, _state
    title: str  # the embed's title says it: not drawn
    seats: tuple[SeatBox, ...] = ()
    piles: tuple[Pile, ...] = ()
    sections: tuple[Section, ...] = ()
    deck: str = "french"
    notes: tuple[str, ...] = field(default=())


#: How tall a card (a strip in Chắn and Tứ Sắc) is, at least, once the picture is shown 400 px
#: wide: up to 4 seats, and at 5 or 6 (+1: a margin over the goal).
CARD_PX = {4: 47, 6: 39}
#: The least width / height of a table picture: Discord shows the whole of it, large.
MIN_ASPECT = 1.25
GAP = 12  # between panels, and around the piles


def glyphs_used(picture: TablePicture) -> list[str]:
    """The glyphs ``picture`` shows (:data:`rendering.badges.GLYPHS`), in that order: its
    badges', its groups', and "eaten" where it underlines cards."""
    used = {badge.glyph for seat in picture.seats for badge in seat.badges if badge.glyph}
    groups = [g for section in picture.sections for g in section.groups + tuple(
        g for row in section.rows for g in row.groups) if g.cards]
    used |= {g.glyph for g in groups if g.glyph}
    if any(g.marked for g in groups):
        used.add("eaten")
    return [glyph for glyph in GLYPHS if glyph in used]


def picture_names(names: list[str], seat_name: Callable[[int], str] = "Seat {}".format) -> list[str]:
    """The seats' names as a picture shows them: :func:`printable`, ``seat_name(3)`` ("Seat 3";
    the bot passes it in the table's language) for a name with nothing printable."""
    return [printable(name) or seat_name(seat + 1) for seat, name in enumerate(names)]


@lru_cache(maxsize=1024)
def seat_panel(seat: SeatBox | None, row: Row | None, *, deck: str, style: Style, inner: int,
               step: int | None) -> Box:
    """A seat's panel: its header line over its row's cards (none: the header alone).
    Cached: the arrangements tried share panels, and so do successive moves' pictures."""
    theme = style.theme
    active = bool(seat and seat.active) or bool(row and row.active)
    dim = bool(seat and seat.dim)
    colour = ACTIVE if active else theme.muted if dim else theme.text
    name = seat.name if seat is not None else row.label
    badges = seat.badges if seat is not None else ()
    words = facts(seat.detail) if seat is not None and not badges else ()
    header = Header(name, badges, words, style=style, width=inner, colour=colour, deck=deck)
    groups = tuple(g for g in row.groups if g.cards) if row is not None else ()
    parts: list = [(header, 0)]
    cards = group_cards(groups, deck=deck, style=style, width=inner, step=step) if groups else None
    if cards is not None:
        parts.append((cards, 3))
    box = Box(Column(parts), active=active, dim=dim, theme=theme)
    box.lost = header.lost + Loss(0, cards.splits if cards is not None else 0)
    return box


@lru_cache(maxsize=512)
def group_cards(groups: tuple[Group, ...], *, deck: str, style: Style, width: int, step: int | None) -> Cards:
    """``groups`` as :class:`~rendering.layout.Cards`: each one's label or glyph over its first card,
    its marked cards underlined. Cached: the melds on the table change less often than the seats."""
    marks = tuple(Mark(g.glyph, g.label) if g.glyph or g.label else None for g in groups)
    return Cards(tuple(g.cards for g in groups), deck=deck, width=width, style=style, step=step, marks=marks,
                 bars=tuple(g.marked for g in groups))


def _rows_by_seat(picture: TablePicture) -> tuple[dict[int, Row], list[Row]]:
    """The rows shown in the seats' panels (by seat: the first row named as the seat), and the others."""
    names = {}
    for i, seat in enumerate(picture.seats):
        names.setdefault(seat.name, i)
    merged, others = {}, []
    for section in picture.sections:
        for row in section.rows:
            seat = names.get(row.label)
            if seat is not None and seat not in merged:
                merged[seat] = row
            elif any(g.cards for g in row.groups):
                others.append(row)
    return merged, others


def _seats(picture: TablePicture, style: Style, width: int, columns: int, merged: dict[int, Row],
           others: list[Row]) -> Grid | None:
    """The seats' panels (and those of the rows of no seat) ``columns`` to a line, within
    ``width`` px; None when a panel would be too narrow for a card and a name."""
    deck = get_deck(picture.deck)
    count = len(picture.seats) + len(others)
    columns = min(columns, max(1, count))
    inner = (width - (columns - 1) * GAP) // columns - 2 * Box.PAD
    if inner < max(deck.card_size[0] + deck.fan_step[0], 3 * style.size):
        return None
    rows = list(merged.values()) + others
    filled = [[g.cards for g in r.groups if g.cards] for r in rows]
    step = common_step(filled, deck, inner, style.theme.group_gap)
    panels = [seat_panel(seat, merged.get(i), deck=picture.deck, style=style, inner=inner, step=step)
              for i, seat in enumerate(picture.seats)]
    panels += [seat_panel(None, row, deck=picture.deck, style=style, inner=inner, step=step) for row in others]
    grid = Grid(panels, columns, GAP)
    grid.lost = sum((p.lost for p in panels), Loss())
    return grid


def _sections(picture: TablePicture, style: Style, width: int) -> list[Block]:
    """The sections' groups (Concan's melds) within ``width`` px, or the words of an empty
    section; the notes."""
    parts: list[Block] = []
    for section in picture.sections:
        groups = tuple(g for g in section.groups if g.cards)
        if groups:
            parts.append(group_cards(groups, deck=picture.deck, style=style, width=width, step=None))
        elif not section.rows or not any(g.cards for r in section.rows for g in r.groups):
            parts.append(Text(section.empty, style.size, False, style.theme.muted, width))
    return parts + [Text(note, style.size, False, style.theme.muted, width) for note in picture.notes]


def _arrangements(picture: TablePicture):
    """(block, the width its text is sized for) of every arrangement tried: at a few widths,
    the seats' panels in 1 to 6 columns, the piles stacked or side by side at their left, the
    sections under the seats (beside the piles too) or under both."""
    deck = get_deck(picture.deck)
    theme = PICTURE_THEME
    merged, others = _rows_by_seat(picture)
    count = len(picture.seats) + len(others)
    floor = CARD_PX[4] if len(picture.seats) <= 4 else CARD_PX[6]
    has_sections = any(section.groups or not section.rows for section in picture.sections) or bool(picture.notes)
    for width in widths_for(deck.card_size[1], floor):
        style = Style(readable_size(width))
        content = width - 2 * theme.padding
        for vertical in (True, False) if picture.piles else (True,):
            piles = Piles(picture.piles, deck=picture.deck, style=style, vertical=vertical) if picture.piles else None
            room = content - (piles.width + GAP if piles else 0)
            for under in (False, True) if has_sections and piles else (False,):
                sections = _sections(picture, style, content if under else room)
                for columns in column_counts(max(1, count)):
                    seats = _seats(picture, style, room, columns, merged, others)
                    if seats is None:
                        continue
                    if under:  # the piles beside the seats, the sections across the picture under them
                        block = Column([(Beside([piles, seats], GAP), 0)] + [(part, GAP) for part in sections])
                    else:
                        block = Beside([piles, Column([(seats, 0)] + [(part, GAP) for part in sections])], GAP)
                    block.lost = seats.lost
                    yield block, width


@lru_cache(maxsize=32)
def _arranged(picture: TablePicture) -> Block:
    """The arrangement drawn for ``picture`` (kept: the same picture is drawn again, in other
    threads too, as blocks are not changed by drawing)."""
    floor = CARD_PX[4] if len(picture.seats) <= 4 else CARD_PX[6]
    return best(_arrangements(picture), get_deck(picture.deck).card_size[1], floor, MIN_ASPECT)


_local = threading.local()


def _canvas(width: int, height: int) -> Image.Image:
    """This thread's drawing surface, at least ``width`` × ``height``. It is kept from one
    render to the next: a fresh picture-sized image costs a thousand page faults, a third of
    the render."""
    canvas = getattr(_local, "canvas", None)
    if canvas is None or canvas.width < width or canvas.height < height:
        canvas = Image.new("RGB", (max(width, THEME.max_width), max(height, canvas.height if canvas else 0, 1000)))
        _local.canvas = canvas
    return canvas


def _draw(picture: TablePicture) -> tuple[Image.Image, int, int]:
    """The picture drawn in the top left ``width`` × ``height`` corner of this thread's canvas
    (the rest of the canvas is left over from other pictures)."""
    theme = PICTURE_THEME
    block = _arranged(picture)
    pad = theme.padding
    width = max(theme.min_width, block.width + 2 * pad)
    height = block.height + 2 * pad
    canvas = _canvas(width, height)
    canvas.paste(theme.background, (0, 0, width, height))
    block.draw(canvas, pad, pad)
    return canvas, width, height


def table_picture_image(picture: TablePicture) -> Image.Image:
    """The picture as a new RGB image."""
    canvas, width, height = _draw(picture)
    return canvas.crop((0, 0, width, height))


def render_table_picture(picture: TablePicture) -> bytes:
    """The upload bytes of the table (:func:`rendering.encode.encode_picture`). Thread-safe
    (each thread draws on its own canvas)."""
    canvas, width, height = _draw(picture)
    return encode_picture(canvas, picture.deck, (0, 0, width, height))


async def render_table_picture_async(picture: TablePicture) -> bytes:
    """:func:`render_table_picture` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_table_picture, picture)
