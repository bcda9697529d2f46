"""What a Chinchón match keeps over its rounds: totals, the seats still in, buy-backs, the pot,
and the match's end (winners, ranks, outcome). :class:`~.chinchon.ChinchonState` plays the
rounds on top of it and calls :meth:`ChinchonMatch._reached` at each close.

- Buy-back decisions are asked in seat order (0, 1, ...); a seat that reached the target and
  cannot buy back (it already did once) is out at once. If every seat still in reaches the
  target in the same round, the lowest total wins and the others are out in that round.
- A round's ``round_results`` entry is written at the close and completed by the buy-back
  decisions that follow it: its ``totals`` then show a bought-back total, its ``out`` the
  seats that declined, its ``phrases`` each decision.
- Ranks: the winners 1; then the seats still in (lower total first), then the seats out, the
  later out first (then lower total); remaining ties by seat.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import N_, _
from bot.games.base import Event, IllegalAction, MatchOfRounds, Note, Outcome, Phrase, outcome_dict, pot_outcome

#: A result's note (English, translated where it is shown; "chinchón" is a native word).
BOUGHT_BACK = N_("bought back")


class ChinchonMatch(MatchOfRounds):
    """The match around the rounds: a subclass deals (``_deal``) and plays them."""

    round: int
    target: int
    phase: str
    current: int | None
    chinchon: bool
    round_results: list[dict[str, Any]]

    def _start_match(self, n: int) -> None:
        self.totals = [0] * n
        self.in_match = [True] * n
        self.buybacks = [0] * n
        self.out_round: list[int | None] = [None] * n
        self.deciding: list[int] = []  # seats still to decide on a buy-back, in order
        #: why a seat may not buy back: "nobody_under", "bought_back" or "declined" (the message
        #: is written when the seat asks, in its language)
        self.refusals: dict[int, str] = {}
        self.winners: list[int] = []
        self.summary: list[Phrase] = []
        self._outcome: Outcome | None = None

    def _deal(self) -> None:
        raise NotImplementedError

    @property
    def pot(self) -> int:
        return self.num_players + sum(self.buybacks)

    def seats_in(self) -> list[int]:
        return [s for s in range(self.num_players) if self.in_match[s]]

    def _next_in(self, seat: int) -> int:
        n = self.num_players
        for k in range(1, n + 1):
            s = (seat + k) % n
            if self.in_match[s]:
                return s
        raise RuntimeError("nobody is in the match")

    # -- between rounds ------------------------------------------------------------------------

    def _reached(self, seats: list[int], result: dict[str, Any]) -> list[Phrase]:
        """Seats at or over the target: out, or asked to buy back; the match may end here."""
        over = [s for s in seats if self.totals[s] >= self.target]
        under = [s for s in seats if self.totals[s] < self.target]
        phrases = []
        if over and not under:  # everyone left reached the target in this round
            low = min(self.totals[s] for s in over)
            winners = [s for s in over if self.totals[s] == low]
            for s in over:
                self.refusals[s] = "nobody_under"
                if s not in winners:
                    self._out(s, result)
            key = "chinchon.win_lowest" if len(winners) == 1 else f"chinchon.win_lowest_{len(winners)}"
            names = {"winner": winners[0]} if len(winners) == 1 else {
                f"winner{k + 1}": s for k, s in enumerate(winners)}
            self._finish(winners, [Phrase(key, names, {"target": self.target, "total": low})])
            return phrases
        at = max(self.totals[s] for s in under)
        for s in over:
            if self.buybacks[s]:
                self.refusals[s] = "bought_back"
                self._out(s, result)
                phrases.append(Phrase("chinchon.out_bought_back", {"player": s}, {"total": self.totals[s]}))
            else:
                self.deciding.append(s)
                phrases.append(Phrase("chinchon.may_buy_back", {"player": s}, {"total": self.totals[s], "at": at}))
        return phrases

    def _out(self, seat: int, result: dict[str, Any]) -> None:
        self.in_match[seat] = False
        self.out_round[seat] = self.round
        result["out"].append(seat)

    def _continue(self) -> list[Event]:
        """After a round's end or a decision: ask the next seat, end the match, or deal."""
        if self.phase == "over":
            return [Event(None, "end", phrases=tuple(self.summary))]
        if self.deciding:
            self.phase = "buyback"
            self.current = self.deciding[0]
            return []
        seats = self.seats_in()
        if len(seats) == 1:
            winner = seats[0]
            self._finish([winner], [Phrase("chinchon.win_last", {"winner": winner}, {"total": self.totals[winner]})])
            return [Event(None, "end", phrases=tuple(self.summary))]
        self._deal()
        return [Event(None, "round_start", text=str(self.round))]

    def _buyback_refusal(self, seat: int) -> IllegalAction:
        why = self.refusals[seat]
        if why == "nobody_under":
            return IllegalAction(_("You cannot buy back: nobody else is still under {target}.").format(
                target=self.target))
        if why == "bought_back":
            return IllegalAction(_("You cannot buy back: you already bought back once."))
        return IllegalAction(_("You declined to buy back: you are out of the match."))

    def _decide(self, seat: int, verb: str) -> list[Event]:
        if self.phase != "buyback" or seat != self.deciding[0]:
            if verb == "buyback" and seat in self.refusals:
                raise self._buyback_refusal(seat)
            if self.phase == "over":
                raise IllegalAction(_("The match is over."))
            if self.phase == "buyback":
                raise IllegalAction(_("It is not your decision."))
            raise IllegalAction(_("There is no buy-back to decide now."))
        self.deciding.pop(0)
        result = self.round_results[-1]
        if verb == "buyback":
            at = max(self.totals[s] for s in self.seats_in() if self.totals[s] < self.target)
            self.totals[seat] = at
            result["totals"][seat] = at
            self.buybacks[seat] += 1
            phrase = Phrase("chinchon.bought_back", {"player": seat}, {"total": at})
        else:
            self.refusals[seat] = "declined"
            self._out(seat, result)
            phrase = Phrase("chinchon.declined", {"player": seat})
        result["phrases"].append(phrase.as_dict())
        self.actions.append([seat, verb])
        return [Event(seat, verb)] + self._continue()

    # -- the end of the match -----------------------------------------------------------------

    def _finish(self, winners: list[int], summary: list[Phrase]) -> None:
        self.phase = "over"
        self.current = None
        self.deciding = []
        self.winners = sorted(winners)
        self.summary = summary
        n = self.num_players

        def standing(s: int):
            if s in self.winners:
                return (0, 0, 0, s)
            if self.in_match[s]:
                return (1, 0, self.totals[s], s)
            return (2, -self.out_round[s], self.totals[s], s)

        order = sorted(range(n), key=standing)
        ranks = [0] * n
        for k, s in enumerate(order):
            ranks[s] = 1 if s in self.winners else k + 1
        notes: list[list[Note]] = [[] for _ in range(n)]
        for s in range(n):
            if self.buybacks[s]:
                notes[s].append(BOUGHT_BACK)
            if self.out_round[s] is not None:
                notes[s].append(Phrase("chinchon.out_in_round", {}, {"round": self.out_round[s]}).as_dict())
        if self.chinchon:
            notes[self.winners[0]].append("chinchón")
        self._outcome = pot_outcome(n, paid=[1 + b for b in self.buybacks], winners=self.winners, ranks=ranks,
                                    points=list(self.totals), notes=notes, summary=summary)
        self._outcome.check_balanced()

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError("the match is not over")
        return self._outcome


    def _outcome_dict(self) -> dict[str, Any] | None:
        if self._outcome is None:
            return None
        return {**outcome_dict(self._outcome), "round": self.round, "totals": list(self.totals),
                "chinchon": self.chinchon}

