"""Chắn: the /chan commands and what the table shows of a Chắn game."""

from __future__ import annotations

from bot.games import chan, chan_ai
from bot.games.base import IllegalAction, card_of, tokens_for
from bot.games.tosom import RANKS, cjk_name, is_ca, sort_cards, vi_name
from bot.tables.adapter import ButtonSpec, CopyTokensUI, HandImage, SelectOption, SelectSpec
from bot.tables.commands import MAX_STAKE, GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Group, Pile, Row, SeatBox, Section, TablePicture, picture_names

EAT_KEYS = {"eat_chan": "Eat Chắn", "eat_ca": "Eat Cạ", "eat_ca2": "Eat Cạ*"}


def card_label(card: str) -> str:
    return f"{cjk_name(card)}({card})"


def last_copies(hand: list[str], cards: list[str]) -> list[str]:
    """Tokens of the last copy of each card in the arranged hand (the copy outside any chắn)."""
    flat = [c for g in hand_groups(hand, True) for c in g]
    last = dict(zip(flat, tokens_for(flat)))
    return [last[c] for c in cards if c in last]


def hand_groups(hand: list[str], arranged: bool) -> list[list[str]]:
    """Arranged: each chắn, each cạ, then the trash; else one group per rank (Chi chi last)."""
    if arranged:
        chans, cas, trash = chan.partition(hand)
        groups = [[k, k] for k in chans] + [list(p) for p in cas] + [trash]
    else:
        groups = [[c for c in sort_cards(hand) if c != "CC" and c[0] == r] for r in RANKS]
        groups.append([c for c in hand if c == "CC"])
    return [g for g in groups if g]


def eat_kind(view: dict, card: str) -> str | None:
    """Which eat button ``card`` (a hand card) would use with the active card."""
    active = view["active"]
    if active is None:
        return None
    if card == active:
        return "eat_chan"
    if is_ca(card, active):
        return "eat_ca2" if view["hand"].count(card) >= 2 else "eat_ca"
    return None


class ChanUI(CopyTokensUI):
    game = chan.GAME
    deck = "tosom"
    description = "Chắn: the Vietnamese pairs game with the Tổ Tôm pack, 2–4 players"
    stake_description = "Chips per point (default from config)"
    lobby_options = (
        LobbyOption("ga_stake", "Chips per gà point (default: the stake; 0 turns gà off)", int, 0, MAX_STAKE),
        LobbyOption("chiu", "Out-of-turn chíu: decided by the table (auto) or offered with a button (ask)",
                    choices=("auto", "ask")),
    )

    def table_options(self, given: dict, *, stake: int) -> dict:
        options = super().table_options(given, stake=stake)
        options.setdefault("ga_stake", stake)
        options.setdefault("chiu", "auto")
        return options
    phrases = {
        "chan.u": "{winner} {how}: {factors} — {points} points",
        "chan.u_on": "{winner} {how} on {card}: {factors} — {points} points",
        "chan.ga": "{ga} gà",
        "chan.stock_out": "The stock ran out with no ù: a draw, no payment.",
    }
    helper_keys = frozenset({"quick", "arrange", "trash"})

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {"chiu": table_options.get("chiu") or "auto", "previous_winner": previous_winner}

    def ai_action(self, state, seat: int) -> str:
        return chan_ai.choose(state, seat)

    def quick_select(self, state, seat: int) -> list[str]:
        return last_copies(state.hands[seat], [card_of(t) for t in chan_ai.quick_select(state, seat)])

    def helper(self, key: str, state, seat: int, selection: list[str]) -> list[str]:
        if key == "quick":
            return self.quick_select(state, seat)
        if key == "trash":
            trash = state.trash_cards(seat)
            if not trash:
                raise IllegalAction("No trash: every card is in a chắn or a cạ.")
            return last_copies(state.hands[seat], trash)
        raise IllegalAction("That control is not valid.")

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- the hand
    def _display(self, view: dict, arranged: bool) -> tuple[list[list[str]], list[str]]:
        groups = hand_groups(view["hand"], arranged)
        flat = [c for g in groups for c in g]
        return groups, tokens_for(flat)

    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        groups, tokens = self._display(view, arranged)
        seat = view["seat"]
        laid = [list(p) for p in view["laid"][seat]] if seat is not None else []
        forbidden = set(view["no_discard"])
        flat = [c for g in groups for c in g]
        c = view["count"]
        caption = f"{c['chan']} chắn / {c['ca']} cạ / {c['trash']} rác" if c else ""
        if view.get("waiting"):
            caption += " · one card from ù"
        if laid:
            caption += f" · laid down (right): {len(laid)} pairs"
        if forbidden:
            caption += " · underlined: may not be discarded"
        return HandImage(groups=groups + laid,
                         marked=[i for i, card in enumerate(flat) if card in forbidden],
                         selected=[i for i, t in enumerate(tokens) if t in selection],
                         caption=caption, title="Your hand")

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        seat = view["seat"]
        if seat not in view["to_act"] or view["phase"] not in ("open", "discard", "turn", "drawn") \
                or not view["hand"] or view["legal"] == ["u"]:
            return None
        groups, tokens = self._display(view, arranged)
        flat = [c for g in groups for c in g]
        forbidden, trash = set(view["no_discard"]), set(view["trash_cards"])
        options = []
        for card, token in zip(flat, tokens):
            note = "may not be discarded" if card in forbidden else "trash" if card in trash else None
            options.append(SelectOption(token, f"{cjk_name(card)} {card} · {vi_name(card)}", note))
        if view["phase"] in ("open", "discard"):
            return SelectSpec("Choose the card to discard", options, 1, selected=selection)
        active = card_label(view["active"]) if view["active"] else "the card"
        return SelectSpec(f"Your card to pair with {active}", options, min(len(options), 25),
                          selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        phase = view["phase"]
        eating = phase in ("turn", "drawn") and view["seat"] in view["to_act"]
        kinds = {eat_kind(view, card_of(t)) for t in selection} if eating else set()
        specs = [
            ButtonSpec("draw", "Draw", "draw" in legal, "primary"),
            ButtonSpec("eat_chan", "Eat Chắn", "eat_chan" in kinds, "success"),
            ButtonSpec("eat_ca", "Eat Cạ", "eat_ca" in kinds, "success"),
            ButtonSpec("eat_ca2", "Eat Cạ*", "eat_ca2" in kinds, "success"),
            ButtonSpec("pass", "Pass", "pass" in legal, "secondary"),
            ButtonSpec("discard", "Discard", phase in ("open", "discard") and bool(legal)
                       and legal != ["u"] and len(selection) == 1, "danger", row=2),
        ]
        if "chiu" in legal:
            specs.append(ButtonSpec("chiu", "Chíu", True, "success", row=2))
        if "u" in legal:
            specs.append(ButtonSpec("u", "Ù!", True, "success", row=2))
        specs += [
            ButtonSpec("trash", "Find Trash", bool(view["hand"]) and view["outcome"] is None, "secondary", row=3),
            ButtonSpec("quick", "Quick Select", bool(legal), "secondary", row=3),
            ButtonSpec("arrange", "Auto-arrange", True, "secondary", row=3),
        ]
        return specs

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key in ("draw", "pass", "chiu", "u"):
            return key
        if key == "discard":
            if len(selection) != 1:
                raise IllegalAction("Select exactly one card to discard.")
            return f"discard {card_of(selection[0])}"
        if key in EAT_KEYS:
            if view["active"] is None:
                raise IllegalAction("There is no card to eat.")
            cards = [card_of(t) for t in selection if eat_kind(view, card_of(t)) == key]
            if not cards:
                raise IllegalAction(f"Select the hand card to pair with {card_label(view['active'])}.")
            for card in cards:
                if f"eat {card}" in view["legal"]:
                    return f"eat {card}"
            return f"eat {cards[0]}"  # refused by the engine with its reason
        raise IllegalAction("That control is not valid.")

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return "**Game over** — the result is on the table."
        seat, phase = view["seat"], view["phase"]
        stock = f"Stock {view['stock']}"
        active = card_label(view["active"]) if view["active"] else None
        if seat not in view["to_act"]:
            who = ", ".join(names[s] for s in view["to_act"])
            extra = " (chíu offer)" if phase == "offer" else ""
            return f"Waiting for **{who}**{extra}. {stock}"
        if phase == "offer":
            return f"**Chíu?** You hold three {active}: **Chíu** takes it out of turn, or **Pass**. {stock}"
        if view["legal"] == ["u"]:
            return f"**Your dealt hand is ù (thiên ù)!** Click **Ù!**. {stock}"
        if phase in ("open", "discard"):
            return f"**Your move.** Select a card and **Discard**. {stock}"
        chiu = " or **Chíu**" if "chiu" in view["legal"] else ""
        if phase == "turn":
            offer = f"select a card and **Eat** {active}{chiu}, or " if active else ""
            return f"**Your turn.** {offer[:1].upper() + offer[1:] if offer else ''}**Draw**. {stock}"
        return f"**You drew {active}.** Select a card and **Eat** it{chiu}, or **Pass**. {stock}"

    def event_text(self, event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        cards = self.cards_text(event.cards) if event.cards else ""
        if event.kind == "end":
            return self.summary_text(event.phrases, names)
        if event.kind == "draw":
            return f"{who} drew {cards}"
        if event.kind == "eat":
            return f"{who} ate {cards} ({event.text})"
        if event.kind == "pass":
            return f"{who} passed {cards}" if event.text != "declined the chíu" else f"{who} declined to chíu {cards}"
        if event.kind == "offer":
            return f"{who} may chíu {cards}…"
        if event.kind == "chiu":
            return f"🀄 {who} chíu {cards}" + (" **out of turn**" if event.text == "out of turn" else "")
        if event.kind == "u":
            return f"🎉 **{who} ù** on {cards}" + (f" ({event.text})" if event.text and event.text != "ù" else "")
        return super().event_text(event, names)

    def table_summary(self, view: dict) -> str:
        text = f"Stock **{view['stock']}**"
        if view["active"]:
            src = "drawn" if view["active_from"] is None else "on offer"
            text += f" · {src}: **{card_label(view['active'])}**"
        if view["options"]["chiu"] == "ask":
            text += " · chíu: ask"
        return text

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        for seat, name in enumerate(names):
            marker = "▶ " if seat in view["to_act"] else ""
            parts = [f"{view['hand_sizes'][seat]} in hand", f"trash row: {self.cards_text(view['rows'][seat])}"]
            if view["laid"][seat]:
                parts.append("laid: " + " ".join(f"[{self.cards_text(p)}]" for p in view["laid"][seat]))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)
        n = view["num_players"]
        to_act = set(view["to_act"])

        def detail(seat: int) -> str:
            laid = len(view["laid"][seat])
            text = f"{view['hand_sizes'][seat]} in hand · row {len(view['rows'][seat])}"
            return text + (f"\n{laid} pairs laid" if laid > 1 else "\n1 pair laid" if laid else "")

        def row(seat: int) -> Row:
            groups = [Group("trash row", tuple(view["rows"][seat]))]
            groups += [Group("laid" if k == 0 else "", tuple(pair)) for k, pair in enumerate(view["laid"][seat])]
            return Row(names[seat], tuple(groups), active=seat in to_act)

        seats = tuple(SeatBox(names[seat], detail(seat), active=seat in to_act, dim=table.seats[seat].away)
                      for seat in range(n))
        active, source = view["active"], view["active_from"]
        if active is None:
            offer = Pile("On offer", None)
        elif source is None:
            offer = Pile("Drawn", active, f"by {names[view['current']]}" if view["current"] is not None else "")
        else:
            offer = Pile("On offer", active, f"from {names[source]}")
        piles = (Pile("Stock", BACK if view["stock"] else None, f"{view['stock']} cards"), offer)
        return TablePicture(title=f"Chắn · table #{table.id}", seats=seats, piles=piles, deck=self.deck,
                            sections=(Section("Trash rows and pairs laid", rows=tuple(row(seat) for seat in range(n)),
                                              empty="No card on the table yet."),))

    def result_rows(self, view: dict, names: list[str]) -> list[tuple[str, list[list[str]], str]]:
        outcome = view["outcome"]
        results = {r["seat"]: r for r in outcome["results"]}
        rows = []
        winner = outcome["winner"]
        if winner is not None and outcome["hand"]:
            hand = outcome["hand"]
            groups = [list(p) for p in hand["chan"]] + [list(p) for p in hand["ca"]]
            factors = " · ".join(f"{f['name']} {f['points']}/{f['dich']} dịch" for f in outcome["factors"])
            ga = f" · {outcome['ga']} gà" if outcome["ga"] else ""
            r = results[winner]
            rows.append((f"{names[winner]} — ù", groups,
                         f"{factors} → {outcome['points']} points{ga} · {r['payout']:+d} stakes"))
        for seat, name in enumerate(names):
            if seat == winner:
                continue
            hand = outcome["hands"][seat]
            groups = hand_groups(hand, True) + [list(p) for p in view["laid"][seat]]
            r = results[seat]
            ga = f" · {r['ga']:+d} gà" if r["ga"] else ""
            rows.append((name, groups, f"{r['payout']:+d} stakes{ga}"))
        return rows


class Chan(GameCog):
    ui_class = ChanUI


async def setup(bot) -> None:
    await bot.add_cog(Chan(bot))
