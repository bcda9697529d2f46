"""Tứ Sắc cards and sets: parsing, set recognition, trash count, hand value, outs.

Rules in docs/rules/tusac.md, card codes in docs/rules/notation.md (colour ``R Y G W`` +
piece ``K A E R C N P``; a pack holds four copies of each of the 28 codes).

Every set lies inside one of nine *groups*: per colour the Tướng-Sĩ-Tượng pieces and the
Xe-Pháo-Mã pieces, plus the Tốt of all colours. A private block therefore splits into nine
small count vectors (each count 0–2 once Khaps are set aside), and its trash count or value
is the sum of per-group answers, each memoised on a tuple of at most four small numbers.
That keeps every evaluation the engine and the AI need at a few dictionary look-ups.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from bot.i18n import C_, pgettext
from bot.games.base import NotACard

COLOURS = "RYGW"
PIECES = "KAERCNP"
#: The 28 distinct codes in canonical order (by colour, then piece).
CODES: tuple[str, ...] = tuple(c + p for c in COLOURS for p in PIECES)
#: The 112-card pack in canonical order (four copies of each code).
FULL_PACK: tuple[str, ...] = tuple(code for code in CODES for _ in range(4))

#: the colours' English names (:func:`card_name` translates them, in this context)
COLOUR_NAMES = {"R": C_("Tứ Sắc card colour", "Red"), "Y": C_("Tứ Sắc card colour", "Yellow"),
                "G": C_("Tứ Sắc card colour", "Green"), "W": C_("Tứ Sắc card colour", "White")}
#: the pieces' names are Vietnamese everywhere (not translated)
PIECE_NAMES = {"K": "Tướng", "A": "Sĩ", "E": "Tượng", "R": "Xe", "C": "Pháo", "N": "Mã", "P": "Tốt"}
# Red and yellow cards print the red side's characters, green and white the black side's.
_RED_SIDE = dict(zip(PIECES, "帥仕相俥炮傌兵"))
_BLACK_SIDE = dict(zip(PIECES, "將士象車砲馬卒"))

_ORDER = {code: i for i, code in enumerate(CODES)}

QUAN_VALUE, KHUI_VALUE, KHAP_VALUE = 8, 6, 3


def glyph(card: str) -> str:
    return (_RED_SIDE if card[0] in "RY" else _BLACK_SIDE)[card[1]]


def card_name(card: str) -> str:
    """``"RC"`` -> ``"Red Pháo"`` (display only), in the current language (the colour is
    translated, the piece keeps its Vietnamese name)."""
    return pgettext("Tứ Sắc card: colour and piece", "{colour} {piece}").format(
        colour=pgettext("Tứ Sắc card colour", COLOUR_NAMES[card[0]]), piece=PIECE_NAMES[card[1]])


def sort_key(card: str) -> int:
    return _ORDER[card]


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=_ORDER.__getitem__)


def parse_card(text: str) -> str:
    code = str(text).strip().upper()
    if code in _ORDER:
        return code
    raise NotACard(str(text).strip(), f"{str(text).strip()!r} is not a Tứ Sắc card")


def parse_cards(text: str | Iterable[str]) -> list[str]:
    """``"rc rc gn"``, ``"RCx2 GN"`` or a list of codes -> codes, order kept."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out: list[str] = []
    for part in parts:
        code, times = str(part), 1
        head, sep, tail = code.strip().upper().partition("X")
        # "RCx2" is a repeat; "RX"/"WX..." never is (X is not a piece letter after a colour)
        if sep and len(head) == 2 and tail.isdigit():
            code, times = head, int(tail)
        out.extend([parse_card(code)] * times)
    return out


def counts_of(cards: str | Iterable[str] | Mapping[str, int]) -> Counter:
    if isinstance(cards, Mapping):
        return Counter({c: n for c, n in cards.items() if n > 0})
    return Counter(parse_cards(cards))


# --------------------------------------------------------------------------------------------
# groups and their sets

_GENERAL, _CHARIOT, _PAWN = "general", "chariot", "pawn"


def _unit(size: int, i: int, n: int = 1) -> tuple[int, ...]:
    return tuple(n if k == i else 0 for k in range(size))


# (count vector, value) of every set inside one group. Identical triples only arise from an
# eat (a pair plus the active card): a private triple is a Khap, handled apart.
_TRIPLES3 = (((3, 0, 0), 1), ((0, 3, 0), 1), ((0, 0, 3), 1))
SETS: dict[str, tuple[tuple[tuple[int, ...], int], ...]] = {
    # a lone Tướng, Tướng-Sĩ-Tượng, pairs of Sĩ or Tượng (two Tướng are two single sets)
    _GENERAL: (((1, 0, 0), 1), ((1, 1, 1), 1), ((0, 2, 0), 0), ((0, 0, 2), 0)) + _TRIPLES3,
    _CHARIOT: (((2, 0, 0), 0), ((0, 2, 0), 0), ((0, 0, 2), 0), ((1, 1, 1), 1)) + _TRIPLES3,
    # pairs and triples of one colour, then three or four different colours
    _PAWN: (tuple((_unit(4, i, 2), 0) for i in range(4))
            + tuple((_unit(4, i, 3), 1) for i in range(4))
            + tuple((tuple(int(k != skip) for k in range(4)), 1) for skip in range(3, -1, -1))
            + (((1, 1, 1, 1), 2),)),
}

#: The nine groups: (kind, member codes in vector order).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    *((_GENERAL, (c + "K", c + "A", c + "E")) for c in COLOURS),
    *((_CHARIOT, (c + "R", c + "C", c + "N")) for c in COLOURS),
    (_PAWN, tuple(c + "P" for c in COLOURS)),
)
#: code -> (group number, position in the group's vector)
GROUP_OF: dict[str, tuple[int, int]] = {
    code: (g, i) for g, (_, members) in enumerate(GROUPS) for i, code in enumerate(members)}

_INF = 10**6


def _minus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    out = tuple(x - y for x, y in zip(a, b))
    return None if min(out) < 0 else out


@lru_cache(maxsize=None)
def group_trash(kind: str, counts: tuple[int, ...]) -> int:
    """Fewest cards of one group to remove so that the rest splits into sets."""
    i = next((k for k, n in enumerate(counts) if n), None)
    if i is None:
        return 0
    best = _INF
    if not (kind == _GENERAL and i == 0):  # a Tướng is never trash (it is a set alone)
        best = 1 + group_trash(kind, _minus(counts, _unit(len(counts), i)))
    for vec, _ in SETS[kind]:
        if vec[i] and (rest := _minus(counts, vec)) is not None:
            best = min(best, group_trash(kind, rest))
    return best


@lru_cache(maxsize=None)
def _group_plan(kind: str, counts: tuple[int, ...], complete: bool) -> tuple[int, tuple, tuple] | None:
    """An optimal split of one group: ``(score, sets, trash)`` with sets as count vectors.

    ``complete``: no trash allowed, score = highest value (None when impossible);
    otherwise score = lowest trash, ties broken by the higher value.
    """
    i = next((k for k, n in enumerate(counts) if n), None)
    if i is None:
        return (0, (), ())
    options = []
    if not complete and not (kind == _GENERAL and i == 0):
        sub = _group_plan(kind, _minus(counts, _unit(len(counts), i)), False)
        options.append((sub[0] + 1, _value_of(kind, sub[1]), sub[1], (i,) + sub[2]))
    for vec, value in SETS[kind]:
        if vec[i] and (rest := _minus(counts, vec)) is not None:
            sub = _group_plan(kind, rest, complete)
            if sub is not None:
                options.append((sub[0] + (value if complete else 0), value + _value_of(kind, sub[1]),
                                (vec,) + sub[1], sub[2]))
    if not options:
        return None
    if complete:
        best = max(options, key=lambda o: o[0])
    else:
        best = min(options, key=lambda o: (o[0], -o[1]))
    return best[0], best[2], best[3]


def _value_of(kind: str, vectors: Sequence[tuple[int, ...]]) -> int:
    values = dict(SETS[kind])
    return sum(values[v] for v in vectors)


# --------------------------------------------------------------------------------------------
# private blocks


def khaps_of(counts: Mapping[str, int]) -> list[str]:
    """Codes held three times or more: each is a locked Khap (a fourth copy stays free)."""
    return sort_cards(c for c, n in counts.items() if n >= 3)


def free_count(counts: Mapping[str, int], code: str) -> int:
    """Copies of ``code`` outside a Khap (what may be melded or discarded)."""
    n = counts.get(code, 0)
    return n - 3 if n >= 3 else n


def group_key(counts: Mapping[str, int], g: int) -> tuple[int, ...]:
    return tuple(free_count(counts, code) for code in GROUPS[g][1])


def trash_of(counts: Mapping[str, int]) -> int:
    return sum(group_trash(kind, group_key(counts, g)) for g, (kind, _) in enumerate(GROUPS))


def trash_count(private: str | Iterable[str] | Mapping[str, int]) -> int:
    """The fewest private cards whose removal leaves the rest in sets (Khaps locked)."""
    return trash_of(counts_of(private))


def trash_codes(counts: Mapping[str, int]) -> list[str]:
    """Distinct codes whose discard lowers the trash count by one (the legal discards)."""
    out = []
    for g, (kind, members) in enumerate(GROUPS):
        key = group_key(counts, g)
        now = group_trash(kind, key)
        for i, code in enumerate(members):
            if key[i] and code[1] != "K":
                if group_trash(kind, _minus(key, _unit(len(key), i))) == now - 1:
                    out.append(code)
    return sort_cards(out)


def trash_cards(private: str | Iterable[str] | Mapping[str, int]) -> list[str]:
    return trash_codes(counts_of(private))


def arrange(counts: Mapping[str, int]) -> tuple[list[str], list[list[str]], list[str]]:
    """``(khaps, sets, trash)``: a split with the fewest trash cards (then the highest value)."""
    sets: list[list[str]] = []
    trash: list[str] = []
    for g, (kind, members) in enumerate(GROUPS):
        _, vectors, left = _group_plan(kind, group_key(counts, g), False)
        sets.extend(_cards_of(members, v) for v in vectors)
        trash.extend(members[i] for i in left)
    return khaps_of(counts), sets, sort_cards(trash)


def _cards_of(members: Sequence[str], vec: Sequence[int]) -> list[str]:
    return [code for code, n in zip(members, vec) for _ in range(n)]


def private_value(counts: Mapping[str, int]) -> tuple[int, list[list[str]]] | None:
    """Highest value of a private block with no trash and its sets (Khaps first), or None."""
    khaps = khaps_of(counts)
    value = KHAP_VALUE * len(khaps)
    sets = [[code] * 3 for code in khaps]
    for g, (kind, members) in enumerate(GROUPS):
        plan = _group_plan(kind, group_key(counts, g), True)
        if plan is None:
            return None
        value += plan[0]
        sets.extend(_cards_of(members, v) for v in plan[1])
    return value, sets


# --------------------------------------------------------------------------------------------
# sets on the table


def set_value(cards: Sequence[str], *, quan: Iterable[str] = (), khui: Iterable[str] = ()) -> int | None:
    """Value of one public set, None when ``cards`` is not a set.

    Four identical cards are a Quan (8) when listed in ``quan``, else a Khui (6); an identical
    triple laid on the table is worth 1, a pair 0.
    """
    cards = sort_cards(cards)
    if not cards:
        return None
    if len(set(cards)) == 1:
        n, code = len(cards), cards[0]
        if n == 4:
            return QUAN_VALUE if code in set(quan) else KHUI_VALUE
        if n == 3:
            return 1
        if n == 2:
            return None if code[1] == "K" else 0  # two Tướng are two single sets
        return 1 if code[1] == "K" else None
    g, _ = GROUP_OF[cards[0]]
    if any(GROUP_OF[c][0] != g for c in cards):
        return None
    kind, members = GROUPS[g]
    vec = tuple(cards.count(m) for m in members)
    return dict(SETS[kind]).get(vec)


def is_set(cards: Sequence[str]) -> bool:
    return set_value(cards) is not None


def hand_value(private: str | Iterable[str] | Mapping[str, int], exposed: Iterable[str | Sequence[str]] = (),
               *, quan: Iterable[str] = (), khui: Iterable[str] = ()) -> int:
    """Value of a complete hand (tusac.md "Payout"); ValueError if it holds trash.

    ``exposed``: the public sets (strings or card lists). A Quan or Khui named in
    ``quan``/``khui`` but absent from ``exposed`` still counts.
    """
    quan = [parse_card(c) for c in (parse_cards(quan) if isinstance(quan, str) else quan)]
    khui = [parse_card(c) for c in (parse_cards(khui) if isinstance(khui, str) else khui)]
    got = private_value(counts_of(private))
    if got is None:
        raise ValueError("the private block holds trash")
    total = got[0]
    quads = []
    for meld in exposed:
        cards = parse_cards(meld)
        value = set_value(cards, quan=quan, khui=khui)
        if value is None:
            raise ValueError(f"{' '.join(cards)} is not a set")
        if len(cards) == 4 and len(set(cards)) == 1:
            quads.append(cards[0])
        total += value
    for code in quan:
        if code not in quads:
            total += QUAN_VALUE
    for code in khui:
        if code not in quads:
            total += KHUI_VALUE
    return total


def payment(value: int, *, quan_or_khui: bool) -> int:
    """What each loser pays the winner, in stake units."""
    return (3 + value) * (2 if quan_or_khui else 1) + 10


# --------------------------------------------------------------------------------------------
# melding an active card


def melds_with(active: str, counts: Mapping[str, int]) -> list[tuple[str, ...]]:
    """Every group of 1–3 free private cards that makes a set with ``active`` (canonical
    order), plus the Khap itself when ``active`` matches one (a Khui)."""
    g, i = GROUP_OF[active]
    kind, members = GROUPS[g]
    key = group_key(counts, g)
    out: list[tuple[str, ...]] = []
    for vec, _ in SETS[kind]:
        if not vec[i]:
            continue
        need = _minus(vec, _unit(len(vec), i))
        if sum(need) and _minus(key, need) is not None:
            out.append(tuple(_cards_of(members, need)))
    if counts.get(active, 0) >= 3:
        out.append((active,) * 3)
    return sorted(set(out), key=lambda m: (len(m), [sort_key(c) for c in m]))


def trash_after(counts: Mapping[str, int], cards: Sequence[str]) -> int:
    """Trash count once ``cards`` (free copies, or a whole Khap) leave the private block."""
    rest = Counter(counts)
    rest.subtract(cards)
    return trash_of(+rest)


@lru_cache(maxsize=None)
def _group_improves(kind: str, key: tuple[int, ...], i: int) -> bool:
    """Whether an active card at position ``i`` melds with free cards of ``key`` so that the
    group's trash drops."""
    now = group_trash(kind, key)
    for vec, _ in SETS[kind]:
        if vec[i]:
            need = _minus(vec, _unit(len(vec), i))
            if sum(need) and (rest := _minus(key, need)) is not None and group_trash(kind, rest) < now:
                return True
    return False


def improves(counts: Mapping[str, int], card: str) -> bool:
    """Whether ``card``, as the active card, could be eaten to lower the trash count.

    A card matching a Khap never does: the table melds it into a Khui, which keeps the trash.
    """
    if counts.get(card, 0) >= 3:
        return False
    g, i = GROUP_OF[card]
    return _group_improves(GROUPS[g][0], group_key(counts, g), i)


def _group_outs(counts: Mapping[str, int], g: int, unseen: Mapping[str, int]) -> int:
    return sum(unseen.get(code, 0) for code in GROUPS[g][1]
               if unseen.get(code, 0) > 0 and improves(counts, code))


def _without(counts: Mapping[str, int], card: str) -> Counter:
    rest = Counter(counts)
    rest[card] -= 1
    return +rest


def outs(counts: Mapping[str, int], card: str, unseen: Mapping[str, int]) -> int:
    """Unseen cards that would lower the trash count of the block without ``card``."""
    rest = _without(counts, card)
    return sum(_group_outs(rest, g, unseen) for g in range(len(GROUPS)))


def worst_codes(counts: Mapping[str, int], unseen: Mapping[str, int]) -> list[str]:
    """The trash codes whose discard keeps the most outs (tusac.md "Worst card")."""
    codes = trash_codes(counts)
    if not codes:
        return []
    # A discard changes only its own group's outs: count the other groups once.
    per_group = [_group_outs(counts, g, unseen) for g in range(len(GROUPS))]
    total = sum(per_group)
    scored = []
    for code in codes:
        g = GROUP_OF[code][0]
        scored.append((total - per_group[g] + _group_outs(_without(counts, code), g, unseen), code))
    best = max(s for s, _ in scored)
    return [code for s, code in scored if s == best]


def pair_exempt(counts: Mapping[str, int]) -> bool:
    """True when the only two trash cards are two Tốt of different colours or two of
    Xe/Pháo/Mã of one colour: the pair claim does not apply then."""
    if trash_of(counts) != 2:
        return False
    free = [c for c in CODES if free_count(counts, c)]
    for a, b in combinations(free, 2):
        pawns = a[1] == b[1] == "P"
        chariots = a[0] == b[0] and a[1] in "RCN" and b[1] in "RCN"
        if (pawns or chariots) and trash_after(counts, (a, b)) == 0:
            return True
    return False


__all__ = [
    "CODES", "COLOURS", "FULL_PACK", "PIECES", "arrange", "card_name", "counts_of", "glyph",
    "hand_value", "improves", "is_set", "khaps_of", "melds_with", "outs", "pair_exempt", "parse_card",
    "parse_cards", "payment", "private_value", "set_value", "sort_cards", "sort_key", "trash_after",
    "trash_cards", "trash_codes", "trash_count", "trash_of", "worst_codes",
]
