"""What the pictures need from the table's words: the legend of their glyphs, and a match's
score board with the cards of its last round.

The table picture tells a seat's numbers by glyphs (:mod:`rendering.badges`: a card back and
9 for nine cards in hand, Σ for a total...), the same in every game; :func:`legend_line` says,
in the table's language, what those of one picture mean, for the embed it is shown in.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import N_, _
from rendering.badges import SYMBOLS
from rendering.table_picture import glyphs_used

#: what each glyph of a picture means (the words exist where the seats' lines said them)
MEANINGS = {
    "hand": N_("cards in hand"),
    "total": N_("total"),
    "jokers": N_("jokers announced"),
    "opened": N_("opened"),
    "closed": N_("closed"),
    "went_out": N_("went out"),
    "out": N_("out of the match"),
    "bought_back": N_("bought back"),
    "khap": N_("khạp"),
    "discards": N_("discards"),
    "eaten": N_("eaten"),
}


def legend_line(picture: Any) -> str:
    """"▮ cards in hand · ↓ discards · ▁ eaten": the glyphs ``picture`` shows (a
    :class:`rendering.table_picture.TablePicture`), each with what it means; "" for none."""
    if picture is None:
        return ""
    return " · ".join(f"{SYMBOLS[glyph]} {_(MEANINGS[glyph])}" for glyph in glyphs_used(picture) if glyph in MEANINGS)


def chips_first(caption: str) -> str:
    """A match's score line for its picture: its first line, the chips (its last fact) first,
    so a picture too narrow for every fact keeps them ("total 30 · +5 chips" -> "+5 chips · total 30")."""
    facts = caption.split("\n")[0].split(" · ")
    return " · ".join(facts[-1:] + facts[:-1])
