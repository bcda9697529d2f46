"""A quick heuristic Phỏm player.

``choose(state, seat)`` returns one of ``state.legal_actions(seat)``;
``quick_select(state, seat)`` returns the hand cards the UI should pre-select for it.

Heuristics: eat whenever the eat lowers the best points we can reach after discarding (an
eat that ù-s is always taken); discard the card that leaves the lowest best points, adjusted
before the last round by the live pairs kept for later (pairs/near-runs whose missing cards
are still unseen) and by the chance of feeding the next player an eat (counted from the
cards we have not seen); in the last round pick, among the legal shows (each lays down every
phỏm of the hand), the one that after the best discard leaves the fewest points (only shown
phỏm count at the end).
"""

from __future__ import annotations

from itertools import combinations

from .base import ai_chooser
from .french import RANKS, sort_key
from .phom import PhomState
from .phom_melds import CARD_CODE, CARD_ID, card_points, solve

_POTENTIAL_WEIGHT = 2.5  # points per live out kept in a leftover pair/near-run
_FEED_COST = 10.0  # points a normal eat by the next player is worth to us
_FEED_COST_LAST = 25.0  # ... and an ăn chốt (4 units)


def _known(state: PhomState, seat: int) -> set[str]:
    """Cards ``seat`` can see: his own, every discard pile, eaten and shown cards."""
    known = set(state.hands[seat])
    for s in range(state.num_players):
        known.update(state.discards[s])
        known.update(state.eaten[s])
        for m in state.shown[s]:
            known.update(m)
    return known


def _code(ri: int, s: str) -> str | None:
    return RANKS[ri] + s if 0 <= ri < len(RANKS) else None


def _live(card: str | None, known: set[str]) -> int:
    return 1 if card is not None and card not in known else 0


def _potential(left: list[str], known: set[str]) -> int:
    """Live outs of the pairs among leftover cards (cards that would complete a phỏm)."""
    total = 0
    for a, b in combinations(left, 2):
        ra, rb = RANKS.index(a[0]), RANKS.index(b[0])
        if ra == rb:
            total += sum(_live(RANKS[ra] + s, known) for s in "SHDC" if s not in (a[1], b[1]))
        elif a[1] == b[1]:
            lo, hi = min(ra, rb), max(ra, rb)
            if hi - lo == 1:
                total += _live(_code(lo - 1, a[1]), known) + _live(_code(hi + 1, a[1]), known)
            elif hi - lo == 2:
                total += _live(_code(lo + 1, a[1]), known)
    return total


def _feed_pairs(card: str, known: set[str]) -> int:
    """Unseen pairs of cards that would make a phỏm with ``card`` (ways to eat it)."""
    ri, s = RANKS.index(card[0]), card[1]
    same = sum(1 for t in "SHDC" if t != s and RANKS[ri] + t not in known)
    pairs = same * (same - 1) // 2
    for d1, d2 in ((-2, -1), (-1, 1), (1, 2)):
        a, b = _code(ri + d1, s), _code(ri + d2, s)
        if a is not None and b is not None and a not in known and b not in known:
            pairs += 1
    return pairs


def _feed_risk(state: PhomState, seat: int, card: str, known: set[str]) -> float:
    if state.draws >= state.total_draws or state.stock_left <= 0:
        return 0.0  # this discard ends the game
    nxt = (seat + 1) % state.num_players
    unknown = 52 - len(known)
    if unknown <= 0:
        return 0.0
    held = len(state.hands[nxt]) - len(state.unshown_eaten[nxt])
    p = min(1.0, held / unknown) ** 2
    next_last = state.draws >= state.last_round_from
    return _feed_pairs(card, known) * p * (_FEED_COST_LAST if next_last else _FEED_COST)


def _best_discard(state: PhomState, seat: int, candidates: list[str]) -> str:
    hand = state.hands[seat]
    ue = state.unshown_eaten[seat]
    known = _known(state, seat)
    final = state.turn_last
    n = state.num_players
    turns_left = (state.total_draws - state.draws) // n
    pot_w = _POTENTIAL_WEIGHT if turns_left >= 2 else _POTENTIAL_WEIGHT / 2
    best = None
    for c in candidates:
        rest = hand - {c}
        res = solve(rest, ue)
        if res is None:
            continue
        pts, _melds, left = res
        if pts == 0:
            return c  # ù after discarding
        if final:
            score = float(sum(card_points(x) for x in rest))
        else:
            left_codes = [CARD_CODE[x] for x in left]
            score = pts - pot_w * _potential(left_codes, known)
        score += _feed_risk(state, seat, c, known)
        key = (score, -card_points(c), sort_key(c))
        if best is None or key < best[0]:
            best = (key, c)
    return best[1] if best else candidates[0]


def _choose_draw(state: PhomState, seat: int, legal: list[str]) -> str:
    eats = [a for a in legal if a.startswith("eat ")]
    if not eats:
        return "draw"
    active = state.active
    hand = state.hands[seat]
    ue = state.unshown_eaten[seat]
    now = solve(hand, ue)
    now_pts = now[0] if now else 10**6
    new_hand = hand | {active}
    new_ue = ue | {active}
    full = solve(new_hand, new_ue)
    if full is None:
        return "draw"
    after = None
    if full[0] == 0:
        after = -1  # ù before discarding
    else:
        for c in new_hand:
            if c in new_ue:
                continue
            res = solve(new_hand - {c}, new_ue)
            if res is not None and (after is None or res[0] < after):
                after = res[0]
    if after is None or after >= now_pts:
        return "draw"
    # name the hand cards of the phỏm holding the eaten card in the best arrangement
    aid = CARD_ID[active]
    for meld in full[1]:
        if aid in meld:
            partners = sorted((CARD_CODE[x] for x in meld if x != aid), key=sort_key)
            action = "eat " + " ".join(partners)
            if action in eats:
                return action
    return eats[0]


def _choose_show(state: PhomState, seat: int, legal: list[str]) -> str:
    """The legal show (each lays down every phỏm) after which the best discard leaves the
    fewest points (only shown phỏm count at the end), feeding risk included."""
    hand = state.hands[seat]
    known = _known(state, seat)
    best = None
    for action in legal:
        kept = hand - set(action[4:].replace("|", " ").split())
        total = sum(card_points(x) for x in kept)
        for c in sorted(kept, key=sort_key):  # nothing is locked once every eaten card is shown
            key = (total - card_points(c) + _feed_risk(state, seat, c, known), -card_points(c),
                   sort_key(c), action)
            if best is None or key < best[0]:
                best = (key, action)
    return best[1] if best else legal[0]


@ai_chooser
def choose(state: PhomState, seat: int, legal: list[str]) -> str:
    if state.phase == "draw":
        return _choose_draw(state, seat, legal)
    if state.phase == "show":
        return _choose_show(state, seat, legal)
    return "discard " + _best_discard(state, seat, [a.split()[1] for a in legal])


def quick_select(state: PhomState, seat: int) -> list[str]:
    """Hand cards to pre-select so that the matching button plays what ``choose`` would."""
    if seat not in state.to_act:
        return []
    action = choose(state, seat)
    verb, _, rest = action.partition(" ")
    if verb == "draw":
        return []
    return rest.replace("|", " ").split()
