"""The public table as one picture: the seats around it, the piles, and groups of cards.

A game describes its table as a :class:`TablePicture` (plain data, built from the public
view by the game's UI: the per-game layer); this module draws every game's the same way:

- a title line;
- the seats: a box per player with his name, a detail line (card count, opened, announced
  jokers, total...), the player to act outlined;
- the piles: the stock (a card back with its count), the top discard, an active card...;
- sections of labelled card groups: Concan's numbered melds...; or of rows, one per player,
  with his name at the left and his cards in front of him (discards, trash row, melds laid).

Jokers standing for a card (``JK=5H``) are drawn as such by the decks.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from collections.abc import Callable, Iterator
from functools import lru_cache

from PIL import Image, ImageDraw

from . import _async
from .compose import THEME, Block, Theme, CardPlan, CardsBlock, Slot, TextBlock, common_step, plan_cards
from .encode import encode_picture
from .landscape import (PICTURE_THEME, SIZES, Beside, Column, Grid, Panel, column_counts, panel_widths,
                        readable_size, shown_scale)
from .fonts import has_glyph, prepare_text
from .shapes import SUIT_CHARS
from .sprites import Deck, card_shadow, card_sprite, get_deck
from .table import one_line_width
from .text import ITEM_SEP, line_size, measure, paste_text, text_line, wrap_items

__all__ = ["Group", "Pile", "Row", "SeatBox", "Section", "TablePicture", "picture_names", "printable",
           "render_table_picture", "render_table_picture_async"]


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
    #: positions (in ``cards``) of the cards underlined, as the hand marks its eaten cards
    #: (Phỏm: the cards others sent onto a phỏm)
    marked: tuple[int, ...] = ()


@dataclass(frozen=True)
class Row:
    """A player's line of cards: ``label`` (his name) at the left, then ``groups`` (his
    discards, his melds...), each group labelled over its first card when its label is not
    empty. Rows of a section share one fan step, so their cards line up."""
    label: str
    groups: tuple[Group, ...]
    active: bool = False  # the player to act: his name is highlighted


@dataclass(frozen=True)
class Section:
    title: str  # "Melds on the table"
    groups: tuple[Group, ...] = ()
    empty: str = "—"  # shown when no group and no row holds a card
    rows: tuple[Row, ...] = ()  # drawn after the groups; a row without cards shows "—"


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


@dataclass(frozen=True)
class Words:
    """A line of text, measured when a layout is tried and drawn only if it is chosen (most
    layouts tried are not: drawing their words, at their sizes, would cost the most)."""
    text: str
    size: int
    bold: bool
    colour: tuple[int, int, int]

    @property
    def width(self) -> int:
        return line_size(self.text, self.size, self.bold)[0]

    @property
    def height(self) -> int:
        return line_size(self.text, self.size, self.bold)[1]

    @property
    def baseline(self) -> int:
        return line_size(self.text, self.size, self.bold)[2]

    def paste(self, canvas, xy: tuple[int, int]) -> None:
        paste_text(canvas, text_line(self.text, self.size, self.bold, self.colour), xy)
BOX_FILL = (36, 88, 63)
BOX_DIM = (33, 66, 50)
BOX_W, BOX_GAP = 188, 10


@dataclass(frozen=True)
class SizedTheme(Theme):
    """A table picture's theme whose text is sized for its width (:func:`sized_theme`)."""
    detail_size: int = 15


def _detail_size(theme) -> int:
    """The size of the seats' lines (card counts, totals, points) and the piles' captions
    (the stock's count): :func:`sized_theme` makes it readable."""
    return theme.detail_size if isinstance(theme, SizedTheme) else theme.index_size + 2


@lru_cache(maxsize=64)
def sized_theme(size: int) -> SizedTheme:
    """The picture's theme with the seats' lines, the piles' captions and labels and the
    sections' titles set at ``size``, the names too (bold), the title a little larger: what a
    picture needs for its numbers to be read once shown 400 px wide (:func:`_sized`). The
    groups' labels over the cards keep their size: larger, they would push the cards apart."""
    theme = PICTURE_THEME
    return SizedTheme(**{**vars(theme), "caption_size": max(theme.caption_size, size),
                         "label_size": max(theme.label_size, size), "title_size": max(theme.title_size, size + 2)},
                      detail_size=size)


BOX_EM = 8  # the widest a seat box's lines are, in em of their size; 6 for many boxes to a row


@lru_cache(maxsize=256)
def box_width(seats: tuple[SeatBox, ...], theme, em: int = BOX_EM) -> int:
    """How wide every seat box is drawn: :data:`BOX_W`, or what the widest name or line needs,
    up to ``em`` em of the lines' size (a longer line wraps between its facts; a fact longer
    than that, between its words)."""
    size = _detail_size(theme)
    names = max((measure(printable(s.name), theme.label_size, True) for s in seats), default=0)
    widest = max((measure(printable(line), size) for s in seats for line in s.detail.splitlines()), default=0)
    return max(BOX_W, min(max(names, widest), round(em * size)) + 16)


@lru_cache(maxsize=1024)
def _facts(detail: str) -> tuple[str, ...]:
    """A seat's detail as its facts ("7 cards\ntotal 10" -> "7 cards", "total 10")."""
    return tuple(fact for line in detail.splitlines() if printable(line) for fact in printable(line).split(ITEM_SEP))


@lru_cache(maxsize=2048)
def _flow(facts: tuple[str, ...], size: int, room: int, width: int) -> tuple[str, tuple[str, ...]]:
    """``facts`` after a name: those that fit in its line's ``room`` px, then the others
    wrapped to ``width`` px between facts (a fact is never cut, nor run into the next: "7 cards
    · total 10"; only a fact longer than a line is word-wrapped)."""
    first = 0
    while first < len(facts) and measure(ITEM_SEP.join(facts[:first + 1]), size) <= room:
        first += 1
    rest = wrap_items(ITEM_SEP.join(facts[first:]), size, False, width) if facts[first:] else ()
    return ITEM_SEP.join(facts[:first]), rest


NAME_GAP = 10  # between a name and the facts after it on its line


class SeatsBlock(Block):
    """The players around the table, in rows of boxes (as many a row as ``max_width`` holds):
    each his name, with his detail's first facts after it as far as they fit, the others under it."""

    def __init__(self, seats: tuple[SeatBox, ...], *, max_width: int, theme=PICTURE_THEME, em: int = BOX_EM):
        self.seats = seats
        self.theme = theme
        self.box_w = box_w = min(box_width(seats, theme, em), max(BOX_W, max_width))
        most = max(1, min(len(seats), (max_width + BOX_GAP) // (box_w + BOX_GAP)))
        rows = -(-len(seats) // most) if seats else 0
        self.per_row = -(-len(seats) // rows) if seats else 1  # balanced: 2 + 2 rather than 3 + 1
        size = _detail_size(theme)
        inner = box_w - 16
        self.names = [_fit(s.name, theme.label_size, True, inner) for s in seats]
        # a detail too long for the box wraps onto more lines: a cut word ("2 jokers annou…")
        # would hide what the line says
        self.flows = [_flow(_facts(s.detail), size, inner - measure(name, theme.label_size, True) - NAME_GAP, inner)
                      for s, name in zip(seats, self.names)]
        self.details = [([first] if first else []) + list(rest) for first, rest in self.flows]
        lines = max((len(rest) for _first, rest in self.flows), default=0)
        self.line_h = size + 5
        self.name_h = theme.label_size + 10
        self.box_h = self.name_h + self.line_h * lines + 8  # the name, the lines under it, a little room below
        self.width = self.per_row * box_w + (self.per_row - 1) * BOX_GAP if seats else 0
        self.height = rows * self.box_h + max(0, rows - 1) * BOX_GAP

    def draw(self, canvas, x, y):
        draw = ImageDraw.Draw(canvas)
        theme = self.theme
        size = _detail_size(theme)
        box_w = self.box_w
        for i, seat in enumerate(self.seats):
            bx = x + (i % self.per_row) * (box_w + BOX_GAP)
            by = y + (i // self.per_row) * (self.box_h + BOX_GAP)
            draw.rounded_rectangle((bx, by, bx + box_w - 1, by + self.box_h - 1), radius=8,
                                   fill=BOX_DIM if seat.dim else BOX_FILL,
                                   outline=ACTIVE if seat.active else theme.separator,
                                   width=3 if seat.active else 1)
            colour = theme.muted if seat.dim else theme.text
            name = text_line(self.names[i], theme.label_size, True, colour)
            paste_text(canvas, name, (bx + 8, by + 4))
            first, rest = self.flows[i]
            if first:
                line = text_line(first, size, False, theme.muted)
                paste_text(canvas, line, (bx + 8 + name.width + NAME_GAP, by + 4 + name.baseline - line.baseline))
            for k, part in enumerate(rest):
                line = text_line(part, size, False, theme.muted)
                paste_text(canvas, line, (bx + 8, by + self.name_h + k * self.line_h))


PILE_CAPTION_W = 170  # a longer caption ("discarded by <a long name>") wraps onto a second line


def _caption_lines(caption: str, size: int) -> list[str]:
    """A pile's caption in at most three lines of :data:`PILE_CAPTION_W` (or 7.5 em, for large
    text: "discarded by" / "Nguyễn Đức"); only a name too long for them is cut."""
    width = max(PILE_CAPTION_W, round(7.5 * size))
    lines = _wrapped(caption, size, width) if caption else []
    if len(lines) > 3:
        lines = lines[:2] + [_fit(" ".join(lines[2:]), size, False, width)]
    return lines


PILE_GAP = 12


class PilesBlock(Block):
    """Piles one below the other (or side by side): a label above each card, a caption below."""

    def __init__(self, piles: tuple[Pile, ...], *, deck: str, theme=PICTURE_THEME, vertical: bool = True):
        self.deck = get_deck(deck)
        self.theme = theme
        self.piles = piles
        self.vertical = vertical
        size = _detail_size(theme)
        self.labels = [Words(p.label, theme.caption_size, True, theme.text) for p in piles]
        self.captions = [[Words(line, size, False, theme.muted) for line in _caption_lines(p.caption, size)]
                         for p in piles]
        self.sprites = [card_sprite(p.card, self.deck) if p.card else None for p in piles]
        card_w, card_h = self.deck.card_size
        self.cell_w = [max([card_w, lab.width] + [line.width for line in cap])
                       for lab, cap in zip(self.labels, self.captions)]
        self.label_h = max((lab.height for lab in self.labels), default=0)
        self.caption_h = max((sum(line.height for line in cap) for cap in self.captions), default=0)
        self.cell_h = self.label_h + 4 + card_h + (4 + self.caption_h if self.caption_h else 0)
        count = len(piles)
        if vertical:
            self.width = max(self.cell_w, default=0)
            self.height = count * self.cell_h + PILE_GAP * max(0, count - 1)
        else:
            self.width = sum(self.cell_w) + 28 * max(0, count - 1)
            self.height = self.cell_h if piles else 0

    def draw(self, canvas, x, y):
        card_w, card_h = self.deck.card_size
        draw = ImageDraw.Draw(canvas)
        for pile, label, caption, cell in zip(self.piles, self.labels, self.captions, self.cell_w):
            if self.vertical:
                cell = self.width
            cx = x + (cell - card_w) // 2
            label.paste(canvas, (x + (cell - label.width) // 2, y))
            top = y + self.label_h + 4
            if pile.card is None:
                draw.rounded_rectangle((cx, top, cx + card_w - 1, top + card_h - 1), radius=self.deck.corner_radius,
                                       outline=self.theme.empty_slot, width=2)
            else:
                image, dx, dy = shadowed_sprite(pile.card, self.deck)
                canvas.paste(image, (cx - dx, top - dy), image)
            line_y = top + card_h + 4
            for line in caption:
                line.paste(canvas, (x + (cell - line.width) // 2, line_y))
                line_y += line.height
            if self.vertical:
                y += self.cell_h + PILE_GAP
            else:
                x += cell + 28


LABEL_SIZE_EXTRA = 1  # group labels: the index size + 1, bold
LABEL_MAX_W = 140
LABEL_PAD = 8  # at least this between the end of a label and the next group


class LabelledCardsBlock(CardsBlock):
    """Card groups with a label over each group's first card (in the room a hand keeps for
    raised cards). A group is pushed right when the label before it would run into it, so a
    label over a single card stays whole."""

    def __init__(self, groups: tuple[Group, ...], *, deck: str, max_width: int, step: int | None = None,
                 theme=PICTURE_THEME):
        groups = tuple(g for g in groups if g.cards)
        cards = [list(g.cards) for g in groups]
        marked, index = [], 0
        for group in groups:
            marked += [index + k for k in group.marked]
            index += len(group.cards)
        super().__init__(cards, deck=deck, marked=marked, show_index=False,
                         reserve_raise=any(g.label for g in groups), reserve_bar=False, step=step,
                         max_width=max_width, theme=theme)
        size = theme.index_size + LABEL_SIZE_EXTRA
        lines = [text_line(_fit(g.label, size, True, LABEL_MAX_W), size, True, theme.marked) if g.label else None
                 for g in groups]
        starts, index = [], 0
        for group in groups:
            starts.append(index)
            index += len(group.cards)
        needs = {start: (2 + line.width + LABEL_PAD if line else 0) for start, line in zip(starts, lines)}
        card_w = self.deck.card_size[0]
        plan, width = self.plan, max_width
        for _ in range(4):
            roomy = _make_room(plan, needs, card_w)
            if roomy.width <= max_width:
                plan = roomy
                break
            width -= roomy.width - max_width
            if width < card_w:
                break
            plan = plan_cards(cards, self.deck, width, theme.group_gap, self.plan.step)
        if plan.width > max_width:  # cannot make room: keep the plain plan, labels are cut below
            plan = self.plan
        self.plan = plan
        self.width = plan.width
        self.height = plan.rows * self.row_h + (plan.rows - 1) * theme.row_gap
        slots = {s.index: s for s in plan.slots}
        firsts = [slots[i] for i in starts]
        self.labels = []
        for first, following, group, line in zip(firsts, firsts[1:] + [None], groups, lines):
            if line is None:
                continue
            right = following.x - LABEL_PAD if following is not None and following.row == first.row else max_width
            room = right - (first.x + 2)  # a label starts 2 px in
            if line.width > room:  # no room was made: cut it (a line is 2 px wider than its text)
                line = text_line(_fit(group.label, size, True, max(room - 2, 12)), size, True, theme.marked)
            self.labels.append((first, line))

    def draw(self, canvas, x, y):
        if not self.plan.slots:
            super().draw(canvas, x, y)
        row_h = self.row_h + self.theme.row_gap
        draw = ImageDraw.Draw(canvas) if self.marked else None
        card_h = self.deck.card_size[1]
        for slot in self.plan.slots:  # each card over its shadow, in one paste
            image, dx, dy = shadowed_sprite(slot.code, self.deck)
            canvas.paste(image, (x + slot.x - dx, y + slot.row * row_h + self.raise_space - dy), image)
            if draw is not None and slot.index in self.marked:
                bar_y = y + slot.row * row_h + self.raise_space + card_h + self.theme.bar_gap
                draw.rounded_rectangle((x + slot.x + 3, bar_y, x + slot.x + slot.visible - 4,
                                        bar_y + self.theme.bar_h - 1), radius=2, fill=self.theme.marked)
        for slot, line in self.labels:
            top = y + slot.row * (self.row_h + self.theme.row_gap)
            paste_text(canvas, line, (x + slot.x + 2, top + max(0, self.raise_space - line.height - 1)))


def _make_room(plan: CardPlan, needs: dict[int, int], card_w: int) -> CardPlan:
    """``plan`` with each group moved right, within its row, far enough for the label of the
    group before it (``needs``: slot index of a group's first card -> the width its label
    needs; every group's first card is a key)."""
    slots, row, shift, free_from = [], -1, 0, 0
    for s in plan.slots:
        if s.row != row:  # a new row: nothing to its left
            row, shift, free_from = s.row, 0, 0
        if s.index in needs:
            x = s.x + shift
            if x < free_from:
                shift += free_from - x
            free_from = s.x + shift + needs[s.index]
        slots.append(Slot(s.index, s.code, s.x + shift, s.row, s.visible))
    width = max((s.x + card_w for s in slots), default=plan.width)
    return CardPlan(tuple(slots), plan.rows, width, plan.step)


class NameLine(Block):
    """A player's name (bold), with his detail after it on the same line as far as its facts
    fit ("Lan  9 cards · khap 0"), the rest under it (wrapped to the width, between facts)."""

    def __init__(self, name: str, detail: str, *, colour, max_width: int, theme=PICTURE_THEME):
        size = _detail_size(theme)
        self.name = Words(_fit(name, theme.label_size, True, max_width), theme.label_size, True, colour)
        self.details: list[tuple[Words, tuple[int, int]]] = []
        first, rest = _flow(_facts(detail), size, max_width - self.name.width - NAME_GAP, max_width)
        if first:
            line = Words(first, size, False, theme.muted)
            self.details.append((line, (self.name.width + NAME_GAP, self.name.baseline - line.baseline)))
        y = self.name.height
        for part in rest:
            line = Words(part, size, False, theme.muted)
            self.details.append((line, (0, y)))
            y += line.height
        self.width = max([self.name.width] + [x + line.width for line, (x, _y) in self.details])
        self.height = max([self.name.height] + [y + line.height for line, (_x, y) in self.details])

    def draw(self, canvas, x, y):
        self.name.paste(canvas, (x, y))
        for line, (dx, dy) in self.details:
            line.paste(canvas, (x + dx, y + dy))


@lru_cache(maxsize=512)
def seat_panel(row: Row, seat: SeatBox | None, *, deck: str, inner: int, step: int | None,
               theme=PICTURE_THEME) -> Panel:
    """A player's panel: his name (and his seat's detail, when the seats are drawn in the
    panels), then his row of card groups ("—" when it has none); outlined when he is to act.
    Cached (blocks are not changed by drawing): the layouts tried share panels, and so do
    the pictures of successive moves."""
    active = row.active or (seat is not None and seat.active)
    colour = ACTIVE if active else theme.muted if seat is not None and seat.dim else theme.text
    detail = " · ".join(seat.detail.splitlines()) if seat is not None else ""
    head = NameLine(row.label, detail, colour=colour, max_width=inner, theme=theme)
    groups = tuple(g for g in row.groups if g.cards)
    body: Block = (LabelledCardsBlock(groups, deck=deck, max_width=inner, step=step, theme=theme) if groups
                   else _text_block("—", theme.caption_size, theme.muted, False, inner))
    return Panel(Column([(head, 0), (body, 2 if groups else 6)]), outline=ACTIVE if active else theme.empty_slot,
                 line=3 if active else 1, theme=theme)


GRID_GAP = 10


def rows_grid(rows: tuple[Row, ...], seats: tuple[SeatBox, ...] | None, *, deck: str, panel_width: int,
              columns: int, theme=PICTURE_THEME) -> Grid:
    """One panel per row (with its seat's box when ``seats`` is given), ``columns`` to a line,
    every panel's cards at the same fan step, so they line up."""
    inner = panel_width - 2 * Panel.PAD
    filled = [tuple(g for g in r.groups if g.cards) for r in rows]
    step = common_step([[g.cards for g in groups] for groups in filled if groups], get_deck(deck), inner,
                       theme.group_gap)
    panels = [seat_panel(row, seats[i] if seats else None, deck=deck, inner=inner, step=step, theme=theme)
              for i, row in enumerate(rows)]
    return Grid(panels, columns, GRID_GAP)


def _row_natural(row: Row, deck, theme) -> int:
    """About how wide a row's panel content is on one line (labels pushing groups included)."""
    groups = [g for g in row.groups if g.cards]
    size = theme.index_size + LABEL_SIZE_EXTRA
    width = one_line_width([g.cards for g in groups], deck, theme.group_gap)
    width += sum(max(0, measure(g.label, size, True) + LABEL_PAD - deck.card_size[0]) for g in groups if g.label
                 and len(g.cards) == 1)
    return max(width, measure(row.label, theme.label_size, True))


def _drawable(ch: str) -> bool:
    """Whether the picture's fonts draw ``ch`` (suits are drawn as shapes)."""
    return ch in SUIT_CHARS or all(has_glyph(c) for c in prepare_text(ch))


@lru_cache(maxsize=4096)
def printable(text: str) -> str:
    """``text`` without the characters no font of the chain draws (they would print as a
    replacement: "\ue000 Lan" -> "Lan"), spaces collapsed. Empty if nothing is left."""
    return " ".join("".join(ch for ch in text if _drawable(ch)).split())


_shadowed: dict[tuple[str, str], tuple[Image.Image, Image.Image, int, int]] = {}


def shadowed_sprite(code: str, deck: Deck) -> tuple[Image.Image, int, int]:
    """The card over its shadow as one RGBA image (read-only, cached) and where the card's
    top left corner is in it: pasting it is pasting the shadow then the card, in one go."""
    sprite = card_sprite(code, deck)
    found = _shadowed.get((deck.name, code))
    if found is not None and found[0] is sprite:  # (a deck registered again draws new sprites)
        return found[1:]
    shadow, margin = card_shadow(deck)
    sdx, sdy = THEME.shadow_offset
    sx, sy = sdx - margin, sdy - margin  # the shadow's corner, relative to the card's
    left, top = min(0, sx), min(0, sy)
    right = max(sprite.width, sx + shadow.width)
    bottom = max(sprite.height, sy + shadow.height)
    image = Image.new("RGBA", (right - left, bottom - top), (0, 0, 0, 0))
    layer = Image.new("RGBA", shadow.size, (0, 0, 0, 0))
    layer.putalpha(shadow)
    image.alpha_composite(layer, (sx - left, sy - top))
    image.alpha_composite(sprite, (-left, -top))
    image.load()
    if len(_shadowed) < 2048:
        _shadowed[(deck.name, code)] = (sprite, image, -left, -top)
    return image, -left, -top


def picture_names(names: list[str], seat_name: Callable[[int], str] = "Seat {}".format) -> list[str]:
    """The seats' names as a picture shows them: :func:`printable`, ``seat_name(3)`` ("Seat 3";
    the bot passes it in the table's language) for a name with nothing printable."""
    return [printable(name) or seat_name(seat + 1) for seat, name in enumerate(names)]


def _wrapped(text: str, size: int, width: int) -> list[str]:
    """``text``'s lines (each kept a line of its own: "7 cards" / "total 10"), each wrapped to
    ``width`` px between its facts ("7 cards · not opened" is never cut inside "not opened")."""
    return [part for line in text.splitlines() if printable(line)
            for part in wrap_items(printable(line), size, False, width)]


@lru_cache(maxsize=1024)
def _fit(text: str, size: int, bold: bool, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` px, without the characters the font
    cannot draw (names with emoji)."""
    text = printable(text)
    if measure(text, size, bold) <= width:
        return text
    while text and measure(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


# ---------------------------------------------------------------------------- the picture

@lru_cache(maxsize=256)
def _labelled(groups: tuple[Group, ...], deck: str, width: int, theme) -> LabelledCardsBlock:
    return LabelledCardsBlock(groups, deck=deck, max_width=width, theme=theme)


def _merged(picture: TablePicture) -> Section | None:
    """The section whose rows are the seats' (one row per seat, in order, named alike): its
    panels show the seats' boxes, which are not drawn apart."""
    names = [s.name for s in picture.seats]
    for section in picture.sections:
        if section.rows and [r.label for r in section.rows] == names:
            return section
    return None


def _right(picture: TablePicture, width: int, panel: tuple[int, int] | None, merged: Section | None,
           theme=PICTURE_THEME, seats: bool = True, em: int = BOX_EM) -> Column:
    """Everything but the title and the piles (and the seats' boxes unless ``seats``), within
    ``width`` px; ``panel``: the rows' (panel width, columns)."""
    parts: list[tuple[Block | None, int]] = []
    if seats and picture.seats and merged is None:
        parts.append((_seats(picture.seats, width, theme, em), 0))
    for section in picture.sections:
        parts.append((_text_block(section.title, theme.caption_size, theme.muted, True, width), 10))
        groups = tuple(g for g in section.groups if g.cards)
        if groups:
            parts.append((_labelled(groups, picture.deck, width, theme), 0))
        has_rows = any(g.cards for row in section.rows for g in row.groups)
        if not groups and not has_rows:
            parts.append((_text_block(section.empty, theme.caption_size, theme.muted, False, width), 2))
        if section.rows and (has_rows or section is merged):
            panel_width, columns = panel or (width, 1)
            parts.append((rows_grid(section.rows, picture.seats if section is merged else None, deck=picture.deck,
                                    panel_width=panel_width, columns=columns, theme=theme), 6))
    return Column(parts)


def _sized(build, guess: int, strict: bool = True) -> Block | None:
    """``build(theme)`` (a whole picture's content) with its text as small as its own width
    allows: its numbers must read when the picture is shown 400 px wide
    (:func:`rendering.landscape.readable_size`). Larger text makes a wider picture, which needs
    larger text: sizes are tried from the one ``guess`` px wide needs, up the ladder. When the
    text keeps outgrowing the picture (an arrangement with too many words across): None, or
    unless ``strict`` the last tried."""
    pad = PICTURE_THEME.padding
    size = readable_size(guess)
    for _ in range(4):
        block = build(sized_theme(size))
        need = readable_size(max(PICTURE_THEME.min_width, block.width + 2 * pad))
        if need <= size:
            return block
        size = need
    return None if strict else block


def _readable(candidates, fallback):
    """The ``candidates`` that are not None; ``fallback()`` if none is."""
    found = False
    for block in candidates:
        if block is not None:
            found = True
            yield block
    if not found:
        yield fallback()


@lru_cache(maxsize=256)
def _seats(seats: tuple[SeatBox, ...], width: int, theme, em: int) -> SeatsBlock:
    return SeatsBlock(seats, max_width=width, theme=theme, em=em)


@lru_cache(maxsize=128)
def _piles(piles: tuple[Pile, ...], deck: str, theme, vertical: bool = True) -> PilesBlock:
    return PilesBlock(piles, deck=deck, theme=theme, vertical=vertical)


def _layouts(picture: TablePicture, strict: bool = True):
    """Every arrangement tried (:func:`rendering.landscape.choose` picks one): the title over the
    piles (one below the other) at the left of the rest, which is laid out at a few widths, its
    rows of players in panels in 1 to 3 columns. Each is set with its text sized for its width
    (:func:`_sized`); one whose text outgrows it is None unless not ``strict``."""
    base = PICTURE_THEME
    deck = get_deck(picture.deck)
    merged = _merged(picture)
    rows = [row for section in picture.sections for row in section.rows]
    pad = base.padding
    # the piles' width at the smallest text: where the guess of each layout's width starts
    beside = (_piles(picture.piles, picture.deck, sized_theme(SIZES[0])).width + 20) if picture.piles else 0

    def whole(theme, where: str, width: int, panel: tuple[int, int] | None, em: int = BOX_EM) -> Column:
        piles = _piles(picture.piles, picture.deck, theme, where != "top") if picture.piles else None
        if where == "under":  # the seats' boxes across, the piles beside the sections under them
            piles_w = piles.width + 20 if piles else 0
            rest = _right(picture, max(width - piles_w, BOX_W), panel, merged, theme, seats=False)
            body = Column([(_seats(picture.seats, width, theme, em), 0),
                           (Beside([piles, rest], gap=20), 12)])
        else:
            right = _right(picture, width, panel, merged, theme, em=em)
            body = Column([(piles, 0), (right, 12)]) if where == "top" else Beside([piles, right], gap=20)
        title = _text_block(picture.title, theme.title_size, theme.text, True, max(body.width, 360))
        notes = [_text_block(note, theme.caption_size, theme.muted, False, max(body.width, 700))
                 for note in picture.notes]
        return Column([(title, 0), (body, 8)] + [(note, 8) for note in notes])

    def sized(width_of, guess: int, top: bool = True) -> Iterator[Block | None]:
        """The arrangement with the piles at the left, and with them on a line above the rest
        (unless not ``top``) or beside the sections under the seats' boxes (large text leaves
        little room beside them)."""
        yield _sized(lambda theme: whole(theme, "left", *width_of(theme)), 2 * pad + beside + guess, strict)
        if picture.piles:
            if top:
                yield _sized(lambda theme: whole(theme, "top", *width_of(theme)), 2 * pad + guess, strict)
            if picture.sections and picture.seats and merged is None:
                yield _sized(lambda theme: whole(theme, "under", *width_of(theme)), 2 * pad + guess, strict)

    if rows:
        natural = max(_row_natural(row, deck, base) for row in rows) + 2 * Panel.PAD
        count = max(len(section.rows) for section in picture.sections)
        for panel_width in panel_widths(natural, 240, 760):
            for columns in column_counts(count):
                width = max(columns * panel_width + (columns - 1) * GRID_GAP, BOX_W)
                yield from sized(lambda theme, width=width, panel=(panel_width, columns): (width, panel), width)
        return
    seats = picture.seats
    # the seats' boxes k to a row (their width grows with their text), narrower when many
    for k in range(1, len(seats) + 1):
        per_row = -(-len(seats) // -(-len(seats) // k))  # balanced rows: 4 seats 3 to a row are 2 + 2
        for em in (BOX_EM, 6) if per_row >= 3 else (BOX_EM,):
            yield from sized(lambda theme, k=k, em=em: (box_width(seats, theme, em) * k + BOX_GAP * (k - 1), None, em),
                             BOX_W * k + BOX_GAP * (k - 1))
    widths: set[int] = set()
    groups = [g for section in picture.sections for g in section.groups if g.cards]
    if groups:
        natural = one_line_width([g.cards for g in groups], deck, base.group_gap) + len(groups) * 12
        widths |= set(panel_widths(natural, 300, 1000, lines=range(1, 7)))
    for width in sorted(widths)[-8:] if len(widths) > 8 else sorted(widths):
        # (the sections' widths: the seats' boxes above the sections, not the piles, hold the width)
        yield from sized(lambda theme, width=width: (width, None), width, top=False)
    if not seats and not widths:
        yield from sized(lambda theme: (360, None), 360)


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


MAX_WIDTH = 1400  # px: wider, the cards are shown too small (the words grow with the width)
SQUARE = 1.15  # at most this much taller than wide, when no arrangement of the words is wider


def _choose(candidates, pad: int) -> Block:
    """The arrangement to draw: one at most :data:`MAX_WIDTH` wide and not much taller than wide
    (Discord shows an embed's picture in at most :data:`~rendering.landscape.VIEW`: a tall one
    is shown small), if any; a landscape one among them, if any, else the widest for its
    height; then the one whose cards are shown the largest; ties go to the smaller picture.
    (Its words are sized for its width: they read as well in any.)"""
    def key(block: Block):
        width, height = block.width + 2 * pad, block.height + 2 * pad
        landscape = width > height
        return (width <= MAX_WIDTH and height <= SQUARE * width, landscape,
                shown_scale(width, height) if landscape else width / height, -width * height)

    return max(candidates, key=key)


@lru_cache(maxsize=32)
def _arranged(picture: TablePicture) -> Block:
    """The arrangement chosen for ``picture`` (kept: the same picture is drawn again, in other
    threads too, as blocks are not changed by drawing)."""
    # (when no arrangement's text can be sized for it, the first one as large as was tried)
    return _choose(_readable(_layouts(picture), lambda: next(_layouts(picture, strict=False))),
                   PICTURE_THEME.padding)


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


@lru_cache(maxsize=256)
def _text_block(text: str, size: int, colour, bold: bool, max_width: int) -> TextBlock:
    """A wrapped text block, measured once per text (blocks are not changed by drawing)."""
    return TextBlock(text, size, colour, bold=bold, max_width=max_width)


def render_table_picture(picture: TablePicture) -> bytes:
    """The upload bytes of the table (:func:`rendering.encode.encode_picture`). Thread-safe
    (each thread draws on its own canvas)."""
    canvas, width, height = _draw(picture)
    return encode_picture(canvas, picture.deck, (0, 0, width, height))


async def render_table_picture_async(picture: TablePicture) -> bytes:
    """:func:`render_table_picture` on the rendering thread pool (never blocks the event loop)."""
    return await _async.run(render_table_picture, picture)



