"""The end of a Concan round and of the set — rules in docs/rules/concan.md ("Scoring").

Pure functions of the hands and totals; :class:`~bot.games.concan.game.ConcanState` calls them.

- ``score_round(...) -> RoundScore``: each seat's points for the round (the winner −25, the
  others their hand's penalty: :func:`~bot.games.concan.melds.hand_penalty`), the totals after
  it, the hands as the round's result keeps them and the phrases that tell it.
- ``settle_set(totals) -> (outcome, summary)``: the lowest total takes the pot (equal lowest
  totals share it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from bot.games.base import Outcome, Phrase, pot_outcome
from bot.games.concan.melds import hand_penalty


@dataclass
class RoundScore:
    """A round's ``points`` and the ``totals`` after it (by seat), its ``hands`` as the
    round's result keeps them and its ``phrases`` (who won it, or why nobody did, then every
    seat's points)."""

    points: list[int]
    totals: list[int]
    hands: list[dict[str, Any]]
    phrases: list[Phrase]


def score_round(round_no: int, winner: int | None, void: Phrase | None, *, hands: Sequence[list[str]],
                opened: Sequence[bool], announced: Sequence[int], totals: Sequence[int]) -> RoundScore:
    """Round ``round_no`` is over: won by ``winner``, or without a winner (``void`` says why).
    ``hands``: the cards each seat holds; ``totals``: before the round."""
    n = len(hands)
    points = []
    kept = []
    for s in range(n):
        cards = hands[s]
        penalty = hand_penalty(cards, opened=opened[s], announced_jokers=announced[s])
        points.append(-25 if s == winner else penalty)
        kept.append({"cards": cards, "penalty": 0 if s == winner else penalty,
                     "opened": opened[s], "announced": announced[s]})
    new_totals = [totals[s] + points[s] for s in range(n)]
    first = Phrase("concan.round_won", {"winner": winner}, {"round": round_no}) if winner is not None else void
    if first is None:
        raise ValueError("a round without a winner is void for a reason")
    phrases = [first]
    for s in range(n):
        key = "concan.round_points_closed" if not opened[s] else "concan.round_points"
        phrases.append(Phrase(key, {"player": s}, {"points": points[s], "total": new_totals[s]}))
    return RoundScore(points, new_totals, kept, phrases)


def settle_set(totals: Sequence[int]) -> tuple[Outcome, list[Phrase]]:
    """The set is over: its outcome (everyone paid 1 into the pot; the lowest totals win it)
    and the summary (the winners, then the others' totals, lowest first)."""
    n = len(totals)
    low = min(totals)
    winners = [s for s in range(n) if totals[s] == low]
    ranks = [1 + sum(1 for t in totals if t < totals[s]) for s in range(n)]
    key = "concan.set_won" if len(winners) == 1 else "concan.set_shared"
    summary = [Phrase(key, {"winner": w}, {"total": low}) for w in winners]
    summary += [Phrase("concan.final_total", {"player": s}, {"total": totals[s]})
                for s in sorted(range(n), key=lambda s: (totals[s], s)) if s not in winners]
    outcome = pot_outcome(n, paid=[1] * n, winners=winners, ranks=ranks, points=list(totals), summary=summary)
    outcome.check_balanced()
    return outcome, summary
