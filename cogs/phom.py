"""Phỏm (Tá Lả): the /phom commands and what the table shows of a Phỏm game."""

from __future__ import annotations

from bot.games import phom, phom_ai
from bot.games.base import IllegalAction
from bot.i18n import N_, _, ngettext, pgettext
from bot.tables.adapter import (ButtonSpec, GameUI, HandImage, ResultRow, SelectOption, SelectSpec, Settlement,
                                cards, numbered, chips)
from bot.tables.commands import GameCog
from rendering import BACK
from rendering.table_picture import Group, Pile, Row, SeatBox, Section, TablePicture, picture_names

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_ORDER = "SHDC"
RANKS = "A23456789TJQK"


def card_label(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


class PhomUI(GameUI):
    game = phom.GAME
    deck = "french"
    description = N_("Phỏm (Tá Lả): Vietnamese rummy for 2–4 players")
    new_description = N_("Open a Phỏm table in this channel")
    phrases = phom.PHRASES

    def ai_action(self, state, seat: int) -> str:
        return phom_ai.choose(state.view(seat))

    def quick_select(self, state, seat: int) -> list[str]:
        return phom_ai.quick_select(state.view(seat))

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- the hand, in display order
    @staticmethod
    def _own_eaten(view: dict) -> list[str]:
        seat = view["seat"]
        return [card for card in view["eaten"][seat] if card in view["hand"]] if seat is not None else []

    def _groups(self, view: dict, arranged: bool) -> list[list[str]]:
        hand = view["hand"]
        if arranged:
            arrangement = phom.arrange(hand, eaten=self._own_eaten(view))
            groups = [list(meld) for meld in arrangement.melds] + [list(arrangement.leftover)]
        else:
            groups = [sorted((c for c in hand if c[1] == suit), key=lambda c: RANKS.index(c[0]))
                      for suit in SUIT_ORDER]
        return [group for group in groups if group]

    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        groups = self._groups(view, arranged)
        flat = [card for group in groups for card in group]
        eaten = set(self._own_eaten(view))
        arrangement = view["arrangement"]
        parts = []
        if arrangement is not None:
            points = arrangement["points"]
            # móm counts only at the end (a hand that showed no phỏm): said once the last round has come
            parts.append(ngettext("Móm · {n} point", "Móm · {n} points", points).format(n=points)
                         if arrangement["mom"] and view["last_round"] else
                         ngettext("Leftover {n} point", "Leftover {n} points", points).format(n=points))
        if view["locked"]:
            parts.append(_("locked: {cards}").format(cards=" ".join(card_label(c) for c in view["locked"])))
        if eaten:
            parts.append(_("underlined: eaten"))  # what the picture's mark means
        shown = view["shown"][view["seat"]] if view["seat"] is not None else []
        if shown:
            parts.append(_("shown: {melds}").format(
                melds="  ".join(" ".join(card_label(c) for c in meld) for meld in shown)))
        return HandImage(groups=groups, marked=[i for i, c in enumerate(flat) if c in eaten],
                         selected=[i for i, c in enumerate(flat) if c in selection], caption=" · ".join(parts),
                         # whose turn it is lives in the text: the image changes only with the hand
                         title=_("Your hand"))

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if view["current"] != view["seat"] or not view["hand"]:
            return None
        locked, eaten = set(view["locked"]), set(self._own_eaten(view))
        options = []
        flat = [card for group in self._groups(view, arranged) for card in group]
        for position, card in enumerate(flat, 1):
            note = pgettext("a card in hand", "eaten") if card in eaten else \
                pgettext("a card in hand", "locked") if card in locked else \
                pgettext("a card in hand", "just drawn") if card == view["drawn"] else None
            options.append(SelectOption(card, numbered(position, card_label(card)), note))
        phase = view["phase"]
        single = phase == "discard"
        if phase == "discard":
            placeholder = _("Choose the card to discard")
        elif phase == "draw" and view["active"] and any(action.startswith("eat ") for action in view["legal"]):
            placeholder = _("Cards to eat {card} with").format(card=card_label(view["active"]))
        elif phase == "show":
            placeholder = _("All your phỏm, to show (none selected: the best way)")
        else:
            placeholder = _("Cards")
        return SelectSpec(placeholder, options, 1 if single else len(options), selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        phase = view["phase"]
        can_eat = any(action.startswith("eat ") for action in legal)
        return [
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            ButtonSpec("eat", _("Eat"), can_eat and bool(selection), "success", teach=can_eat),
            ButtonSpec("show", _("Show"), phase == "show" and bool(legal), "success"),
            ButtonSpec("discard", _("Discard"), phase == "discard" and bool(legal) and len(selection) == 1, "danger",
                       teach=phase == "discard" and bool(legal)),
            *self.helper_buttons(view, quick=self.takes_cards(legal)),
        ]

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key == "draw":
            return "draw"
        if key == "eat":
            if not selection:
                raise IllegalAction(_("Select the cards of your hand that make a phỏm with the card you eat."))
            return "eat " + " ".join(selection)
        if key == "discard":
            if len(selection) != 1:
                raise IllegalAction(_("Select exactly one card to discard."))
            return f"discard {selection[0]}"
        if key == "show":
            if not selection:
                return self._best_show(view)
            eaten = [c for c in self._own_eaten(view) if c in selection]
            arrangement = phom.arrange(selection, eaten=eaten)
            if arrangement.leftover:
                raise IllegalAction(ngettext(
                    "{cards} does not fit in a phỏm with the other selected cards.",
                    "{cards} do not fit in a phỏm with the other selected cards.",
                    len(arrangement.leftover)).format(cards=" ".join(card_label(c) for c in arrangement.leftover)))
            kept = [c for c in view["hand"] if c not in selection]
            unshown = [c for c in self._own_eaten(view) if c in kept]
            if unshown:
                raise IllegalAction(_("Select your eaten card {card} too: every eaten card must be shown in a "
                                      "phỏm.").format(card=card_label(unshown[0])))
            left = phom.find_phom(kept)
            if left is not None:
                raise IllegalAction(_("Show all your phỏm: {cards} would still be a phỏm among the cards you "
                                      "keep.").format(cards=" ".join(card_label(c) for c in left)))
            return "show " + " | ".join(" ".join(meld) for meld in arrangement.melds)
        raise IllegalAction(_("That control is not valid."))

    @staticmethod
    def _best_show(view: dict) -> str:
        """The legal show (each lays down every phỏm) leaving the fewest points once the highest
        card kept is discarded; then the fewest points kept."""
        shows = [action for action in view["legal"] if action.split()[0] == "show"]
        if not shows:
            raise IllegalAction(_("You can only show your phỏm in the last round, before discarding."))

        def score(action: str) -> tuple:
            shown = set(action.split()[1:])
            kept = [phom.card_points(c) for c in view["hand"] if c not in shown]
            return sum(kept) - max(kept, default=0), sum(kept), action

        return min(shows, key=score)

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return _("**Game over** — the result is on the table.")
        current, seat = view["current"], view["seat"]
        stock = _("Stock {stock}").format(stock=view["stock"])
        if view["last_round"]:
            stock += " · " + _("**last round**")
        if current != seat:
            return _("Waiting for **{player}**. {stock}").format(player=names[current], stock=stock)
        phase = view["phase"]
        if phase == "draw":
            if any(a.startswith("eat ") for a in view["legal"]):
                text = _("**Your turn.** **Draw**, or select cards and **Eat** {card}.").format(
                    card=card_label(view["active"]))
            else:
                text = _("**Your turn.** **Draw** from the stock.")
        elif phase == "show" and view["legal"] == ["show"]:
            text = _("**Your turn — last round.** You have no phỏm: click **Show** (it shows nothing), then "
                     "discard.")
        elif phase == "show":
            text = _("**Your turn — last round.** **Show** all your phỏm (none selected: the best way to show "
                     "them all), then discard.")
        else:
            text = _("**Your turn.** Select a card and **Discard**.")
        return f"{text} {stock}"

    def event_text(self, event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        if event.kind == "u":
            if event.text == phom.U_BEFORE_DISCARD:
                return _("🎉 {player} ù before discarding").format(player=who)
            return _("🎉 {player} ù").format(player=who)
        if event.kind == "show" and not event.cards:
            return _("{player} showed no phỏm").format(player=who)
        return super().event_text(event, names)

    def table_summary(self, view: dict) -> str:
        total = 4 * view["num_players"] - 1
        parts = [_("Stock **{stock}** · draws {draws}/{total}").format(stock=view["stock"], draws=view["draws"],
                                                                      total=total)]
        if view["active"]:
            parts.append(_("on offer: **{card}**").format(card=card_label(view["active"])))
        if view["last_round"]:
            parts.append(_("**last round**"))
        return " · ".join(parts)

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        for seat, name in enumerate(names):
            marker = "▶ " if view["current"] == seat else ""
            parts = [cards(view["hand_sizes"][seat]),
                     _("discards: {cards}").format(cards=self.cards_text(view["discards"][seat]))]
            if view["eaten"][seat]:
                parts.append(_("eaten: {cards}").format(cards=self.cards_text(view["eaten"][seat])))
            if view["shown"][seat]:
                parts.append(_("shown: {melds}").format(
                    melds="  ".join(f"[{self.cards_text(m)}]" for m in view["shown"][seat])))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)
        n = view["num_players"]
        to_act = set(view["to_act"])

        def unshown_eaten(seat: int) -> list[str]:
            shown = {card for meld in view["shown"][seat] for card in meld}
            return [card for card in view["eaten"][seat] if card not in shown]

        def detail(seat: int) -> str:
            discards = len(view["discards"][seat])
            first = [cards(view["hand_sizes"][seat]),
                     ngettext("{n} discard", "{n} discards", discards).format(n=discards)]
            second = []
            if view["eaten"][seat]:
                eaten = len(view["eaten"][seat])
                second.append(ngettext("eaten {n}", "eaten {n}", eaten).format(n=eaten))
            if view["shown"][seat]:
                shown = len(view["shown"][seat])
                second.append(ngettext("{n} phỏm shown", "{n} phỏm shown", shown).format(n=shown))
            return "\n".join(" · ".join(line) for line in (first, second) if line)

        def row(seat: int) -> Row:
            groups = [Group(_("discards"), tuple(view["discards"][seat]))]
            groups.append(Group(_("eaten"), tuple(unshown_eaten(seat))))
            groups += [Group(_("shown") if k == 0 else "", tuple(meld)) for k, meld in enumerate(view["shown"][seat])]
            return Row(names[seat], tuple(groups), active=seat in to_act)

        seats = tuple(SeatBox(names[seat], detail(seat), active=seat in to_act, dim=table.seats[seat].away)
                      for seat in range(n))
        active = view["active"]
        offer = _("from {player}").format(player=names[(view["current"] - 1) % n]) \
            if active and view["current"] is not None else ""
        piles = (Pile(_("Stock"), BACK if view["stock"] else None,
                      cards(view["stock"]) + " · " + _("draw {draw}/{total}").format(draw=view["draws"],
                                                                                   total=4 * n - 1)),
                 Pile(_("On offer"), active, offer))
        title = (_("Phỏm · table #{table} · last round") if view["last_round"]
                 else _("Phỏm · table #{table}")).format(table=table.id)
        return TablePicture(title=title, seats=seats, piles=piles, deck=self.deck,
                            sections=(Section(_("Discards, eaten cards and phỏm shown"),
                                              rows=tuple(row(seat) for seat in range(n)),
                                              empty=_("No card on the table yet.")),))

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        outcome = view["outcome"]
        rows = []
        for result in self.ranked(view):
            seat = result["seat"]
            hand = outcome["hands"][seat]
            groups = [list(m) for m in hand["melds"]] + ([list(hand["leftover"])] if hand["leftover"] else [])
            points = hand["points"]
            parts = ["móm"] if hand["mom"] else []
            parts += [ngettext("{n} point", "{n} points", points).format(n=points),
                      chips(settlement.chips[seat], signed=True)]
            rows.append((self.result_label(view, names, result), groups, " · ".join(parts)))
        return rows



class Phom(GameCog):
    ui_class = PhomUI


async def setup(bot) -> None:
    await bot.add_cog(Phom(bot))
