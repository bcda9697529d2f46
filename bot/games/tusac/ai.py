"""A quick heuristic Tứ Sắc player.

``choose(view)`` returns one of the view's legal actions, from what the seat may see
(``state.view(seat)``); ``quick_select(view)`` returns the private cards the UI should
pre-select for it.

Heuristics: an eat followed by the forced discard always brings the trash count down by one,
while a draw rarely helps, so the AI eats whenever it may (an active Tướng alone too); among
eats it prefers the lowest trash afterwards, then the most outs kept after its best discard,
then the higher value. It discards a worst trash card (tusac.md), and among equally bad ones the card with the fewest
unseen copies, which is the least likely to be claimed by someone else.
"""

from __future__ import annotations

from collections import Counter

from typing import Any

from bot.games.base import ai_chooser
from bot.games.tusac.sets import CODES, outs, private_value, sort_key, trash_after, worst_codes


def unseen(view: dict[str, Any]) -> Counter:
    """Copies the seat has not seen: not in its hand, on the table or in a discard pile."""
    seen = Counter(view["hand"])
    for melds in view["public"]:
        for meld in melds:
            seen.update(meld["cards"])
    for pile in view["discards"]:
        seen.update(pile)
    if view["active"] is not None:
        seen[view["active"]] += 1
    return Counter({code: 4 - seen[code] for code in CODES if seen[code] < 4})


def _best_discard(hand: Counter, unseen: Counter) -> tuple[str | None, int]:
    """The worst trash card to throw and the outs it keeps (None without trash)."""
    worst = worst_codes(hand, unseen)
    if not worst:
        return None, 0
    card = min(worst, key=lambda c: (unseen[c], sort_key(c)))
    return card, outs(hand, card, unseen)


def _eat_score(hand: Counter, cards: list[str], unseen: Counter) -> tuple:
    rest = Counter(hand)
    rest.subtract(cards)
    rest = +rest
    _, kept = _best_discard(rest, unseen)
    value = private_value(rest)
    return (trash_after(hand, cards), -kept, -(value[0] if value else 0), [sort_key(c) for c in cards])


@ai_chooser
def choose(view: dict[str, Any], legal: list[str]) -> str:
    hand = Counter(view["hand"])
    if view["phase"] == "discard":
        card, _ = _best_discard(hand, unseen(view))
        return f"discard {card}"
    eats = [a.split()[1:] for a in legal if a.split()[0] == "eat"]  # [] : an active Tướng alone
    if not eats:
        return legal[0]
    left = unseen(view)
    best = min(eats, key=lambda cards: _eat_score(hand, cards, left))
    return " ".join(("eat", *best))


def quick_select(view: dict[str, Any]) -> list[str]:
    """Private cards to pre-select so that the matching button plays what ``choose`` would:
    the cards to eat with, or a worst trash card; nothing when drawing or passing is best, or
    when the best is to eat an active Tướng alone (the Eat button then takes it by itself)."""
    if view["seat"] not in view["to_act"]:
        return []
    verb, _, rest = choose(view).partition(" ")
    return rest.split() if verb in ("eat", "discard") else []
