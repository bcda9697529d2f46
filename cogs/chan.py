"""Chắn: the /chan commands and what the table shows of a Chắn game."""

from __future__ import annotations

from bot.games.chan import game as chan
from bot.games.chan import ai as chan_ai
from bot.games.base import IllegalAction, card_of, tokens_for
from bot.games.tosom import RANKS, cjk_name, is_ca, sort_cards, vi_name
from bot.i18n import C_, N_, _, ngettext, number
from bot.tables.adapter import (ButtonSpec, CopyTokensUI, HandImage, ResultRow, SelectOption, SelectSpec,
                                Settlement, cards, numbered, chips)
from bot.tables.commands import MAX_STAKE, GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Badge, Group, Pile, TablePicture, picture_names

#: the eat buttons and their labels (English msgids, translated where shown)
EAT_KEYS = {"eat_chan": N_("Eat Chắn"), "eat_ca": N_("Eat Cạ"), "eat_ca2": N_("Eat Cạ*")}


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


def can_eat(view: dict) -> bool:
    """Whether the card on offer may be eaten this turn (with some hand card)."""
    return any(action.startswith("eat ") for action in view["legal"])


def eat_buttons(view: dict, selected: list[str]) -> set[str]:
    """The eat buttons the selected hand cards enable. Eat Cạ* only for a legal eat: its card
    is held twice or more, and two copies (a chắn) may never be used in a cạ (restriction 2),
    whereas Eat Chắn and Eat Cạ stay on to be refused with the restriction's reason."""
    kinds = set()
    for card in selected:
        kind = eat_kind(view, card)
        if kind is not None and (kind != "eat_ca2" or f"eat {card}" in view["legal"]):
            kinds.add(kind)
    return kinds


class ChanUI(CopyTokensUI):
    game = chan.GAME
    deck = "tosom"
    description = N_("Chắn: the Vietnamese pairs game with the Tổ Tôm pack, 2–4 players")
    new_description = N_("Open a Chắn table in this channel")
    stake_description = N_("Chips per point (default from config)")
    phrases = chan.PHRASES
    lobby_options = (
        LobbyOption(C_("option name", "ga_stake"), N_("Chips per gà point (default: the stake; 0 turns gà off)"),
                    int, 0, MAX_STAKE, label=N_("gà stake")),
        LobbyOption(C_("option name", "chiu"),
                    N_("Out-of-turn chíu: decided by the table (auto) or offered with a button (ask)"),
                    choices=("auto", "ask"), label=N_("out-of-turn chíu"),
                    choice_names=(("auto", C_("choice", "auto")), ("ask", C_("choice", "ask")))),
    )

    def table_options(self, given: dict, *, stake: int) -> dict:
        options = super().table_options(given, stake=stake)
        options.setdefault("ga_stake", stake)
        options.setdefault("chiu", "auto")
        return options

    helper_keys = frozenset({"quick", "arrange", "trash"})

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {"chiu": table_options.get("chiu") or "auto", "previous_winner": previous_winner}

    def quick_select(self, state, seat: int) -> list[str]:
        return last_copies(state.hands[seat], [card_of(t) for t in chan_ai.quick_select(state.view(seat))])

    def helper(self, key: str, state, seat: int, selection: list[str]) -> list[str]:
        if key == "quick":
            return self.quick_select(state, seat)
        if key == "trash":
            trash = state.trash_cards(seat)
            if not trash:
                raise IllegalAction(_("No trash: every card is in a chắn or a cạ."))
            return last_copies(state.hands[seat], trash)
        raise IllegalAction(_("That control is not valid."))

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
        parts = [_("{chan} chắn / {ca} cạ / {trash} rác").format(chan=c["chan"], ca=c["ca"], trash=c["trash"])] \
            if c else []
        if view.get("waiting"):
            parts.append(_("one card from ù"))
        if laid:
            parts.append(ngettext("laid down (right): {n} pair", "laid down (right): {n} pairs",
                                  len(laid)).format(n=len(laid)))
        if forbidden:
            parts.append(_("underlined: may not be discarded"))
        return HandImage(groups=groups + laid,
                         marked=[i for i, card in enumerate(flat) if card in forbidden],
                         selected=[i for i, t in enumerate(tokens) if t in selection],
                         caption=" · ".join(parts), title=_("Your hand"))

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        seat = view["seat"]
        if seat not in view["to_act"] or view["phase"] not in ("open", "discard", "turn", "drawn") \
                or not view["hand"] or view["legal"] == ["u"]:
            return None
        if view["phase"] in ("turn", "drawn") and not can_eat(view):
            return None  # nothing may be eaten this turn: no card to pair
        groups, tokens = self._display(view, arranged)
        flat = [c for g in groups for c in g]
        forbidden, trash = set(view["no_discard"]), set(view["trash_cards"])
        options = []
        for position, (card, token) in enumerate(zip(flat, tokens), 1):
            note = _("may not be discarded") if card in forbidden else _("trash") if card in trash else None
            label = numbered(position, f"{cjk_name(card)} {card} · {vi_name(card)}")
            options.append(SelectOption(token, label, note))
        if view["phase"] in ("open", "discard"):
            return SelectSpec(_("Choose the card to discard"), options, 1, selected=selection)
        placeholder = (_("Your card to pair with {card}").format(card=card_label(view["active"])) if view["active"]
                       else _("Your card to pair"))
        return SelectSpec(placeholder, options, min(len(options), 25), selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        phase = view["phase"]
        eating = phase in ("turn", "drawn") and view["seat"] in view["to_act"]
        kinds = eat_buttons(view, [card_of(t) for t in selection]) if eating else set()
        # the eats a hand card could make stay in place, disabled until their card is picked
        # (Eat Cạ* only for a legal eat: see eat_buttons)
        possible = eat_buttons(view, view["hand"]) if eating and view["seat"] is not None else set()
        specs = [
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            *(ButtonSpec(key, _(label), key in kinds, "success", teach=key in possible)
              for key, label in EAT_KEYS.items()),
            ButtonSpec("pass", _("Pass"), "pass" in legal, "secondary"),
            ButtonSpec("discard", _("Discard"), phase in ("open", "discard") and bool(legal)
                       and legal != ["u"] and len(selection) == 1, "danger",
                       teach=phase in ("open", "discard") and bool(legal) and legal != ["u"]),
        ]
        if "chiu" in legal:
            specs.append(ButtonSpec("chiu", _("Chíu"), True, "success"))
        if "u" in legal:
            specs.append(ButtonSpec("u", _("Ù!"), True, "success"))
        return specs + self.helper_buttons(view, quick=self.takes_cards(legal))

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        if key in ("draw", "pass", "chiu", "u"):
            return key
        if key == "discard":
            if len(selection) != 1:
                raise IllegalAction(_("Select exactly one card to discard."))
            return f"discard {card_of(selection[0])}"
        if key in EAT_KEYS:
            if view["active"] is None:
                raise IllegalAction(_("There is no card to eat."))
            partners = [card_of(t) for t in selection if eat_kind(view, card_of(t)) == key]
            if not partners:
                raise IllegalAction(_("Select the hand card to pair with {card}.").format(
                    card=card_label(view["active"])))
            for card in partners:
                if f"eat {card}" in view["legal"]:
                    return f"eat {card}"
            return f"eat {partners[0]}"  # refused by the engine with its reason
        raise IllegalAction(_("That control is not valid."))

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return _("**Game over** — the result is on the table.")
        seat, phase, stock = view["seat"], view["phase"], view["stock"]
        active = card_label(view["active"]) if view["active"] else None
        if seat not in view["to_act"]:
            who = ", ".join(names[s] for s in view["to_act"])
            if phase == "offer":
                return _("Waiting for **{players}** (chíu offer). Stock {stock}").format(players=who, stock=stock)
            return _("Waiting for **{players}**. Stock {stock}").format(players=who, stock=stock)
        if phase == "offer":
            return _("**Chíu?** You hold three {card}: **Chíu** takes it out of turn, or **Pass**. "
                     "Stock {stock}").format(card=active, stock=stock)
        if view["legal"] == ["u"]:
            return _("**Your dealt hand is ù (thiên ù)!** Click **Ù!**. Stock {stock}").format(stock=stock)
        if phase in ("open", "discard"):
            return _("**Your move.** Select a card and **Discard**. Stock {stock}").format(stock=stock)
        # Built from this turn's legal moves: a card that may not be eaten is not offered to eat.
        eat = can_eat(view)
        chiu = "chiu" in view["legal"]
        if phase == "turn":
            if active is None:
                return _("**Your turn.** **Draw**. Stock {stock}").format(stock=stock)
            if eat and chiu:
                return _("**Your turn.** Select a card and **Eat** {card} or **Chíu**, or **Draw**. "
                         "Stock {stock}").format(card=active, stock=stock)
            if eat:
                return _("**Your turn.** Select a card and **Eat** {card}, or **Draw**. Stock {stock}").format(
                    card=active, stock=stock)
            if chiu:
                return _("**Your turn.** **Chíu** {card}, or **Draw**. Stock {stock}").format(card=active, stock=stock)
            return _("**Your turn.** You cannot take {card}: **Draw**. Stock {stock}").format(card=active, stock=stock)
        if eat and chiu:
            return _("**You drew {card}.** Select a card and **Eat** it or **Chíu**, or **Pass**. "
                     "Stock {stock}").format(card=active, stock=stock)
        if eat:
            return _("**You drew {card}.** Select a card and **Eat** it, or **Pass**. Stock {stock}").format(
                card=active, stock=stock)
        if chiu:
            return _("**You drew {card}.** **Chíu** it, or **Pass**. Stock {stock}").format(card=active, stock=stock)
        return _("**You drew {card}.** You cannot take it: **Pass**. Stock {stock}").format(card=active, stock=stock)

    def event_text(self, event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        cards = self.cards_text(event.cards) if event.cards else ""
        if event.kind == "end":
            return self.summary_text(event.phrases, names)
        if event.kind == "eat":  # the kind eaten (chắn, cạ) is a native word
            return _("{player} ate {cards} ({kind})").format(player=who, cards=cards, kind=event.text)
        if event.kind == "u" and event.text and event.text != "ù":  # chíu ù (native) or ù on the drawn card
            return _("🎉 **{player} ù** on {cards} ({how})").format(player=who, cards=cards, how=_(event.text))
        texts = {
            "draw": N_("{player} drew {cards}"),
            "pass": N_("{player} declined to chíu {cards}") if event.text == chan.DECLINED_CHIU
            else N_("{player} passed {cards}"),
            "offer": N_("{player} may chíu {cards}…"),
            "chiu": N_("🀄 {player} chíu {cards} **out of turn**") if event.text == chan.OUT_OF_TURN
            else N_("🀄 {player} chíu {cards}"),
            "u": N_("🎉 **{player} ù** on {cards}"),
        }
        if event.kind in texts:
            return _(texts[event.kind]).format(player=who, cards=cards)
        return super().event_text(event, names)

    def table_summary(self, view: dict) -> str:
        parts = [_("Stock **{stock}**").format(stock=view["stock"])]
        if view["active"]:
            card = card_label(view["active"])
            parts.append(_("drawn: **{card}**").format(card=card) if view["active_from"] is None
                         else _("on offer: **{card}**").format(card=card))
        if view["options"]["chiu"] == "ask":
            parts.append(_("chíu: ask"))
        return " · ".join(parts)

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        for seat, name in enumerate(names):
            marker = "▶ " if seat in view["to_act"] else ""
            in_hand = view["hand_sizes"][seat]
            parts = [ngettext("{n} in hand", "{n} in hand", in_hand).format(n=in_hand),
                     _("trash row: {cards}").format(cards=self.cards_text(view["rows"][seat]))]
            if view["laid"][seat]:
                parts.append(_("laid: {pairs}").format(
                    pairs=" ".join(f"[{self.cards_text(p)}]" for p in view["laid"][seat])))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)

        def detail(seat: int) -> str:
            in_hand, row_size, laid = view["hand_sizes"][seat], len(view["rows"][seat]), len(view["laid"][seat])
            first = [ngettext("{n} in hand", "{n} in hand", in_hand).format(n=in_hand),
                     ngettext("{n} in the trash row", "{n} in the trash row", row_size).format(n=row_size)]
            second = [ngettext("{n} pair laid", "{n} pairs laid", laid).format(n=laid)] if laid else []
            return "\n".join(" · ".join(line) for line in (first, second) if line)

        def groups(seat: int) -> list[Group]:
            # the trash row, then the pairs laid
            return [Group("", tuple(view["rows"][seat]), glyph="discards"),
                    *(Group("", tuple(pair)) for pair in view["laid"][seat])]

        active, source = view["active"], view["active_from"]
        if active is None:
            offer = Pile(_("On offer"), None)
        elif source is None:
            offer = Pile(_("Drawn"), active, _("by {player}").format(player=names[view["current"]])
                         if view["current"] is not None else "")
        else:
            offer = Pile(_("On offer"), active, _("from {player}").format(player=names[source]))
        piles = (Pile(_("Stock"), BACK if view["stock"] else None, str(view["stock"])), offer)
        return self.seated_picture(view, names, table, title=_("Chắn · table #{table}").format(table=table.id),
                                   piles=piles, section=_("Trash rows and pairs laid"), detail=detail,
                                   groups=groups, badges=lambda seat: (Badge("hand", str(view["hand_sizes"][seat])),))

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        outcome = view["outcome"]
        winner = outcome["winner"]

        def ga(count: int | str) -> str:  # gà is a native word (the engine's "chan.ga" phrase)
            return _("{ga} gà").format(ga=count)

        rows = []
        for result in self.ranked(view):
            seat = result["seat"]
            # ù, the factors' names and dịch are native words
            label = self.result_label(view, names, result, won="{player} — ù")
            if seat == winner and outcome["hand"]:
                hand = outcome["hand"]
                groups = [list(p) for p in hand["chan"]] + [list(p) for p in hand["ca"]]
                factors = " · ".join(f"{f['name']} {f['points']}/{f['dich']} dịch" for f in outcome["factors"])
                # the chips first: a picture too narrow for every fact keeps them
                parts = [chips(settlement.chips[seat], signed=True),
                         ngettext("{factors} → {n} point", "{factors} → {n} points", outcome["points"]).format(
                             factors=factors, n=outcome["points"])]
                if outcome["ga"]:
                    parts.append(ga(outcome["ga"]))
            else:
                groups = hand_groups(outcome["hands"][seat], True) + [list(p) for p in view["laid"][seat]]
                parts = [chips(settlement.chips[seat], signed=True)]
                if result["ga"]:
                    parts.append(ga(number(result["ga"], signed=True)))
            rows.append((label, groups, " · ".join(parts)))
        return rows


class Chan(GameCog):
    ui_class = ChanUI


async def setup(bot) -> None:
    await bot.add_cog(Chan(bot))
