"""Plain rule players, one per game: the arena's baseline (issue #28), like OpenSpiel's
SimpleGinRummyBot for gin rummy.

Each ``choose(view)`` returns one of the view's legal actions and reads only the seat's view.
They follow fixed rules on their own hand, with no lookahead and no card counting (no
unseen-card or live-out reckoning, no guess at what the next player needs):

- Phỏm: eat only to complete a phỏm from cards outside the hand's best arrangement; show
  the arrangement laying down the most cards; with gửi, send the first card it may; discard
  the highest card outside the best arrangement.
- Chắn: chíu whenever it may; eat only a chắn (the same card); discard a trash card, else
  the first card it may.
- Tứ Sắc: eat whenever it may (the first listed eat); discard the first trash card.
- Chinchón: take the top discard when it is a joker or ends up melded; close whenever it may;
  discard the highest unmatched card (never a joker); buy back whenever it may.
- Concan: take the top discard only when that opens; open, meld and lay off whatever it may;
  discard the highest leftover card (never a joker while another card is left).
"""

from __future__ import annotations

from typing import Any, Callable

from bot.games.base import ai_chooser
from bot.games.chinchon.cards import JOKER as CHINCHON_JOKER, get_pack
from bot.games.chinchon.melds import deadwood
from bot.games.concan.melds import card_penalty, is_joker_token
from bot.games.french import JOKER as CONCAN_JOKER
from bot.games.phom.melds import card_points


def _verbs(legal: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for action in legal:
        out.setdefault(action.split(" ", 1)[0], []).append(action)
    return out


@ai_chooser
def phom(view: dict[str, Any], legal: list[str]) -> str:
    loose = set(view["arrangement"]["leftover"]) if view["arrangement"] else set(view["hand"])
    if view["phase"] == "draw":
        for action in legal:
            if action.startswith("eat ") and set(action.split()[1:]) <= loose:
                return action
        return "draw"
    if view["phase"] == "show":
        return max(legal, key=lambda a: len(a.replace("|", " ").split()) - 1)
    sends = [a for a in legal if a.startswith("send ")]
    if sends:
        return sends[0]
    cards = [a.split()[1] for a in legal if a.startswith("discard ")]
    outside = [c for c in cards if c in loose] or cards
    return "discard " + max(outside, key=card_points)


@ai_chooser
def chan(view: dict[str, Any], legal: list[str]) -> str:
    if "chiu" in legal:
        return "chiu"
    if view["phase"] == "offer":
        return "pass"
    verbs = _verbs(legal)
    if "discard" in verbs:
        trash = set(view["trash_cards"])
        return next((a for a in verbs["discard"] if a.split()[1] in trash), verbs["discard"][0])
    if view["active"] is not None and f"eat {view['active']}" in legal:
        return f"eat {view['active']}"
    return "draw" if "draw" in legal else "pass" if "pass" in legal else legal[0]


@ai_chooser
def tusac(view: dict[str, Any], legal: list[str]) -> str:
    eats = [a for a in legal if a.split()[0] == "eat"]
    return eats[0] if eats else legal[0]


@ai_chooser
def chinchon(view: dict[str, Any], legal: list[str]) -> str:
    if view["phase"] == "buyback":
        return "buyback" if "buyback" in legal else legal[0]
    deck = view["options"]["deck"]
    hand = view["hand"]
    if view["step"] == "draw":
        top = view["top_discard"]
        if top == CHINCHON_JOKER:
            return "take"
        # the top card ends up melded: it adds less than its own value to the hand's deadwood
        if top is not None and deadwood(hand + [top], deck=deck) < deadwood(hand, deck=deck) + get_pack(
                deck).card_value(top):
            return "take"
        return "draw"
    closes = [a for a in legal if a.startswith("close ")]
    if closes:
        return closes[0]
    pk = get_pack(deck)
    unmatched = set(view["arrangement"]["unmatched"]) if view["arrangement"] else set(hand)
    cards = [a.split()[1] for a in legal if a.startswith("discard ")]
    plain = [c for c in cards if c != CHINCHON_JOKER] or cards
    outside = [c for c in plain if c in unmatched] or plain
    return "discard " + max(outside, key=pk.card_value)


@ai_chooser
def concan(view: dict[str, Any], legal: list[str]) -> str:
    verbs = _verbs(legal)
    opened = view["opened"][view["seat"]]
    if view["step"] == "draw":
        return "take" if "take" in verbs and not opened else "draw"
    for verb in ("open", "meld"):
        if verb in verbs:
            return verbs[verb][0]
    natural = [a for a in verbs.get("layoff", []) if not is_joker_token(a.split()[1])]
    if natural:
        return natural[0]
    if "discard" in verbs:
        cards = [a.split()[1] for a in verbs["discard"]]
        plain = [c for c in cards if c != CONCAN_JOKER] or cards
        rest = set(view["groups"]["rest"]) if view["groups"] else set()
        outside = [c for c in plain if c in rest] or plain
        return "discard " + max(outside, key=card_penalty)
    return legal[0]


#: the plain player of each game, by the game's name
SIMPLE: dict[str, Callable[[dict[str, Any]], str]] = {
    "phom": phom, "chan": chan, "tusac": tusac, "chinchon": chinchon, "concan": concan}
