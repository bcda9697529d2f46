"""Tứ Sắc: the /tusac commands and what the table shows of a Tứ Sắc game."""

from __future__ import annotations

from typing import Sequence

from bot.games.tusac import game as tusac
from bot.games.tusac import ai as tusac_ai
from bot.games.base import Event, IllegalAction, Phrase, card_of, tokens_for
from bot.games.tusac.game import card_name, glyph
from bot.games.tusac.sets import COLOURS, sort_cards
from bot.i18n import C_, N_, _, ngettext
from bot.tables.adapter import (ButtonSpec, CopyTokensUI, HandImage, ResultRow, SelectOption, SelectSpec,
                                Settlement, cards, numbered, chips)
from bot.tables.commands import GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Badge, Group, Pile, TablePicture, picture_names

COLOUR_MARKS = {"R": "🔴", "Y": "🟡", "G": "🟢", "W": "⚪"}


def card_label(card: str) -> str:
    """``"RC"`` -> ``"Red Pháo 炮"`` (the engine's :func:`card_name`, in the current language, and
    the character printed on the card)."""
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


def can_eat(view: dict) -> bool:
    """Whether the card on offer may be eaten this turn, alone or with cards of the hand."""
    return any(action == "eat" or action.startswith("eat ") for action in view["legal"])


def payment_sum(value: int, doubled: bool, stake: int | None) -> str:
    """What each loser owes, worked out (tusac.md, Payout): ``(3 + 13) × 2 + 10 = 42, × 10``."""
    units = tusac.payment(value, quan_or_khui=doubled)
    text = f"(3 + {value}) × 2 + 10 = {units}" if doubled else f"3 + {value} + 10 = {units}"
    return text if stake in (None, 1) else f"{text}, × {stake}"

class TuSacUI(CopyTokensUI):
    game = tusac.GAME
    deck = "tusac"
    description = N_("Tứ Sắc: four-colour xiangqi cards for 2–4 players")
    new_description = N_("Open a Tứ Sắc table in this channel")
    lobby_options = (
        LobbyOption(C_("option name", "worst_card_penalty"),
                    N_("Whoever lets someone win with a card that is not one of their worst pays for everyone "
                       "(default on)"), bool, label=N_("worst-card penalty")),
    )
    phrases = tusac.PHRASES
    unit_values = frozenset({"pay"})  # "each loser owes {pay}": in chips at the table's stake

    def phrase_text(self, phrase: Phrase | dict, names: Sequence[str]) -> str:
        """The engine's sentence; a payment also shows its arithmetic (tusac.md, Payout), so that
        "owes 420 chips" for a hand of 13 adds up: "(3 + 13) × 2 + 10 = 42, × 10"."""
        text = super().phrase_text(phrase, names)
        data = phrase if isinstance(phrase, dict) else phrase.as_dict()
        if data["key"] in ("tusac.payment", "tusac.payment_doubled"):
            text += " · " + payment_sum(data["values"]["value"], data["key"] == "tusac.payment_doubled", self.stake)
        return text
    #: the log's sentence for the moves :meth:`event_text` leaves to the framework (a drawn card
    #: is face up, so its draw names it)
    event_templates = {
        "discard": N_("{player} discarded {cards}"),
        "draw": N_("{player} drew {cards}"),
        "pass": N_("{player} passed {cards}"),
    }
    helper_keys = frozenset({"quick", "arrange", "trash"})

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {"worst_card_penalty": bool(table_options.get("worst_card_penalty", True))}

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- selection tokens: the k-th copy of X in display order is "X#k"
    @staticmethod
    def _flat(view: dict, arranged: bool = True) -> list[str]:
        return [c for g in private_groups(view, arranged) for c in g]

    def _tokens(self, view: dict, cards: list[str], arranged: bool = True) -> list[str]:
        """Tokens for ``cards``, taking the last copies shown (trash comes after the sets)."""
        flat = self._flat(view, arranged)
        tokens = tokens_for(flat)
        taken: set[int] = set()
        out = []
        for card in cards:
            index = next(i for i in range(len(flat) - 1, -1, -1) if flat[i] == card and i not in taken)
            taken.add(index)
            out.append(tokens[index])
        return out

    def quick_select(self, state, seat: int) -> list[str]:
        view = state.view(seat)
        return self._tokens(view, tusac_ai.quick_select(view))

    def helper(self, key: str, state, seat: int, selection: list[str]) -> list[str]:
        if key != "trash":
            return super().helper(key, state, seat, selection)
        view = state.view(seat)
        every, worst = self._tokens(view, view["trash_cards"]), self._tokens(view, view["worst"])
        if not every:
            raise IllegalAction(_("No trash: every private card is in a set."))
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
        caption = _("trash {trash} · khap {khap}").format(trash=view["trash"], khap=len(view["khaps"]))
        if public:
            caption += " · " + _("underlined: your public block")
        return HandImage(groups=groups + public,
                         marked=list(range(len(flat), len(flat) + sum(map(len, public)))),
                         selected=[i for i, t in enumerate(tokens) if t in selection],
                         caption=caption, title=_("Your hand"))

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        phase = view["phase"]
        if view["current"] != view["seat"] or phase not in ("discard", "take", "drawn") or not view["hand"]:
            return None
        if phase != "discard" and not can_eat(view):
            return None  # no card to meld with what may not be eaten
        groups = private_groups(view, arranged)
        flat = [c for g in groups for c in g]
        khaps = set(view["khaps"])
        options = []
        # the trash copies are the last ones shown (a card may also sit in a set)
        trash_tokens = set(self._tokens(view, view["trash_cards"], arranged))
        worst_tokens = set(self._tokens(view, view["worst"], arranged))
        for position, (card, token) in enumerate(zip(flat, tokens_for(flat)), 1):
            if card in khaps and view["hand"].count(card) >= 3:
                continue  # locked: never melded by choice nor discarded
            note = (_("trash · worst") if token in worst_tokens else _("trash")) if token in trash_tokens else None
            options.append(SelectOption(token, numbered(position, card_label(card)), note))
        if phase == "discard":
            return SelectSpec(_("Choose a trash card to discard"), options, max(1, len(selection)),
                              selected=selection)
        active = card_label(view["active"])
        placeholder = (_("Cards to meld with {card} (none: it alone)") if "eat" in view["legal"]
                       else _("Cards to meld with {card}")).format(card=active)
        return SelectSpec(placeholder, options, max(3, len(selection)), selected=selection)

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        eat_with_cards = any(a.startswith("eat ") for a in legal)
        eat_alone = "eat" in legal  # an active Tướng, laid down by itself
        discard = _("Discard")
        if view["phase"] == "discard" and len(selection) == 1:
            card = card_of(selection[0])
            if card in view["trash_cards"] and card not in view["worst"]:
                # legal, but not a worst card: it may cost a penalty
                discard = _("Discard!!!")
        specs = [
            ButtonSpec("eat", _("Eat"), (eat_with_cards and 1 <= len(selection) <= 3) or (eat_alone and not selection),
                       "success", teach=can_eat(view)),
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            ButtonSpec("pass", _("Pass"), "pass" in legal, "secondary"),
            ButtonSpec("discard", discard, view["phase"] == "discard" and bool(legal) and len(selection) == 1,
                       "danger", teach=view["phase"] == "discard" and bool(legal)),
        ]
        if "u" in legal:
            specs.append(ButtonSpec("u", _("Win!"), True, "success"))
        return specs + self.helper_buttons(view, quick=self.takes_cards(legal))

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        cards = [card_of(t) for t in selection]
        if key in ("draw", "pass", "u"):
            return key
        if key == "eat":
            if not cards and "eat" in view["legal"]:
                return "eat"  # an active Tướng is a set by itself
            if view["active"] is None or not 1 <= len(cards) <= 3:
                raise IllegalAction(_("Select 1–3 of your cards to meld with {card}.").format(
                    card=card_label(view["active"])) if view["active"] else
                    _("Select 1–3 of your cards to meld with the active card."))
            return "eat " + " ".join(cards)
        if key == "discard":
            if len(cards) != 1:
                raise IllegalAction(_("Select exactly one card to discard."))
            return f"discard {cards[0]}"
        raise IllegalAction(_("That control is not valid."))

    # ---- texts
    def event_text(self, event: Event, names: list[str]) -> str:
        who = names[event.seat] if event.seat is not None else ""
        if event.kind == "claim":
            card = card_label(event.cards[0])
            if event.text == "khap":
                return _("{player} has a Khap of {card}: Khui, and takes the turn").format(player=who, card=card)
            return _("{player} has a pair of {card} and takes the turn").format(player=who, card=card)
        if event.kind == "u":
            summary = self.summary_text(event.phrases, names)
            if event.cards:
                return _("🏆 {summary}: {cards}").format(summary=summary, cards=meld_text(list(event.cards)))
            return f"🏆 {summary}"
        if event.kind == "eat":
            card = card_label(event.cards[0])
            if len(event.cards) == 1:
                return _("{player} ate {card} alone").format(player=who, card=card)
            return _("{player} ate {card} with {cards}").format(player=who, card=card,
                                                                 cards=self.cards_text(event.cards[1:]))
        return super().event_text(event, names)  # the end, and event_templates

    def hand_status(self, view: dict, names: list[str]) -> str:
        if view["outcome"] is not None:
            return _("**Game over** — the result is on the table.")
        current, seat, phase = view["current"], view["seat"], view["phase"]
        active = card_label(view["active"]) if view["active"] else None
        facts = _("Stock {stock} · trash {trash} · khap {khap}").format(
            stock=view["stock"], trash=view["trash"], khap=len(view["khaps"]))
        if current != seat:
            if active:
                return _("Waiting for **{player}**. Active card: **{card}**. {facts}").format(
                    player=names[current], card=active, facts=facts)
            return _("Waiting for **{player}**. {facts}").format(player=names[current], facts=facts)
        if phase == "declare":
            text = _("Your dealt hand has no trash: click **Win!**")
        elif phase == "discard":
            text = _("Select a trash card and **Discard** (**Quick Select** picks a worst one).")
        elif not can_eat(view):
            text = (_("**{card}** is on offer and you cannot eat it: **Draw**.") if phase == "take"
                    else _("You drew **{card}** and you cannot eat it: **Pass**.")).format(card=active)
        elif phase == "take" and "eat" in view["legal"]:
            text = _("**{card}** is on offer: a Tướng is a set by itself. **Eat** it with nothing selected (or "
                     "select cards to meld it with), or **Draw**.").format(card=active)
        elif phase == "take":
            text = _("**{card}** is on offer: select cards and **Eat** it, or **Draw**.").format(card=active)
        elif "eat" in view["legal"]:
            text = _("You drew **{card}**: a Tướng is a set by itself. **Eat** it with nothing selected (or select "
                     "cards to meld it with), or **Pass**.").format(card=active)
        else:
            text = _("You drew **{card}**: select cards and **Eat** it, or **Pass**.").format(card=active)
        return _("**Your turn.** {todo} {facts}").format(todo=text, facts=facts)

    def table_summary(self, view: dict) -> str:
        text = _("Stock **{stock}**").format(stock=view["stock"])
        if view["active"]:
            card = card_label(view["active"])
            text += " · " + (_("active card: **{card}** (drawn from the stock)") if view["active_drawn"]
                             else _("active card: **{card}** (discarded)")).format(card=card)
        return text

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        fields = []
        kinds = {"quan": "Quan ", "khui": "Khui ", "set": ""}  # native words
        for seat, name in enumerate(names):
            marker = "▶ " if view["current"] == seat else ""
            parts = [cards(view["hand_sizes"][seat]), _("khap {khap}").format(khap=view["khap_counts"][seat])]
            melds = view["public"][seat]
            if melds:
                parts.append(_("public: {melds}").format(
                    melds=" ".join(f"[{kinds[m['kind']]}{meld_text(m['cards'])}]" for m in melds)))
            if view["discards"][seat]:
                parts.append(_("discards: {cards}").format(
                    cards=" ".join(meld_text([c]) for c in view["discards"][seat][-8:])))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)

        def detail(seat: int) -> str:
            sets = len(view["public"][seat])
            text = cards(view["hand_sizes"][seat]) + " · " + _("khap {khap}").format(khap=view["khap_counts"][seat])
            if sets:
                text += "\n" + ngettext("{n} public set", "{n} public sets", sets).format(n=sets)
            return text

        def groups(seat: int) -> list[Group]:
            # the discards (↓), then the public sets (their kinds, Quan and Khui, are in the embed)
            return [Group("", tuple(view["discards"][seat]), glyph="discards"),
                    *(Group("", tuple(meld["cards"])) for meld in view["public"][seat])]

        def badges(seat: int) -> tuple[Badge, ...]:
            return Badge("hand", str(view["hand_sizes"][seat])), Badge("khap", str(view["khap_counts"][seat]))

        active = view["active"]
        if active is None:
            caption = ""
        elif view["active_drawn"]:
            caption = _("drawn by {player}").format(player=names[view["active_from"]])
        else:
            caption = _("discarded by {player}").format(player=names[view["active_from"]])
        piles = (Pile(_("Stock"), BACK if view["stock"] else None, str(view["stock"])),
                 Pile(_("Active card"), active, caption))
        return self.seated_picture(view, names, table, title=_("Tứ Sắc · table #{table}").format(table=table.id),
                                   piles=piles, section=_("Discards and public sets"), detail=detail,
                                   groups=groups, badges=badges)

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        outcome = view["outcome"]
        rows = []
        for result, hand in self.ranked_hands(view):
            seat = result["seat"]
            # the winner's whole hand; a loser's cards that count: Quan and Khui laid, khạp, trash
            public = [list(m["cards"]) for m in view["public"][seat]
                      if seat == outcome["winner"] or m["kind"] in ("quan", "khui")]
            private = [[k] * 3 for k in hand["khaps"]]
            private += [list(s) for s in hand["sets"]] if seat == outcome["winner"] else []
            if hand["trash"]:
                private.append(list(hand["trash"]))
            won = chips(settlement.chips[seat], signed=True)
            # no emoji in the label: the image font has none
            label = self.result_label(view, names, result, won=_("{player} — wins"))
            # the chips first: a picture too narrow for every fact keeps them
            if seat == outcome["winner"]:
                caption = won + " · " + _("hand value {value} · each loser owes {pay}").format(
                    value=outcome["value"], pay=chips(outcome["payment"] * settlement.stake))
            else:
                caption = won + " · " + _("trash {trash} · khap {khap}").format(
                    trash=hand["trash_count"], khap=len(hand["khaps"]))
            count = sum(map(len, public))
            rows.append((label, public + private, caption, list(range(count))))
        return rows


class TuSac(GameCog):
    ui_class = TuSacUI


async def setup(bot) -> None:
    await bot.add_cog(TuSac(bot))
