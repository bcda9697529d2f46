"""Chinchón: the /chinchon commands and what the table shows of a match of Chinchón.

Everything about rounds (the pause, Next round, buy-back prompts, round results, settling the
pot at the end) is the table framework's; this module only says what the game shows.
"""

from __future__ import annotations

import copy

from bot.games.chinchon import game as chinchon
from bot.games.chinchon import ai as chinchon_ai
from bot.games.base import IllegalAction, card_of, tokens_for
from bot.i18n import C_, N_, _, ngettext, number
from bot.tables.adapter import (ButtonSpec, CopyTokensUI, HandImage, ResultRow, SelectOption, SelectSpec,
                                Settlement, cards, finished_round, finished_round_points, numbered,
                                points_to_total, reached_total)
from bot.tables.commands import GameCog, LobbyOption
from bot.tables.pictures import chips_first
from rendering import BACK
from rendering.table_picture import Badge, Group, Pile, Row, SeatBox, Section, TablePicture

FRENCH_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SPANISH_SUITS = {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}
#: the Spanish pack's cards are named in Spanish in every language, as players name them
SPANISH_RANKS = {"1": "as", "10": "sota", "11": "caballo", "12": "rey"}


def card_label(card: str, spanish: bool = False) -> str:
    """``"TH"`` -> ``"10♥"``; Spanish ``"12E"`` -> ``"rey de espadas"``, ``"7C"`` -> ``"7 de copas"``;
    ``"JK=5H"`` -> ``"Joker (5♥)"``.
    (``7C`` is the seven of clubs in the French pack and of copas in the Spanish one.)"""
    if card.startswith("JK"):
        return _("Joker ({card})").format(card=card_label(card[3:], spanish)) if "=" in card else _("Joker")
    rank, suit = card[:-1], card[-1]
    if spanish:
        return f"{SPANISH_RANKS.get(rank, rank)} de {SPANISH_SUITS[suit]}"
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


def round_groups(result: dict, seat: int) -> list[list[str]]:
    """A seat's cards at the end of a round, as laid down: its melds, then its unmatched cards."""
    hand = result["hands"][seat]
    if hand is None:
        return []
    return [list(m) for m in hand["melds"]] + ([list(hand["unmatched"])] if hand["unmatched"] else [])


def bought_back_now(view: dict, seat: int) -> bool:
    """Whether the round that ended is the one ``seat`` bought back in after: its line of that
    round already says "bought back in at …"."""
    results = view.get("round_results") or []
    return finished_round(view) is not None and \
        reached_total(results, len(results) - 1, seat) != results[-1]["totals"][seat]


class ChinchonUI(CopyTokensUI):
    game = chinchon.GAME
    deck = "french"
    description = N_("Chinchón: Spanish rummy for 2–4 players, a match of several rounds")
    new_description = N_("Open a Chinchón table in this channel")
    stake_description = N_("Chips each player pays into the pot (again at a buy-back)")
    phrases = chinchon.PHRASES
    event_templates = {
        **CopyTokensUI.event_templates,
        "close": N_("✂️ {player} closed"),
        "buyback": N_("{player} bought back in"),
        "decline": N_("{player} declined to buy back"),
    }
    lobby_options = (
        LobbyOption(C_("option name", "deck"), N_("The pack: French (default) or Spanish of 40 or 48 cards"),
                    choices=("french", "spanish40", "spanish48"), label=N_("pack"),
                    choice_names=(("french", C_("choice", "French")), ("spanish40", C_("choice", "Spanish, 40 cards")),
                                  ("spanish48", C_("choice", "Spanish, 48 cards")))),
        LobbyOption(C_("option name", "close_limit"), N_("Most an unmatched card may be worth to close (default 5)"),
                    int, 0, 10, label=N_("closing limit")),
        LobbyOption(C_("option name", "lay_off"),
                    N_("At the end of a round the others may lay off onto the closer's melds (default off)"), bool,
                    label=N_("lay-off")),
        LobbyOption(C_("option name", "target"), N_("The total that puts a player out (default 100)"), int, 20, 500,
                    label=N_("target")),
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

    def person_action(self, view: dict) -> str | None:
        # nobody spends chips on a buy-back without clicking
        return "decline" if view["phase"] == "buyback" else None

    def deciding(self, view: dict) -> bool:
        return view["phase"] == "buyback"

    def quick_select(self, state, seat: int) -> list[str]:
        view = state.view(seat)
        return self._tokens(view, chinchon_ai.quick_select(view))

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
        result = finished_round(view)
        if result is not None:  # between two rounds: the hand the round ended with, and its points
            seat = view["seat"]
            played = result["points"][seat] is not None
            caption = finished_round_points(view, seat) if played else ""
            if not view["in_match"][seat]:
                caption = _("Out of the match") + (" · " + caption if caption else "")
            return HandImage(groups=round_groups(result, seat) if played else [], selected=[], marked=[],
                             caption=caption, title=_("Your last hand · round {round}").format(round=result["round"]))
        groups = display_groups(view, arranged)
        flat = [card for group in groups for card in group]
        tokens = tokens_for([card_of_shown(c) for c in flat])
        arrangement = view["arrangement"]
        caption = ""
        if arrangement is not None:
            deadwood = arrangement["deadwood"]
            caption = _("Every card melded: −10") if deadwood == -10 else ngettext(
                "Unmatched: {n} point", "Unmatched: {n} points", deadwood).format(n=deadwood)
            if view["can_close"]:
                caption += " · " + _("you can close")
        if not view["in_match"][view["seat"]]:
            caption = _("Out of the match")
        return HandImage(groups=groups, selected=[i for i, t in enumerate(tokens) if t in selection],
                         marked=[i for i, c in enumerate(flat) if c == view["drawn"]],
                         caption=caption, title=_("Your hand"))

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if view["phase"] != "play" or view["current"] != view["seat"] or view["step"] != "discard":
            return None
        unmatched = set(view["arrangement"]["unmatched"]) if view["arrangement"] else set()
        closing = set(view["can_close"])
        shown = self._shown(view, arranged)
        options = []
        for position, (card, token) in enumerate(zip(shown, tokens_for([card_of_shown(c) for c in shown])), 1):
            plain = card_of_shown(card)
            note = _("closes") if plain in closing else _("unmatched") if card in unmatched else _("in a meld")
            options.append(SelectOption(token, numbered(position, self.card_label(plain)), note))
        return SelectSpec(_("Choose the card to discard or to close with"), options, 1, selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        if view["phase"] == "buyback":
            if view["seat"] not in view["to_act"]:
                return []
            return [ButtonSpec("buyback", _("Buy back in"), "buyback" in legal, "success"),
                    ButtonSpec("decline", _("Decline"), "decline" in legal, "danger")]
        card = card_of(selection[0]) if len(selection) == 1 else None
        top = view["top_discard"]
        discarding = view["step"] == "discard" and any(a.startswith("discard ") for a in legal)
        return [
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            ButtonSpec("take", _("Take {card}").format(card=self.card_label(top)) if top else _("Take"),
                       "take" in legal, "primary"),
            ButtonSpec("discard", _("Discard"), card is not None and f"discard {card}" in legal, "danger",
                       teach=discarding),
            ButtonSpec("close", _("Close"), card is not None and card in view["can_close"], "success",
                       teach=discarding and bool(view["can_close"])),
            *self.helper_buttons(view, quick=view["step"] == "discard" and bool(legal), arrange=bool(view["hand"])),
        ]

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key in ("draw", "take", "buyback", "decline"):
            return key
        if key in ("discard", "close"):
            if len(selection) != 1:
                raise IllegalAction(_("Select exactly one card to close with.") if key == "close"
                                    else _("Select exactly one card to discard."))
            return f"{key} {card_of(selection[0])}"
        raise IllegalAction(_("That control is not valid."))

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        seat = view["seat"]
        if view["outcome"] is not None:
            return _("**Match over** — the result is on the table.")
        header = _("Round {round} · your total **{total}** / {target}").format(
            round=view["round"], total=number(view["totals"][seat]), target=view["options"]["target"])
        if not view["in_match"][seat]:
            return _("You are out of the match (total {total}). The table plays on in the thread.").format(
                total=number(view["totals"][seat]))
        result = finished_round(view)
        if result is not None and view["phase"] != "buyback":  # the next round is not shown yet
            return _("Round {round} · your total **{total}** / {target}").format(
                round=result["round"], total=number(view["totals"][seat]), target=view["options"]["target"]) + "."
        if view["phase"] == "buyback":
            if seat in view["to_act"]:
                at = max((view["totals"][s] for s in range(len(names))
                          if view["in_match"][s] and view["totals"][s] < view["options"]["target"]), default=0)
                return _("**You reached {total}.** Buy back in at **{at}** for one more stake, or Decline and leave "
                         "the match. If your time runs out, you decline.").format(total=number(view["totals"][seat]),
                                                                                    at=number(at))
            who = ", ".join(names[s] for s in view["to_act"])
            return _("{header}. Waiting for **{players}** to decide on a buy-back.").format(header=header, players=who)
        if view["current"] != seat:
            return _("{header}. Waiting for **{player}**. Stock {stock}").format(
                header=header, player=names[view["current"]], stock=view["stock"])
        if view["step"] == "draw":
            if "take" in view["legal"]:
                return _("{header}. **Your turn:** **Draw** from the stock or **Take** {card}.").format(
                    header=header, card=self.card_label(view["top_discard"]))
            return _("{header}. **Your turn:** **Draw** from the stock.").format(header=header)
        if view["can_close"]:
            return _("{header}. **Your turn:** select a card and **Discard** — or **Close** with a highlighted "
                     "card.").format(header=header)
        return _("{header}. **Your turn:** select a card and **Discard**.").format(header=header)

    def table_summary(self, view: dict) -> str:
        if finished_round(view) is not None:
            return ""  # the table's text says the round is over; the next round is not shown yet
        top = self.card_label(view["top_discard"]) if view["top_discard"] else "—"
        return _("Round **{round}** · stock **{stock}** · top discard **{card}**").format(
            round=view["round"], stock=view["stock"], card=top)

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        result = finished_round(view)
        for seat, name in enumerate(names):
            marker = "▶ " if seat in self._lit(view) else ""
            parts = [_("total **{total}**").format(total=number(view["totals"][seat]))]
            if result is not None and result["points"][seat] is not None:
                parts.append(finished_round_points(view, seat))
                if seat == result["closer"]:
                    parts.append(_("closed"))
                if not view["in_match"][seat]:
                    parts.append(_("**out**"))
            elif view["in_match"][seat]:
                parts.append(cards(view["hand_sizes"][seat]))
            else:
                parts.append(_("**out**"))
            if view["buybacks"][seat] and not bought_back_now(view, seat):  # (said once)
                parts.append(_("bought back"))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    @staticmethod
    def _lit(view: dict) -> list[int]:
        """The seats to show as acting: between two rounds, only a seat deciding on a buy-back."""
        if finished_round(view) is not None and view["phase"] != "buyback":
            return []
        return list(view["to_act"])

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        result = finished_round(view)
        if result is not None:
            return self._finished_picture(view, names, table, result)

        def detail(seat: int) -> str:
            first = cards(view["hand_sizes"][seat]) if view["in_match"][seat] else _("out of the match")
            second = _("total {total}").format(total=number(view["totals"][seat]))
            if view["buybacks"][seat]:
                second += " · " + _("bought back")
            return f"{first}\n{second}"

        def badges(seat: int) -> tuple[Badge, ...]:
            first = Badge("hand", str(view["hand_sizes"][seat])) if view["in_match"][seat] else Badge("out")
            return (first, Badge("total", number(view["totals"][seat]))) + \
                ((Badge("bought_back"),) if view["buybacks"][seat] else ())

        seats = tuple(SeatBox(name, detail(seat), active=seat in view["to_act"],
                              dim=not view["in_match"][seat] or table.seats[seat].away, badges=badges(seat))
                      for seat, name in enumerate(names))
        piles = (Pile(_("Stock"), BACK if view["stock"] else None, str(view["stock"])),
                 Pile(_("Discard pile"), view["top_discard"], str(view["discards"])))
        return TablePicture(title=_("Chinchón · table #{table} · round {round}").format(table=table.id,
                                                                                       round=view["round"]),
                            seats=seats, piles=piles, deck=self.deck)

    def _finished_picture(self, view: dict, names: list[str], table, result: dict) -> TablePicture:
        """The table between two rounds: the round that ended, each seat's hand as laid down and
        its points; nobody acts but a seat deciding on a buy-back."""
        def detail(seat: int) -> str:
            if result["points"][seat] is None:
                first = _("out of the match")
            else:  # where a buy-back reset the total, the total reached too: the sum adds up
                first = (_("closed") + " · " if seat == result["closer"] else "") + \
                    points_to_total(view["round_results"], len(view["round_results"]) - 1, seat)
            second = _("total {total}").format(total=number(view["totals"][seat]))
            if view["buybacks"][seat] and not bought_back_now(view, seat):  # (the first line says it)
                second += " · " + _("bought back")
            elif not view["in_match"][seat] and result["points"][seat] is not None:
                second += " · " + _("out of the match")
            return f"{first}\n{second}"

        def badges(seat: int) -> tuple[Badge, ...]:
            if result["points"][seat] is None:
                return (Badge("out"), Badge("total", number(view["totals"][seat])))
            # the round's points, the total they made (where a buy-back reset it, the one bought back in at)
            first = (Badge("closed"),) if seat == result["closer"] else ()
            out = not view["in_match"][seat] and not view["buybacks"][seat]
            return first + (Badge("", number(result["points"][seat], signed=True)),
                            Badge("total", number(view["totals"][seat]))) + \
                ((Badge("bought_back"),) if view["buybacks"][seat] else (Badge("out"),) if out else ())

        lit = self._lit(view)
        seats = tuple(SeatBox(name, detail(seat), active=seat in lit,
                              dim=not view["in_match"][seat] or table.seats[seat].away, badges=badges(seat))
                      for seat, name in enumerate(names))
        rows = tuple(Row(names[seat], tuple(Group("", tuple(group)) for group in round_groups(result, seat)))
                     for seat in range(len(names)) if result["hands"][seat] is not None)
        return TablePicture(title=_("Chinchón · table #{table} · round {round} is over").format(
                                table=table.id, round=result["round"]),
                            seats=seats, sections=(Section(_("Hands at the end of the round"), rows=rows),),
                            deck=self.deck)

    def round_rows(self, view: dict, names: list[str], index: int) -> list[tuple[str, list[list[str]], str]]:
        result = view["round_results"][index]
        rows = []
        for seat, hand in enumerate(result["hands"]):
            if hand is None:
                continue
            groups = [list(m) for m in hand["melds"]] + ([list(hand["unmatched"])] if hand["unmatched"] else [])
            caption = points_to_total(view["round_results"], index, seat)
            if seat == result["closer"]:
                caption = _("closed") + " · " + caption
            if hand["laid_off"]:
                caption += " · " + _("laid off {cards}").format(cards=self.cards_text(hand["laid_off"]))
            rows.append((names[seat], groups or [[]], caption))
        return rows

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        """The match's score board, each seat with its hand as the last round left it: the cards
        that decided the match (its history of rounds is in the rounds' messages)."""
        def last_hand(seat: int) -> list[list[str]]:  # a seat out of the match: the round it went out in
            return next((round_groups(r, seat) for r in reversed(view["round_results"]) if r["hands"][seat]), [])

        rows = self.match_result_rows(view, names, settlement)
        return [(label, last_hand(result["seat"]), chips_first(caption))
                for (label, _groups, caption), result in zip(rows, self.ranked(view))]


def card_of_shown(card: str) -> str:
    """The card in hand behind a shown code (a joker shown as ``JK=5H`` is the hand's ``JK``)."""
    return "JK" if card.startswith("JK") else card


class Chinchon(GameCog):
    ui_class = ChinchonUI


async def setup(bot) -> None:
    await bot.add_cog(Chinchon(bot))
