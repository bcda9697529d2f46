"""Words of the messages a whole game shows, in every language: one minus sign, the buy-back
said once, a winner's chốt payment next to the total."""

from __future__ import annotations

import re

import pytest

from bot import i18n, ledger
from bot.games.base import Outcome, SeatResult, Transfer
from bot.tables import messages
from tests.support.message_texts import GAMES, texts_of_a_game
from tests.support.picture_games import UIS, table_of

HYPHEN_BEFORE_DIGIT = re.compile(r"(?<![\w#<:])-\d")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_a_negative_number_has_the_minus_sign(game, lang):
    """"−10 → -10" mixed two signs in one line: every number shown is written with U+2212."""
    bad = sorted({text for text in texts_of_a_game(game, lang) if HYPHEN_BEFORE_DIGIT.search(text)})
    assert bad == [], "\n".join(bad[:8])


#: the stem every way of saying "bought back" shares, in each language
BOUGHT_BACK = {"en": "bought back", "es": "reenganch", "vi": "mua vào lại"}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_buy_back_is_said_once(lang):
    """"… bought back in at 10 · bought back": a seat's line at the round pause says it once."""
    texts = list(texts_of_a_game("chinchon", lang, seed=11))
    assert any(BOUGHT_BACK[lang] in text for text in texts), "no buy-back in this game: pick another seed"
    twice = sorted({line for text in texts for line in text.splitlines() if line.count(BOUGHT_BACK[lang]) > 1})
    assert twice == [], "\n".join(twice[:5])


def test_a_winner_who_paid_a_chot_says_so_next_to_the_total():
    """"lan wins with 15 points · −3 chips" after "lan → AI 1: 4 chips (ăn chốt)": the winner's
    line says why the winner lost chips."""
    ui = UIS["phom"]()
    table = table_of("phom", 2)
    outcome = Outcome(winner=0, results=[SeatResult(0, 1, 15, payout=-3), SeatResult(1, 2, 30, payout=3)],
                      transfers=[Transfer(1, 0, 1, "rank 2"), Transfer(0, 1, 4, "ăn chốt")])
    with i18n.language("en"):
        embed = messages.result_embed(table, ui, outcome, ["Lan", "AI 1"], ledger.settlement(outcome, stake=1))
    ranking = embed.fields[0].value.splitlines()
    assert ranking[0] == "**1. Lan** · 15 points · after paying 4 chips (ăn chốt) · **−3 chips**"
    assert "paying" not in ranking[1]


def test_a_tusac_payment_shows_its_arithmetic():
    """"hand value 13 → owes 420 chips" at stake 10: the sum is shown where the amount is."""
    ui = UIS["tusac"]().at_stake(10)
    phrase = {"key": "tusac.payment_doubled", "seats": {}, "values": {"value": 13, "pay": 42}}
    with i18n.language("en"):
        assert ui.phrase_text(phrase, []) == ("hand value 13 · each loser owes 420 chips (doubled: Quan/Khui) · "
                                              "(3 + 13) × 2 + 10 = 42, × 10")
    texts = [text for text in texts_of_a_game("tusac", "en", seed=4) if "each loser owes" in text]
    assert any("each loser owes 180 chips · 3 + 5 + 10 = 18, × 10" in text for text in texts), texts


def test_an_empty_show_after_a_chot_eat_says_no_other_phom():
    """After a chốt eat the log said "Lan showed no phỏm" of a player whose phỏm was on the
    table: a seat that showed before and shows nothing more showed no other phỏm."""
    from bot.games.phom import game as phom

    state = phom.GAME.new(2, seed=3)
    state.phase = "show"
    state.shown[0].append(["AH", "2H", "3H"])  # the phỏm of the chốt it ate
    state.sent[0].append([])
    state.hands[0] = {"KS", "7H", "2C", "9D", "JS"}
    state.unshown_eaten[0] = set()
    (event,) = state._show(0, "")
    with i18n.language("en"):
        assert UIS["phom"]().event_text(event, ["Lan", "AI 1"]) == "Lan showed no other phỏm"
