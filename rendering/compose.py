"""Composition shared by the hand and table images: card-row layout, blocks.

An image is a vertical stack of *blocks* (text lines, a fan of cards, a separator) on a felt
background. :func:`plan_cards` decides where each card goes (fan step, group gaps, wrapping);
:class:`CardsBlock` draws such a plan; :func:`render_stack` lays blocks out (:mod:`rendering.encode`
makes the upload bytes).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from .sprites import Deck, card_outline, card_shadow, card_sprite, get_deck
from .text import TextLine, paste_text, text_line, wrap

__all__ = [
    "Theme",
    "THEME",
    "Slot",
    "CardPlan",
    "plan_cards",
    "common_step",
    "CardsBlock",
    "TextBlock",
    "render_stack",
]

Color = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    background: Color = (28, 74, 52)        # dark felt green
    text: Color = (242, 245, 240)
    muted: Color = (186, 210, 195)
    index: Color = (150, 186, 166)
    red_text: Color = (255, 120, 120)       # ♥♦ inside captions
    marked: Color = (255, 183, 56)          # eaten cards (amber)
    selected: Color = (255, 222, 89)        # raised cards' outline
    separator: Color = (44, 98, 72)
    empty_slot: Color = (70, 122, 96)
    padding: int = 16
    max_width: int = 1100                   # whole image, px
    min_width: int = 220
    group_gap: int = 14
    row_gap: int = 8                        # between wrapped rows of one hand
    raise_px: int = 18
    bar_gap: int = 3
    bar_h: int = 4
    title_size: int = 19
    caption_size: int = 16
    label_size: int = 17
    index_size: int = 12
    block_gap: int = 10
    shadow_offset: tuple[int, int] = (-2, 2)


THEME = Theme()


# ---------------------------------------------------------------------------- layout

@dataclass(frozen=True)
class Slot:
    index: int      # flat position in the concatenated groups
    code: str
    x: int          # left edge relative to the block
    row: int        # wrapped row number, 0-based
    visible: int    # width not covered by the next card


@dataclass(frozen=True)
class CardPlan:
    slots: tuple[Slot, ...]
    rows: int
    width: int
    step: int


def _one_row_width(groups: Sequence[Sequence[str]], card_w: int, step: int, gap: int) -> int:
    sizes = [len(g) for g in groups if g]
    if not sizes:
        return 0
    return sum(card_w + step * (n - 1) for n in sizes) + gap * (len(sizes) - 1)


def best_step(groups: Sequence[Sequence[str]], deck: Deck, max_width: int, gap: int) -> int:
    """The most generous fan step (within the deck's range) that fits one row, else the
    tightest (the plan then wraps)."""
    lo, hi = deck.fan_step
    card_w = deck.card_size[0]
    for step in range(hi, lo - 1, -1):
        if _one_row_width(groups, card_w, step, gap) <= max_width:
            return step
    return lo


def common_step(all_groups: Sequence[Sequence[Sequence[str]]], deck: Deck, max_width: int,
                gap: int) -> int:
    """One step for several hands shown together, so they line up."""
    return min((best_step(g, deck, max_width, gap) for g in all_groups), default=deck.fan_step[1])


def plan_cards(groups: Sequence[Sequence[str]], deck: Deck, max_width: int, gap: int,
               step: int | None = None, balance: bool = True) -> CardPlan:
    """Place the cards of ``groups`` left to right, wrapping rows to ``max_width``.

    A group that does not fit the rest of a row starts a new row if it fits a whole row;
    only a group longer than a whole row is split. When wrapping is needed, rows are
    balanced (the narrowest width that still needs no more rows), so 25 cards make two
    similar rows rather than a full row and a stub (unless not ``balance``: in a box of a set
    width, the rows are as many either way).
    """
    if step is None:
        step = best_step(groups, deck, max_width, gap)
    plan = _plan(groups, deck, max_width, gap, step)
    if plan.rows > 1 and balance:
        one_row = _one_row_width(groups, deck.card_size[0], step, gap)
        target = max(deck.card_size[0], one_row // plan.rows)
        while target < max_width:
            balanced = _plan(groups, deck, target, gap, step)
            if balanced.rows <= plan.rows:
                return balanced
            target += 8
    return plan


def _plan(groups: Sequence[Sequence[str]], deck: Deck, max_width: int, gap: int,
          step: int) -> CardPlan:
    card_w = deck.card_size[0]
    slots: list[Slot] = []
    row, x = 0, 0           # x: where the next group would start
    row_used = False
    index = 0
    widths = [0]
    for group in groups:
        if not group:
            continue
        gw = card_w + step * (len(group) - 1)
        start = x + (gap if row_used else 0)
        if row_used and start + gw > max_width and gw <= max_width:
            row += 1
            widths.append(0)
            start, row_used = 0, False
        cx = start
        first_in_run = True
        for k, code in enumerate(group):
            if not first_in_run:
                cx += step
            if row_used and cx + card_w > max_width:
                # the group itself is too long: continue it on the next row
                row += 1
                widths.append(0)
                cx, row_used = 0, False
            slots.append(Slot(index, code, cx, row, card_w))
            widths[row] = cx + card_w
            row_used = True
            first_in_run = False
            index += 1
        x = widths[row]
    # visible width: up to the next card of the same row, when they overlap
    final: list[Slot] = []
    for i, s in enumerate(slots):
        visible = s.visible
        if i + 1 < len(slots):
            nxt = slots[i + 1]
            if nxt.row == s.row and nxt.x - s.x < card_w:
                visible = nxt.x - s.x
        final.append(Slot(s.index, s.code, s.x, s.row, visible))
    return CardPlan(tuple(final), (row + 1) if slots else 1, max(widths) if slots else card_w, step)


# ---------------------------------------------------------------------------- blocks

class Block:
    width: int = 0
    height: int = 0

    def draw(self, canvas: Image.Image, x: int, y: int) -> None:  # pragma: no cover
        raise NotImplementedError


class TextBlock(Block):
    """Wrapped text, left-aligned."""

    def __init__(self, text: str, size: int, color: Color, *, bold: bool = False,
                 max_width: int, theme: Theme = THEME):
        self.lines: list[TextLine] = [
            text_line(line, size, bold, color, theme.red_text)
            for line in wrap(text, size, bold, max_width)
        ]
        self.width = max((ln.width for ln in self.lines), default=0)
        self.height = sum(ln.height for ln in self.lines)

    def draw(self, canvas, x, y):
        for ln in self.lines:
            paste_text(canvas, ln, (x, y))
            y += ln.height


class CardsBlock(Block):
    """A fan of cards: overlapping within groups, gaps between groups, wrapped rows.

    ``selected`` cards are raised and outlined; ``marked`` cards get a bar underneath;
    ``show_index`` prints each card's position (``index_base``-based) under it.
    """

    def __init__(self, groups: Sequence[Sequence[str]], *, deck: str | Deck = "french",
                 marked: Collection[int] = (), selected: Collection[int] = (),
                 show_index: bool = True, index_base: int = 1, reserve_raise: bool = True,
                 reserve_bar: bool = True, step: int | None = None, max_width: int,
                 theme: Theme = THEME):
        self.deck = get_deck(deck)
        self.theme = theme
        self.marked = frozenset(marked)
        self.selected = frozenset(selected)
        self.show_index = show_index
        self.index_base = index_base
        self.plan = plan_cards(groups, self.deck, max_width, theme.group_gap, step)
        # resolve sprites now so a bad code fails before any drawing
        self.sprites = [card_sprite(s.code, self.deck) for s in self.plan.slots]
        card_w, card_h = self.deck.card_size
        self.raise_space = theme.raise_px if (reserve_raise or self.selected) else 0
        has_bar = reserve_bar or bool(self.marked)
        below = (theme.bar_gap + theme.bar_h) if has_bar else 0
        self.index_lines: list[TextLine | None] = []
        index_h = 0
        if show_index:
            for s in self.plan.slots:
                color = (theme.selected if s.index in self.selected
                         else theme.marked if s.index in self.marked else theme.index)
                ln = text_line(str(s.index + index_base), theme.index_size,
                               s.index in self.selected or s.index in self.marked, color)
                self.index_lines.append(ln)
                index_h = max(index_h, ln.height)
            below += 1 + index_h
        self.below = below
        self.row_h = self.raise_space + card_h + below
        rows = self.plan.rows
        self.width = self.plan.width
        self.height = rows * self.row_h + (rows - 1) * theme.row_gap

    def draw(self, canvas, x, y):
        theme = self.theme
        deck = self.deck
        card_w, card_h = deck.card_size
        if not self.plan.slots:
            self._draw_empty(canvas, x, y + self.raise_space)
            return
        shadow, margin = card_shadow(deck)
        outline = card_outline(deck)
        sdx, sdy = theme.shadow_offset
        draw = ImageDraw.Draw(canvas)
        for i, (slot, sprite) in enumerate(zip(self.plan.slots, self.sprites)):
            top = y + slot.row * (self.row_h + theme.row_gap)
            cx = x + slot.x
            cy = top + self.raise_space
            if slot.index in self.selected:
                cy -= theme.raise_px
            canvas.paste((0, 0, 0), (cx - margin + sdx, cy - margin + sdy), shadow)
            canvas.paste(sprite, (cx, cy), sprite)
            if slot.index in self.selected:
                canvas.paste(theme.selected, (cx, cy), outline)
            bar_y = top + self.raise_space + card_h + theme.bar_gap
            vis = slot.visible
            if slot.index in self.marked:
                draw.rounded_rectangle((cx + 3, bar_y, cx + vis - 4, bar_y + theme.bar_h - 1),
                                       radius=2, fill=theme.marked)
            if self.show_index:
                ln = self.index_lines[i]
                lx = cx + (vis - ln.width) // 2
                paste_text(canvas, ln, (lx, bar_y + theme.bar_h + 1))

    def _draw_empty(self, canvas, x, y):
        card_w, card_h = self.deck.card_size
        draw = ImageDraw.Draw(canvas)
        # dashed rounded outline: a faint empty slot
        draw.rounded_rectangle((x, y, x + card_w - 1, y + card_h - 1),
                               radius=self.deck.corner_radius, outline=self.theme.empty_slot,
                               width=2)


# ---------------------------------------------------------------------------- stack

@dataclass
class Stack:
    blocks: list[tuple[Block, int]] = field(default_factory=list)  # block, gap before

    def add(self, block: Block, gap: int = THEME.block_gap) -> None:
        self.blocks.append((block, gap if self.blocks else 0))


def render_stack(stack: Stack, theme: Theme = THEME) -> Image.Image:
    pad = theme.padding
    inner_w = max((b.width for b, _ in stack.blocks), default=0)
    width = min(theme.max_width, max(theme.min_width, inner_w + 2 * pad))
    height = 2 * pad + sum(b.height + gap for b, gap in stack.blocks)
    canvas = Image.new("RGB", (width, max(height, 2 * pad)), theme.background)
    y = pad
    for block, gap in stack.blocks:
        y += gap
        block.draw(canvas, pad, y)
        y += block.height
    return canvas


def inner_width(theme: Theme = THEME) -> int:
    return theme.max_width - 2 * theme.padding
