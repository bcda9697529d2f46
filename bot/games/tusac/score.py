"""Tứ Sắc results — rules in docs/rules/tusac.md ("Payout", "Worst card"): a public meld and
its value, the value of a seat's hand, and the settlement of a won or drawn game with the
phrases that tell it.

Public API (``PHRASES`` and ``Meld`` are re-exported by :mod:`.tusac`):

- ``Meld(kind, cards)``: a set laid on the table (``quan``, ``khui`` or ``set``) and its value.
- ``block_value(public, private) -> (value, quan_or_khui)``: a complete hand's value.
- ``won_with(how, winner, card, source) -> Phrase``: how a seat won.
- ``settle_win(...)`` and ``settle_drawn(...)``: outcome, end facts for the view, summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bot.i18n import N_
from bot.games.base import Note, Outcome, Phrase, Transfer, outcome_from_transfers
from bot.games.tusac.sets import KHAP_VALUE, KHUI_VALUE, QUAN_VALUE, payment, private_value, set_value

#: Every phrase key this engine emits, with its English template ({name}: a seat's name),
#: marked for translation: the UI shows them in the reader's language. ``meld`` is a native
#: word (Quan, Khui, Khap).
PHRASES: dict[str, str] = {
    "tusac.won_dealt": N_("{winner} wins with a dealt hand without trash"),
    "tusac.won_drawn": N_("{winner} wins with {card} drawn from the stock"),
    "tusac.won_discarded": N_("{winner} wins with {card} discarded by {source}"),
    "tusac.payment": N_("hand value {value} · each loser owes {pay}"),
    "tusac.payment_doubled": N_("hand value {value} · each loser owes {pay} (doubled: Quan/Khui)"),
    "tusac.worst_card_penalty": N_("{payer} discarded a card that was not a worst one and pays for everyone"),
    "tusac.stock_out": N_("Drawn game: the stock is down to {cards} cards with no winner. No payments."),
    "tusac.hand_value": N_("hand value {value}"),
    "tusac.hand_value_doubled": N_("hand value {value} (Quan/Khui: doubled)"),
    "tusac.melds": N_("{meld} ×{count}"),
    "tusac.trash": N_("trash {trash}"),
}

# A note and a transfer reason of the penalty (English, translated where they are shown);
# the side payments' reasons are the native words Quan, Khui, Khap.
WORST_CARD_PENALTY = N_("worst-card penalty")
PAYS_FOR_EVERYONE = N_("pays for everyone: not a worst card")


@dataclass(frozen=True)
class Meld:
    kind: str  # "quan" | "khui" | "set"
    cards: tuple[str, ...]

    @property
    def value(self) -> int:
        if self.kind == "quan":
            return QUAN_VALUE
        if self.kind == "khui":
            return KHUI_VALUE
        return set_value(self.cards) or 0

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": list(self.cards)}


def block_value(public: Sequence[Meld], private: Mapping[str, int]) -> tuple[int, bool]:
    """The value of a hand (its public melds and the best split of its private block; a private
    block with trash adds nothing) and whether it holds a Quan or a Khui."""
    got = private_value(private)
    value = sum(m.value for m in public) + (got[0] if got else 0)
    return value, any(m.kind in ("quan", "khui") for m in public)


def won_with(how: str, winner: int, card: str | None = None, source: int | None = None) -> Phrase:
    """How a seat won: ``tusac.won_dealt``, ``tusac.won_drawn`` or ``tusac.won_discarded``."""
    if how == "deal":
        return Phrase("tusac.won_dealt", {"winner": winner})
    if how == "drawn":
        return Phrase("tusac.won_drawn", {"winner": winner}, {"card": card})
    return Phrase("tusac.won_discarded", {"winner": winner, "source": source}, {"card": card})


def _trash_note(trash: int) -> Note:
    return Phrase("tusac.trash", {}, {"trash": trash}).as_dict()


def settle_win(winner: int, *, how: str, card: str | None, source: int | None, value: int, quan_or_khui: bool,
               penalty: int | None, holdings: Sequence[tuple[int, int, int]],
               trash: Sequence[int]) -> tuple[Outcome, dict[str, Any], list[Phrase]]:
    """``winner`` won (``how``: deal, drawn or discard, with ``card`` from ``source``) with a hand
    of ``value``. Every loser pays, or ``penalty`` (the discarder of a card that was not a worst
    one) pays for all; each seat's ``holdings`` (Quan, Khui, Khap) earn side payments; losers
    rank by their ``trash``."""
    n = len(trash)
    pay = payment(value, quan_or_khui=quan_or_khui)
    losers = [(winner + k) % n for k in range(1, n)]
    transfers: list[Transfer] = []
    notes: list[list[Note]] = [[] for _ in range(n)]
    notes[winner].append(Phrase("tusac.hand_value_doubled" if quan_or_khui else "tusac.hand_value", {},
                                {"value": value}).as_dict())
    if penalty is not None:
        transfers.append(Transfer(penalty, winner, pay * len(losers), PAYS_FOR_EVERYONE))
        notes[penalty].append(WORST_CARD_PENALTY)
    else:
        transfers += [Transfer(s, winner, pay, Phrase("tusac.hand_value", {}, {"value": value}).as_dict())
                      for s in losers]
    for holder in losers:
        for count, each, reason in zip(holdings[holder], (QUAN_VALUE, KHUI_VALUE, KHAP_VALUE),
                                       ("Quan", "Khui", "Khap")):
            if not count:
                continue
            notes[holder].append(Phrase("tusac.melds", {}, {"meld": reason, "count": count}).as_dict())
            payers = [s for s in range(n) if s != holder and (s != winner or reason != "Khap")]
            transfers += [Transfer(s, holder, count * each, reason) for s in payers]
    ranked = sorted(losers, key=lambda s: (trash[s], losers.index(s)))
    ranks = [0] * n
    ranks[winner] = 1
    for r, s in enumerate(ranked, 2):
        ranks[s] = r
        notes[s].insert(0, _trash_note(trash[s]))
    points = [value if s == winner else None for s in range(n)]
    summary = [won_with(how, winner, card, source),
               Phrase("tusac.payment_doubled" if quan_or_khui else "tusac.payment", {}, {"value": value, "pay": pay})]
    if penalty is not None:
        summary.append(Phrase("tusac.worst_card_penalty", {"payer": penalty}))
    end = {"winner": winner, "value": value, "payment": pay, "quan_or_khui": quan_or_khui, "penalty": penalty,
           "how": how, "winning_card": card}
    return _outcome(winner, ranks, transfers, points, notes, summary), end, summary


def settle_drawn(trash: Sequence[int], *, dead_stock: int) -> tuple[Outcome, dict[str, Any], list[Phrase]]:
    """The stock is down to ``dead_stock`` cards with no winner: no payments."""
    n = len(trash)
    summary = [Phrase("tusac.stock_out", {}, {"cards": dead_stock})]
    end = {"winner": None, "value": None, "payment": 0, "quan_or_khui": False, "penalty": None, "how": "stock",
           "winning_card": None}
    notes: list[list[Note]] = [[_trash_note(t)] for t in trash]
    return _outcome(None, [1] * n, [], [None] * n, notes, summary), end, summary


def _outcome(winner: int | None, ranks: list[int], transfers: list[Transfer], points: list[int | None],
             notes: list[list[Note]], summary: list[Phrase]) -> Outcome:
    outcome = outcome_from_transfers(len(ranks), winner, ranks, transfers, points=points, notes=notes,
                                     summary=summary)
    outcome.check_balanced()
    return outcome


__all__ = ["PHRASES", "Meld", "block_value", "settle_drawn", "settle_win", "won_with"]
