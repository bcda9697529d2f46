"""A quick heuristic Chinchón player.

``choose(view)`` returns one of the view's legal actions; ``quick_select(view)`` returns the
card the UI should pre-select (the best discard, or the card to lay face down when the hand
can close).

It uses only what the seat knows, its view (``state.view(seat)``): its hand and the discard
pile (every discard was public).

- **Take** the top discard only when it ends up in a meld and lowers the penalty: the hand
  can close with it, or the discard it would then make keeps the gain (a joker is always
  taken); otherwise draw. Never take back a card it discarded itself this round: so a seat
  takes a card once a round at most, and seats cannot pass cards round for ever.
- **Close** whenever it can, laying face down the card that leaves the lowest penalty —
  unless closing scores more than −10 and a −10 looks likely: the cards that would complete
  the hand (counted among the unseen cards) give at least an even chance of drawing one by
  its next turn. Then it discards that card face up and waits.
- **Discard** the card that leaves the lowest penalty, less ``_PAIR_WEIGHT`` points per live
  card that would meld two of the unmatched cards left and ``_SINGLE_WEIGHT`` per live card
  that would pair with one, both scaled by 2 / the seats in the round (the more seats, the
  sooner someone closes: at four seats, halving them turned a round's points margin against
  the plain player from a loss to a gain on the arena, docs/experiments.md); never a joker
  while it holds anything else. A card is live while it may still be drawn: after a
  reshuffle, a card never shown this round is held by an opponent. After ``_STALL_RESHUFFLES`` reshuffles in a round (players keeping what the others
  need), it keeps the fewest unmatched cards, then the cards that may still meld before the
  low ones.
- **Buy back** whenever it may: on the arena's duplicate deals it won more matches than the
  old rule (buy back only while a fifth of the target is left to play with), at two seats and
  at four (the figures: docs/experiments.md).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bot.games.base import ai_chooser
from bot.games.chinchon.cards import JOKER, get_pack, hand_mask, indices
from bot.games.chinchon.melds import close_cards, melded_weight, penalty, unmatched

_PAIR_WEIGHT = 1.5  # points per live card that would meld two unmatched cards
_SINGLE_WEIGHT = 0.25  # points per live card that would pair with an unmatched card
_STALL_RESHUFFLES = 2  # from this many reshuffles in a round, keep live cards before low ones
_WAIT_CHANCE = 0.5  # wait for a −10 when the chance of one by the next turn is at least this


class _Seat:
    """What one seat knows, read from its view."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.seat = view["seat"]
        self.pk = get_pack(view["options"]["deck"])
        self.hand = list(view["hand"])
        self.pile = view["pile"]
        self.reshuffles = view["reshuffles"]

    def unseen(self) -> Counter:
        """The cards the seat has not seen: the pack less its hand and the discard pile."""
        left = Counter(self.pk.pack(self.view["num_players"]))
        left.subtract(self.hand)
        left.subtract(self.pile)
        return +left

    def live(self) -> tuple[list[int], int]:
        """The cards the seat may still draw, as (count by card index, jokers). After a
        reshuffle the stock holds only cards shown face up this round, so a card never shown
        is in an opponent's hand: dead."""
        pk = self.pk
        seen = set(self.view["seen"])
        live = [0] * 64
        jokers = 0
        for card, count in self.unseen().items():
            if self.reshuffles and card not in seen:
                continue
            if card == JOKER:
                jokers = count
            else:
                live[pk.index[card]] = count
        return live, jokers


_NEIGHBOURS: dict[str, list[list[int]]] = {}


def _neighbours(pk) -> list[list[int]]:
    """By card index, the cards that would make a pair (a set or a near-run) with it."""
    got = _NEIGHBOURS.get(pk.name)
    if got is None:
        got = [[] for _ in range(64)]
        for idx in pk.code:
            p, s = idx & 15, idx >> 4
            got[idx] = [t * 16 + p for t in range(4) if t != s] + [
                s * 16 + q for q in (p - 2, p - 1, p + 1, p + 2) if 0 <= q < pk.size]
        _NEIGHBOURS[pk.name] = got
    return got


class _Outs:
    """Weighted live outs of unmatched cards: ``_PAIR_WEIGHT`` per live card that would meld
    two of them (a live joker melds any pair), ``_SINGLE_WEIGHT`` per live card that would
    pair with one. Counts are kept per card and per pair: one decision asks about the same
    hand cards again and again."""

    def __init__(self, pk, live: list[int], live_jokers: int, scale: float = 1.0) -> None:
        self.pk = pk
        self.pair_weight = _PAIR_WEIGHT * scale
        self.single_weight = _SINGLE_WEIGHT * scale
        self.live = live
        self.live_jokers = live_jokers
        self.near = _neighbours(pk)
        self.single: dict[int, int] = {}
        self.pairs: dict[tuple[int, int], int] = {}

    def _single(self, a: int) -> int:
        got = self.single.get(a)
        if got is None:
            live = self.live
            got = self.single[a] = sum(live[c] for c in self.near[a])
        return got

    def _pair(self, a: int, b: int) -> int:
        got = self.pairs.get((a, b))
        if got is None:
            live = self.live
            if a & 15 == b & 15:
                got = self.live_jokers + sum(live[t * 16 + (a & 15)] for t in range(4)
                                             if t != a >> 4 and t != b >> 4)
            elif a >> 4 == b >> 4 and abs(a - b) <= 2:
                lo, hi = min(a, b), max(a, b)
                wanted = [lo + 1] if hi - lo == 2 else [c for c in (lo - 1, hi + 1) if c >> 4 == lo >> 4]
                got = self.live_jokers + sum(live[c] for c in wanted if c in self.pk.code)
            else:
                got = 0
            self.pairs[(a, b)] = got
        return got

    def __call__(self, unmatched: list[int]) -> float:
        pairs = 0
        single = 0
        for k, a in enumerate(unmatched):
            single += self._single(a)
            for b in unmatched[k + 1:]:
                pairs += self._pair(a, b)
        return self.pair_weight * pairs + self.single_weight * single


def _keep_key(pk, H: int, jokers: int, outs: _Outs, stalled: bool) -> tuple:
    """How good keeping the cards ``H`` (+ ``jokers``) is (lower is better)."""
    left, spare = unmatched(pk, H, jokers)
    if not left and not spare:
        return (-10, -10)
    loose = indices(left)
    pen = sum(pk.value[i] for i in loose) + 50 * spare
    live_outs = outs(loose)
    if stalled:  # nobody closes while holding dead cards: the fewest unmatched cards, then the
        return (len(loose) + spare, -live_outs, pen)  # cards that may still meld, then low ones
    return (pen - live_outs, pen)


def _without(cards: list[str], card: str) -> list[str]:
    rest = list(cards)
    rest.remove(card)
    return rest


def _discard_order(me: _Seat, hand: list[str], candidates: list[str]) -> list[str]:
    """The discards of ``candidates`` best first (jokers last)."""
    pk = me.pk
    H, jokers, value = hand_mask(pk, hand)
    outs = _Outs(pk, *me.live(), scale=2 / max(2, sum(me.view["in_match"])))
    stalled = me.reshuffles >= _STALL_RESHUFFLES
    plain = [c for c in candidates if c != JOKER]
    scored = []
    for i, card in enumerate(plain):
        idx = pk.index[card]
        scored.append(((_keep_key(pk, H ^ (1 << idx), jokers, outs, stalled), -(idx & 15), i), card))
    scored.sort()
    return [card for _key, card in scored] + [c for c in candidates if c == JOKER]


def _best_discard(me: _Seat, hand: list[str], candidates: list[str]) -> str:
    return _discard_order(me, hand, candidates)[0]


def _best_close(me: _Seat, cards: list[str]) -> tuple[str, int]:
    """The card to lay face down that leaves the lowest penalty, and that penalty."""
    pk = me.pk
    best = None
    for card in cards:
        H, jokers, value = hand_mask(pk, _without(me.hand, card))
        pen = penalty(pk, H, jokers, value)
        if best is None or pen < best[1]:
            best = (card, pen)
    return best


def _minus_ten_chance(me: _Seat, keep: list[str]) -> float:
    """The chance that one of the next two cards drawn lets the 7 ``keep`` cards close with −10
    (replacing their one unmatched card)."""
    pk = me.pk
    H, jokers, value = hand_mask(pk, keep)
    left, spare = unmatched(pk, H, jokers)
    if spare or left.bit_count() != 1:
        return 0.0
    u = left.bit_length() - 1
    base = H ^ left
    rest = value - pk.value[u]
    live, live_jokers = me.live()
    total = sum(live) + live_jokers
    if not total:
        return 0.0
    outs = 0
    if live_jokers and melded_weight(pk, base, jokers + 1, 0) == rest + 50 * (jokers + 1):
        outs += live_jokers
    for idx, count in enumerate(live):
        if count and melded_weight(pk, base | 1 << idx, jokers, 0) == rest + pk.value[idx] + 50 * jokers:
            outs += count
    miss = 1.0 - outs / total
    return 1.0 - miss * miss


def _choose_draw(me: _Seat) -> str:
    top = me.pile[-1]
    if top in me.view["discarded"][me.seat]:
        return "draw"  # never one's own discard back: a seat takes a card once a round at most
    if top == JOKER:
        return "take"
    pk = me.pk
    hand = me.hand
    H, jokers, value = hand_mask(pk, hand)
    now = penalty(pk, H, jokers, value)
    idx = pk.index[top]
    H8 = H | 1 << idx
    value8 = value + pk.value[idx]
    best = None
    for d in indices(H):
        pen = penalty(pk, H8 ^ (1 << d), jokers, value8 - pk.value[d])
        if best is None or pen < best[0]:
            best = (pen, d)
    if best[0] >= now or unmatched(pk, H8 ^ (1 << best[1]), jokers)[0] >> idx & 1:
        return "draw"  # no gain, or not from a meld with the card taken
    if close_cards(pk, H8, jokers, value8, int(me.view["options"].get("close_limit", 5))):
        return "take"  # and close
    # the discard it would make after taking must keep the gain (the same question, asked
    # again from the discard step's view, gives the same card: the cards unseen do not change)
    card = _best_discard(me, hand + [top], pk.sorted(hand))
    d = pk.index[card]
    if d != best[1] and (penalty(pk, H8 ^ (1 << d), jokers, value8 - pk.value[d]) >= now
                         or unmatched(pk, H8 ^ (1 << d), jokers)[0] >> idx & 1):
        return "draw"
    return "take"


def _choose_discard(me: _Seat, legal: list[str]) -> str:
    closes = [a.split()[1] for a in legal if a.startswith("close ")]
    if closes:
        card, pen = _best_close(me, closes)
        if pen == -10 or f"discard {card}" not in legal:
            return f"close {card}"
        if _minus_ten_chance(me, _without(me.hand, card)) < _WAIT_CHANCE:
            return f"close {card}"
        return f"discard {card}"
    card = _best_discard(me, me.hand, [a.split()[1] for a in legal if a.startswith("discard ")])
    return f"discard {card}"


@ai_chooser
def choose(view: dict[str, Any], legal: list[str]) -> str:
    if view["phase"] == "buyback":
        return "buyback" if "buyback" in legal else legal[0]
    if view["step"] == "draw":
        return _choose_draw(_Seat(view))
    return _choose_discard(_Seat(view), legal)


def quick_select(view: dict[str, Any]) -> list[str]:
    """The card to pre-select: the closing card when the hand can close, else the best discard."""
    if view["phase"] != "play" or view["seat"] != view["current"] or view["step"] != "discard":
        return []
    me = _Seat(view)
    if view["can_close"]:
        return [_best_close(me, view["can_close"])[0]]
    return [_best_discard(me, me.hand, [a.split()[1] for a in view["legal"] if a.startswith("discard ")])]
