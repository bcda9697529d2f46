"""What Concan's hand says in words: card labels and the status line above the hand's controls."""

from __future__ import annotations

from bot.games.concan.game import JOKER, is_joker_token, token_identity
from bot.games.french import pretty
from bot.i18n import _, either, number
from bot.tables.adapter import finished_round

SUIT_ORDER = "SHDC"
RANKS = "A23456789TJQK"
MAX_OPTIONS = 25  # a Discord select


def card_label(card: str) -> str:
    """``"TH"`` -> ``"10♥"``; ``"JK"`` -> ``"Joker"``; ``"JK=5H"`` -> ``"Joker (5♥)"``."""
    if is_joker_token(card):
        return _("Joker ({card})").format(card=card_label(token_identity(card))) if "=" in card else _("Joker")
    return pretty(card)


def plain(card: str) -> str:
    """The hand card behind a shown code: a joker shown as ``JK=5H`` is the hand's ``JK``."""
    return JOKER if is_joker_token(card) else card


def melds_text(melds: list[list[str]]) -> str:
    return " | ".join(" ".join(card_label(c) for c in meld) for meld in melds)


def hand_status(view: dict, names: list[str]) -> str:
    """What the hand's message says to its player: the round, the total and what to do now."""
    seat = view["seat"]
    if view["outcome"] is not None:
        return _("**Set over** — the result is on the table.")
    result = finished_round(view)
    header = _("Round {round}/{rounds} · your total **{total}**").format(
        round=view["round"] if result is None else result["round"], rounds=view["rounds"],
        total=number(view["totals"][seat]))
    if result is not None:  # the next round is not shown yet
        return header + "."
    if seat not in view["to_act"]:
        return _("{header}. Waiting for **{player}**. Stock {stock}").format(
            header=header, player=names[view["current"]], stock=view["stock"])
    legal, opened, step = view["legal"], view["opened"][seat], view["step"]
    need = view["options"]["open_min"]
    if step == "first_discard":
        return _("{header}. **You start the round** with 15 cards: select one and **Discard**.").format(
            header=header)
    if step == "draw":
        if "take" in legal and opened:
            return _("{header}. **Your turn:** **Draw** from the stock or **Take** {card}.").format(
                header=header, card=card_label(view["top_discard"]))
        if "take" in legal:
            return _("{header}. **Your turn:** **Draw** from the stock or **Take** {card} (you must then open "
                     "with it).").format(header=header, card=card_label(view["top_discard"]))
        return _("{header}. **Your turn:** **Draw** from the stock.").format(header=header)
    must = (view["obligation"] or {}).get("must_open_with")
    if must:
        cards = " ".join(card_label(c) for c in must.split())
        if not any(a.startswith("open ") for a in legal):  # only a swap leads to the opening
            return _("{header}. You must open using {cards} (melds worth {need}+) before you discard: "
                     "**Swap joker** first.").format(header=header, cards=cards, need=need)
        return _("{header}. You must **Open** using {cards} (melds worth {need}+) before you discard.").format(
            header=header, cards=cards, need=need)
    if not opened:
        best = view["best_opening"] or 0
        if any(a.startswith("open ") for a in legal):
            return _("{header}. Select melds worth {need}+ and **Open** (your best: {best}) — **you can "
                     "open**, or select a card and **Discard**.").format(header=header, need=need, best=best)
        return _("{header}. Your melds are worth {best}, {need} are needed to open: select a card and "
                 "**Discard**.").format(header=header, need=need, best=best)
    verbs = {action.split()[0] for action in legal}
    moves = [word for verb, word in (("meld", _("**Meld**")), ("layoff", _("**Lay off**")),
                                     ("swap", _("**Swap joker**"))) if verb in verbs]
    if "layoff" in verbs or "swap" in verbs:
        text = _("{header}. {moves} (choose the meld number in the second select), then select a card and "
                 "**Discard**.").format(header=header, moves=either(moves))
    elif moves:
        text = _("{header}. {moves}, then select a card and **Discard**.").format(header=header, moves=either(moves))
    else:
        text = _("{header}. Select a card and **Discard**.").format(header=header)
    if "announce" in legal:
        text += " " + _("You hold a joker you have not announced: it costs 25 if the round ends (2 once "
                        "announced).")
    return text
