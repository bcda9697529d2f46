"""A quick heuristic Concan player.

``choose(view)`` returns one of the view's legal actions, from what the seat may see
(``state.view(seat)``); ``quick_select(view)`` returns ``(move, cards)``: the hand cards the
UI should pre-select and the move they are for (see its docstring).

Heuristics, in order of the turn:

- Draw step: before opening, ``take`` whenever it is legal (it is legal only when an
  opening with that card exists: the AI opens at once); after opening, ``take`` only when the
  top discard gets laid this turn (it fits a table meld, or the hand lays more cards with it
  while keeping one to discard), else ``draw``: a taken card never goes straight back.
- Play step, not opened: lay the listed (best) opening as soon as there is one; a swap
  before opening is listed only when it leads to an opening, so it is taken.
- Play step, opened: announce jokers, swap every joker it can (a joker is worth at least the
  card it replaces and costs 2 once announced), lay the melds of the best grouping of the
  hand, lay off every leftover natural card that fits a table meld, lay off a joker only
  when that leaves at most one card; then discard.
- Discard: a card outside the best grouping (keeping a card for the discard), never a joker
  while another card is left; preferring cards with no partner (no pair or near-run with
  another leftover card), not laid off by anyone, and the highest in points.
"""

from __future__ import annotations

from typing import Any

from bot.games.base import ai_chooser
from bot.games.concan.melds import RANK_NO, card_penalty, is_joker_token, token_identity
from bot.games.concan.solver import best_melds
from bot.games.concan.table import fits_table, table_from_view
from bot.games.french import JOKER, sort_key


def _opened(view: dict[str, Any]) -> bool:
    return view["opened"][view["seat"]]


def _linked(card: str, others: list[str]) -> bool:
    """A pair or near-run with another leftover card (a meld in the making)."""
    r = RANK_NO[card[0]]
    for other in others:
        if other == JOKER:
            return True
        if other[0] == card[0] and other[1] != card[1]:
            return True
        if other[1] == card[1] and other != card:
            d = abs(RANK_NO[other[0]] - r)
            if d <= 2 or d >= 11:  # A with Q/K
                return True
    return False


def best_discard(view: dict[str, Any]) -> str:
    """The card the view's seat should discard now."""
    hand = view["hand"]
    rest = best_melds(hand, keep=1)["rest"]
    naturals = [c for c in rest if c != JOKER]
    if not naturals:
        # only jokers are left over: go out with one once opened, else break the cheapest meld
        others = [c for c in hand if c != JOKER]
        if _opened(view) or not others:
            return JOKER
        return min(others, key=lambda c: (card_penalty(c), sort_key(c)))
    table = table_from_view(view["melds"])

    def score(card: str) -> tuple:
        others = [c for c in rest if c != card]
        return (not _linked(card, others), not fits_table(table, card), card_penalty(card), sort_key(card))

    return max(naturals, key=score)


def _laid(cards: list[str]) -> int:
    """How many cards of ``cards`` the best grouping lays while keeping one for the discard."""
    return sum(len(m) for m in best_melds(cards, keep=1)["melds"])


def _choose_draw(view: dict[str, Any], legal: list[str]) -> str:
    if "take" not in legal:
        return "draw"
    if not _opened(view):
        return "take"  # legal only when an opening uses the card: the AI opens at once
    card = view["top_discard"]
    if card is None:
        return "draw"
    hand = view["hand"]
    # take a card only when it gets laid this turn (so the hand shrinks and no two players can
    # pass a card back and forth): it fits a table meld, or the hand lays more cards with it
    if card != JOKER and fits_table(table_from_view(view["melds"]), card):
        return "take"
    return "take" if _laid(hand + [card]) > _laid(hand) else "draw"


@ai_chooser
def choose(view: dict[str, Any], legal: list[str]) -> str:
    if view["step"] == "draw":
        return _choose_draw(view, legal)
    if view["step"] == "first_discard":
        return "discard " + best_discard(view)
    by_verb: dict[str, list[str]] = {}
    for action in legal:
        by_verb.setdefault(action.split(" ", 1)[0], []).append(action)
    if not _opened(view):
        for verb in ("open", "swap"):
            if verb in by_verb:
                return by_verb[verb][0]
    else:
        for verb in ("announce", "swap", "meld"):
            if verb in by_verb:
                return by_verb[verb][0]
        layoffs = by_verb.get("layoff", [])
        if layoffs:
            hand = view["hand"]
            rest = set(best_melds(hand, keep=1)["rest"])
            natural = [a for a in layoffs if not is_joker_token(a.split()[1]) and a.split()[1] in rest]
            if natural:
                return max(natural, key=lambda a: (card_penalty(a.split()[1]), a))
            if len(hand) <= 2:
                jokers = [a for a in layoffs if is_joker_token(a.split()[1])]
                if jokers:
                    return jokers[0]
    discard = "discard " + best_discard(view)
    if discard in legal:
        return discard
    discards = by_verb.get("discard")
    return discards[0] if discards else legal[0]


def _cards_of(action: str) -> list[str]:
    """The hand cards an ``open``/``meld`` action lays (a named joker is the hand's ``JK``)."""
    tokens = action.split(" ", 1)[1].replace("|", " ").split()
    return sorted((JOKER if is_joker_token(t) else token_identity(t) for t in tokens), key=sort_key)


def quick_select(view: dict[str, Any]) -> tuple[str, list[str]]:
    """``(move, cards)`` for the Quick Select button.

    - ``("open", cards)`` / ``("meld", cards)``: the cards of the listed best opening, or of
      the first meld of the best grouping (jokers as ``JK``; ``split_opening(cards)`` names
      them again);
    - else ``("discard", [card])``: the AI's discard;
    - ``("swap", [card])`` when a card was taken before opening and only a swap leads to the
      opening; ``("draw", [])`` / ``("take", [])`` in the draw step (what the AI would do);
    - ``("", [])`` when it is not ``seat``'s turn.
    """
    if view["seat"] not in view["to_act"]:
        return "", []
    legal = view["legal"]
    if view["step"] == "draw":
        return _choose_draw(view, legal), []
    for verb in ("open", "meld"):
        for action in legal:
            if action.startswith(verb + " "):
                return verb, _cards_of(action)
    if any(a.startswith("discard ") for a in legal):
        card = best_discard(view)
        if f"discard {card}" in legal:
            return "discard", [card]
        return "discard", [next(a for a in legal if a.startswith("discard ")).split()[1]]
    action = choose(view)
    verb, _, rest = action.partition(" ")
    return verb, rest.split()[:1]


__all__ = ["best_discard", "choose", "quick_select"]
