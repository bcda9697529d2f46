"""Phỏm (Tá Lả): the /phom commands and what the table shows of a Phỏm game."""

from __future__ import annotations

from bot.games import phom, phom_ai
from bot.games.base import IllegalAction
from bot.tables.adapter import ButtonSpec, GameUI, HandImage, SelectOption, SelectSpec
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
    description = "Phỏm (Tá Lả): Vietnamese rummy for 2–4 players"
    phrases = {
        "phom.u": "{winner} ù: {each} from each player",
        "phom.u_before_discard": "{winner} ù before discarding: {each} from each player",
        "phom.u_den": "{winner} ù; {payer} pays for everyone ({reason})",
        "phom.u_before_discard_den": "{winner} ù before discarding; {payer} pays for everyone ({reason})",
        "phom.win": "{winner} wins with {points} points",
        "phom.win_all_mom": "{winner} wins with {points} points (everyone móm)",
    }

    def ai_action(self, state, seat: int) -> str:
        return phom_ai.choose(state, seat)

    def quick_select(self, state, seat: int) -> list[str]:
        return phom_ai.quick_select(state, seat)

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
        if arrangement is None:
            caption = ""
        elif arrangement["mom"]:
            caption = f"Móm · {arrangement['points']} points"
        else:
            caption = f"Leftover {arrangement['points']} points"
        if view["locked"]:
            caption += " · locked: " + " ".join(card_label(c) for c in view["locked"])
        shown = view["shown"][view["seat"]] if view["seat"] is not None else []
        if shown:
            caption += " · shown: " + "  ".join(" ".join(card_label(c) for c in meld) for meld in shown)
        return HandImage(groups=groups, marked=[i for i, c in enumerate(flat) if c in eaten],
                         selected=[i for i, c in enumerate(flat) if c in selection], caption=caption,
                         title="Your hand")  # whose turn it is lives in the text: the image changes only with the hand

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if view["current"] != view["seat"] or not view["hand"]:
            return None
        locked, eaten = set(view["locked"]), set(self._own_eaten(view))
        options = []
        for group in self._groups(view, arranged):
            for card in group:
                note = "eaten" if card in eaten else "locked" if card in locked else \
                    "just drawn" if card == view["drawn"] else None
                options.append(SelectOption(card, card_label(card), note))
        single = view["phase"] == "discard"
        placeholder = {"discard": "Choose the card to discard",
                       "draw": f"Cards to eat {card_label(view['active'])} with" if view["active"] else "Cards",
                       "show": "All your phỏm, to show (none selected: the best way)"}.get(view["phase"], "Cards")
        return SelectSpec(placeholder, options, 1 if single else len(options), selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        phase = view["phase"]
        can_eat = any(action.startswith("eat ") for action in legal)
        return [
            ButtonSpec("draw", "Draw", "draw" in legal, "primary"),
            ButtonSpec("eat", "Eat", can_eat and bool(selection), "success"),
            ButtonSpec("show", "Show", phase == "show" and bool(legal), "success"),
            ButtonSpec("discard", "Discard", phase == "discard" and bool(legal) and len(selection) == 1, "danger"),
            ButtonSpec("quick", "Quick Select", bool(legal), "secondary", row=2),
            ButtonSpec("arrange", "Auto-arrange", True, "secondary", row=2),
        ]

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key == "draw":
            return "draw"
        if key == "eat":
            if not selection:
                raise IllegalAction("Select the cards of your hand that make a phỏm with the card you eat.")
            return "eat " + " ".join(selection)
        if key == "discard":
            if len(selection) != 1:
                raise IllegalAction("Select exactly one card to discard.")
            return f"discard {selection[0]}"
        if key == "show":
            if not selection:
                return self._best_show(view)
            eaten = [c for c in self._own_eaten(view) if c in selection]
            arrangement = phom.arrange(selection, eaten=eaten)
            if arrangement.leftover:
                raise IllegalAction(
                    f"{' '.join(card_label(c) for c in arrangement.leftover)} do not fit in a phỏm with the "
                    "other selected cards.")
            kept = [c for c in view["hand"] if c not in selection]
            unshown = [c for c in self._own_eaten(view) if c in kept]
            if unshown:
                raise IllegalAction(f"Select your eaten card {card_label(unshown[0])} too: every eaten card "
                                    "must be shown in a phỏm.")
            left = phom.find_phom(kept)
            if left is not None:
                raise IllegalAction(f"Show all your phỏm: {' '.join(card_label(c) for c in left)} would still "
                                    "be a phỏm among the cards you keep.")
            return "show " + " | ".join(" ".join(meld) for meld in arrangement.melds)
        raise IllegalAction("That control is not valid.")

    @staticmethod
    def _best_show(view: dict) -> str:
        """The legal show (each lays down every phỏm) leaving the fewest points once the highest
        card kept is discarded; then the fewest points kept."""
        shows = [action for action in view["legal"] if action.split()[0] == "show"]
        if not shows:
            raise IllegalAction("You can only show your phỏm in the last round, before discarding.")

        def score(action: str) -> tuple:
            shown = set(action.split()[1:])
            kept = [phom.card_points(c) for c in view["hand"] if c not in shown]
            return sum(kept) - max(kept, default=0), sum(kept), action

        return min(shows, key=score)

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return "**Game over** — the result is on the table."
        current, seat = view["current"], view["seat"]
        stock = f"Stock {view['stock']}" + (" · **last round**" if view["last_round"] else "")
        if current != seat:
            return f"Waiting for **{names[current]}**. {stock}"
        phase = view["phase"]
        if phase == "draw":
            eat = any(a.startswith("eat ") for a in view["legal"])
            active = card_label(view["active"]) if view["active"] else ""
            what = f"**Draw**, or select cards and **Eat** {active}" if eat else "**Draw** from the stock"
            text = f"**Your turn.** {what}."
        elif phase == "show" and view["legal"] == ["show"]:
            text = "**Your turn — last round.** You have no phỏm: click **Show** (it shows nothing), then discard."
        elif phase == "show":
            text = ("**Your turn — last round.** **Show** all your phỏm (none selected: the best way to show "
                    "them all), then discard.")
        else:
            text = "**Your turn.** Select a card and **Discard**."
        return f"{text} {stock}"

    def table_summary(self, view: dict) -> str:
        total = 4 * view["num_players"] - 1
        text = f"Stock **{view['stock']}** · draws {view['draws']}/{total}"
        if view["active"]:
            text += f" · on offer: **{card_label(view['active'])}**"
        return text + (" · **last round**" if view["last_round"] else "")

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        for seat, name in enumerate(names):
            marker = "▶ " if view["current"] == seat else ""
            parts = [f"{view['hand_sizes'][seat]} cards", f"discards: {self.cards_text(view['discards'][seat])}"]
            if view["eaten"][seat]:
                parts.append(f"eaten: {self.cards_text(view['eaten'][seat])}")
            if view["shown"][seat]:
                parts.append("shown: " + "  ".join(f"[{self.cards_text(m)}]" for m in view["shown"][seat]))
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
            first = [f"{view['hand_sizes'][seat]} cards", f"{discards} discards" if discards != 1 else "1 discard"]
            second = []
            if view["eaten"][seat]:
                second.append(f"eaten {len(view['eaten'][seat])}")
            if view["shown"][seat]:
                second.append(f"{len(view['shown'][seat])} phỏm shown")
            return "\n".join(" · ".join(line) for line in (first, second) if line)

        def row(seat: int) -> Row:
            groups = [Group("discards", tuple(view["discards"][seat]))]
            groups.append(Group("eaten", tuple(unshown_eaten(seat))))
            groups += [Group("shown" if k == 0 else "", tuple(meld)) for k, meld in enumerate(view["shown"][seat])]
            return Row(names[seat], tuple(groups), active=seat in to_act)

        seats = tuple(SeatBox(names[seat], detail(seat), active=seat in to_act, dim=table.seats[seat].away)
                      for seat in range(n))
        active = view["active"]
        offer = f"from {names[(view['current'] - 1) % n]}" if active and view["current"] is not None else ""
        piles = (Pile("Stock", BACK if view["stock"] else None,
                      f"{view['stock']} cards · draw {view['draws']}/{4 * n - 1}"),
                 Pile("On offer", active, offer))
        title = f"Phỏm · table #{table.id} · last round" if view["last_round"] else f"Phỏm · table #{table.id}"
        return TablePicture(title=title, seats=seats, piles=piles, deck=self.deck,
                            sections=(Section("Discards, eaten cards and phỏm shown",
                                              rows=tuple(row(seat) for seat in range(n)),
                                              empty="No card on the table yet."),))

    def result_rows(self, view: dict, names: list[str]) -> list[tuple[str, list[list[str]], str]]:
        outcome = view["outcome"]
        ranks = {r["seat"]: r for r in outcome["results"]}
        rows = []
        for seat, hand in enumerate(outcome["hands"]):
            result = ranks[seat]
            groups = [list(m) for m in hand["melds"]] + ([list(hand["leftover"])] if hand["leftover"] else [])
            caption = "móm · " if hand["mom"] else ""
            caption += f"{hand['points']} points · rank {result['rank']} · {result['payout']:+d} stakes"
            rows.append((names[seat], groups, caption))
        return rows


class Phom(GameCog):
    ui_class = PhomUI


async def setup(bot) -> None:
    await bot.add_cog(Phom(bot))
