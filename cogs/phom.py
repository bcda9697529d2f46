"""Phỏm (Tá Lả): the /phom commands and what the table shows of a Phỏm game."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.phom import game as phom
from bot.games.phom import ai as phom_ai
from bot.games.base import IllegalAction
from bot.games.french import sort_key
from bot.games.phom.melds import points_after_sends, send_plan, send_targets
from bot.i18n import C_, N_, _, ngettext, pgettext
from bot.tables.adapter import (ButtonSpec, GameUI, HandImage, ResultRow, Selection, SelectOption, SelectSpec,
                                Settlement, cards, numbered, chips)
from bot.tables.commands import GameCog, LobbyOption
from rendering import BACK
from rendering.table_picture import Badge, Group, Pile, TablePicture, picture_names

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
    lobby_options = (
        LobbyOption(C_("option name", "send"),
                    N_("Gửi: in the last round, who showed a phỏm may lay off cards onto the others' phỏm "
                       "(default off)"), bool, label=N_("gửi (laying off onto the others' phỏm)")),
    )

    def engine_options(self, table_options: dict, *, previous_winner: int | None = None) -> dict:
        return {"send": bool(table_options.get("send", False))}

    def quick_select(self, state, seat: int) -> list[str]:
        """The AI's move as a selection; a send also picks the phỏm it goes onto."""
        view = state.view(seat)
        selected = phom_ai.quick_select(view)
        if self._sends(view):
            action = phom_ai.choose(view)
            if action.startswith("send "):
                return Selection(selected, {"onto": action.split()[2]})
        return selected

    # ---- gửi (the table option send)
    @staticmethod
    def _sends(view: dict) -> list[str]:
        return [action for action in view["legal"] if action.startswith("send ")]

    def _send_targets(self, view: dict, card: str) -> list[str]:
        """The phỏm (``"<seat>:<k>"``) the seat may send ``card`` onto now."""
        return [action.split()[2] for action in self._sends(view) if action.split()[1] == card]

    def _sendable(self, view: dict, kept: list[str], showing: bool) -> list[str]:
        """Of the cards kept after a show, those the best sends lay off (none where the table plays
        without gửi, or for a hand that shows no phỏm)."""
        seat = view["seat"]
        if not view.get("send") or seat is None or not view["last_round"] or not (
                showing or view["shown"][seat]):
            return []
        sent = {card for card, _target in send_plan(kept, send_targets(view, seat))}
        return [card for card in kept if card in sent]  # in the hand's order

    def card_label(self, card: str) -> str:
        return card_label(card)

    # ---- the hand, in display order
    @staticmethod
    def _own_eaten(view: dict) -> list[str]:
        seat = view["seat"]
        return [card for card in view["eaten"][seat] if card in view["hand"]] if seat is not None else []

    def _send_groups(self, view: dict) -> list[list[str]] | None:
        """Auto-arrange where the seat may send this turn: the phỏm of its best show (counting the
        sends), then the cards the best sends lay off, then the rest; None elsewhere."""
        if not view.get("send") or view["seat"] not in view["to_act"] or not view["last_round"]:
            return None
        hand = view["hand"]
        if view["phase"] == "show":
            action = self._best_show(view)
            melds = [meld.split() for meld in action[4:].split("|") if meld.strip()]
        elif view["phase"] == "discard" and self._sends(view):
            melds = []
        else:
            return None
        shown = {card for meld in melds for card in meld}
        kept = [card for card in hand if card not in shown]
        sendable = self._sendable(view, kept, bool(melds))
        return melds + [sendable, [card for card in kept if card not in sendable]]

    def _groups(self, view: dict, arranged: bool) -> list[list[str]]:
        hand = view["hand"]
        sending = self._send_groups(view) if arranged else None
        if sending is not None:
            groups = sending
        elif arranged:
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
        if arranged and view["phase"] == "discard":
            sendable = self._sendable(view, view["hand"], False) if self._sends(view) else []
            if sendable:
                parts.append(_("can be sent: {cards}").format(cards=" ".join(card_label(c) for c in sendable)))
        sent = sorted((card for melds in view.get("sent", ()) for onto in melds for card, by in onto
                       if by == view["seat"]), key=sort_key)
        if sent:
            parts.append(_("sent: {cards}").format(cards=" ".join(card_label(c) for c in sent)))
        return HandImage(groups=groups, marked=[i for i, c in enumerate(flat) if c in eaten],
                         selected=[i for i, c in enumerate(flat) if c in selection], caption=" · ".join(parts),
                         # whose turn it is lives in the text: the image changes only with the hand
                         title=_("Your hand"))

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        if view["current"] != view["seat"] or not view["hand"]:
            return None
        if view["legal"] == ["draw"]:  # nothing to select: a "Cards" select of 9 would only mislead
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
        if phase == "discard" and self._sends(view):
            placeholder = _("Choose the card to discard or to send")
        elif phase == "discard":
            placeholder = _("Choose the card to discard")
        elif phase == "draw" and view["active"] and any(action.startswith("eat ") for action in view["legal"]):
            placeholder = _("Cards to eat {card} with").format(card=card_label(view["active"]))
        elif phase == "show":
            placeholder = _("All your phỏm, to show (none selected: the best way)")
        else:
            placeholder = _("Cards")
        return SelectSpec(placeholder, options, 1 if single else len(options), selected=selection)

    def extra_selects(self, view: dict, selection: Selection, *, names: Sequence[str] = ()) -> list[SelectSpec]:
        """Gửi: the phỏm to send the one selected card onto, where it fits several (under the
        buttons, so that they keep their places); each option says whose phỏm it is."""
        if len(selection) != 1:
            return []
        targets = self._send_targets(view, selection[0])
        if len(targets) < 2:
            return []
        options = [SelectOption(target, self._meld_label(view, target, names)) for target in targets]
        picks = getattr(selection, "picks", {})
        return [SelectSpec(_("Send {card} onto…").format(card=card_label(selection[0])), options, 1, key="onto",
                           selected=[picks["onto"]] if picks.get("onto") in targets else [], below=True)]

    def _meld_label(self, view: dict, target: str, names: Sequence[str]) -> str:
        """``"Lan's phỏm 1: A♥ 2♥ 3♥"``: whose phỏm, its number among theirs, its cards."""
        seat, k = (int(x) for x in target.split(":"))
        name = names[seat] if seat < len(names) else _("Seat {number}").format(number=seat + 1)
        return _("{player}'s phỏm {number}: {cards}").format(
            player=name, number=k, cards=self.cards_text(self._meld(view, target)))

    @staticmethod
    def _meld(view: dict, target: str) -> list[str]:
        seat, k = (int(x) for x in target.split(":"))
        return view["shown"][seat][k - 1]

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        legal = view["legal"]
        phase = view["phase"]
        can_eat = any(action.startswith("eat ") for action in legal)
        can_send = bool(self._sends(view))
        targets = self._send_targets(view, selection[0]) if len(selection) == 1 else []
        picked = getattr(selection, "picks", {}).get("onto")
        return [
            ButtonSpec("draw", _("Draw"), "draw" in legal, "primary"),
            ButtonSpec("eat", _("Eat"), can_eat and bool(selection), "success", teach=can_eat),
            ButtonSpec("show", _("Show"), phase == "show" and bool(legal), "success"),
            ButtonSpec("discard", _("Discard"), phase == "discard" and bool(legal) and len(selection) == 1, "danger",
                       teach=phase == "discard" and bool(legal)),
            # one click when the card fits one phỏm; else once the phỏm is picked below
            ButtonSpec("send", _("Send"), len(targets) == 1 or picked in targets, "success", teach=can_send),
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
        if key == "send":
            if len(selection) != 1:
                raise IllegalAction(_("Select the one card to send."))
            card = selection[0]
            targets = self._send_targets(view, card)
            if not targets:
                raise IllegalAction(_("{card} fits on none of the other players' phỏm.").format(
                    card=card_label(card)))
            picked = getattr(selection, "picks", {}).get("onto")
            if len(targets) > 1 and picked not in targets:
                raise IllegalAction(_("Choose the phỏm to send {card} onto, in the select under the buttons.")
                                    .format(card=card_label(card)))
            return f"send {card} {targets[0] if len(targets) == 1 else picked}"
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
        card kept is discarded (and, with gửi, once the best sends are made); then the fewest
        points kept."""
        shows = [action for action in view["legal"] if action.split()[0] == "show"]
        if not shows:
            raise IllegalAction(_("You can only show your phỏm in the last round, before discarding."))
        seat = view["seat"]
        targets = send_targets(view, seat) if view.get("send") else {}

        def score(action: str) -> tuple:
            shown = set(action.split()[1:])
            kept = [c for c in view["hand"] if c not in shown]
            points = [phom.card_points(c) for c in kept]
            may_send = targets and (action != "show" or view["shown"][seat])
            left = points_after_sends(kept, targets) if may_send else sum(points) - max(points, default=0)
            return left, sum(points), action

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
        elif self._sends(view):
            text = _("**Your turn — last round.** Select a card and **Send** it onto another player's phỏm "
                     "(gửi), or **Discard** to end your turn.")
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
            if event.text == phom.NO_OTHER_PHOM:  # (its phỏm, eaten with a chốt, is shown already)
                return _("{player} showed no other phỏm").format(player=who)
            return _("{player} showed no phỏm").format(player=who)
        if event.kind == "send" and event.phrases:
            return "↪ " + self.phrase_text(event.phrases[0], names)
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
                    melds="  ".join(self._meld_text(view, names, seat, k) for k in range(len(view["shown"][seat])))))
            fields.append((f"{marker}{name}", " · ".join(parts)))
        return fields

    @staticmethod
    def _sent_onto(view: dict, seat: int, k: int) -> list[list]:
        """The [card, sender] pairs sent onto ``seat``'s k-th phỏm (from 0)."""
        sent = view.get("sent") or []
        return sent[seat][k] if seat < len(sent) and k < len(sent[seat]) else []

    def _meld_text(self, view: dict, names: list[str], seat: int, k: int) -> str:
        text = f"[{self.cards_text(view['shown'][seat][k])}]"
        sent = self._sent_onto(view, seat, k)
        if sent:
            text += " " + _("(sent: {cards})").format(cards=", ".join(
                _("{card} by {player}").format(card=card_label(card), player=names[by]) for card, by in sent))
        return text

    def table_picture(self, view: dict, names: list[str], table) -> TablePicture:
        names = picture_names(names)
        n = view["num_players"]

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

        def groups(seat: int) -> list[Group]:
            # told by place and glyph: discards (↓), eaten cards not in a phỏm, the phỏm shown (eaten
            # cards underlined)
            eaten = tuple(unshown_eaten(seat))
            ate = set(view["eaten"][seat])
            return [Group("", tuple(view["discards"][seat]), glyph="discards"),
                    Group("", eaten, tuple(range(len(eaten)))),
                    *(Group("", tuple(meld), tuple(k for k, card in enumerate(meld) if card in ate))
                      for meld in view["shown"][seat])]

        active = view["active"]
        offer = _("from {player}").format(player=names[(view["current"] - 1) % n]) \
            if active and view["current"] is not None else ""
        piles = (Pile(_("Stock"), BACK if view["stock"] else None, f"{view['stock']} · {view['draws']}/{4 * n - 1}"),
                 Pile(_("On offer"), active, offer))
        title = (_("Phỏm · table #{table} · last round") if view["last_round"]
                 else _("Phỏm · table #{table}")).format(table=table.id)
        return self.seated_picture(view, names, table, title=title, piles=piles,
                                   section=_("Discards, eaten cards and phỏm shown"), detail=detail, groups=groups,
                                   badges=lambda seat: (Badge("hand", str(view["hand_sizes"][seat])),))

    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        rows = []
        for result, hand in self.ranked_hands(view):
            seat = result["seat"]
            groups = [list(m) for m in hand["melds"]] + ([list(hand["leftover"])] if hand["leftover"] else [])
            received = {card for k in range(len(view["shown"][seat])) for card, _by in self._sent_onto(view, seat, k)}
            sent = [card for melds in view.get("sent") or [] for onto in melds for card, by in onto if by == seat]
            points = hand["points"]
            # the chips first: a picture too narrow for every fact keeps them
            parts = [chips(settlement.chips[seat], signed=True),
                     ngettext("{n} point", "{n} points", points).format(n=points)] + (["móm"] if hand["mom"] else [])
            if sent:
                parts.append(_("sent: {cards}").format(cards=self.cards_text(sorted(sent, key=sort_key))))
            flat = [card for group in groups for card in group]
            rows.append((self.result_label(view, names, result), groups, " · ".join(parts),
                         [i for i, card in enumerate(flat) if card in received]))
        return rows



class Phom(GameCog):
    ui_class = PhomUI


async def setup(bot) -> None:
    await bot.add_cog(Phom(bot))
