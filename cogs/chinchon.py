"""Chinchón: the /chinchon commands and what the table shows of a match of Chinchón.

Everything about rounds (the pause, Next round, buy-back prompts, round results, settling the
pot at the end) is the table framework's; this module only says what the game shows.
"""

from __future__ import annotations

import copy

from bot.games import chinchon, chinchon_ai
from bot.games.base import IllegalAction, card_of, tokens_for
from bot.tables.adapter import ButtonSpec, CopyTokensUI, HandImage, SelectOption, SelectSpec
from bot.tables.commands import GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Pile, SeatBox, TablePicture

FRENCH_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SPANISH_SUITS = {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}
SPANISH_FIGURES = {"10": "sota", "11": "caballo", "12": "rey"}


def card_label(card: str, spanish: bool = False) -> str:
    """``"TH"`` -> ``"10♥"``; Spanish ``"12E"`` -> ``"12 espadas"``; ``"JK=5H"`` -> ``"Joker (5♥)"``.
    (``7C`` is the seven of clubs in the French pack and of copas in the Spanish one.)"""
    if card.startswith("JK"):
        return f"Joker ({card_label(card[3:], spanish)})" if "=" in card else "Joker"
    rank, suit = card[:-1], card[-1]
    if spanish:
        return f"{rank} {SPANISH_SUITS[suit]}"
    return ("10" if rank == "T" else rank) + FRENCH_SUITS[suit]


def display_groups(view: dict, arranged: bool) -> list[list[str]]:
    """Arranged: each meld (jokers as the card they stand for), then the unmatched cards apart;
    else the hand as dealt, sorted."""
    arrangement = view["arrangement"]
    if arranged and arrangement is not None:
        groups = [list(meld) for meld in arrangement["melds"]] + [list(arrangement["unmatched"])]
    else:
        groups = [list(view["hand"])]
    return [group for group in groups if group]


class ChinchonUI(CopyTokensUI):
    game = chinchon.GAME
    deck = "french"
    description = "Chinchón: Spanish rummy for 2–4 players, a match of several rounds"
    stake_description = "Chips each player pays into the pot (again at a buy-back)"
    phrases = chinchon.PHRASES
    lobby_options = (
        LobbyOption("deck", "The pack: French (default) or Spanish of 40 or 48 cards",
                    choices=("french", "spanish40", "spanish48")),
        LobbyOption("close_limit", "Most an unmatched card may be worth to close (default 5)", int, 0, 10),
        LobbyOption("lay_off", "At the end of a round the others may lay off onto the closer's melds (default off)",
                    bool),
        LobbyOption("target", "The total that puts a player out (default 100)", int, 20, 500),
    )

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {key: table_options[key] for key in ("deck", "close_limit", "lay_off", "target") if key in table_options}

    def bind(self, table_options: dict) -> "ChinchonUI":
        """The UI of a table played with the French or a Spanish pack (labels and sprites)."""
        deck = "spanish" if str(table_options.get("deck", "french")).startswith("spanish") else "french"
        if deck == self.deck:
            return self
        bound = copy.copy(self)
        bound.deck = deck
        return bound

    def decks_used(self) -> tuple[str, ...]:
        return ("french", "spanish")

    def ai_action(self, state, seat: int) -> str:
        return chinchon_ai.choose(state, seat)

    def timeout_action(self, state, seat: int) -> str:
        # nobody spends chips on a buy-back without clicking
        if state.phase == "buyback":
            return "decline"
        return chinchon_ai.choose(state, seat)

    def deciding(self, view: dict) -> bool:
        return view["phase"] == "buyback"

    def quick_select(self, state, seat: int) -> list[str]:
        view = state.view(seat)
        return self._tokens(view, chinchon_ai.quick_select(state, seat))

    def card_label(self, card: str) -> str:
        return card_label(card, self.deck == "spanish")

    # ---- selection tokens over the cards as shown (a hand may hold both jokers)
    @staticmethod
    def _shown(view: dict, arranged: bool = True) -> list[str]:
        return [card for group in display_groups(view, arranged) for card in group]

    def _tokens(self, view: dict, cards: list[str]) -> list[str]:
        shown = [card_of_shown(c) for c in self._shown(view)]
        wanted, out = list(cards), []
        for card, token in zip(shown, tokens_for(shown)):
            if card in wanted:
                wanted.remove(card)
                out.append(token)
        return out

    def keep_selection(self, view: dict, selection: list[str]) -> list[str]:
        valid = set(tokens_for([card_of_shown(c) for c in self._shown(view)]))
        return [token for token in selection if token in valid]

    # ---- the hand
    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        groups = display_groups(view, arranged)
        flat = [card for group in groups for card in group]
        tokens = tokens_for([card_of_shown(c) for c in flat])
        arrangement = view["arrangement"]
        caption = ""
        if arrangement is not None:
            deadwood = arrangement["deadwood"]
            caption = "Every card melded: −10" if deadwood == -10 else f"Unmatched: {deadwood} points"
            if view["can_close"]:
                caption += " · you can close"
        if not view["in_match"][view["seat"]]:
            caption = "Out of the match"
        return HandImage(groups=groups, selected=[i for i, t in enumerate(tokens) if t in selection],
                         marked=[i for i, c in enumerate(flat) if c == view["drawn"]],
                         caption=caption, title="Your hand")

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if view["phase"] != "play" or view["current"] != view["seat"] or view["step"] != "discard":
            return None
        unmatched = set(view["arrangement"]["unmatched"]) if view["arrangement"] else set()
        closing = set(view["can_close"])
        shown = self._shown(view, arranged)
        options = []
        for card, token in zip(shown, tokens_for([card_of_shown(c) for c in shown])):
            plain = card_of_shown(card)
            note = "closes" if plain in closing else "unmatched" if card in unmatched else "in a meld"
            options.append(SelectOption(token, self.card_label(plain), note))
        return SelectSpec("Choose the card to discard or to close with", options, 1, selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        if view["phase"] == "buyback":
            if view["seat"] not in view["to_act"]:
                return []
            return [ButtonSpec("buyback", "Buy back in", "buyback" in legal, "success"),
                    ButtonSpec("decline", "Decline", "decline" in legal, "danger")]
        card = card_of(selection[0]) if len(selection) == 1 else None
        top = view["top_discard"]
        return [
            ButtonSpec("draw", "Draw", "draw" in legal, "primary"),
            ButtonSpec("take", f"Take {self.card_label(top)}" if top else "Take", "take" in legal, "primary"),
            ButtonSpec("discard", "Discard", card is not None and f"discard {card}" in legal, "danger"),
            ButtonSpec("close", "Close", card is not None and card in view["can_close"], "success"),
            ButtonSpec("quick", "Quick Select", view["step"] == "discard" and bool(legal), "secondary", row=2),
            ButtonSpec("arrange", "Auto-arrange", bool(view["hand"]), "secondary", row=2),
        ]

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key in ("draw", "take", "buyback", "decline"):
            return key
        if key in ("discard", "close"):
            if len(selection) != 1:
                raise IllegalAction(f"Select exactly one card to {key} with." if key == "close"
                                    else "Select exactly one card to discard.")
            return f"{key} {card_of(selection[0])}"
        raise IllegalAction("That control is not valid.")

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        seat = view["seat"]
        if view["outcome"] is not None:
            return "**Match over** — the result is on the table."
        header = f"Round {view['round']} · your total **{view['totals'][seat]}** / {view['options']['target']}"
        if not view["in_match"][seat]:
            return f"You are out of the match (total {view['totals'][seat]}). The table plays on in the thread."
        if view["phase"] == "buyback":
            if seat in view["to_act"]:
                at = max((view["totals"][s] for s in range(len(names))
                          if view["in_match"][s] and view["totals"][s] < view["options"]["target"]), default=0)
                return (f"**You reached {view['totals'][seat]}.** Buy back in at **{at}** for one more stake, "
                        "or Decline and leave the match. If your time runs out, you decline.")
            who = ", ".join(names[s] for s in view["to_act"])
            return f"{header}. Waiting for **{who}** to decide on a buy-back."
        if view["current"] != seat:
            return f"{header}. Waiting for **{names[view['current']]}**. Stock {view['stock']}"
        if view["step"] == "draw":
            top = self.card_label(view["top_discard"]) if view["top_discard"] else None
            take = f" or **Take** {top}" if "take" in view["legal"] else ""
            return f"{header}. **Your turn:** **Draw** from the stock{take}."
        close = " — or **Close** with a highlighted card" if view["can_close"] else ""
        return f"{header}. **Your turn:** select a card and **Discard**{close}."

    def event_text(self, event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        cards = self.cards_text(event.cards) if event.cards else ""
        if event.kind in ("end", "round_end"):
            return self.summary_text(event.phrases, names)
        texts = {
            "draw": f"{who} drew from the stock",
            "take": f"{who} took {cards}",
            "discard": f"{who} discarded {cards}",
            "close": f"✂️ {who} closed",
            "reshuffle": "The discards were shuffled into a new stock",
            "buyback": f"{who} bought back in",
            "decline": f"{who} declined to buy back",
            "round_start": f"Round {event.text} dealt",
        }
        return texts.get(event.kind) or super().event_text(event, names)

    def table_summary(self, view: dict) -> str:
        top = self.card_label(view["top_discard"]) if view["top_discard"] else "—"
        return f"Round **{view['round']}** · stock **{view['stock']}** · top discard **{top}**"

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        for seat, name in enumerate(names):
            marker = "▶ " if seat in view["to_act"] else ""
            parts = [f"total **{view['totals'][seat]}**"]
            if view["in_match"][seat]:
                parts.append(f"{view['hand_sizes'][seat]} cards")
            else:
                parts.append("**out**")
            if view["buybacks"][seat]:
                parts.append("bought back")
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        def detail(seat: int) -> str:
            first = f"{view['hand_sizes'][seat]} cards" if view["in_match"][seat] else "out of the match"
            bought = " · bought back" if view["buybacks"][seat] else ""
            return f"{first}\ntotal {view['totals'][seat]}{bought}"

        seats = tuple(SeatBox(name, detail(seat), active=seat in view["to_act"],
                              dim=not view["in_match"][seat] or table.seats[seat].away)
                      for seat, name in enumerate(names))
        piles = (Pile("Stock", BACK if view["stock"] else None, f"{view['stock']} cards"),
                 Pile("Discard", view["top_discard"], f"{view['discards']} cards"))
        return TablePicture(title=f"Chinchón · table #{table.id} · round {view['round']}", seats=seats,
                            piles=piles, deck=self.deck)

    def round_rows(self, view: dict, names: list[str], index: int) -> list[tuple[str, list[list[str]], str]]:
        result = view["round_results"][index]
        rows = []
        for seat, hand in enumerate(result["hands"]):
            if hand is None:
                continue
            groups = [list(m) for m in hand["melds"]] + ([list(hand["unmatched"])] if hand["unmatched"] else [])
            caption = f"{result['points'][seat]:+d} → {result['totals'][seat]}"
            if seat == result["closer"]:
                caption = "closed · " + caption
            if hand["laid_off"]:
                caption += " · laid off " + self.cards_text(hand["laid_off"])
            rows.append((names[seat], groups or [[]], caption))
        return rows

    def result_rows(self, view: dict, names: list[str]) -> list[tuple[str, list[list[str]], str]]:
        return self.round_rows(view, names, len(view["round_results"]) - 1)


def card_of_shown(card: str) -> str:
    """The card in hand behind a shown code (a joker shown as ``JK=5H`` is the hand's ``JK``)."""
    return "JK" if card.startswith("JK") else card


class Chinchon(GameCog):
    ui_class = ChinchonUI


async def setup(bot) -> None:
    await bot.add_cog(Chinchon(bot))
