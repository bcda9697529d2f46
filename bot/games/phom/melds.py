"""Phỏm melds — rules in docs/rules/phom.md: the search for phỏm and for the arrangement of
a hand with the fewest points, under the eaten-card rule (each eaten card in its own phỏm).

Public API (the evaluation functions are re-exported by :mod:`.game`):

- ``best_points(cards, eaten=()) -> Points``, ``is_u(cards, eaten=()) -> bool``,
  ``is_phom(cards) -> bool``, ``arrange(cards, eaten=()) -> Arrangement``,
  ``find_phom(cards) -> list | None``, ``card_points(card)``.
- For the engine and the AI, on card codes already checked (``hand`` and ``eaten`` sets):
  ``solve(cards, eaten)`` (the best arrangement in card ids, see ``CARD_ID``/``CARD_CODE``),
  ``feasible``, ``hand_is_u``, ``hand_arrangement``, ``locked_cards``, ``culprit``,
  ``eat_partners``, ``show_options``, ``all_phom``, ``has_phom``, ``is_phom_codes``,
  ``canon_meld``, ``meld_key``, ``show_string``.
- Gửi (option ``send``): ``send_targets(view, seat)`` (the phỏm of the other seats, by their
  ``"<seat>:<k>"`` names), ``send_plan(cards, targets)`` (the sends laying off the most) and
  ``points_after_sends(cards, targets)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Iterable, Sequence

from bot.games.french import RANKS, SUITS, parse_cards, sort_key

# Card ids for the solver: id = (rank - 1) * 4 + suit index, so sorting ids sorts by
# (rank, suit); the next card of a run is id + 4; the point value is id // 4 + 1.

CARD_ID: dict[str, int] = {r + s: ri * 4 + si for ri, r in enumerate(RANKS) for si, s in enumerate(SUITS)}
CARD_CODE: list[str] = [""] * 52
for _code, _i in CARD_ID.items():
    CARD_CODE[_i] = _code
del _code, _i


def card_points(card: str) -> int:
    return CARD_ID[card] // 4 + 1


@dataclass(frozen=True)
class Points:
    points: int
    mom: bool


@dataclass
class Arrangement:
    melds: list[list[str]]
    leftover: list[str]
    points: int
    mom: bool

    def as_dict(self) -> dict[str, Any]:
        return {"melds": [list(m) for m in self.melds], "leftover": list(self.leftover),
                "points": self.points, "mom": self.mom}


_INF = 10**9


@lru_cache(maxsize=262144)
def _solve_ids(ids: tuple[int, ...], eaten: tuple[int, ...]):
    """Best arrangement of the sorted card ids ``ids``.

    Returns ``(points, melds, leftover)`` with melds/leftover as tuples of ids, or ``None``
    when no arrangement puts every eaten card in its own phỏm.
    """
    n = len(ids)
    pos = {c: i for i, c in enumerate(ids)}
    emask = 0
    for e in eaten:
        emask |= 1 << pos[e]
    vals = [c // 4 + 1 for c in ids]
    cands: list[list[int]] = [[] for _ in range(n)]
    # sets: 3+ cards of one rank (ids of one rank are adjacent)
    i = 0
    while i < n:
        r = ids[i] // 4
        j = i + 1
        while j < n and ids[j] // 4 == r:
            j += 1
        if j - i >= 3:
            for size in range(j - i, 2, -1):
                for comb in combinations(range(i, j), size):
                    m = 0
                    for p in comb:
                        m |= 1 << p
                    cands[comb[0]].append(m)
        i = j
    # runs: 3+ consecutive ranks of one suit, starting at each card
    for i, c in enumerate(ids):
        m = 1 << i
        length = 1
        nxt = c + 4
        runs = []
        while nxt in pos:
            m |= 1 << pos[nxt]
            length += 1
            if length >= 3:
                runs.append(m)
            nxt += 4
        if runs:
            cands[i].extend(reversed(runs))
    if emask:
        for i in range(n):
            cands[i] = [m for m in cands[i] if not ((m & emask) & ((m & emask) - 1))]

    memo: dict[int, tuple[int, int]] = {0: (0, 0)}

    def f(mask: int) -> int:
        got = memo.get(mask)
        if got is not None:
            return got[0]
        low = mask & -mask
        li = low.bit_length() - 1
        best = _INF
        choice = -1
        if not emask & low:
            best = vals[li] + f(mask ^ low)
            choice = 0
        for p in cands[li]:
            if best == 0:
                break
            if p & mask == p:
                v = f(mask ^ p)
                if v < best:
                    best = v
                    choice = p
        memo[mask] = (best, choice)
        return best

    full = (1 << n) - 1
    pts = f(full)
    if pts >= _INF:
        return None
    melds = []
    left = []
    mask = full
    while mask:
        __, ch = memo[mask]
        if ch == 0:
            low = mask & -mask
            left.append(ids[low.bit_length() - 1])
            mask ^= low
        else:
            melds.append(tuple(ids[k] for k in range(n) if ch >> k & 1))
            mask ^= ch
    melds.sort()
    return pts, tuple(melds), tuple(left)


def solve(cards: Iterable[str], eaten: Iterable[str] = ()):
    """``_solve_ids`` on card codes (all valid, distinct; eaten ⊆ cards)."""
    ids = tuple(sorted(CARD_ID[c] for c in cards))
    eids = tuple(sorted(CARD_ID[c] for c in eaten))
    return _solve_ids(ids, eids)


def feasible(cards: Iterable[str], eaten: Iterable[str]) -> bool:
    return solve(cards, eaten) is not None


def hand_is_u(cards: Iterable[str], eaten: Iterable[str]) -> bool:
    res = solve(cards, eaten)
    return res is not None and res[0] == 0


def _to_cards(cards: str | Iterable[str]) -> list[str]:
    out = parse_cards(cards)
    if len(set(out)) != len(out):
        raise ValueError("a card is listed twice")
    return out


def _prepare(cards, eaten) -> tuple[list[str], list[str]]:
    hand = _to_cards(cards)
    eat = _to_cards(eaten)
    hand += [c for c in eat if c not in hand]
    return hand, eat


def arrangement_from(res) -> Arrangement:
    pts, melds, left = res
    return Arrangement(
        melds=[[CARD_CODE[c] for c in m] for m in melds],
        leftover=[CARD_CODE[c] for c in sorted(left)],
        points=pts,
        mom=not melds,
    )


def arrange(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> Arrangement:
    """The lowest-points arrangement respecting the eaten-card rule.

    Eaten cards count as part of the hand (they are added if missing). Raises
    ``ValueError`` when no arrangement keeps every eaten card in its own phỏm.
    """
    hand, eat = _prepare(cards, eaten)
    res = solve(hand, eat)
    if res is None:
        raise ValueError("no arrangement keeps every eaten card in its own phỏm")
    return arrangement_from(res)


def best_points(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> Points:
    """Leftover points of the best arrangement; ``mom`` when it holds no phỏm at all."""
    arr = arrange(cards, eaten)
    return Points(points=arr.points, mom=arr.mom)


def is_u(cards: str | Iterable[str], eaten: str | Iterable[str] = ()) -> bool:
    """Whether the whole hand splits into phỏm (each eaten card in its own phỏm)."""
    hand, eat = _prepare(cards, eaten)
    return hand_is_u(hand, eat)


def is_phom(cards: str | Iterable[str]) -> bool:
    """3+ cards of one rank, or 3+ consecutive cards of one suit (ace low only)."""
    try:
        hand = _to_cards(cards)
    except ValueError:
        return False
    return is_phom_codes(hand)


def is_phom_codes(hand: Sequence[str]) -> bool:
    if len(hand) < 3 or len(set(hand)) != len(hand):
        return False
    ids = sorted(CARD_ID[c] for c in hand)
    if all(c // 4 == ids[0] // 4 for c in ids):
        return True
    return all(ids[k + 1] - ids[k] == 4 for k in range(len(ids) - 1))


def has_phom(cards: Iterable[str]) -> bool:
    """Whether some phỏm can be made from ``cards`` (fast: no enumeration)."""
    ids = {CARD_ID[c] for c in cards}
    per_rank: dict[int, int] = {}
    for i in ids:
        per_rank[i // 4] = per_rank.get(i // 4, 0) + 1
    if any(k >= 3 for k in per_rank.values()):
        return True
    return any(i + 4 in ids and i + 8 in ids for i in ids)  # ids + 4: the next rank, same suit


def find_phom(cards: str | Iterable[str]) -> list[str] | None:
    """A phỏm among ``cards`` (the longest, then the lowest in canonical order), or None."""
    found = all_phom(_to_cards(cards))
    if not found:
        return None
    return min(found, key=lambda m: (-len(m), meld_key(m)))


def canon_meld(meld: Iterable[str]) -> list[str]:
    return sorted(meld, key=sort_key)


def meld_key(meld: Sequence[str]):
    return tuple(sort_key(c) for c in meld)


def all_phom(cards: Iterable[str], eaten: Iterable[str] = ()) -> list[list[str]]:
    """Every phỏm (canonical, sorted) among ``cards`` holding at most one eaten card."""
    hand = sorted(cards, key=sort_key)
    eat = set(eaten)
    present = set(hand)
    out: list[list[str]] = []
    by_rank: dict[str, list[str]] = {}
    for c in hand:
        by_rank.setdefault(c[0], []).append(c)
    for group in by_rank.values():
        for size in range(3, len(group) + 1):
            for comb in combinations(group, size):
                out.append(list(comb))
    for c in hand:
        run = [c]
        ri = RANKS.index(c[0])
        while ri + 1 < len(RANKS) and RANKS[ri + 1] + c[1] in present:
            ri += 1
            run = run + [RANKS[ri] + c[1]]
            if len(run) >= 3:
                out.append(run)
    out = [m for m in out if sum(1 for x in m if x in eat) <= 1]
    out.sort(key=meld_key)
    return out


def eat_partners(active: str, cards: Iterable[str]) -> list[list[str]]:
    """Every group of 2+ of ``cards`` that makes a phỏm with ``active`` (canonical order)."""
    present = set(cards)
    out: list[list[str]] = []
    same = sorted((c for c in present if c[0] == active[0]), key=sort_key)
    for size in range(2, len(same) + 1):
        for comb in combinations(same, size):
            out.append(list(comb))
    ri = RANKS.index(active[0])
    below = []
    k = ri - 1
    while k >= 0 and RANKS[k] + active[1] in present:
        below.append(RANKS[k] + active[1])
        k -= 1
    above = []
    k = ri + 1
    while k < len(RANKS) and RANKS[k] + active[1] in present:
        above.append(RANKS[k] + active[1])
        k += 1
    for i in range(len(below) + 1):
        for j in range(len(above) + 1):
            if i + j >= 2:
                out.append(canon_meld(below[:i] + above[:j]))
    out.sort(key=lambda m: (len(m), meld_key(m)))
    return out


def show_string(melds: Sequence[Sequence[str]]) -> str:
    canon = sorted((canon_meld(m) for m in melds), key=meld_key)
    if not canon:
        return "show"
    return "show " + " | ".join(" ".join(m) for m in canon)


# --------------------------------------------------------------------------------------------
# a seat's hand under the eaten-card rule


def hand_arrangement(hand: Iterable[str], eaten: Iterable[str]) -> Arrangement:
    """The best arrangement of the cards a seat holds (all of them left over if none keeps the
    eaten rule, which no state of a game breaks)."""
    res = solve(hand, eaten)
    if res is None:
        res = (sum(card_points(c) for c in hand), (), tuple(sorted(CARD_ID[c] for c in hand)))
    return arrangement_from(res)


def locked_cards(hand: set[str], eaten: set[str]) -> list[str]:
    """Cards of ``hand`` that may not be discarded: the unshown ``eaten`` cards, and every card
    without which no arrangement keeps each of them in its own phỏm."""
    if not eaten:
        return []
    out = set(eaten)
    for c in hand:
        if c not in eaten and not feasible(hand - {c}, eaten):
            out.add(c)
    return sorted(out, key=sort_key)


def culprit(hand: set[str], eaten: set[str], prefer_last: str | None = None) -> str:
    """An eaten card that cannot be kept in a phỏm in ``hand`` (for error messages)."""
    order = sorted(eaten - {prefer_last}, key=sort_key) + ([prefer_last] if prefer_last else [])
    for e in order:
        if feasible(hand, eaten - {e}):
            return e
    return order[0]


def show_options(hand: set[str], eaten: set[str]) -> list[str]:
    """Every legal last-round ``show``: it lays down every unshown eaten card and leaves no phỏm
    among the cards kept (fewest phỏm first)."""
    cands = all_phom(hand, eaten)
    out: list[str] = []

    def rec(start: int, used: set[str], chosen: list[list[str]]) -> None:
        if eaten <= used and not has_phom(hand - used):
            out.append(show_string(chosen))
        for k in range(start, len(cands)):
            m = cands[k]
            if used.isdisjoint(m):
                chosen.append(m)
                rec(k + 1, used | set(m), chosen)
                chosen.pop()

    rec(0, set(), [])
    return sorted(set(out), key=lambda a: (a.count("|"), a))


# --------------------------------------------------------------------------------------------
# gửi: laying off onto other seats' shown phỏm (phom.md "Option: gửi")


def send_targets(view: dict[str, Any], seat: int) -> dict[str, list[str]]:
    """The phỏm ``seat`` could send onto, read from a view: every other seat's shown phỏm, named
    ``"<seat>:<k>"`` as the ``send`` action names them (k from 1, in the order shown)."""
    return {f"{target}:{k}": list(meld) for target, melds in enumerate(view["shown"]) if target != seat
            for k, meld in enumerate(melds, 1)}


def _is_set(meld: Sequence[str]) -> bool:
    return all(c[0] == meld[0][0] for c in meld)


def send_plan(cards: Iterable[str], targets: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The sends (card, target name) laying off the most points of ``cards``, one card always
    kept for the discard. A send never stops another (each card is sent once, a phỏm only
    grows), so every card that fits, or comes to fit, is sent: the highest first, onto a run
    rather than a set (a longer run may take the next card as well)."""
    melds = {name: list(meld) for name, meld in targets.items()}
    left = sorted(cards, key=lambda c: (-card_points(c), sort_key(c)))
    plan: list[tuple[str, str]] = []
    changed = True
    while changed:
        changed = False
        for card in list(left):
            if len(left) < 2:
                return plan
            fits = [name for name, meld in melds.items() if is_phom_codes(meld + [card])]
            if fits:
                name = next((n for n in fits if not _is_set(melds[n])), fits[0])
                melds[name] = canon_meld(melds[name] + [card])
                left.remove(card)
                plan.append((card, name))
                changed = True
    return plan


def points_after_sends(cards: Iterable[str], targets: dict[str, list[str]]) -> int:
    """The points ``cards`` (a hand after its show) end with after the best sends and the
    discard of the highest card left."""
    cards = list(cards)
    sent = {card for card, _name in send_plan(cards, targets)}
    rest = [card_points(c) for c in cards if c not in sent]
    return sum(rest) - max(rest, default=0)


__all__ = ["CARD_CODE", "CARD_ID", "Arrangement", "Points", "all_phom", "arrange", "arrangement_from", "best_points",
           "canon_meld", "card_points", "culprit", "eat_partners", "feasible", "find_phom", "hand_arrangement",
           "hand_is_u", "has_phom", "is_phom", "is_phom_codes", "is_u", "locked_cards", "meld_key",
           "points_after_sends", "send_plan", "send_targets", "show_options", "show_string", "solve"]
