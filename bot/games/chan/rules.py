"""What a Chắn hand allows: its count, the six restrictions on eating and discarding
(chan.md, "Restrictions"), and the table's chíu advice. A mixin of :class:`~.chan.ChanState`,
which holds what it reads: ``hands``, ``laid``, ``discarded``, ``used``, ``skipped``,
``ate_ca``, ``broke_ca`` and ``active``."""

from __future__ import annotations

from collections import Counter

from bot.i18n import _
from bot.games.base import IllegalAction
from bot.games.chan.count import Count, count, tally, tally_minus, tally_plus, tally_waits, trash_kinds
from bot.games.tosom import SUITS, is_ca, sort_cards


def _free(counts: Counter, kind: str) -> bool:
    """A copy of ``kind`` in hand that is not part of a chắn (odd count)."""
    return counts[kind] % 2 == 1




class HandRules:
    """A seat's cards and what the restrictions let him do with them."""

    hands: list[list[str]]
    laid: list[list[tuple[str, str]]]
    discarded: list[list[str]]
    used: list[set[str]]
    skipped: list[set[str]]
    ate_ca: list[bool]
    broke_ca: list[bool]
    active: str | None


    def all_cards(self, seat: int) -> list[str]:
        """Hand plus laid pairs."""
        return self.hands[seat] + [c for pair in self.laid[seat] for c in pair]

    def _counts(self, seat: int) -> Counter:
        return Counter(self.hands[seat])

    def waiting(self, seat: int) -> list[str]:
        """Kinds that would complete ù for ``seat`` (holding 19 cards), else []."""
        return list(tally_waits(tally(self.all_cards(seat))))

    def hand_count(self, seat: int) -> Count:
        """Count of the hand cards plus the laid pairs as they lie."""
        c = count(self.hands[seat])
        laid_chan = sum(1 for a, b in self.laid[seat] if a == b)
        return Count(c.chan + laid_chan, c.ca + len(self.laid[seat]) - laid_chan, c.trash)

    def trash_cards(self, seat: int) -> list[str]:
        return trash_kinds(self.hands[seat])

    def _ca_partner_discard(self, seat: int, card: str) -> str | None:
        for d in self.discarded[seat]:
            if is_ca(d, card):
                return d
        return None

    def _discard_refusal(self, seat: int, card: str, counts: Counter | None = None) -> IllegalAction | None:
        """Why restrictions 2/3/5 forbid discarding ``card`` (None: allowed)."""
        counts = counts if counts is not None else self._counts(seat)
        if counts[card] % 2 == 0:
            return IllegalAction(_("{card} is part of a chắn in your hand: a chắn may not be discarded "
                                   "(restriction 2).").format(card=card))
        if card in self.skipped[seat]:
            return IllegalAction(_("You did not eat {card} as a chắn when you could: you may not discard it now "
                                   "(restriction 3).").format(card=card))
        if self.ate_ca[seat]:
            partner = self._ca_partner_discard(seat, card)
            if partner is not None:
                return IllegalAction(_("You have eaten a cạ: you may not discard both cards of a cạ ({partner} and "
                                       "{card}) (restriction 5).").format(partner=partner, card=card))
        return None

    def forbidden_discards(self, seat: int) -> list[str]:
        """Hand kinds the restrictions forbid discarding (empty when all would be: fallback)."""
        counts = self._counts(seat)
        bad = [k for k in sort_cards(counts) if self._discard_refusal(seat, k, counts)]
        return [] if len(bad) == len(counts) else bad

    def _eat_refusal(self, seat: int, partner: str) -> IllegalAction | None:
        """Why eating the active card with ``partner`` is refused (None: allowed)."""
        active = self.active
        if active is None:
            return IllegalAction(_("There is no card to eat."))
        counts = self._counts(seat)
        if counts[partner] == 0:
            return IllegalAction(_("You do not have {card}.").format(card=partner))
        chan = partner == active
        if not chan and not is_ca(partner, active):
            return IllegalAction(_("{partner} makes neither a chắn nor a cạ with {card}.").format(
                partner=partner, card=active))
        if active in self.used[seat]:
            return IllegalAction(_("You have discarded {card} or used it in a cạ: you may not eat it "
                                   "(restriction 3).").format(card=active))
        if not chan:
            if counts[active] > 0:
                return IllegalAction(_("Chắn first: you hold {card}, so {card} must be eaten as a chắn "
                                       "(restriction 1).").format(card=active))
            if counts[partner] % 2 == 0:
                return IllegalAction(_("{card} is part of a chắn in your hand: it may not be used in a cạ "
                                       "(restriction 2).").format(card=partner))
            if partner in self.skipped[seat]:
                return IllegalAction(_("You did not eat {card} as a chắn when you could: it may not be used in "
                                       "a cạ (restriction 3).").format(card=partner))
            r = partner[0]
            free = [r + s for s in SUITS if _free(counts, r + s)]
            if len(free) >= 2:
                return IllegalAction(_("You hold a cạ of rank {rank} ({cards}): you may not eat another "
                                       "cạ of that rank (restriction 4).").format(
                                           rank=r, cards=f"{free[0]} {free[1]}"))
            if self.broke_ca[seat]:
                return IllegalAction(_("You have discarded both cards of a cạ: you may never eat a cạ "
                                       "(restriction 5)."))
            if self.waiting(seat):
                return IllegalAction(_("You are one card from ù: you may not eat a cạ (restriction 6)."))
        if len(self.hands[seat]) < 2:
            return IllegalAction(_("You would have no card left to discard."))
        return None

    def _chiu_possible(self, seat: int, card: str | None) -> bool:
        if card is None:
            return False
        return self._counts(seat)[card] == 3 and len(self.hands[seat]) > 3

    def _auto_chiu(self, seat: int, card: str) -> bool:
        """The table's decision for an out-of-turn chíu (chan.md, option chiu="auto")."""
        if not self._chiu_possible(seat, card):
            return False
        if self.waiting(seat):
            hand = list(self.hands[seat])
            for __ in range(3):
                hand.remove(card)
            t = tally_plus(tally(self.all_cards(seat)), card)
            for d in set(hand):
                if hand.count(d) % 2 == 1 and tally_waits(tally_minus(t, d)):
                    return True
            return False
        return count(self.hands[seat]).trash >= 3

    def chiu_advice(self, seat: int) -> bool:
        """Would the auto rule chíu the active card for ``seat``?"""
        return self.active is not None and self._auto_chiu(seat, self.active)
