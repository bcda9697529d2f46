"""Fixed Tứ Sắc packs for tests: chosen cards dealt where wanted, the rest of each hand
filled with complete sets that cannot interact with them."""

from __future__ import annotations

from collections import Counter

from bot.games.tusac.sets import CODES, FULL_PACK, GROUP_OF, GROUPS, parse_cards, trash_count


def _fill_shapes(kind: str, members: tuple[str, ...]) -> list[list[str]]:
    # Distinct cards only (two Tướng excepted): a filler pair could be claimed.
    if kind == "general":
        k, a, e = members
        return [[k, a, e], [k, k, a, e], [k], [k, k]]
    if kind == "chariot":
        return [list(members)]
    return [list(members), list(members[:3]), list(members[1:])]


def _fill(groups: list[int], need: int, pool: Counter) -> list[list[str]] | None:
    """Shapes from distinct ``groups`` adding up to ``need`` cards (depth first)."""
    if need == 0:
        return []
    if not groups:
        return None
    kind, members = GROUPS[groups[0]]
    for shape in _fill_shapes(kind, members) + [[]]:
        if len(shape) <= need and all(pool[c] >= shape.count(c) for c in shape):
            rest = _fill(groups[1:], need - len(shape), pool)
            if rest is not None:
                return [shape] + rest if shape else rest
    return None


def build_deck(hands: list[str], stock: str = "", players: int | None = None) -> list[str]:
    """A 112-card pack dealing ``hands`` (seat 0 first), then ``stock`` on top of the stock.

    Each hand is completed with sets (Tướng-Sĩ-Tượng, Xe-Pháo-Mã, Tốt of different colours,
    lone Tướng) taken from groups its chosen cards do not touch, so its trash count and its
    possible claims are those of the chosen cards alone. The rest of the stock follows in
    canonical order.
    """
    n = players or len(hands)
    given = [parse_cards(h) for h in hands] + [[] for _ in range(n - len(hands))]
    top = parse_cards(stock)
    pool = Counter(FULL_PACK)
    pool.subtract([c for h in given for c in h] + top)
    assert min(pool.values()) >= 0, "a card is used more than four times"
    touched = [{GROUP_OF[c][0] for c in hand} for hand in given]
    # The hand with the fewest free groups picks its filler first.
    for seat in sorted(range(n), key=lambda s: len(GROUPS) - len(touched[s])):
        hand = given[seat]
        need = (21 if seat == 0 else 20) - len(hand)
        order = [(g + 3 * seat) % len(GROUPS) for g in range(len(GROUPS))]
        picked = _fill([g for g in order if g not in touched[seat]], need, pool)
        assert picked is not None, f"cannot fill seat {seat}"
        for shape in picked:
            hand.extend(shape)
            pool.subtract(shape)
        assert trash_count(hand) == trash_count([c for c in hand if GROUP_OF[c][0] in touched[seat]])
    rest = [c for c in CODES for _ in range(pool[c])]
    return [c for h in given for c in h] + top + rest
