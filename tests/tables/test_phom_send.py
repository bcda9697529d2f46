"""A Phỏm hand's controls with gửi (the table option send): Send, the phỏm to send onto, and
the helpers that count the sends (issue #31)."""

from __future__ import annotations

from bot import i18n
from bot.games.phom.ai import choose
from bot.tables.adapter import Selection
from bot.tables.messages import hand_controls
from cogs.phom import PhomUI

UI = PhomUI()
HAND = "7H 7D 7C 8C 9C KS 2D"  # the sevens or the run 7C 8C 9C, not both


def last_round(shown_by_seat_1: list[str], send: bool = True):
    """Seat 0 to show in the last round of a 2-player game; seat 1 has shown these phỏm."""
    state = UI.game.new(2, seed=1, options=UI.engine_options({"send": send}))
    assert not state.is_over
    state.hands[0], state.unshown_eaten[0] = set(HAND.split()), set()
    state.shown[1] = [meld.split() for meld in shown_by_seat_1]
    state.sent[1] = [[] for _ in shown_by_seat_1]
    state.current, state.phase, state.turn_last = 0, "show", True
    return state


def buttons(view, selection) -> dict[str, bool]:
    return {b.key: b.enabled for b in UI.buttons(view, selection) if b.enabled or b.teach}


def test_the_best_show_counts_the_sends():
    # without gửi the run leaves less (7H 7D 2D after KS: 16 against 8C 9C 2D: 19); with it the
    # sevens do: 9C then 8C go onto TC JC QC, and 2D is left
    assert UI._best_show(last_round(["TC JC QC"], send=False).view(0)) == "show 7C 8C 9C"
    state = last_round(["TC JC QC"])
    view = state.view(0)
    assert UI._best_show(view) == "show 7H 7D 7C" == choose(view)
    with i18n.language("en"):
        assert UI.hand_image(view, [], True).groups == [["7H", "7D", "7C"], ["8C", "9C"], ["2D", "KS"]]
        assert UI.action_for("show", view, []) == "show 7H 7D 7C"


def test_send_is_one_click_onto_the_one_phom_it_fits():
    state = last_round(["TC JC QC"])
    state.apply(0, "show 7H 7D 7C")
    view = state.view(0)
    with i18n.language("en"):
        assert buttons(view, []) == {"discard": False, "send": False, "quick": True, "arrange": True}
        assert "**Send**" in UI.hand_status(view, ["Lan", "Minh"])
        assert "can be sent: 8♣ 9♣" in UI.hand_image(view, [], True).caption
        assert UI.extra_selects(view, Selection(["9C"])) == []
        assert buttons(view, Selection(["9C"]))["send"]
        assert not buttons(view, Selection(["KS"]))["send"]
        assert UI.action_for("send", view, Selection(["9C"])) == "send 9C 1:1"
        assert UI.helper("quick", state, 0, []) == ["9C"]
        state.apply(0, "send 9C 1:1")
        view = state.view(0)
        assert UI.action_for("send", view, Selection(["8C"])) == "send 8C 1:1"  # onto the phỏm just extended
        assert "sent: 9♣" in UI.hand_image(view, [], True).caption


def test_a_card_that_fits_two_phom_waits_for_the_pick():
    state = last_round(["TC JC QC", "9H 9D 9S"])
    state.apply(0, "show 7H 7D 7C")
    view = state.view(0)
    with i18n.language("en"):
        [onto] = UI.extra_selects(view, Selection(["9C"]), names=["Lan", "Minh"])
        assert onto.key == "onto" and onto.below
        # whose phỏm each is (issue #41)
        assert [(o.value, o.label) for o in onto.options] == [("1:1", "Minh's phỏm 1: 10♣ J♣ Q♣"),
                                                              ("1:2", "Minh's phỏm 2: 9♥ 9♦ 9♠")]
        selects, _buttons = hand_controls(UI, view, Selection(["9C"]), True, ["Lan", "Minh"])
        assert selects[-1].options[0].label == "Minh's phỏm 1: 10♣ J♣ Q♣"
        assert not buttons(view, Selection(["9C"]))["send"]
        assert buttons(view, Selection(["9C"], {"onto": "1:2"}))["send"]
        assert UI.action_for("send", view, Selection(["9C"], {"onto": "1:2"})) == "send 9C 1:2"
        quick = UI.helper("quick", state, 0, [])
        assert list(quick) == ["9C"] and quick.picks == {"onto": "1:1"}  # a run first: 8C follows it
