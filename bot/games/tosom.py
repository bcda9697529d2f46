"""Tổ Tôm pack helpers, Chắn subset (100 cards) — notation in docs/rules/notation.md.

Codes: rank ``2``–``9`` + suit ``V`` (Vạn 萬), ``W`` (Văn 文), ``S`` (Sách 索); Chi chi ``CC``.
Four identical copies of each of the 25 kinds. ``"2Vx2"`` is accepted for ``"2V 2V"``.
"""

from __future__ import annotations

from typing import Iterable

from bot.games.base import NotACard

RANKS = "23456789"
SUITS = "VWS"
CC = "CC"

#: The 25 kinds in canonical order: 2V 2W 2S 3V ... 9S, CC.
KINDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS) + (CC,)
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
#: The canonical pack: every kind four times, in kind order.
FULL_DECK: tuple[str, ...] = tuple(k for k in KINDS for _ in range(4))

#: Red cards (chan.md, decided): the only red kinds.
RED_KINDS: frozenset[str] = frozenset({"CC", "8V", "9V", "8S", "9S"})

CJK_NUMERALS = {"2": "二", "3": "三", "4": "四", "5": "五", "6": "六", "7": "七", "8": "八", "9": "九"}
CJK_SUITS = {"V": "萬", "W": "文", "S": "索"}
VI_NUMERALS = {"2": "Nhị", "3": "Tam", "4": "Tứ", "5": "Ngũ", "6": "Lục", "7": "Thất", "8": "Bát",
               "9": "Cửu"}
VI_SUITS = {"V": "Vạn", "W": "Văn", "S": "Sách"}


def parse_card(text: str) -> str:
    code = str(text).strip().upper()
    if code in KIND_INDEX:
        return code
    raise NotACard(str(text).strip(), f"{str(text).strip()!r} is not a card")


def parse_cards(text: str | Iterable[str]) -> list[str]:
    """``"2v 2Vx2 cc"`` (or a list of codes) -> ``["2V", "2V", "2V", "CC"]``, order kept."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out: list[str] = []
    for part in parts:
        p = str(part).strip().upper()
        if "X" in p[1:]:
            code, _x, times = p.partition("X")
            if not times.isdigit():
                raise NotACard(str(part).strip(), f"{part!r} is not a card")
            out.extend([parse_card(code)] * int(times))
        else:
            out.append(parse_card(p))
    return out


def rank(card: str) -> int:
    """2..9; Chi chi has no rank (0)."""
    return 0 if card == CC else int(card[0])


def suit(card: str) -> str:
    return "" if card == CC else card[1]


def is_red(card: str) -> bool:
    return card in RED_KINDS


def sort_key(card: str) -> int:
    return KIND_INDEX[card]


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=KIND_INDEX.__getitem__)


def cjk_name(card: str) -> str:
    """``八萬``, ``七文``, ``三索``; Chi chi ``枝``."""
    if card == CC:
        return "枝"
    return CJK_NUMERALS[card[0]] + CJK_SUITS[card[1]]


def vi_name(card: str) -> str:
    """``Bát Vạn``; ``Chi chi``."""
    if card == CC:
        return "Chi chi"
    return f"{VI_NUMERALS[card[0]]} {VI_SUITS[card[1]]}"


def is_chan(a: str, b: str) -> bool:
    return a == b


def is_ca(a: str, b: str) -> bool:
    return a != b and a != CC and b != CC and a[0] == b[0]
