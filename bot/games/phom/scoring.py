"""The end of a game of Phỏm — rules in docs/rules/phom.md ("Results and bets").

Pure functions of what the table holds when the game ends; :class:`~bot.games.phom.game.PhomState`
calls them and keeps the payments of the play (eats) before the ones returned here.

- ``hand_summary(shown, hand, unshown_eaten, *, arrange_hand)``: a seat's phỏm, leftover cards,
  points and whether it is móm (the ``hands`` of the outcome, and a seat's ``arrangement``).
- ``rank_order(seats, hands, last_discard)``: seats best first.
- ``settle_u(...)``: the end by an ù (or ù đền: one seat pays for everyone).
- ``settle_normal(...)``: the end after the last discard (rank payments, móm).

Both settlements return an :class:`Ending`: the winner, each seat's rank and notes, the
summary phrases (``PHRASES``, part of the engine's) and the transfers of the end.

Rule interpretations made here (beyond the *(decided)* points of the spec):

- At a normal end only shown phỏm count: a player's points are the sum of all the cards he
  still holds, and he is móm when he showed no phỏm. Every player has a last-round turn and
  must show all his phỏm in it, and the cards he keeps after showing never gain a phỏm
  again without a new show, so this is the spec's "a hand with no phỏm is móm".
- Ù đền (penalty 2) takes precedence over the last-round penalty (3); penalty 3 does not
  apply when the last player whose discard was eaten is the ù winner himself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from bot.i18n import N_, Nn_
from bot.games.base import Note, Phrase, Transfer
from bot.games.french import sort_key
from bot.games.phom.melds import card_points, hand_arrangement, meld_key

#: The phrase keys of the end, with their English templates ({name}: a seat's name), marked for
#: translation: the UI shows them in the reader's language.
PHRASES: dict[str, str | tuple[str, str, str]] = {
    "phom.u": N_("{winner} ù: {each} from each player"),
    "phom.u_before_discard": N_("{winner} ù before discarding: {each} from each player"),
    "phom.u_den": N_("{winner} ù; {payer} pays for everyone ({reason})"),
    "phom.u_before_discard_den": N_("{winner} ù before discarding; {payer} pays for everyone ({reason})"),
    "phom.u_den_last_round": N_("{winner} ù; {payer} pays for everyone (ù đền, last round)"),
    "phom.u_before_discard_den_last_round": N_("{winner} ù before discarding; {payer} pays for everyone "
                                               "(ù đền, last round)"),
    "phom.win": Nn_("{winner} wins with {points} point", "{winner} wins with {points} points", "points"),
    "phom.win_all_mom": Nn_("{winner} wins with {points} point (everyone móm)",
                            "{winner} wins with {points} points (everyone móm)", "points"),
}

# Notes and transfer reasons: native words stay as they are; English ones are marked here and
# translated where they are shown.
#: the note of an ù before discarding (also the text of its ``u`` event)
U_BEFORE_DISCARD = N_("ù before discarding")
U_DEN_LAST_ROUND = N_("ù đền (last round)")
#: the payment of a seat ranked 2, 3 or 4 at a normal end
RANK_REASONS = {2: N_("rank 2"), 3: N_("rank 3"), 4: N_("rank 4")}


@dataclass
class Ending:
    """How a game ended: ``ranks[seat]`` (1 = the winner), ``notes[seat]``, the ``summary``
    phrases and the ``transfers`` of the end (after those of the play)."""

    winner: int
    ranks: list[int]
    hands: list[dict[str, Any]]
    notes: list[list[Note]]
    summary: list[Phrase]
    transfers: list[Transfer]


def hand_summary(shown: Sequence[Sequence[str]], hand: Iterable[str], unshown_eaten: Iterable[str], *,
                 arrange_hand: bool) -> dict[str, Any]:
    """A seat's ``melds``, ``leftover`` cards, ``points`` and ``mom``. With ``arrange_hand``
    the cards it holds are arranged at best (an ù, or a seat's own view); without, only the
    phỏm it showed count (a normal end: phom.md, every phỏm is shown in the last round)."""
    melds = [list(m) for m in shown]
    if arrange_hand:
        arr = hand_arrangement(hand, unshown_eaten)
        arranged = sorted(melds + arr.melds, key=meld_key)
        return {"melds": arranged, "leftover": arr.leftover, "points": arr.points, "mom": not arranged}
    leftover = sorted(hand, key=sort_key)
    return {"melds": sorted(melds, key=meld_key), "leftover": leftover,
            "points": sum(card_points(c) for c in leftover), "mom": not melds}


def rank_order(seats: Iterable[int], hands: Sequence[Mapping[str, Any]], last_discard: Sequence[int]) -> list[int]:
    """Seats best first: phỏm before móm, fewer points, then the earlier last discard."""
    return sorted(seats, key=lambda s: (hands[s]["mom"], hands[s]["points"], last_discard[s]))


def _ranks(order: Sequence[int]) -> list[int]:
    ranks = [0] * len(order)
    for rank, seat in enumerate(order, 1):
        ranks[seat] = rank
    return ranks


def settle_u(winner: int, *, before_discard: bool, hands: list[dict[str, Any]], last_discard: Sequence[int],
             eat_counts: Mapping[tuple[int, int], int], turn_last: bool,
             last_round_victims: Sequence[int]) -> Ending:
    """``winner`` ù (12 from each seat before discarding, else 6), from ``hands`` as
    :func:`hand_summary` arranged them (the winner's points become 0). Ù đền: the seat whose
    cards the winner ate three times (``eat_counts``: (eater, victim) -> eats) pays for
    everyone; else, in the last round, the last seat whose discard was eaten
    (``last_round_victims``), unless that is the winner."""
    n = len(hands)
    per = 12 if before_discard else 6
    hands = [*hands]
    hands[winner] = {**hands[winner], "points": 0}
    notes: list[list[Note]] = [[] for _ in range(n)]
    notes[winner].append(U_BEFORE_DISCARD if before_discard else "ù")
    payer = None
    payer_note = ""
    last_round = False  # ù đền for the last discard eaten in the last round
    for (eater, victim), count in sorted(eat_counts.items()):
        if eater == winner and count >= 3:
            payer, payer_note = victim, "ù đền"
    if payer is None and turn_last and last_round_victims:
        victim = last_round_victims[-1]
        if victim != winner:
            payer, payer_note, last_round = victim, U_DEN_LAST_ROUND, True
    losers = [s for s in range(n) if s != winner]
    if payer is not None:
        transfers = [Transfer(payer, winner, per * len(losers), "ù đền")]
        notes[payer].append(payer_note)
    else:
        transfers = [Transfer(s, winner, per, "ù") for s in losers]
    ranks = _ranks([winner] + rank_order(losers, hands, last_discard))
    if payer is None:
        key = "phom.u_before_discard" if before_discard else "phom.u"
        summary = [Phrase(key, {"winner": winner}, {"each": per})]
    else:
        seats = {"winner": winner, "payer": payer}
        if last_round:  # the template holds the reason, so that its English is translated
            key = "phom.u_before_discard_den_last_round" if before_discard else "phom.u_den_last_round"
            summary = [Phrase(key, seats)]
        else:
            key = "phom.u_before_discard_den" if before_discard else "phom.u_den"
            summary = [Phrase(key, seats, {"reason": payer_note})]
    return Ending(winner, ranks, hands, notes, summary, transfers)


def settle_normal(hands: list[dict[str, Any]], last_discard: Sequence[int]) -> Ending:
    """The end after the last discard, from ``hands`` as :func:`hand_summary` counted them
    (shown phỏm only): the seat ranked r pays the winner r − 1, a móm seat 4."""
    n = len(hands)
    order = rank_order(range(n), hands, last_discard)
    winner = order[0]
    notes: list[list[Note]] = [[] for _ in range(n)]
    transfers = []
    for rank, seat in enumerate(order, 1):
        mom = hands[seat]["mom"]
        if mom:
            notes[seat].append("móm")
        if rank > 1:
            transfers.append(Transfer(seat, winner, 4 if mom else rank - 1, "móm" if mom else RANK_REASONS[rank]))
    key = "phom.win_all_mom" if hands[winner]["mom"] else "phom.win"
    summary = [Phrase(key, {"winner": winner}, {"points": hands[winner]["points"]})]
    return Ending(winner, _ranks(order), hands, notes, summary, transfers)
