"""The boxes every picture shown in a channel is made of (the table, a round, a result), each
measuring itself before anything is drawn, so no text leaves its box:

- :class:`Text`: one line, shortened with an ellipsis to its room (never wrapped, never over a border);
- :class:`Header`: a seat's one line: its name, then badges (:mod:`rendering.badges`) or facts
  ("27 points"); what does not fit is left out (the embed says it), the name shortened first;
- :class:`Cards`: groups of cards in rows, a mark over a group's first card (a glyph, or a short
  label: a meld's number), a bar under the cards ``marked``;
- :class:`Piles`: cards with their captions (the stock and its count);
- :class:`Box`: a framed panel (a seat: a header over cards), filled, outlined when it acts.

Every text is sized by :class:`Style`, chosen for the width the picture is drawn at, so that
its numbers read once the picture is shown :data:`~rendering.landscape.VIEW` wide.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from .badges import Badge, glyph_image, glyph_width
from .compose import THEME, Block, CardPlan, Slot
from .fonts import has_glyph, prepare_text
from .landscape import PICTURE_THEME, Loss, Panel
from .shapes import SUIT_CHARS
from .sprites import card_shadow, card_sprite, get_deck
from .text import crop_line, line_size, measure, paste_text, text_line

__all__ = ["ACTIVE", "Box", "Cards", "Header", "Mark", "Number", "Piles", "Style", "Text", "common_step", "facts",
           "fit", "printable", "shadowed_sprite"]

ACTIVE = (255, 200, 60)  # the seat to act: its outline and name
BOX_FILL = (36, 88, 63)
BOX_DIM = (33, 62, 48)


def _drawable(ch: str) -> bool:
    """Whether the picture's fonts draw ``ch`` (suits are drawn as shapes)."""
    return ch in SUIT_CHARS or all(has_glyph(c) for c in prepare_text(ch))


@lru_cache(maxsize=4096)
def printable(text: str) -> str:
    """``text`` without the characters no font of the chain draws (they would print as a
    replacement: "\ue000 Lan" -> "Lan"), spaces collapsed. Empty if nothing is left."""
    return " ".join("".join(ch for ch in text if _drawable(ch)).split())


@lru_cache(maxsize=4096)
def fit(text: str, size: int, bold: bool, width: int) -> str:
    """``text`` (:func:`printable`) as it fits ``width`` px on one line: whole, or cut with an
    ellipsis; "" when not even one letter and the ellipsis fit."""
    text = printable(text)
    if line_size(text, size, bold)[0] <= width:
        return text
    low, high = 0, len(text)  # the longest cut that fits: its width grows with its length
    while low < high:
        mid = (low + high + 1) // 2
        if line_size(text[:mid].rstrip() + "…", size, bold)[0] <= width:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + "…" if low else ""


@dataclass(frozen=True)
class Style:
    """The text of a picture drawn for one width: ``size`` px, which makes a digit
    :data:`~rendering.landscape.DIGIT_PX` tall when the picture is shown 400 px wide."""
    size: int
    theme: object = PICTURE_THEME

    @property
    def line_h(self) -> int:
        return line_size("Ẫg", self.size, True)[1]

    @property
    def glyph_h(self) -> int:
        """A badge's glyph: as tall as a digit."""
        return round(self.size * 0.74)

    @property
    def gap(self) -> int:
        """Between a header's items (a dot between two facts fits in it)."""
        return round(self.size * 0.55)


class Text(Block):
    """One line of text within ``width`` px (shortened to fit: :func:`fit`); left out (empty)
    when shortened to fewer than ``least`` letters, which would say nothing."""

    def __init__(self, text: str, size: int, bold: bool, colour, width: int, least: int = 1):
        self.text = fit(text, size, bold, width)
        if self.text.endswith("…") and len(self.text) - 1 < least:
            self.text = ""
        self.size, self.bold, self.colour = size, bold, colour
        self.width, self.height, self.baseline = line_size(self.text, size, bold) if self.text else (0, 0, 0)

    def draw(self, canvas, x, y):
        if self.text:
            paste_text(canvas, text_line(self.text, self.size, self.bold, self.colour), (x, y))


def _has_number(item) -> bool:
    kind, value, _width = item
    return bool(value.value) if kind == "badge" else any(ch.isdigit() for ch in value)


def _key_fact(items: list) -> int | None:
    """Where the first fact with a number is among ``items``: the one a row is shown for (a
    result's chips, a round's points: "never opened · +100 → 127")."""
    return next((k for k, (kind, value, _w) in enumerate(items)
                 if kind == "fact" and any(ch.isdigit() for ch in value)), None)


def _keep(items: list, room: int, gap: int) -> list:
    """The ``items`` (kind, item, width) a line of ``room`` px shows, in their order: all that
    fit; when they do not, those with a number first (the badges' — each has its glyph — and
    the first fact with one), then the other facts with one, then the others (a glyph alone:
    opened; words: "never opened"), each in its order, as long as they fit."""
    key = _key_fact(items)

    def rank(k: int) -> int:
        kind, value, _width = items[k]
        if kind == "badge":
            return 0 if value.value else 2
        return 0 if k == key else 1 if any(ch.isdigit() for ch in value) else 3

    kept, used = set(), 0
    for k in sorted(range(len(items)), key=lambda k: (rank(k), k)):
        more = items[k][2] + (gap if kept else 0)
        if used + more <= room:
            kept.add(k)
            used += more
    return [item for k, item in enumerate(items) if k in kept]


class Number(Block):
    """A number in bold, within ``width`` px (or left out), cropped to its digits' height (they
    have no accent nor descender to make room for): a meld's number over its first card takes
    little of the picture's height."""

    def __init__(self, text: str, size: int, colour, width: int):
        self.text, self.size, self.colour = text, size, colour
        line_w, _line_h, self.baseline = line_size(text, size, True)
        self.shown = line_w <= width
        self.width = line_w if self.shown else 0
        self.height = round(size * 0.74) + 2 if self.shown else 0

    def draw(self, canvas, x, y):
        if self.shown:
            line = text_line(self.text, self.size, True, self.colour)
            paste_text(canvas, crop_line(line, self.baseline + 1 - self.height, self.baseline + 1), (x, y))


class Header(Block):
    """A seat's line: its ``name`` (bold), then its badges, then its ``facts`` (muted words:
    "27 points", "+4 chips"), all on one line of ``width`` px. The name is shortened to leave
    the badges and facts room, down to :attr:`NAME_EM` em; then the last badges and facts are
    left out (:attr:`dropped` counts them: the embed says them). With ``two_lines``, badges
    and facts go on a line of their own under the name when that keeps a number the one line
    would leave out. ``deck``: the hand glyph's."""

    NAME_EM = 3.5

    def __init__(self, name: str, badges: tuple[Badge, ...], facts: tuple[str, ...], *, style: Style, width: int,
                 colour, deck: str = "french", two_lines: bool = False):
        theme, size, gap = style.theme, style.size, style.gap
        self.style, self.deck = style, deck
        items = [("badge", b, self._badge_width(b)) for b in badges] + \
                [("fact", printable(f), measure(printable(f), size) + 2) for f in facts if printable(f)]
        whole = line_size(printable(name), size, True)[0]
        # for the items, the name shortened; on a line of their own, if that keeps a number more
        kept = _keep(items, max(0, width - min(whole, round(self.NAME_EM * size)) - gap), gap)
        self.below, shortened = False, 0
        if two_lines and any(_has_number(item) for item in items if item not in kept):
            self.below = True
            kept = _keep(items, width, gap)
            key = _key_fact(items)
            if key is not None and items[key] not in kept:  # too long for a line: shortened, its number first
                short = fit(items[key][1], size, False, width)
                if short:
                    items[key] = ("fact", short, measure(short, size) + 2)
                    kept, shortened = _keep(items, width, gap), 1
        used = sum(w for _k, _i, w in kept) + gap * max(0, len(kept) - 1)
        self.dropped = len(items) - len(kept)
        beside = used + gap if kept and not self.below else 0
        self.name = Text(name, size, True, colour, width - beside)
        self.cut = self.name.text != printable(name)
        # what the line lost: its numbers left out (the badges', the first fact with one); the
        # rest (a glyph alone, the other facts, a name shown shorter than 8 letters: it is hard
        # to tell from another)
        left = [item for item in items if item not in kept]
        key = _key_fact(items)
        numbers = sum(1 for kind, value, _w in left if kind == "badge" and value.value) + \
            (key is not None and items[key] in left)
        short_name = self.cut and len(self.name.text) - 1 < min(8, len(printable(name)))
        self.lost = Loss(numbers, len(left) - numbers + shortened + short_name)
        self.items = kept
        self.muted = theme.muted
        self.text_colour = theme.text if colour != theme.muted else theme.muted
        # every piece of a line on one baseline, low enough for the tallest (an emoji, a stacked accent)
        metrics = [line_size("Ẫg", size, True)] + [line_size(i, size) for k, i, _w in kept if k == "fact"] + \
            ([line_size(self.name.text, size, True)] if self.name.text else [])
        self.baseline = max(baseline for _w, _h, baseline in metrics)
        self.line_h = max(self.baseline - baseline + height for _w, height, baseline in metrics)
        self.height = self.line_h * (2 if self.below and kept else 1)
        self.width = max(self.name.width, used) if self.below else self.name.width + beside

    def _badge_width(self, badge: Badge) -> int:
        glyph = glyph_width(badge.glyph, self.style.glyph_h, self.deck) if badge.glyph else 0
        value = measure(badge.value, self.style.size) + 2 if badge.value else 0
        return glyph + (round(self.style.size * 0.15) if glyph and value else 0) + value

    def draw(self, canvas, x, y):
        style = self.style
        self.name.draw(canvas, x, y + self.baseline - self.name.baseline)
        base = y + self.baseline + (self.line_h if self.below else 0)
        at = x if self.below else x + self.name.width + style.gap
        previous = None
        for kind, item, width in self.items:
            if kind == "fact":
                if previous == "fact":  # words need a mark between them: a dot in the gap
                    dot = text_line("·", style.size, False, self.muted)
                    paste_text(canvas, dot, (at - (style.gap + dot.width) // 2, base - dot.baseline))
                line = text_line(item, style.size, False, self.muted)
                paste_text(canvas, line, (at, base - line.baseline))
            else:
                value_x = at
                if item.glyph:
                    image = glyph_image(item.glyph, style.glyph_h, self.text_colour, self.deck)
                    canvas.paste(image, (at, base - style.glyph_h), image)
                    value_x += image.width + round(style.size * 0.15)
                if item.value:
                    line = text_line(item.value, style.size, False, self.text_colour)
                    paste_text(canvas, line, (value_x, base - line.baseline))
            at += width + style.gap
            previous = kind


@dataclass(frozen=True)
class Mark:
    """What is drawn over a group's first card: a glyph, or a short label (a meld's number)."""
    glyph: str = ""
    label: str = ""


def _advances(group: tuple[str, ...], step: int, same: int) -> list[int]:
    """How far each card of ``group`` is from the one before it: ``step``, or ``same`` for a
    copy of it (a Tứ Sắc khạp, a Chắn pair: its edge says there is one more)."""
    return [0] + [same if card == before else step for before, card in zip(group, group[1:])]


@lru_cache(maxsize=2048)
def _plan(groups: tuple[tuple[str, ...], ...], deck, width: int, gap: int, step: int | None) -> CardPlan:
    """Where each card goes (:class:`rendering.compose.CardPlan`): the groups left to right,
    fanned at ``step`` (None: the most generous that keeps them on one line, else the deck's
    tightest), copies closer; a group that does not fit what is left of a row starts the next
    one, and only a group longer than a row is split. Cached: a seat's cards change by one at
    a move."""
    card_w = deck.card_size[0]
    same = max(10, round(card_w * 0.3))
    low, high = deck.fan_step
    if step is None:  # on one line at a step: the cards, the steps between different cards and between copies
        copies = sum(1 for g in groups for before, card in zip(g, g[1:]) if card == before)
        others = sum(len(g) - 1 for g in groups) - copies
        base = card_w * len(groups) + gap * (len(groups) - 1)
        step = next((at for at in range(high, low - 1, -1) if base + others * at + copies * min(same, at) <= width),
                    low)
    slots, row, x, widths = [], 0, 0, [0]
    index = 0
    for group in groups:
        advances = _advances(group, step, min(same, step))
        whole = card_w + sum(advances)
        if x and x + gap + whole > width and whole <= width:
            row, x = row + 1, 0
            widths.append(0)
        cx = x + gap if x else 0
        for k, (card, advance) in enumerate(zip(group, advances)):
            cx += advance if k else 0
            if k and cx + card_w > width:  # a group longer than a row goes on over the next
                row, cx = row + 1, 0
                widths.append(0)
            slots.append([index, card, cx, row])
            widths[row] = cx + card_w
            index += 1
        x = widths[row]
    final = []
    for k, (index, card, cx, row) in enumerate(slots):
        following = slots[k + 1] if k + 1 < len(slots) else None
        visible = following[2] - cx if following and following[3] == row and following[2] - cx < card_w else card_w
        final.append(Slot(index, card, cx, row, visible))
    return CardPlan(tuple(final), row + 1 if slots else 1, max(widths) if slots else card_w, step)


def common_step(rows, deck, width: int, gap: int) -> int | None:
    """One fan step for several rows of groups shown together, so their cards line up: the
    most generous that keeps each on one line of ``width`` px, else the deck's tightest."""
    rows = [tuple(tuple(g) for g in groups if g) for groups in rows]
    return min((_plan(groups, deck, width, gap, None).step for groups in rows if groups), default=None)


class Cards(Block):
    """Groups of cards (each a tuple of codes), fanned, a gap between groups, in rows within
    ``width`` px (:func:`rendering.compose.plan_cards`; ``step``: the fan step, so the rows of
    several seats line up). ``marks``: per group, what is drawn over its first card;
    ``bars``: per group, the positions (in it) of the cards underlined (eaten, as in a hand)."""

    ROW_GAP = 5  # between wrapped rows

    def __init__(self, groups: tuple[tuple[str, ...], ...], *, deck: str, width: int, style: Style,
                 step: int | None = None, marks: tuple[Mark | None, ...] = (),
                 bars: tuple[tuple[int, ...], ...] = ()):
        self.deck = get_deck(deck)
        self.deck_name = deck
        self.style = style
        theme = style.theme
        kept = [k for k, g in enumerate(groups) if g]
        self.plan = _plan(tuple(groups[k] for k in kept), self.deck, width, theme.group_gap, step)
        marks = [marks[k] if k < len(marks) else None for k in kept]
        bars = [bars[k] if k < len(bars) else () for k in kept]
        starts, index = [], 0
        self.barred: set[int] = set()  # positions in the run of every group's cards
        for group_bars, k in zip(bars, kept):
            starts.append(index)
            self.barred.update(index + i for i in group_bars)
            index += len(groups[k])
        card_h = self.deck.card_size[1]
        self.mark_h = round(style.glyph_h * 0.8)  # a group's glyph: smaller than a badge's (it labels no number)
        slots = {s.index: s for s in self.plan.slots}
        self.marks = []  # (slot, Mark, Text or None)
        for n, (start, mark) in enumerate(zip(starts, marks)):
            if mark is None or not slots:
                continue
            slot = slots[start]
            following = slots.get(starts[n + 1]) if n + 1 < len(starts) else None
            right = following.x - 4 if following is not None and following.row == slot.row else width
            text = None
            if mark.label:
                text = Number(mark.label, style.size, theme.marked, right - slot.x) if mark.label.isdigit() \
                    else Text(mark.label, style.size, True, theme.marked, right - slot.x)
            self.marks.append((slot, mark, text))
        # a row of cards has a band above it for its marks, if it has any: a label's line, or a glyph's height
        rows = self.plan.rows if self.plan.slots else 0
        bands = [0] * rows
        for slot, mark, text in self.marks:
            bands[slot.row] = max(bands[slot.row], text.height + 4 if text is not None else self.mark_h + 3)
        below = theme.bar_gap + theme.bar_h if self.barred else 0
        self.tops, top = [], 0  # each row's top, and where its cards start
        for band in bands:
            self.tops.append((top, top + band))
            top += band + card_h + below + self.ROW_GAP
        self.width = self.plan.width if self.plan.slots else 0
        self.height = top - self.ROW_GAP if rows else 0
        self.cards = len(self.plan.slots)
        # groups split over two rows (only one longer than a row is): its end reads as a group of its own
        rows_of = {}
        for start, end in zip(starts, starts[1:] + [len(self.plan.slots)]):
            rows_of[start] = {slot.row for slot in self.plan.slots[start:end]}
        self.splits = sum(1 for rows in rows_of.values() if len(rows) > 1)

    def draw(self, canvas, x, y):
        theme = self.style.theme
        card_h = self.deck.card_size[1]
        draw = ImageDraw.Draw(canvas) if self.barred else None
        for slot in self.plan.slots:  # each card over its shadow, in one paste
            image, dx, dy = shadowed_sprite(slot.code, self.deck)
            top = y + self.tops[slot.row][1]
            canvas.paste(image, (x + slot.x - dx, top - dy), image)
            if slot.index in self.barred:
                bar_y = top + card_h + theme.bar_gap
                draw.rounded_rectangle((x + slot.x + 3, bar_y, x + slot.x + slot.visible - 4, bar_y + theme.bar_h - 1),
                                       radius=2, fill=theme.marked)
        for slot, mark, text in self.marks:
            top = y + self.tops[slot.row][0]
            if text is not None:
                text.draw(canvas, x + slot.x, top)
            elif mark.glyph:
                image = glyph_image(mark.glyph, self.mark_h, theme.muted, self.deck_name)
                canvas.paste(image, (x + slot.x + 2, top), image)


PILE_EM = 5  # a pile's caption: at most this wide, in em (a longer fact is shortened)


class Piles(Block):
    """Cards laid apart (the stock, the card on offer), one below the other or side by side,
    each with its caption's facts under it, a line each, shortened to the pile's room."""

    def __init__(self, piles: tuple, *, deck: str, style: Style, vertical: bool = True):
        self.deck = get_deck(deck)
        self.piles, self.vertical, self.style = piles, vertical, style
        card_w, card_h = self.deck.card_size
        room = max(card_w, round(PILE_EM * style.size))
        # a fact shortened to its first word says nothing ("from…"): 3 letters of what follows, or none
        self.captions = [[t for t in (Text(fact, style.size, False, style.theme.muted, room,
                                           least=len(fact.split()[0]) + 3 if " " in fact else 1)
                                      for fact in facts(p.caption)) if t.text] for p in piles]
        # as wide as the card or the widest caption, in whole em: the same from one move to the next
        widest = max([t.width for caption in self.captions for t in caption], default=0)
        self.cell_w = max(card_w, -(-widest // style.size) * style.size)
        self.cell_h = card_h + max((sum(t.height for t in c) + 4 for c in self.captions if c), default=0)
        self.gap = round(style.size * 0.6)
        count = len(piles)
        self.width = self.cell_w if vertical else count * self.cell_w + self.gap * max(0, count - 1)
        self.height = count * self.cell_h + self.gap * max(0, count - 1) if vertical else self.cell_h

    def draw(self, canvas, x, y):
        card_w, card_h = self.deck.card_size
        for pile, caption in zip(self.piles, self.captions):
            cx = x + (self.cell_w - card_w) // 2
            if pile.card is None:
                ImageDraw.Draw(canvas).rounded_rectangle((cx, y, cx + card_w - 1, y + card_h - 1),
                                                         radius=self.deck.corner_radius,
                                                         outline=self.style.theme.empty_slot, width=2)
            else:
                image, dx, dy = shadowed_sprite(pile.card, self.deck)
                canvas.paste(image, (cx - dx, y - dy), image)
            line_y = y + card_h + 4
            for text in caption:
                text.draw(canvas, x + (self.cell_w - text.width) // 2, line_y)
                line_y += text.height
            if self.vertical:
                y += self.cell_h + self.gap
            else:
                x += self.cell_w + self.gap


def facts(caption: str) -> tuple[str, ...]:
    """A caption's facts ("30 cards · draw 3/7\ntotal 5" -> "30 cards", "draw 3/7", "total 5")."""
    return tuple(fact.strip() for line in caption.splitlines() for fact in line.split(" · ") if fact.strip())


class Box(Panel):
    """A framed panel, filled (dimmer for a seat out of play), outlined in gold for the seat to act."""

    PAD = 6

    def __init__(self, inner: Block, *, active: bool = False, dim: bool = False, theme=PICTURE_THEME):
        super().__init__(inner, outline=ACTIVE if active else theme.empty_slot, line=3 if active else 1, theme=theme)
        self.fill = BOX_DIM if dim else BOX_FILL

    def draw_in(self, canvas, x, y, width, height):
        ImageDraw.Draw(canvas).rounded_rectangle((x, y, x + width - 1, y + height - 1), radius=8, fill=self.fill,
                                                 outline=self.outline, width=self.line)
        self.inner.draw(canvas, x + self.PAD, y + self.PAD)


_shadowed: dict = {}


def shadowed_sprite(code: str, deck):
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
    right, bottom = max(sprite.width, sx + shadow.width), max(sprite.height, sy + shadow.height)
    image = Image.new("RGBA", (right - left, bottom - top), (0, 0, 0, 0))
    layer = Image.new("RGBA", shadow.size, (0, 0, 0, 0))
    layer.putalpha(shadow)
    image.alpha_composite(layer, (sx - left, sy - top))
    image.alpha_composite(sprite, (-left, -top))
    image.load()
    if len(_shadowed) < 2048:
        _shadowed[(deck.name, code)] = (sprite, image, -left, -top)
    return image, -left, -top
