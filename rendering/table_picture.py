"""The public table as one picture: the seats around it, the piles, and groups of cards.

A game describes its table as a :class:`TablePicture` (plain data, built from the public
view by the game's UI: the per-game layer); this module draws every game's the same way:

- a title line;
- the seats: a box per player with his name, a detail line (card count, opened, announced
  jokers, total...), the player to act outlined;
- the piles: the stock (a card back with its count), the top discard, an active card...;
- sections of labelled card groups: Concan's numbered melds, each player's discards...

Jokers standing for a card (``JK=5H``) are drawn as such by the decks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from . import _async
from .compose import THEME, Block, CardsBlock, Stack, TextBlock, encode_png, inner_width, render_stack
from .sprites import card_shadow, card_sprite, get_deck
from .text import paste_text, text_line

__all__ = ["Group", "Pile", "SeatBox", "Section", "TablePicture", "render_table_picture",
           "render_table_picture_async"]


@dataclass(frozen=True)
class SeatBox:
    name: str
    detail: str = ""  # "14 cards · opened"; several lines separated by "\n"
    active: bool = False  # the player to act
    dim: bool = False  # out of the match, or away


@dataclass(frozen=True)
class Pile:
    label: str  # "Stock", "Discard"
    card: str | None  # a code, BACK for a face-down pile, None for an empty one
    caption: str = ""  # "42 cards"


@dataclass(frozen=True)
class Group:
    label: str  # printed above the group's first card: "1 · Lan"
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    title: str  # "Melds on the table"
    groups: tuple[Group, ...]
    empty: str = "—"  # shown when there is no group


@dataclass(frozen=True)
class TablePicture:
    title: str
    seats: tuple[SeatBox, ...] = ()
    piles: tuple[Pile, ...] = ()
    sections: tuple[Section, ...] = ()
    deck: str = "french"
    notes: tuple[str, ...] = field(default=())


# ---------------------------------------------------------------------------- blocks

ACTIVE = (255, 200, 60)
BOX_FILL = (36, 88, 63)
BOX_DIM = (33, 66, 50)
BOX_W, BOX_GAP = 168, 10
LINE_H = 16  # a detail line in a seat's box


class SeatsBlock(Block):
    """The players around the table, in rows of boxes."""

    def __init__(self, seats: tuple[SeatBox, ...], *, max_width: int, theme=THEME):
        self.seats = seats
        self.theme = theme
        self.per_row = max(1, min(len(seats), (max_width + BOX_GAP) // (BOX_W + BOX_GAP)))
        rows = -(-len(seats) // self.per_row) if seats else 0
        lines = max((len(s.detail.splitlines()) for s in seats), default=0)
        self.box_h = 30 + LINE_H * lines
        self.width = self.per_row * BOX_W + (self.per_row - 1) * BOX_GAP if seats else 0
        self.height = rows * self.box_h + max(0, rows - 1) * BOX_GAP

    def draw(self, canvas, x, y):
        draw = ImageDraw.Draw(canvas)
        theme = self.theme
        for i, seat in enumerate(self.seats):
            bx = x + (i % self.per_row) * (BOX_W + BOX_GAP)
            by = y + (i // self.per_row) * (self.box_h + BOX_GAP)
            draw.rounded_rectangle((bx, by, bx + BOX_W - 1, by + self.box_h - 1), radius=8,
                                   fill=BOX_DIM if seat.dim else BOX_FILL,
                                   outline=ACTIVE if seat.active else theme.separator,
                                   width=3 if seat.active else 1)
            colour = theme.muted if seat.dim else theme.text
            name = text_line(_fit(seat.name, theme.label_size, True, BOX_W - 16), theme.label_size, True, colour)
            paste_text(canvas, name, (bx + 8, by + 5))
            for k, line in enumerate(seat.detail.splitlines()):
                detail = text_line(_fit(line, theme.index_size + 1, False, BOX_W - 16), theme.index_size + 1,
                                   False, theme.muted)
                paste_text(canvas, detail, (bx + 8, by + 27 + k * LINE_H))


class PilesBlock(Block):
    """Piles side by side: a label above each card, a caption below."""

    def __init__(self, piles: tuple[Pile, ...], *, deck: str, theme=THEME):
        self.deck = get_deck(deck)
        self.theme = theme
        self.piles = piles
        self.labels = [text_line(p.label, theme.caption_size, True, theme.text) for p in piles]
        self.captions = [text_line(p.caption, theme.index_size + 1, False, theme.muted) if p.caption else None
                         for p in piles]
        self.sprites = [card_sprite(p.card, self.deck) if p.card else None for p in piles]
        card_w, card_h = self.deck.card_size
        self.cell_w = [max(card_w, lab.width, cap.width if cap else 0) for lab, cap in zip(self.labels, self.captions)]
        self.label_h = max((lab.height for lab in self.labels), default=0)
        self.caption_h = max((cap.height for cap in self.captions if cap), default=0)
        self.width = sum(self.cell_w) + 28 * max(0, len(piles) - 1)
        self.height = self.label_h + 4 + card_h + (4 + self.caption_h if self.caption_h else 0)

    def draw(self, canvas, x, y):
        card_w, card_h = self.deck.card_size
        shadow, margin = card_shadow(self.deck)
        sdx, sdy = self.theme.shadow_offset
        draw = ImageDraw.Draw(canvas)
        for label, caption, sprite, cell in zip(self.labels, self.captions, self.sprites, self.cell_w):
            cx = x + (cell - card_w) // 2
            paste_text(canvas, label, (x + (cell - label.width) // 2, y))
            top = y + self.label_h + 4
            if sprite is None:
                draw.rounded_rectangle((cx, top, cx + card_w - 1, top + card_h - 1), radius=self.deck.corner_radius,
                                       outline=self.theme.empty_slot, width=2)
            else:
                canvas.paste((0, 0, 0), (cx - margin + sdx, top - margin + sdy), shadow)
                canvas.paste(sprite, (cx, top), sprite)
            if caption is not None:
                paste_text(canvas, caption, (x + (cell - caption.width) // 2, top + card_h + 4))
            x += cell + 28


class LabelledCardsBlock(CardsBlock):
    """Card groups with a label over each group's first card (in the room a hand keeps for
    raised cards)."""

    def __init__(self, groups: tuple[Group, ...], *, deck: str, max_width: int, theme=THEME):
        super().__init__([list(g.cards) for g in groups], deck=deck, show_index=False, reserve_raise=True,
                         reserve_bar=False, max_width=max_width, theme=theme)
        firsts, index = [], 0
        for group in groups:
            if group.cards:
                firsts.append((index, group.label))
                index += len(group.cards)
        slots = {s.index: s for s in self.plan.slots}
        self.labels = [(slots[i], text_line(_fit(label, theme.index_size + 1, True, 140), theme.index_size + 1,
                                            True, theme.marked)) for i, label in firsts if i in slots]

    def draw(self, canvas, x, y):
        super().draw(canvas, x, y)
        for slot, line in self.labels:
            top = y + slot.row * (self.row_h + self.theme.row_gap)
            paste_text(canvas, line, (x + slot.x + 2, top + max(0, self.raise_space - line.height - 1)))


def _fit(text: str, size: int, bold: bool, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` px."""
    from .text import measure

    if measure(text, size, bold) <= width:
        return text
    while text and measure(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


# ---------------------------------------------------------------------------- the picture

def table_picture_image(picture: TablePicture) -> Image.Image:
    theme = THEME
    max_w = inner_width(theme)
    stack = Stack()
    stack.add(TextBlock(picture.title, theme.title_size, theme.text, bold=True, max_width=max_w))
    if picture.seats:
        stack.add(SeatsBlock(picture.seats, max_width=max_w), gap=8)
    if picture.piles:
        stack.add(PilesBlock(picture.piles, deck=picture.deck), gap=12)
    for section in picture.sections:
        stack.add(TextBlock(section.title, theme.caption_size, theme.muted, bold=True, max_width=max_w), gap=12)
        groups = tuple(g for g in section.groups if g.cards)
        if groups:
            stack.add(LabelledCardsBlock(groups, deck=picture.deck, max_width=max_w), gap=2)
        else:
            stack.add(TextBlock(section.empty, theme.caption_size, theme.muted, max_width=max_w), gap=2)
    for note in picture.notes:
        stack.add(TextBlock(note, theme.caption_size, theme.muted, max_width=max_w), gap=8)
    return render_stack(stack, theme)


def render_table_picture(picture: TablePicture) -> bytes:
    """PNG bytes of the table. Pure and thread-safe."""
    return encode_png(table_picture_image(picture))


async def render_table_picture_async(picture: TablePicture) -> bytes:
    """:func:`render_table_picture` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_table_picture, picture)



