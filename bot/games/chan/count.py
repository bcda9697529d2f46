"""Chắn counting and scoring — rules in docs/rules/chan.md ("Pairs", "Payout (cước)").

Public API (re-exported by :mod:`.chan`):

- ``count(cards) -> Count``, ``partition(cards)``, ``is_win(cards20, winning_card)``,
  ``waits(cards19)``, ``score_win(cards, winning_card, *, self_drawn=False) -> Win | None``.
- ``trash_kinds(hand)``: the kinds whose removal keeps the chắn and cạ.
- On tallies (a tuple of 25 counts, one per kind in ``KINDS`` order: what the engine and the
  AI evaluate, cached): ``tally``, ``tally_count``, ``tally_win``, ``tally_waits``,
  ``tally_plus``, ``tally_minus``.
- ``FACTORS``, ``factor_points``, ``ga_points``, ``hand_factors``, ``win_factors``: the cước.
- ``PHRASES``, ``settle_win``, ``settle_draw``: the outcome of a game and its summary phrases.

Interpretations (beyond the *(decided)* points of the spec):

- Ù always counts all 20 cards (hand plus laid pairs) freely: laid pairs may be regrouped.
  With a ``CC`` winning card the most-chắn count must be exactly 6 chắn (and so 4 cạ).
- Quads: each kind held four times in the final 20 cards counts once: thiên khai if all four
  were dealt to the winner, chíu if three, bòn if two. Repeated factors repeat in the list.
- Bạch thủ: exactly 6 chắn, the winning card's kind count is even and every kind of its
  rank has an even count (no cạ of that rank). Thiên ù has no winning card: no bạch thủ.
- Results: the winner ranks 1, the others 2.. in turn order after him; payout in stake units
  (= points per loser); ``ga`` likewise; a drawn game ranks everybody 1.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Sequence

from bot.i18n import N_
from bot.games.base import Note, Outcome, Phrase, Transfer, outcome_from_transfers
from bot.games.tosom import CC, KIND_INDEX, KINDS, RANKS, SUITS, is_red, parse_card, parse_cards, sort_cards

#: Every phrase key this engine emits, with its English template ({name}: a seat's name),
#: marked for translation: the UI shows them in the reader's language. The values ``how`` and
#: ``factors`` are native words (ù, chíu ù, thiên ù; the factors' names), never translated.
PHRASES: dict[str, str] = {
    "chan.u": N_("{winner} {how}: {factors} — {points} points"),
    "chan.u_on": N_("{winner} {how} on {card}: {factors} — {points} points"),
    "chan.ga": N_("{ga} gà"),
    "chan.stock_out": N_("The stock ran out with no ù: a draw, no payment."),
}

# --------------------------------------------------------------------------------------------
# counting


@dataclass(frozen=True)
class Count:
    chan: int
    ca: int
    trash: int


def _rank_best(a: int, b: int, c: int) -> tuple[int, int, int, tuple[int, int, int]]:
    """(trash, chan, ca, chắn per suit) for counts a, b, c of one rank: fewest trash, most chắn."""
    best = None
    for xa in range(a // 2 + 1):
        for xb in range(b // 2 + 1):
            for xc in range(c // 2 + 1):
                rest = (a - 2 * xa, b - 2 * xb, c - 2 * xc)
                total = sum(rest)
                ca = min(total // 2, total - max(rest))
                key = (total - 2 * ca, -(xa + xb + xc))
                if best is None or key < best[0]:
                    best = (key, (total - 2 * ca, xa + xb + xc, ca, (xa, xb, xc)))
    return best[1]


_RANK_TABLE = {(a, b, c): _rank_best(a, b, c) for a in range(5) for b in range(5) for c in range(5)}


def tally(cards: Iterable[str]) -> tuple[int, ...]:
    t = [0] * len(KINDS)
    for card in cards:
        t[KIND_INDEX[card]] += 1
    return tuple(t)


@lru_cache(maxsize=200_000)
def tally_count(t: tuple[int, ...]) -> Count:
    chan = t[24] // 2
    trash = t[24] % 2
    ca = 0
    for i in range(0, 24, 3):
        tr, ch, c, __ = _RANK_TABLE[(t[i], t[i + 1], t[i + 2])]
        trash += tr
        chan += ch
        ca += c
    return Count(chan, ca, trash)


def _cards(cards: str | Iterable[str]) -> list[str]:
    return parse_cards(cards)


def count(cards: str | Iterable[str]) -> Count:
    """The partition with the fewest trash, and among those the most chắn."""
    return tally_count(tally(_cards(cards)))


def partition(cards: str | Iterable[str]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """The best partition itself: (kind of each chắn, each cạ, trash cards), sorted."""
    t = tally(_cards(cards))
    chans: list[str] = [CC] * (t[24] // 2)
    cas: list[tuple[str, str]] = []
    trash: list[str] = [CC] * (t[24] % 2)
    for ri, r in enumerate(RANKS):
        counts = [t[ri * 3 + k] for k in range(3)]
        __, __, __, xs = _RANK_TABLE[tuple(counts)]
        rest = []
        for k in range(3):
            chans += [r + SUITS[k]] * xs[k]
            rest.append(counts[k] - 2 * xs[k])
        while True:
            order = sorted(range(3), key=lambda k: -rest[k])
            if rest[order[1]] == 0:
                break
            a, b = sorted(order[:2])
            cas.append((r + SUITS[a], r + SUITS[b]))
            rest[a] -= 1
            rest[b] -= 1
        for k in range(3):
            trash += [r + SUITS[k]] * rest[k]
    chans.sort(key=KIND_INDEX.__getitem__)
    cas.sort(key=lambda p: KIND_INDEX[p[0]])
    trash.sort(key=KIND_INDEX.__getitem__)
    return chans, cas, trash


def tally_win(t: tuple[int, ...], winning: str | None) -> bool:
    if sum(t) != 20:
        return False
    c = tally_count(t)
    if c.trash:
        return False
    if winning == CC:
        return c.chan == 6
    return c.chan >= 6


def is_win(cards: str | Iterable[str], winning_card: str | None = None) -> bool:
    """Do these 20 cards (winning card included) make ù on ``winning_card``?"""
    return tally_win(tally(_cards(cards)), winning_card)


def tally_plus(t: tuple[int, ...], kind: str) -> tuple[int, ...]:
    i = KIND_INDEX[kind]
    return t[:i] + (t[i] + 1,) + t[i + 1:]


def tally_minus(t: tuple[int, ...], kind: str) -> tuple[int, ...]:
    i = KIND_INDEX[kind]
    return t[:i] + (t[i] - 1,) + t[i + 1:]


@lru_cache(maxsize=100_000)
def tally_waits(t: tuple[int, ...]) -> tuple[str, ...]:
    """The kinds that would complete ù for these 19 cards."""
    if sum(t) != 19 or tally_count(t).trash != 1:
        return ()
    return tuple(k for i, k in enumerate(KINDS) if t[i] < 4 and tally_win(tally_plus(t, k), k))


def waits(cards: str | Iterable[str]) -> list[str]:
    """Kinds completing ù for 19 cards (empty: not one card from ù)."""
    return list(tally_waits(tally(_cards(cards))))


def trash_kinds(hand: Sequence[str]) -> list[str]:
    """Distinct kinds of ``hand`` whose removal leaves the numbers of chắn and cạ unchanged."""
    t = tally(hand)
    base = tally_count(t)
    out = []
    for kind in sort_cards(set(hand)):
        c = tally_count(tally_minus(t, kind))
        if (c.chan, c.ca) == (base.chan, base.ca):
            out.append(kind)
    return out


# --------------------------------------------------------------------------------------------
# cước (payout factors)

#: id -> (display name, points, dịch), in table order.
FACTORS: dict[str, tuple[str, int, int]] = {
    "xuong": ("Xuông", 2, 0),
    "u_thong": ("Ù thông", 3, 1),
    "chi": ("Chì", 3, 1),
    "thien_u": ("Thiên ù", 3, 1),
    "tom": ("Tôm", 4, 1),
    "leo": ("Lèo", 5, 2),
    "bach_thu": ("Bạch thủ", 4, 1),
    "thien_khai": ("Thiên khai", 5, 2),
    "chiu": ("Chíu", 5, 2),
    "bon": ("Bòn", 5, 2),
    "bach_dinh": ("Bạch định", 7, 4),
    "tam_do": ("Tám đỏ", 8, 5),
    "kinh_tu_chi": ("Kính tứ chi", 12, 9),
    "thap_thanh": ("Thập thành", 12, 9),
}
_GA_FACTORS = ("bach_dinh", "tam_do", "kinh_tu_chi", "thap_thanh")


@dataclass
class Win:
    factors: list[str]
    points: int
    ga: int
    count: Count = field(default_factory=lambda: Count(0, 0, 0))


def factor_points(factors: Sequence[str]) -> int:
    if not factors:
        return 0
    if "thap_thanh" in factors:
        return sum(FACTORS[f][1] for f in factors)
    top = max(range(len(factors)), key=lambda i: (FACTORS[factors[i]][1], FACTORS[factors[i]][2]))
    return FACTORS[factors[top]][1] + sum(FACTORS[f][2] for i, f in enumerate(factors) if i != top)


def ga_points(factors: Sequence[str]) -> int:
    ga = sum(1 for f in factors if f in _GA_FACTORS)
    if "bach_thu" in factors and "chi" in factors:
        ga += 1
    return ga


def hand_factors(cards20: Sequence[str], winning: str | None, *, self_drawn: bool) -> list[str]:
    """History-free factors of a winning 20-card hand (xuông not added)."""
    t = tally(cards20)
    c = tally_count(t)
    have = set(cards20)
    out: list[str] = []
    if self_drawn:
        out.append("chi")
    if {"3V", "3S", "7W"} <= have:
        out.append("tom")
    if {"8S", "9V", "CC"} <= have:
        out.append("leo")
    if winning is not None and c.chan == 6:
        if winning == CC:
            rank_ok = t[24] % 2 == 0
        else:
            base = (int(winning[0]) - 2) * 3
            rank_ok = all(t[base + k] % 2 == 0 for k in range(3))
        if rank_ok and t[KIND_INDEX[winning]] >= 2:
            out.append("bach_thu")
    reds = sum(1 for card in cards20 if is_red(card))
    if reds == 0:
        out.append("bach_dinh")
    if reds == 8:
        out.append("tam_do")
    if t[24] == 4 and reds == 4:
        out.append("kinh_tu_chi")
    if c.chan == 10:
        out.append("thap_thanh")
    return out


def finish_factors(factors: list[str]) -> list[str]:
    return sorted(factors) or ["xuong"]


def score_win(cards: str | Iterable[str], winning_card: str, *, self_drawn: bool = False) -> Win | None:
    """``cards``: the 19 cards before ``winning_card``. None if that is not ù."""
    hand = _cards(cards)
    card = parse_card(winning_card)
    if len(hand) != 19:
        raise ValueError("score_win needs the 19 cards before the winning card")
    cards20 = hand + [card]
    if not is_win(cards20, card):
        return None
    factors = finish_factors(hand_factors(cards20, card, self_drawn=self_drawn))
    return Win(factors=factors, points=factor_points(factors), ga=ga_points(factors), count=count(cards20))


def win_factors(cards20: Sequence[str], card: str | None, *, dealt: Sequence[str], self_drawn: bool,
                u_thong: bool) -> list[str]:
    """Every factor of a won game (sorted; xuông when none): ``card`` completes the 20 cards
    (None: thiên ù, the dealt hand), ``dealt`` the winner's dealt cards (for the quads)."""
    thien_u = card is None
    factors = hand_factors(cards20, card, self_drawn=self_drawn and not thien_u)
    if thien_u:
        factors.append("thien_u")
    if u_thong:
        factors.append("u_thong")
    given = Counter(dealt)
    for kind, k in Counter(cards20).items():
        if k == 4 and given[kind] >= 2:
            factors.append({4: "thien_khai", 3: "chiu", 2: "bon"}[min(given[kind], 4)])
    return finish_factors(factors)


# --------------------------------------------------------------------------------------------
# the outcome


def settle_win(n: int, seat: int, cards20: Sequence[str], card: str | None, factors: list[str], *,
               how: str, self_drawn: bool) -> tuple[Outcome, dict[str, Any], list[Phrase]]:
    """``seat`` won with ``cards20`` (``card`` completing them; None for thiên ù): the outcome
    (every loser pays the points, gà apart), the end facts of the view, the summary."""
    points, ga = factor_points(factors), ga_points(factors)
    chans, cas, trash = partition(cards20)
    order = [(seat + k) % n for k in range(n)]
    transfers = [Transfer(s, seat, points, "ù") for s in order[1:]]
    ranks = [0] * n
    for r, s in enumerate(order, 1):
        ranks[s] = r
    notes: list[list[Note]] = [[] for _ in range(n)]
    notes[seat] = [FACTORS[f][0] for f in factors]  # native names: not translated
    pts: list[int | None] = [None] * n
    pts[seat] = points
    name = {"thiên ù": "thiên ù", "chíu ù": "chíu ù"}.get(how, "ù")
    values = {"how": name, "factors": ", ".join(FACTORS[f][0] for f in factors), "points": points}
    summary = [Phrase("chan.u_on", {"winner": seat}, {**values, "card": card}) if card
               else Phrase("chan.u", {"winner": seat}, values)]  # a thiên ù is won on no card
    if ga:
        summary.append(Phrase("chan.ga", {}, {"ga": ga}))
    outcome = outcome_from_transfers(n, seat, ranks, transfers, points=pts, notes=notes, summary=summary)
    for r in outcome.results:
        r.ga = ga * (n - 1) if r.seat == seat else -ga
    outcome.check_balanced()
    end = {
        "how": name, "winning_card": card, "self_drawn": bool(self_drawn and card is not None),
        "factors": [{"id": f, "name": FACTORS[f][0], "points": FACTORS[f][1], "dich": FACTORS[f][2]}
                    for f in factors],
        "points": points, "ga": ga,
        "hand": {"chan": [[k, k] for k in chans], "ca": [list(p) for p in cas], "trash": trash,
                 "cards": sort_cards(cards20)},
    }
    return outcome, end, summary


def settle_draw(n: int) -> tuple[Outcome, dict[str, Any], list[Phrase]]:
    """The stock ran out with no ù: nobody pays, everybody ranks 1."""
    summary = [Phrase("chan.stock_out")]
    end = {"how": "draw", "winning_card": None, "self_drawn": False, "factors": [], "points": 0, "ga": 0,
           "hand": None}
    return outcome_from_transfers(n, None, [1] * n, [], summary=summary), end, summary


__all__ = ["CC", "FACTORS", "PHRASES", "Count", "Win", "count", "factor_points", "ga_points", "hand_factors",
           "is_red", "is_win", "partition", "score_win", "settle_draw", "settle_win", "tally", "tally_count",
           "tally_minus", "tally_plus", "tally_waits", "tally_win", "trash_kinds", "waits", "win_factors"]
