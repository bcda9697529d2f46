"""Concan: the /concan commands and what the table shows of a set of Concan.

The table is a picture (rendering.table_picture): every meld laid, numbered as the controls
name them, jokers drawn as the card they stand for. The hand has three selects: the cards,
the meld a card goes onto (Lay off, Swap joker) and, when a joker could stand for more than
one card, what it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.concan import ai as concan_ai, game as concan
from bot.games.base import IllegalAction, card_of, tokens_for
from bot.games.concan.game import JOKER, is_joker_token, token_identity
from bot.i18n import C_, N_, Shown, _, ngettext, number, pgettext
from bot.tables.adapter import (ButtonSpec, CopyTokensUI, HandImage, ResultRow, Selection, SelectOption,
                                SelectSpec, Settlement, cards, finished_round, finished_round_points, numbered)
from bot.tables.commands import GameCog, LobbyOption
from bot.tables.pictures import chips_first
from cogs.concan_words import MAX_OPTIONS, RANKS, SUIT_ORDER, card_label, hand_status, melds_text, plain
from rendering import BACK
from rendering.table_picture import Badge, Group, Pile, Row, SeatBox, Section, TablePicture

class ConcanUI(CopyTokensUI):
    game = concan.GAME
    deck = "french"
    description = N_("Concan: rummy for 2–6 players with two packs and two jokers, a set of rounds")
    new_description = N_("Open a Concan table in this channel")
    stake_description = N_("Chips each player pays into the pot")
    phrases = concan.PHRASES
    seats_drawn = True  # concan.md: the first player of a set is drawn
    event_templates = {
        **CopyTokensUI.event_templates,
        "open": N_("🎉 {player} opened: {cards} (melds {numbers})"),
        "meld": N_("{player} laid {cards} (meld {numbers})"),
        "layoff": N_("{player} laid off {cards} on meld {numbers}"),
        "swap": N_("{player} put {cards} into meld {numbers} and took its joker"),
        "announce": N_("🃏 {player} announced a joker"),
    }
    lobby_options = (
        LobbyOption(C_("option name", "rounds"), N_("Rounds in the set (default 9)"), int, 1, 20, label=N_("rounds")),
        LobbyOption(C_("option name", "open_min"), N_("What a player's first melds must be worth (default 51)"),
                    # above ~130 a table waits long for a hand that opens, above 140 forever
                    int, 10, 120, label=N_("opening")),
    )

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {key: table_options[key] for key in ("rounds", "open_min") if key in table_options}

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- the hand as shown, and selection tokens over it (two packs: cards come in pairs)
    @staticmethod
    def _groups(view: dict, arranged: bool) -> list[list[str]]:
        if arranged and view["groups"] is not None:
            groups = [list(meld) for meld in view["groups"]["melds"]] + [list(view["groups"]["rest"])]
        else:
            def order(card: str) -> tuple[int, int]:
                return (4, 0) if card == JOKER else (SUIT_ORDER.index(card[1]), RANKS.index(card[0]))

            groups = [sorted(view["hand"], key=order)]
        return [group for group in groups if group]

    def _shown(self, view: dict, arranged: bool, selection: list[str]) -> list[list[str]]:
        """The hand as drawn and named: a joker is plain "Joker" until it stands for something in
        the meld the player is making (the selected cards, the meld chosen to lay off onto and
        the "stands for" pick); then it is drawn and named as that card (``JK=9C``), the same
        identity the "stands for" select shows."""
        groups = [[plain(card) for card in group] for group in self._groups(view, arranged)]
        identities = self._joker_identities(view, selection)
        if identities:
            chosen = set(selection)
            tokens = iter(self._tokens([card for group in groups for card in group]))
            for group in groups:
                for i, card in enumerate(group):
                    if next(tokens) in chosen and card == JOKER and identities:
                        group[i] = f"{JOKER}={identities.pop(0)}"
        return groups

    def _joker_identities(self, view: dict, selection: list[str]) -> list[str]:
        """What the selected jokers stand for in the meld being made, in the order they are
        shown; empty while they stand for nothing yet."""
        cards = self._cards(selection)
        if JOKER not in cards:
            return []
        picks = getattr(selection, "picks", {})
        if len(cards) == 1 and "onto" in picks:
            choices = self._joker_choices(view, Selection(selection, picks))
            return [choices[int(picks.get("stands", "0")) % len(choices)]] if choices else []
        if len(cards) >= 3:
            choices = concan.split_choices(cards)
            if choices:
                choice = choices[int(picks.get("stands", "0")) % len(choices)]
                return [token_identity(t) for meld in choice["melds"] for t in meld if is_joker_token(t) and "=" in t]
        return []

    def _tokens(self, shown: list[str]) -> list[str]:
        return tokens_for([plain(c) for c in shown])

    def _select_cards(self, view: dict, cards: list[str]) -> list[str]:
        """Tokens for hand ``cards`` (jokers as ``JK``)."""
        wanted, out = [plain(c) for c in cards], []
        for token in tokens_for(view["hand"]):
            if card_of(token) in wanted:
                wanted.remove(card_of(token))
                out.append(token)
        return out

    @staticmethod
    def _cards(selection: list[str]) -> list[str]:
        return [card_of(token) for token in selection]

    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        result = finished_round(view)
        if result is not None:  # between two rounds: the hand the round ended with, and its points
            seat = view["seat"]
            left = list(result["hands"][seat]["cards"])
            return HandImage(groups=[left] if left else [], selected=[], marked=[],
                             caption=finished_round_points(view, seat),
                             title=_("Your last hand · round {round}").format(round=result["round"]))
        groups = self._shown(view, arranged, selection)
        flat = [card for group in groups for card in group]
        tokens = self._tokens(flat)
        must = (view["obligation"] or {}).get("must_open_with", "").split()
        parts = []
        if view["best_opening"] is not None:
            parts.append(_("Best opening {value} (you need {need})").format(value=view["best_opening"],
                                                                           need=view["options"]["open_min"]))
        elif view["opened"][view["seat"]]:
            parts.append(_("Opened"))
        if view["penalty_now"] is not None:
            parts.append(_("penalty now {points}").format(points=view["penalty_now"]))
        return HandImage(groups=groups, selected=[i for i, t in enumerate(tokens) if t in selection],
                         marked=[i for i, c in enumerate(flat) if plain(c) in must],
                         caption=" · ".join(parts), title=_("Your hand"))

    # ---- controls
    def _playing(self, view: dict) -> bool:
        return view["seat"] in view["to_act"] and view["step"] in ("play", "first_discard")

    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if not self._playing(view):
            return None
        shown = [c for group in self._shown(view, arranged, selection) for c in group]
        options = [SelectOption(token, numbered(position, card_label(card)),
                                pgettext("card note", "joker") if plain(card) == JOKER else None)
                   for position, (card, token) in enumerate(zip(shown, self._tokens(shown)), 1)]
        single = view["step"] == "first_discard"
        placeholder = (_("Choose the card to discard") if single
                       else _("Select cards: to open, meld, lay off, swap or discard"))
        return SelectSpec(placeholder, options[:MAX_OPTIONS], 1 if single else min(len(options), MAX_OPTIONS),
                          selected=list(selection))

    def extra_selects(self, view: dict, selection: Selection, *, names: Sequence[str] = ()) -> list[SelectSpec]:
        if not self._playing(view) or view["step"] != "play":
            return []
        specs = []
        # shown all turn, so that the buttons below keep their row (lay off and swap move one
        # card: with several selected it lists every meld and the buttons say what is missing)
        melds = self._target_melds(view, self._cards(selection))
        if melds:
            options = [SelectOption(str(m["no"]), _("Meld {number}: {cards}").format(
                number=m["no"], cards=melds_text([m["cards"]]))[:100]) for m in melds[-MAX_OPTIONS:]]
            specs.append(SelectSpec(_("Onto meld number… (Lay off, Swap joker)"), options, 1, key="onto",
                                    selected=[selection.picks["onto"]] if "onto" in selection.picks else []))
        jokers = self._joker_choices(view, selection)
        if len(jokers) > 1:
            if len(selection) == 1:  # a lay-off: the cards the joker could be laid off as
                jokers = [card_label(f"{JOKER}={identity}") for identity in jokers]
            options = [SelectOption(str(i), label[:100]) for i, label in enumerate(jokers)]
            specs.append(SelectSpec(_("The joker stands for…"), options[:MAX_OPTIONS], 1, key="stands",
                                    selected=[selection.picks.get("stands", "0")], below=True))
        return specs

    def _target_melds(self, view: dict, cards: list[str]) -> list[dict]:
        """The table melds a lay-off or a swap could use: those the one selected card fits (all
        of them when none or several cards are selected)."""
        melds = view["melds"]
        if len(cards) != 1:
            return melds
        card = cards[0]
        fits = {action.split()[-1] for action in view["legal"]
                if action.split()[0] in ("layoff", "swap") and plain(action.split()[1]) == card}
        return [m for m in melds if str(m["no"]) in fits] or melds

    def _joker_choices(self, view: dict, selection: Selection) -> list[str]:
        """What the selected joker(s) could stand for, one label per choice: the splits of an
        opening or meld, or the cards one joker could be laid off as."""
        cards = self._cards(selection)
        if JOKER not in cards:
            return []
        if len(cards) == 1 and "onto" in selection.picks:
            return [token_identity(a.split()[1]) for a in view["legal"]
                    if a.startswith("layoff JK=") and a.split()[2] == selection.picks["onto"]]
        if len(cards) >= 3:
            return [melds_text(choice["melds"]) + f" ({choice['value']})" for choice in concan.split_choices(cards)]
        return []

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        cards = self._cards(selection)
        picks = getattr(selection, "picks", {})
        seat = view["seat"]
        opened = seat is not None and view["opened"][seat]
        play = self._playing(view) and view["step"] == "play"
        keeps_one = 0 < len(cards) < len(view["hand"])
        one = cards[0] if len(cards) == 1 else None
        meld = picks.get("onto")
        top = view["top_discard"]

        def fits(verb: str) -> bool:
            return one is not None and meld is not None and any(
                a.split()[0] == verb and plain(a.split()[1]) == one and a.split()[2] == meld for a in legal)

        can_split = play and keeps_one and len(cards) >= 3 and concan.split_opening(cards) is not None
        verbs = {a.split()[0] for a in legal}
        return [
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            ButtonSpec("take", _("Take {card}").format(card=card_label(top)) if top else _("Take"), "take" in legal,
                       "primary"),
            # one of the two at a time
            ButtonSpec("meld", _("Meld"), can_split, "success", teach=play) if opened else
            ButtonSpec("open", _("Open"), can_split, "success", teach=play),
            ButtonSpec("discard", _("Discard"), one is not None and f"discard {one}" in legal, "danger",
                       teach=self._playing(view)),
            ButtonSpec("layoff", _("Lay off"), play and fits("layoff"), "success", teach=play and "layoff" in verbs),
            ButtonSpec("swap", _("Swap joker"), play and fits("swap"), "success", teach=play and "swap" in verbs),
            ButtonSpec("announce", _("Announce joker"), "announce" in legal, "secondary"),
            # Quick Select only where a move takes cards (not at the draw step)
            *self.helper_buttons(view, quick=self.takes_cards(legal), arrange=bool(view["hand"])),
        ]

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        cards = self._cards(selection)
        picks = getattr(selection, "picks", {})
        if key in ("draw", "take", "announce"):
            return key
        if key == "discard":
            if len(cards) != 1:
                raise IllegalAction(_("Select exactly one card to discard."))
            return f"discard {cards[0]}"
        if key in ("open", "meld"):
            return self._meld_action(key, view, cards, picks)
        if key in ("layoff", "swap"):
            if len(cards) != 1:
                raise IllegalAction(_("Select the one card to lay off.") if key == "layoff"
                                    else _("Select the one card to put in for the joker."))
            if "onto" not in picks:
                raise IllegalAction(_("Choose the meld number in the second select."))
            card = cards[0]
            if key == "layoff" and card == JOKER:
                identities = self._joker_choices(view, Selection(selection, picks))
                if not identities:
                    raise IllegalAction(_("The joker does not fit meld {number}.").format(number=picks["onto"]))
                card = f"{JOKER}={identities[int(picks.get('stands', '0')) % len(identities)]}"
            return f"{key} {card} {picks['onto']}"
        raise IllegalAction(_("That control is not valid."))

    def _meld_action(self, key: str, view: dict, cards: list[str], picks: dict) -> str:
        if len(cards) < 3:
            raise IllegalAction(_("Select at least three cards: a meld is three or more."))
        if len(cards) >= len(view["hand"]):
            raise IllegalAction(_("Keep one card: every turn ends with a discard."))
        choices = concan.split_choices(cards)
        if not choices:
            raise IllegalAction(_("{cards} do not form melds.").format(cards=" ".join(card_label(c) for c in cards)))
        choice = choices[int(picks.get("stands", "0")) % len(choices)] if JOKER in cards else choices[0]
        melds = choice["melds"]
        if key == "meld":
            if len(melds) != 1:
                raise IllegalAction(_("Select the cards of one meld at a time (or Open with several)."))
            return "meld " + " ".join(melds[0])
        need = view["options"]["open_min"]
        if choice["value"] < need:
            raise IllegalAction(_("Your opening is worth {value}; you need {need}.").format(value=choice["value"],
                                                                                           need=need))
        return "open " + " | ".join(" ".join(meld) for meld in melds)

    def helper(self, key: str, state, seat: int, selection: list[str]) -> list[str]:
        if key != "quick":
            raise IllegalAction(_("That control is not valid."))
        view = state.view(seat)
        move, cards = concan_ai.quick_select(view)
        if move in ("layoff", "swap"):
            _verb, card, no = concan_ai.choose(view).split()
            picks = {"onto": no}
            if is_joker_token(card):
                view_sel = Selection(self._select_cards(view, [JOKER]), picks)
                identities = self._joker_choices(view, view_sel)
                if token_identity(card) in identities:
                    picks["stands"] = str(identities.index(token_identity(card)))
            return Selection(self._select_cards(view, [card]), picks)
        return Selection(self._select_cards(view, cards))

    # ---- texts
    def hand_status(self, view: dict, names: list[str]) -> str:
        return hand_status(view, names)

    def event_values(self, event) -> dict[str, str]:
        if event.kind in ("open", "meld", "layoff", "swap"):
            return {"numbers": event.text.replace(" ", ", ")}  # the melds' numbers, as the controls name them
        return super().event_values(event)

    def table_summary(self, view: dict) -> str:
        if finished_round(view) is not None:
            return ""  # the table's text says the round is over; the next round is not shown yet
        top = card_label(view["top_discard"]) if view["top_discard"] else "—"
        return _("Round **{round}/{rounds}** · stock **{stock}** · top discard **{card}** · {melds}").format(
            round=view["round"], rounds=view["rounds"], stock=view["stock"], card=top,
            melds=ngettext("{n} meld on the table", "{n} melds on the table", len(view["melds"])).format(
                n=len(view["melds"])))

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        result = finished_round(view)
        if result is not None:  # between two rounds: the round that ended, nobody to act
            return [(name, (_("went out") + " · " if seat == result["winner"] else "")
                     + finished_round_points(view, seat)) for seat, name in enumerate(names)]
        def melds(seat: int) -> str:  # the picture shows the melds' numbers, not whose they are
            numbers = [str(m["no"]) for m in view["melds"] if m["owner"] == seat]
            return " · " + _("melds {numbers}").format(numbers=", ".join(numbers)) if numbers else ""

        return [(("▶ " if seat in view["to_act"] else "") + name,
                 self._seat_detail(view, seat) + " · " + _("total **{total}**").format(
                     total=number(view["totals"][seat])) + melds(seat)) for seat, name in enumerate(names)]

    @staticmethod
    def _seat_detail(view: dict, seat: int) -> str:
        parts = [cards(view["hand_sizes"][seat]), _("opened") if view["opened"][seat] else _("not opened")]
        if view["announced"][seat]:
            parts.append(ngettext("{n} joker announced", "{n} jokers announced", view["announced"][seat]).format(
                n=view["announced"][seat]))
        return " · ".join(parts)

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        result = finished_round(view)
        if result is not None:
            return self._finished_picture(view, names, table, result)

        def detail(seat: int) -> str:
            first = cards(view["hand_sizes"][seat]) + " · " + (_("opened") if view["opened"][seat] else _("not opened"))
            second = _("total {total}").format(total=number(view["totals"][seat]))
            if view["announced"][seat]:
                second += " · " + ngettext("{n} joker announced", "{n} jokers announced",
                                           view["announced"][seat]).format(n=view["announced"][seat])
            return f"{first}\n{second}"

        def badges(seat: int) -> tuple[Badge, ...]:
            announced = view["announced"][seat]
            return ((Badge("hand", str(view["hand_sizes"][seat])),)
                    + ((Badge("opened"),) if view["opened"][seat] else ())
                    + ((Badge("jokers", str(announced)),) if announced else ())
                    + (Badge("total", number(view["totals"][seat])),))

        seats = tuple(SeatBox(name, detail(seat), active=seat in view["to_act"], dim=table.seats[seat].away,
                              badges=badges(seat)) for seat, name in enumerate(names))
        top = view["top_discard"]
        piles = (Pile(_("Stock"), BACK if view["stock"] else None, str(view["stock"])),
                 Pile(_("Discard pile"), top, str(view["discards"])))
        # each meld by its number, which a lay-off names (whose it is: in the embed)
        groups = tuple(Group(str(m["no"]), tuple(m["cards"])) for m in view["melds"])
        return TablePicture(title=_("Concan · table #{table} · round {round}/{rounds}").format(
                                table=table.id, round=view["round"], rounds=view["rounds"]),
                            seats=seats, piles=piles,
                            sections=(Section(_("Melds on the table"), groups,
                                              empty=_("No meld yet: nobody has opened.")),),
                            deck=self.deck)

    def _finished_picture(self, view: dict, names: list[str], table, result: dict) -> TablePicture:
        """The table between two rounds: the round that ended, the cards each seat was left
        with and its points; nobody to act."""
        def detail(seat: int) -> str:
            first = number(result["points"][seat], signed=True)
            if seat == result["winner"]:
                first = _("went out") + " · " + first
            return f"{first}\n" + _("total {total}").format(total=number(view["totals"][seat]))

        def badges(seat: int) -> tuple[Badge, ...]:
            return ((Badge("went_out"),) if seat == result["winner"] else ()) + \
                (Badge("", number(result["points"][seat], signed=True)), Badge("total", number(view["totals"][seat])))

        seats = tuple(SeatBox(name, detail(seat), dim=table.seats[seat].away, badges=badges(seat))
                      for seat, name in enumerate(names))
        rows = tuple(Row(name, (Group("", tuple(result["hands"][seat]["cards"])),)) for seat, name in enumerate(names))
        return TablePicture(title=_("Concan · table #{table} · round {round}/{rounds} is over").format(
                                table=table.id, round=result["round"], rounds=view["rounds"]),
                            seats=seats, sections=(Section(_("Hands at the end of the round"), rows=rows),),
                            deck=self.deck)

    def round_rows(self, view: dict, names: list[str], index: int) -> list[tuple[str, list[list[str]], str]]:
        result = view["round_results"][index]
        rows = []
        for seat, hand in enumerate(result["hands"]):
            if seat == result["winner"]:
                caption = _("went out · −25")
            elif not hand["opened"]:
                caption = _("never opened · +100")
            else:
                jokers = hand["cards"].count(JOKER)
                caption = f"+{hand['penalty']}"
                if jokers:
                    announced = min(hand["announced"], jokers)
                    caption += " " + _("(jokers: {announced} announced at 2, {hidden} at 25)").format(
                        announced=announced, hidden=jokers - announced)
            rows.append((names[seat], [list(hand["cards"])], f"{caption} → {number(result['totals'][seat])}"))
        return rows

    def round_lines(self, view: dict, names: list[str], index: int) -> list[str]:
        """The score sheet of every round so far."""
        results = view["round_results"][: index + 1]
        width = max(len(name) for name in names)
        head = " " * width + "".join(f"{'R' + str(r['round']):>5}" for r in results[-8:]) + f"  {_('total'):>5}"
        lines = ["```", head]
        for seat, name in enumerate(names):
            row = "".join(f"{Shown(r['points'][seat]):>5}" for r in results[-8:])
            lines.append(f"{name:<{width}}{row}{Shown(results[-1]['totals'][seat]):>7}")
        lines.append("```")
        return lines

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        """The match's score board, each seat with the cards the last round left it: what decided
        the match (its history of rounds is in the rounds' messages)."""
        last = view["round_results"][-1]
        rows = self.match_result_rows(view, names, settlement)
        return [(label, [list(last["hands"][result["seat"]]["cards"])], chips_first(caption))
                for (label, _groups, caption), result in zip(rows, self.ranked(view))]


class Concan(GameCog):
    ui_class = ConcanUI


async def setup(bot) -> None:
    await bot.add_cog(Concan(bot))
