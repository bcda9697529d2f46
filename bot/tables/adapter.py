"""What each game tells the table framework: its controls, texts and images.

A game's cog subclasses :class:`GameUI`; the framework does everything else (lobby, turns,
timers, DMs, persistence, ledger). Methods receive engine views (plain dicts) and the seat's
current card selection; none of them touches Discord.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from bot.games.base import Event, Game, IllegalAction, Phrase, tokens_for
from bot.i18n import N_, Shown, _, ngettext, number, pgettext
from bot.ledger import Settlement
from rendering.table_picture import Badge, Group, Pile, Row, SeatBox, Section, TablePicture


@dataclass(frozen=True)
class ButtonSpec:
    key: str  # goes into the custom id; never a card or other secret
    label: str
    enabled: bool = True
    style: str = "secondary"  # discord.ButtonStyle name
    #: shown even while disabled, because it teaches: a move of this turn that waits for a
    #: selection (Discard before a card is chosen); other disabled buttons are left out
    teach: bool = False


@dataclass(frozen=True)
class SelectOption:
    value: str
    label: str
    description: str | None = None


@dataclass(frozen=True)
class SelectSpec:
    placeholder: str
    options: list[SelectOption]
    max_values: int
    selected: list[str] = field(default_factory=list)
    key: str = "sel"  # the card select is "sel"; other selects (a meld number...) name their pick
    #: laid out under the buttons: a select that comes and goes with the picked cards, so that
    #: the buttons keep their rows
    below: bool = False


class Selection(list):
    """What a seat has chosen on its hand: the selected cards (a list, as the card select gives
    them) and, in ``picks``, the value of each other select (``{"meld": "3"}``)."""

    def __init__(self, cards: Sequence[str] = (), picks: dict[str, str] | None = None) -> None:
        super().__init__(cards)
        self.picks: dict[str, str] = dict(picks or {})


@dataclass(frozen=True)
class HandImage:
    groups: list[list[str]]
    marked: list[int] = field(default_factory=list)
    selected: list[int] = field(default_factory=list)
    caption: str = ""
    title: str = ""


def numbered(position: int, label: str) -> str:
    """A card select option's label: the card's position number as the hand picture draws it
    under the card (1..n in reading order), then the card (``"18 · Green Pháo"``)."""
    return _("{position} · {card}").format(position=position, card=label)


def cards(n: int) -> str:
    """``"1 card"`` / ``"7 cards"`` in the current language."""
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def chips(amount: int, *, signed: bool = False) -> str:
    """``+12 chips`` / ``1 chip``, in the current language."""
    return ngettext("{n} chip", "{n} chips", abs(amount)).format(n=number(amount, signed=signed))


def finished_round(view: dict) -> dict | None:
    """Between two rounds (the framework's ``between_rounds``: the pause, or a buy-back to
    decide), the result of the round that ended: what the screens show until the next starts."""
    return view["round_results"][-1] if view.get("between_rounds") else None


def reached_total(results: Sequence[dict], index: int, seat: int) -> int:
    """The total ``seat`` reached in round ``index`` (0-based): its total before the round plus
    the round's points. It differs from the round's ``totals`` where a buy-back reset it."""
    return (results[index - 1]["totals"][seat] if index else 0) + results[index]["points"][seat]


def round_points(results: Sequence[dict], index: int, seat: int) -> str:
    """``"round 1: +7, total 27"``; where a buy-back reset the total, the total reached and
    the one bought back in at (``"round 3: +37, total 112, bought back in at 75"``), so the
    sum adds up."""
    result = results[index]
    points, total = number(result["points"][seat], signed=True), result["totals"][seat]
    reached = reached_total(results, index, seat)
    if reached != total:
        return _("round {round}: {points}, total {reached}, bought back in at {total}").format(
            round=result["round"], points=points, reached=number(reached), total=number(total))
    return _("round {round}: {points}, total {total}").format(round=result["round"], points=points,
                                                              total=number(total))


def points_to_total(results: Sequence[dict], index: int, seat: int) -> str:
    """``"+7 → 27"``: a round's points and the total they make; where a buy-back reset that
    total, also the total bought back in at (``"+37 → 112, bought back in at 75"``)."""
    result = results[index]
    points, total = result["points"][seat], result["totals"][seat]
    reached = reached_total(results, index, seat)
    if reached != total:
        return _("{points} → {reached}, bought back in at {total}").format(
            points=number(points, signed=True), reached=number(reached), total=number(total))
    return f"{number(points, signed=True)} → {number(total)}"


def finished_round_points(view: dict, seat: int) -> str:
    """:func:`round_points` of the round that ended (:func:`finished_round`)."""
    return round_points(view["round_results"], len(view["round_results"]) - 1, seat)


#: a row of a result picture: (label, grouped cards, caption), or with a fourth element, the
#: positions of the marked cards
ResultRow = tuple


class GameUI:
    """Base class; override what the game needs."""

    game: Game
    deck: str = "french"  # the sprite set used to render cards (see bind)
    rules_text: str = ""  # bot/rules/<game>.md
    rules_texts: dict[str, str] = {}  # translations: language -> bot/rules/<game>.<language>.md
    #: the ``/<game>`` group's description, and its ``new`` command's (English msgids)
    description: str = ""
    new_description: str = ""
    stake_description: str = N_("Chips per unit (default from config)")
    #: options of ``/<game> new`` besides stake, seats and turn_seconds
    #: (:class:`bot.tables.commands.LobbyOption`)
    lobby_options: tuple = ()
    #: the text of each :class:`~bot.games.base.Phrase` key the engine emits (an English msgid,
    #: or ``(singular, plural, count_key)`` for a sentence with a number); seat placeholders are
    #: filled with names, ``card``/``*_card`` values are shown with :meth:`card_label`
    phrases: dict[str, str | tuple[str, str, str]] = {}
    #: keys of buttons that are card-selection helpers rather than moves
    helper_keys: frozenset[str] = frozenset({"quick", "arrange"})
    #: the first player is drawn (Concan): the table seats the players in a drawn order at every
    #: start, a Rematch included, and seat 0 starts (see ``Lobby._seat_players``)
    seats_drawn: bool = False

    #: the values of :attr:`phrases` that are amounts in stake units (Tứ Sắc's "each loser
    #: owes {pay}"): a result tells every amount in chips, so they are shown in chips at the
    #: stake the UI is bound to (:meth:`at_stake`)
    unit_values: frozenset[str] = frozenset()
    #: the table's chips per stake unit, once bound (:meth:`bind`, :meth:`at_stake`)
    stake: int | None = None

    def bind(self, table_options: dict[str, Any]) -> "GameUI":
        """This UI as a table with these options shows it (Chinchón may be played with a
        Spanish pack, whose codes and sprites differ; amounts in stake units are told in
        chips at the table's stake); the same object when nothing differs."""
        return self.at_stake(table_options.get("stake"))

    def at_stake(self, stake: int | None) -> "GameUI":
        """This UI telling the amounts of :attr:`unit_values` in chips at ``stake`` chips a unit."""
        if not self.unit_values or stake is None or stake == self.stake:
            return self
        bound = self.__dict__.setdefault("_at_stake", {})
        if stake not in bound:
            ui = copy.copy(self)
            ui.__dict__.pop("_at_stake", None)
            ui.stake = int(stake)
            bound[stake] = ui
        return bound[stake]

    def decks_used(self) -> tuple[str, ...]:
        """Every sprite set the game may show, drawn once at start-up."""
        return (self.deck,)

    # ---- lobby and engine options
    def table_options(self, given: dict[str, Any], *, stake: int) -> dict[str, Any]:
        """The table's own options from those given to ``/<game> new`` (None where not given);
        ``stake`` is the table's stake. Fill game-specific defaults here."""
        return {key: value for key, value in given.items() if value is not None}

    def engine_options(self, table_options: dict[str, Any], *, previous_winner: int | None = None) -> dict[str, Any]:
        """Engine options for the next game; ``previous_winner`` is the seat (in the new seating)
        that won this table's previous game (Chắn's ù thông needs it), or None."""
        return {}

    # ---- AI
    def person_action(self, view: dict) -> str | None:
        """What a person's seat does when his time runs out or while he is away, where a game
        must not let the AI decide for him (spending chips on a buy-back); None: the AI plays
        his move, at the table's level."""
        return None

    # ---- matches of several rounds
    def deciding(self, view: dict) -> bool:
        """Whether the seats to act are making decisions between two rounds (a buy-back), which
        are taken during the pause; other moves wait for the next round."""
        return False

    def round_lines(self, view: dict, names: list[str], index: int) -> list[str]:
        """One line per seat under a round's result (round ``index``, 0-based)."""
        result = view["round_results"][index]
        lines = []
        for seat, name in enumerate(names):
            points = result["points"][seat]
            if points is None:
                continue
            out = " · **out**" if seat in result.get("out", ()) else ""
            lines.append(f"**{name}**: {points_to_total(view['round_results'], index, seat)}{out}")
        return lines

    def round_rows(self, view: dict, names: list[str], index: int) -> list[tuple[str, list[list[str]], str]]:
        """Rows of the round's result image: (label, grouped cards, caption) per seat."""
        raise NotImplementedError

    def quick_select(self, state: Any, seat: int) -> list[str]:
        raise NotImplementedError

    def helper(self, key: str, state: Any, seat: int, selection: list[str]) -> list[str]:
        """The new selection after a helper button (a key of :attr:`helper_keys` other than
        ``arrange``): Quick Select by default; games add e.g. Find Trash. May raise IllegalAction."""
        if key == "quick":
            return self.quick_select(state, seat)
        raise IllegalAction(_("That control is not valid."))

    def helper_buttons(self, view: dict, *, quick: bool, arrange: bool = True) -> list[ButtonSpec]:
        """The helpers players know from the web versions, after the moves in every hand's
        controls: Find Trash where the game has it (``"trash"`` in :attr:`helper_keys`), Quick
        Select and Auto-arrange, enabled as the game says."""
        trash = [ButtonSpec("trash", _("Find Trash"), bool(view["hand"]) and view["outcome"] is None)]
        return (trash if "trash" in self.helper_keys else []) + [
            ButtonSpec("quick", _("Quick Select"), quick), ButtonSpec("arrange", _("Auto-arrange"), arrange)]

    @staticmethod
    def takes_cards(legal: list[str]) -> bool:
        """Whether some legal move is played with cards, which Quick Select could pick: moves
        without any (Draw, Pass, a win declared, Phỏm's Show of nothing) leave it nothing to do."""
        return any(" " in action for action in legal)

    def keep_selection(self, view: dict, selection: list[str]) -> list[str]:
        """The part of a stored selection still valid for this view (cards that left the hand
        drop out). Games whose hands hold identical copies select tokens such as ``2V#2``
        (Discord needs distinct option values) and override this."""
        return [card for card in selection if card in view["hand"]]

    # ---- controls
    def select(self, view: dict, selection: list[str], arranged: bool) -> SelectSpec | None:
        return None

    def extra_selects(self, view: dict, selection: Selection, *, names: Sequence[str] = ()) -> list[SelectSpec]:
        """Selects besides the card select (each with its own ``key`` and ``row``), e.g. the
        meld a card is laid off onto; their values reach the UI as ``selection.picks``.
        ``names``: the seats' names, for options that name a seat (none where only the values
        matter)."""
        return []

    def buttons(self, view: dict, selection: list[str]) -> list[ButtonSpec]:
        raise NotImplementedError

    def action_for(self, key: str, view: dict, selection: list[str]) -> str:
        """The action string a move button means with this selection; raises IllegalAction."""
        raise NotImplementedError

    # ---- texts and images
    def card_label(self, card: str) -> str:
        return card

    def cards_text(self, cards: Sequence[str]) -> str:
        return " ".join(self.card_label(card) for card in cards) or "—"

    def hand_image(self, view: dict, selection: list[str], arranged: bool) -> HandImage:
        raise NotImplementedError

    def hand_status(self, view: dict, names: list[str]) -> str:
        """One or two lines above the hand image: whose turn and what this seat may do."""
        raise NotImplementedError

    def phrase_text(self, phrase: Phrase | dict, names: Sequence[str]) -> str:
        """One sentence, its seat placeholders filled with names in a single pass (a name is
        never searched for or replaced afterwards)."""
        if isinstance(phrase, dict):
            phrase = Phrase.from_dict(phrase)
        values = {key: self.card_label(value) if (key == "card" or key.endswith("_card")) and value else
                  Shown(value) if isinstance(value, int) and not isinstance(value, bool) else value
                  for key, value in phrase.values.items()}
        if self.stake is not None:
            values.update({key: chips(int(values[key]) * self.stake) for key in self.unit_values & values.keys()})
        values.update({key: names[seat] for key, seat in phrase.seats.items()})
        template = self.phrases[phrase.key]
        if isinstance(template, tuple):
            singular, plural, count = template
            return ngettext(singular, plural, abs(int(phrase.values[count]))).format_map(values)
        return _(template).format_map(values)

    def summary_text(self, phrases: Sequence[Phrase | dict], names: Sequence[str]) -> str:
        return " · ".join(self.phrase_text(phrase, names) for phrase in phrases)

    def note_text(self, note: str | dict) -> str:
        """A result's note (a named factor, a penalty): a native word stays itself, an English
        one is translated, a phrase (a dict) is filled like the summaries."""
        return self.phrase_text(note, []) if isinstance(note, dict) else _(note)

    #: the log's sentence for each event kind the default :meth:`event_text` knows (a game adds
    #: its own kinds with ``{**GameUI.event_templates, ...}``); ``{player}`` and ``{cards}`` are
    #: always there, other placeholders come from :meth:`event_values`
    event_templates: dict[str, str] = {
        "discard": N_("{player} discarded {cards}"),
        "draw": N_("{player} drew from the stock"),
        "eat": N_("{player} ate {cards}"),
        "show": N_("{player} showed {cards}"),
        "pass": N_("{player} passed"),
        "take": N_("{player} took {cards}"),
        # matches of several rounds
        "round_start": N_("Round {round} dealt"),
        "reshuffle": N_("The discards were shuffled into a new stock"),
    }

    def event_values(self, event: Event) -> dict[str, str]:
        """The placeholders of an event's template beyond ``{player}`` and ``{cards}``, taken from
        the event's text (a round's number...). A text used here is not appended to the sentence."""
        return {"round": event.text} if event.kind == "round_start" else {}

    def event_text(self, event: Event, names: list[str]) -> str:
        if event.kind in ("end", "round_end"):
            return self.summary_text(event.phrases, names)
        who = names[event.seat] if event.seat is not None else ""
        cards = self.cards_text(event.cards) if event.cards else ""
        template = self.event_templates.get(event.kind)
        if template is None:
            text = f"{who} {event.kind} {cards}".strip()
        else:
            values = self.event_values(event)
            text = _(template).format(player=who, cards=cards, **values)
            if values:
                return text
        if event.text:
            text += f" — {_(event.text)}"
        return text

    def table_fields(self, view: dict, names: list[str]) -> list[tuple[str, str]]:
        """(name, value) embed fields for the public table, one per seat and any extras."""
        raise NotImplementedError

    def table_summary(self, view: dict) -> str:
        """A line for the public table: stock, round..."""
        return ""

    def table_picture(self, view: dict, names: list[str], table: Any) -> Any:
        """The public table as a :class:`rendering.table_picture.TablePicture` (seats, piles,
        card groups), or None to show the table in text only. ``table`` gives the framework's
        facts a picture may show (whose turn, the round...)."""
        return None


    def seated_picture(self, view: dict, names: list[str], table: Any, *, title: str, piles: tuple[Pile, ...],
                       section: str, detail: Callable[[int], str], groups: Callable[[int], Sequence[Group]],
                       badges: Callable[[int], tuple[Badge, ...]]) -> TablePicture:
        """A table picture of Phỏm's, Chắn's and Tứ Sắc's kind: a box per seat (its words
        ``detail(seat)``, its ``badges(seat)``) and a row of that seat's public card
        ``groups(seat)``, in seat order; ``names`` as :func:`picture_names` shortened them."""
        to_act = set(view["to_act"])
        seats = range(view["num_players"])
        boxes = tuple(SeatBox(names[seat], detail(seat), active=seat in to_act, dim=table.seats[seat].away,
                              badges=badges(seat)) for seat in seats)
        rows = tuple(Row(names[seat], tuple(groups(seat)), active=seat in to_act) for seat in seats)
        return TablePicture(title=title, seats=boxes, piles=piles, deck=self.deck,
                            sections=(Section(section, rows=rows, empty=_("No card on the table yet.")),))
    def result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        """Rows for the end-of-game image: (label, grouped cards, caption) per seat, best rank
        first (:meth:`ranked`), labelled with :meth:`result_label`; amounts in chips, as
        ``settlement`` (the ledger's) gives them."""
        raise NotImplementedError

    # ---- helpers of the result rows
    @staticmethod
    def ranked(view: dict) -> list[dict]:
        """The outcome's results (dicts of the view), best rank first, then by seat."""
        return sorted(view["outcome"]["results"], key=lambda r: (r["rank"], r["seat"]))

    @classmethod
    def ranked_hands(cls, view: dict) -> list[tuple[dict, dict]]:
        """The results best first (as :meth:`ranked`), each with the hand its outcome counted."""
        hands = view["outcome"]["hands"]
        return [(result, hands[result["seat"]]) for result in cls.ranked(view)]

    @staticmethod
    def winners(view: dict) -> list[int]:
        """The seats that won (several share a pot; none in a drawn game)."""
        outcome = view["outcome"]
        if outcome.get("winners") is not None:
            return list(outcome["winners"])
        return [] if outcome.get("winner") is None else [outcome["winner"]]

    def result_label(self, view: dict, names: list[str], result: dict, *, won: str | None = None) -> str:
        """``"1. Lan — wins"``, ``"2. Minh"``: the seat's rank and name, the winner marked
        (``won``: the game's own word for it, e.g. ù)."""
        name = names[result["seat"]]
        if result["seat"] in self.winners(view):
            name = won.format(player=name) if won else pgettext("result", "{player} — wins").format(player=name)
        return f"{result['rank']}. {name}"

    def match_result_rows(self, view: dict, names: list[str], settlement: Settlement) -> list[ResultRow]:
        """The final picture of a match of several rounds, a score board: per seat, best rank
        first, its final total and chips (the winners take the pot), its notes, then each
        round's points (where a buy-back reset its total, the total it bought back in at).
        No cards: the last round's hands are in that round's picture, posted just before, and
        so are each round's totals; here they would make the numbers too small to read."""
        results = view["round_results"]
        winners = self.winners(view)
        rows: list[ResultRow] = []
        for result in self.ranked(view):
            seat = result["seat"]
            money = [_("total {total}").format(total=number(view["outcome"].get("totals", view["totals"])[seat]))]
            if seat in winners and settlement.pot is not None:
                money.append((_("takes the pot of {pot}") if len(winners) == 1 else _("shares the pot of {pot}"))
                             .format(pot=chips(settlement.pot)))
            money.append(chips(settlement.chips[seat], signed=True))
            played = [k for k, r in enumerate(results) if r["points"][seat] is not None]
            reset = any(reached_total(results, k, seat) != results[k]["totals"][seat] for k in played)
            # the rounds say where a buy-back reset the total: the note would say it twice
            notes = [text for text in (self.note_text(note) for note in result.get("notes", ()))
                     if not (reset and text == _("bought back"))]
            if played:
                notes.append(_("rounds: {points}").format(points=", ".join(self._round_item(results, k, seat)
                                                                            for k in played)))
            caption = "\n".join(line for line in (" · ".join(money), " · ".join(notes)) if line)
            rows.append((self.result_label(view, names, result), [], caption))
        return rows

    @staticmethod
    def _round_item(results: Sequence[dict], index: int, seat: int) -> str:
        """A round's points in a match's history: ``"+9"``, or ``"+37 (bought back in at 75)"``."""
        result = results[index]
        points = number(result["points"][seat], signed=True)
        if reached_total(results, index, seat) != result["totals"][seat]:
            return _("{points} (bought back in at {total})").format(points=points,
                                                                   total=number(result["totals"][seat]))
        return points


class CopyTokensUI(GameUI):
    """For games whose hands hold identical copies: selections are ``X#k`` tokens."""

    def keep_selection(self, view: dict, selection: list[str]) -> list[str]:
        valid = set(tokens_for(view["hand"]))
        return [token for token in selection if token in valid]
