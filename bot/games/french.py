"""French 52-card pack helpers (Phỏm, Concan, Chinchón).

Card codes follow docs/rules/notation.md: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` plus suit
``S H D C`` (♠ ♥ ♦ ♣), e.g. ``AS``, ``TD``, ``KC``; ``10`` is accepted for ``T``; the joker
is ``JK`` (only where a game allows it).
"""

from __future__ import annotations

from typing import Iterable

from bot.games.base import NotACard

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "JK"

#: The canonical pack order: spades A..K, hearts A..K, diamonds A..K, clubs A..K.
FULL_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_VALID = frozenset(FULL_DECK)

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def parse_card(text: str, *, joker: bool = False) -> str:
    """The canonical code of one card; raises ``NotACard`` (a ``ValueError``) for anything else.

    Case-insensitive, surrounding whitespace ignored, ``10H`` -> ``TH``.
    """
    code = str(text).strip().upper()
    if code.startswith("10") and len(code) == 3:
        code = "T" + code[2]
    if code in _VALID:
        return code
    if joker and code == JOKER:
        return JOKER
    raise NotACard(str(text).strip(), f"{str(text).strip()!r} is not a card")


def parse_cards(text: str | Iterable[str], *, joker: bool = False) -> list[str]:
    """``"3h 4H 10h"`` (or a list of codes) -> ``["3H", "4H", "TH"]``, order kept."""
    if isinstance(text, str):
        parts = text.replace(",", " ").split()
    else:
        parts = list(text)
    return [parse_card(p, joker=joker) for p in parts]


def rank(card: str) -> int:
    """Rank value: A = 1, 2..10 face value, J = 11, Q = 12, K = 13 (joker: 0)."""
    if card == JOKER:
        return 0
    return RANKS.index(card[0]) + 1


def suit(card: str) -> str:
    """``"S" | "H" | "D" | "C"`` (joker: ``""``)."""
    return "" if card == JOKER else card[1]


def sort_key(card: str) -> tuple[int, int]:
    """Order by rank, then suit in the order S H D C (jokers last)."""
    if card == JOKER:
        return (99, 99)
    return (RANKS.index(card[0]) + 1, SUITS.index(card[1]))


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=sort_key)


def format_cards(cards: Iterable[str]) -> str:
    return " ".join(cards)


def pretty(card: str) -> str:
    """Display form, e.g. ``10♥`` (display only, never parsed)."""
    if card == JOKER:
        return "🃏"
    r = "10" if card[0] == "T" else card[0]
    return r + SUIT_SYMBOLS[card[1]]
