"""Tứ Sắc: the /tusac commands and what the table shows of a Tứ Sắc game."""

from __future__ import annotations

from bot.games import tusac, tusac_ai
from bot.games.base import Event, IllegalAction, card_of, tokens_for
from bot.games.tusac_sets import COLOURS, card_name, glyph, sort_cards
from bot.tables.adapter import ButtonSpec, CopyTokensUI, HandImage, SelectOption, SelectSpec
from bot.tables.commands import GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Group, Pile, Row, SeatBox, Section, TablePicture, picture_names

COLOUR_MARKS = {"R": "🔴", "Y": "🟡", "G": "🟢", "W": "⚪"}


def card_label(card: str) -> str:
    """``"RC"`` -> ``"Red Pháo 炮"``."""
    return f"{card_name(card)} {glyph(card)}"


def meld_text(cards: list[str]) -> str:
    """Compact: the colour mark once per run of one colour, then the characters (🔴俥炮傌)."""
    out, colour = [], None
    for card in cards:
        if card[0] != colour:
            colour = card[0]
            out.append(COLOUR_MARKS[colour])
        out.append(glyph(card))
    return "".join(out)


def private_groups(view: dict, arranged: bool) -> list[list[str]]:
    """Arranged: each Khap, each set, then the trash apart; else one group per colour."""
    if arranged and view["arrangement"] is not None:
        groups = [[k] * 3 for k in view["khaps"]] + [list(s) for s in view["arrangement"]["sets"]]
        groups.append(list(view["arrangement"]["trash"]))
    else:
        groups = [[c for c in sort_cards(view["hand"]) if c[0] == colour] for colour in COLOURS]
    return [g for g in groups if g]


def public_groups(view: dict, seat: int) -> list[list[str]]:
    return [list(m["cards"]) for m in view["public"][seat]]


class TuSacUI(CopyTokensUI):
    game = tusac.GAME
    deck = "tusac"
    description = "Tứ Sắc: four-colour xiangqi cards for 2–4 players"
    lobby_options = (
        LobbyOption("worst_card_penalty", "Whoever lets someone win with a card that is not one of his worst "
                                          "pays for everyone (default on)", bool),
    )
    phrases = {
        "tusac.won_dealt": "{winner} wins with a dealt hand without trash",
        "tusac.won_drawn": "{winner} wins with {card} drawn from the stock",
        "tusac.won_discarded": "{winner} wins with {card} discarded by {source}",
        "tusac.payment": "hand value {value} · each loser owes {pay}",
        "tusac.payment_doubled": "hand value {value} · each loser owes {pay} (doubled: Quan/Khui)",
        "tusac.worst_card_penalty": "{payer} discarded a card that was not a worst one and pays for everyone",
        "tusac.stock_out": "Drawn game: the stock is down to {cards} cards with no winner. No payments.",
    }
    helper_keys = frozenset({"quick", "arrange", "trash"})

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {"worst_card_penalty": bool(table_options.get("worst_card_penalty", True))}

    def ai_action(self, state, seat: int) -> str:
        return tusac_ai.choose(state, seat)

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- selection tokens: the k-th copy of X in display order is "X#k"
    @staticmethod
    def _flat(view: dict, arranged: bool = True) -> list[str]:
        return [c for g in private_groups(view, arranged) for c in g]

    def _tokens(self, view: dict, cards: list[str]) -> list[str]:
        """Tokens for ``cards``, taking the last copies shown (trash comes after the sets)."""
        flat = self._flat(view)
        tokens = tokens_for(flat)
        taken: set[int] = set()
        out = []
        for card in cards:
            index = next(i for i in range(len(flat) - 1, -1, -1) if flat[i] == card and i not in taken)
            taken.add(index)
            out.append(tokens[index])
        return out

    def quick_select(self, state, seat: int) -> list[str]:
        return self._tokens(state.view(seat), tusac_ai.quick_select(state, seat))

    def helper(self, key: str, state, seat: int, selection: list[str]) -> list[str]:
        if key != "trash":
            return super().helper(key, state, seat, selection)
        view = state.view(seat)
        every, worst = self._tokens(view, view["trash_cards"]), self._tokens(view, view["worst"])
        if not every:
            raise IllegalAction("No trash: every private card is in a set.")
        # Stateless cycle: all trash -> the worst trash -> nothing -> all trash ...
        now = set(self.keep_selection(view, selection))
        if now == set(every):
            return worst if set(worst) != now else []
        if now == set(worst):
            return []
        return every

    # ---- the hand
    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        seat = view["seat"]
        groups = private_groups(view, arranged)
        flat = [c for g in groups for c in g]
        tokens = tokens_for(flat)
        public = public_groups(view, seat) if seat is not None else []
        caption = f"trash {view['trash']} · khap {len(view['khaps'])}"
        if public:
            caption += " · underlined: your public block"
        return HandImage(groups=groups + public,
                         marked=list(range(len(flat), len(flat) + sum(map(len, public)))),
                         selected=[i for i, t in enumerate(tokens) if t in selection],
                         caption=caption, title="Your hand")

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        phase = view["phase"]
        if view["current"] != view["seat"] or phase not in ("discard", "take", "drawn") or not view["hand"]:
            return None
        groups = private_groups(view, arranged)
        flat = [c for g in groups for c in g]
        khaps, trash, worst = set(view["khaps"]), set(view["trash_cards"]), set(view["worst"])
        options = []
        for card, token in zip(flat, tokens_for(flat)):
            if card in khaps and view["hand"].count(card) >= 3:
                continue  # locked: never melded by choice nor discarded
            note = ("trash · worst" if card in worst else "trash") if card in trash else None
            options.append(SelectOption(token, card_label(card), note))
        if phase == "discard":
            return SelectSpec("Choose a trash card to discard", options, max(1, len(selection)),
                              selected=selection)
        alone = " (none: it alone)" if "eat" in view["legal"] else ""
        return SelectSpec(f"Cards to meld with {card_label(view['active'])}{alone}", options,
                          max(3, len(selection)), selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        can_eat = any(a.startswith("eat ") for a in legal)  # with cards of the hand
        eat_alone = "eat" in legal  # a Tướng just drawn, laid down by itself
        discard = "Discard"
        if view["phase"] == "discard" and len(selection) == 1:
            card = card_of(selection[0])
            if card in view["trash_cards"] and card not in view["worst"]:
                discard = "Discard!!!"  # legal, but not a worst card: it may cost a penalty
        specs = [
            ButtonSpec("eat", "Eat", (can_eat and 1 <= len(selection) <= 3) or (eat_alone and not selection),
                       "success"),
            ButtonSpec("draw", "Draw", "draw" in legal, "primary"),
            ButtonSpec("pass", "Pass", "pass" in legal, "secondary"),
            ButtonSpec("discard", discard, view["phase"] == "discard" and bool(legal) and len(selection) == 1,
                       "danger"),
        ]
        if "u" in legal:
            specs.append(ButtonSpec("u", "Win!", True, "success"))
        specs += [
            ButtonSpec("trash", "Find Trash", bool(view["hand"]) and view["outcome"] is None, "secondary", row=2),
            ButtonSpec("quick", "Quick Select", bool(legal), "secondary", row=2),
            ButtonSpec("arrange", "Auto-arrange", True, "secondary", row=2),
        ]
        return specs

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        cards = [card_of(t) for t in selection]
        if key in ("draw", "pass", "u"):
            return key
        if key == "eat":
            if not cards and "eat" in view["legal"]:
                return "eat"  # a drawn Tướng is a set by itself
            if view["active"] is None or not 1 <= len(cards) <= 3:
                raise IllegalAction(f"Select 1–3 of your cards to meld with "
                                    f"{card_label(view['active']) if view['active'] else 'the active card'}.")
            return "eat " + " ".join(cards)
        if key == "discard":
            if len(cards) != 1:
                raise IllegalAction("Select exactly one card to discard.")
            return f"discard {cards[0]}"
        raise IllegalAction("That control is not valid.")

    # ---- texts
    def event_text(self, event: Event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        if event.kind == "claim":
            card = card_label(event.cards[0])
            if event.text == "khap":
                return f"{who} has a Khap of {card}: Khui, and takes the turn"
            return f"{who} has a pair of {card} and takes the turn"
        if event.kind == "u":
            return f"🏆 {self.summary_text(event.phrases, names)}" + (
                f": {meld_text(list(event.cards))}" if event.cards else "")
        if event.kind == "end":
            return self.summary_text(event.phrases, names)
        if event.kind == "eat":
            if len(event.cards) == 1:
                return f"{who} ate {card_label(event.cards[0])} alone"
            return f"{who} ate {card_label(event.cards[0])} with {self.cards_text(event.cards[1:])}"
        verbs = {"discard": "discarded", "draw": "drew", "pass": "passed"}
        return f"{who} {verbs.get(event.kind, event.kind)} {self.cards_text(event.cards)}".rstrip()

    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return "**Game over** — the result is on the table."
        current, seat, phase = view["current"], view["seat"], view["phase"]
        active = card_label(view["active"]) if view["active"] else None
        facts = f"Stock {view['stock']} · trash {view['trash']} · khap {len(view['khaps'])}"
        if current != seat:
            on = f" Active card: **{active}**." if active else ""
            return f"Waiting for **{names[current]}**.{on} {facts}"
        if phase == "declare":
            text = "Your dealt hand has no trash: click **Win!**"
        elif phase == "discard":
            text = "Select a trash card and **Discard** (**Quick Select** picks a worst one)."
        elif phase == "take":
            text = f"**{active}** is on offer: select cards and **Eat** it, or **Draw**."
        elif "eat" in view["legal"]:
            text = (f"You drew **{active}**: a Tướng is a set by itself. **Eat** it with nothing selected "
                    "(or select cards to meld it with), or **Pass**.")
        else:
            text = f"You drew **{active}**: select cards and **Eat** it, or **Pass**."
        return f"**Your turn.** {text} {facts}"

    def table_summary(self, view: dict) -> str:
        text = f"Stock **{view['stock']}**"
        if view["active"]:
            how = "drawn from the stock" if view["active_drawn"] else "discarded"
            text += f" · active card: **{card_label(view['active'])}** ({how})"
        return text

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        kinds = {"quan": "Quan ", "khui": "Khui ", "set": ""}
        for seat, name in enumerate(names):
            marker = "▶ " if view["current"] == seat else ""
            parts = [f"{view['hand_sizes'][seat]} cards", f"khap {view['khap_counts'][seat]}"]
            melds = view["public"][seat]
            if melds:
                parts.append("public: " + " ".join(f"[{kinds[m['kind']]}{meld_text(m['cards'])}]" for m in melds))
            if view["discards"][seat]:
                parts.append("discards: " + " ".join(meld_text([c]) for c in view["discards"][seat][-8:]))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)
        n = view["num_players"]
        to_act = set(view["to_act"])

        def detail(seat: int) -> str:
            sets = len(view["public"][seat])
            text = f"{view['hand_sizes'][seat]} cards · khap {view['khap_counts'][seat]}"
            return text + (f"\n{sets} public sets" if sets > 1 else "\n1 public set" if sets else "")

        def row(seat: int) -> Row:
            groups = [Group("discards", tuple(view["discards"][seat]))]
            first = True
            for meld in view["public"][seat]:
                label = {"quan": "Quan", "khui": "Khui"}.get(meld["kind"], "public" if first else "")
                groups.append(Group(label, tuple(meld["cards"])))
                first = False
            return Row(names[seat], tuple(groups), active=seat in to_act)

        seats = tuple(SeatBox(names[seat], detail(seat), active=seat in to_act, dim=table.seats[seat].away)
                      for seat in range(n))
        active = view["active"]
        if active is None:
            caption = ""
        elif view["active_drawn"]:
            caption = f"drawn by {names[view['active_from']]}"
        else:
            caption = f"discarded by {names[view['active_from']]}"
        piles = (Pile("Stock", BACK if view["stock"] else None, f"{view['stock']} cards"),
                 Pile("Active card", active, caption))
        return TablePicture(title=f"Tứ Sắc · table #{table.id}", seats=seats, piles=piles, deck=self.deck,
                            sections=(Section("Discards and public sets", rows=tuple(row(seat) for seat in range(n)),
                                              empty="No card on the table yet."),))

    def result_rows(self, view: dict, names: list[str]) -> list[tuple]:
        outcome = view["outcome"]
        results = {r["seat"]: r for r in outcome["results"]}
        rows = []
        for seat, hand in enumerate(outcome["hands"]):
            public = public_groups(view, seat)
            private = [[k] * 3 for k in hand["khaps"]] + [list(s) for s in hand["sets"]]
            if hand["trash"]:
                private.append(list(hand["trash"]))
            payout = f"{results[seat]['payout']:+d} stakes"
            if seat == outcome["winner"]:
                label = f"{names[seat]} — wins"  # no emoji: the image font has none
                caption = f"hand value {outcome['value']} · each loser owes {outcome['payment']} · {payout}"
            else:
                label = names[seat]
                caption = f"trash {hand['trash_count']} · khap {len(hand['khaps'])} · {payout}"
            count = sum(map(len, public))
            rows.append((label, public + private, caption, list(range(count))))
        return rows


class TuSac(GameCog):
    ui_class = TuSacUI


async def setup(bot) -> None:
    await bot.add_cog(TuSac(bot))
