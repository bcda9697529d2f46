"""The table pictures of Phỏm, Chắn and Tứ Sắc, built from random and AI games (seeded)."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest
from PIL import Image

from bot import i18n
from bot.ai.levels import normal
from bot.tables.model import Seat, Table
from cogs.chan import ChanUI
from cogs.phom import PhomUI
from cogs.tusac import TuSacUI
from rendering import BACK
from rendering.table_picture import Badge, TablePicture, render_table_picture, table_picture_image
from tests.support.uploads import assert_close_upload

UIS = {"phom": PhomUI, "chan": ChanUI, "tusac": TuSacUI}
NAMES = ["Lan", "🤖 AI 1", "Đức", "Hòa 🌸"]


def table_of(game: str, players: int, *, away: tuple[int, ...] = ()) -> Table:
    seats = [Seat(None if "AI" in name else 100 + i, name, away=i in away) for i, name in enumerate(NAMES[:players])]
    return Table(id=42, guild_id=1, channel_id=1, game=game, options={}, host_id=100, status="playing", seats=seats)


def positions(game: str, players: int, seed: int, *, ai: bool = False, options: dict | None = None):
    """(state, view(None)) before every move of a seeded game, and at its end."""
    ui = UIS[game]()
    rng = random.Random(seed)
    state = ui.game.new(players, seed=seed, options=ui.engine_options(ui.table_options(options or {}, stake=1)))
    while True:
        yield state, state.view(None)
        if state.is_over:
            return
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)) if ai else rng.choice(state.legal_actions(seat)))


def picture_cards(picture: TablePicture) -> Counter:
    cards = Counter(p.card for p in picture.piles if p.card not in (None, BACK))
    for section in picture.sections:
        cards.update(c for g in section.groups for c in g.cards)
        cards.update(c for row in section.rows for g in row.groups for c in g.cards)
    return cards


def row_cards(picture: TablePicture, seat: int) -> Counter:
    return Counter(c for g in picture.sections[0].rows[seat].groups for c in g.cards)


# What each game shows of a seat in public, and the active card's pile.
def public_of_seat(game: str, view: dict, seat: int) -> Counter:
    if game == "phom":
        shown = [c for meld in view["shown"][seat] for c in meld]
        return Counter(view["discards"][seat] + [c for c in view["eaten"][seat] if c not in shown] + shown)
    if game == "chan":
        return Counter(view["rows"][seat] + [c for pair in view["laid"][seat] for c in pair])
    return Counter(view["discards"][seat] + [c for meld in view["public"][seat] for c in meld["cards"]])


def public_cards(game: str, view: dict) -> Counter:
    """Every card the public view shows, as often as it shows it (Phỏm's card on offer is
    also the last of its discarder's discards, Chắn's is the newest of a trash row)."""
    cards = Counter()
    for seat in range(view["num_players"]):
        cards.update(public_of_seat(game, view, seat))
    if game == "phom":
        cards.update(c for e in view["eaten"] for c in e)  # eaten and then shown: shown twice in the view
    if view["active"]:
        cards[view["active"]] += 1
    return cards


CASES = [(game, players, seed, ai) for game in UIS for players in (2, 4) for seed, ai in ((1, False), (2, False),
                                                                                            (3, True))]


@pytest.mark.parametrize("game,players,seed,ai", CASES)
def test_pictures_of_a_whole_game(game, players, seed, ai):
    ui = UIS[game]()
    table = table_of(game, players, away=(players - 1,))
    names = table.names()
    seen_active = seen_card_on_offer = 0
    rendered = []
    for state, view in positions(game, players, seed, ai=ai):
        picture = ui.table_picture(view, names, table)
        assert picture == ui.table_picture(state.view(None), names, table), "deterministic: equal data, no upload"
        hash(picture)
        assert picture.deck == ui.deck and picture.title.startswith(f"{ui.game.title} · table #42")
        # one box per seat, named as chosen (emoji are drawn), the seats to act outlined, the away seat dimmed
        assert [s.name for s in picture.seats] == ["Lan", "🤖 AI 1", "Đức", "Hòa 🌸"][:players]
        assert {i for i, s in enumerate(picture.seats) if s.active} == set(view["to_act"])
        seen_active += bool(view["to_act"])
        assert [s.dim for s in picture.seats] == [i == players - 1 for i in range(players)]
        for seat, box in enumerate(picture.seats):
            assert box.detail.startswith(f"{view['hand_sizes'][seat]} ")
            assert box.badges[0] == Badge("hand", str(view["hand_sizes"][seat]))  # a card back and the count
        # the stock (its count under it), and the active card when there is one
        stock, active = picture.piles
        assert stock.label == "Stock" and stock.caption.split(" · ")[0] == str(view["stock"])
        assert stock.card == (BACK if view["stock"] else None)
        assert active.card == view["active"]
        seen_card_on_offer += view["active"] is not None
        # each seat's row: exactly what the public view shows of him; nothing else anywhere
        rows = picture.sections[0].rows
        assert [r.label for r in rows] == [s.name for s in picture.seats]
        assert [r.active for r in rows] == [s.active for s in picture.seats]
        for seat in range(players):
            assert row_cards(picture, seat) == public_of_seat(game, view, seat)
        assert not picture_cards(picture) - public_cards(game, view), "a card the public view does not show"
        if len(rendered) < 2 or state.is_over:
            rendered.append(picture)
    assert seen_active and seen_card_on_offer
    empty = ui.table_picture(dict(view, stock=0), names, table).piles[0]
    assert empty.card is None and empty.caption.split(" · ")[0] == "0"
    middle = rendered[len(rendered) // 2]
    for picture in (rendered[0], middle, rendered[-1]):
        png = render_table_picture(picture)
        image = assert_close_upload(png, table_picture_image(picture))  # a palette PNG, nearly the drawing
        # landscape: shown whole and large in an embed
        assert image.width <= 1100 and image.width >= 1.25 * image.height, image.size
        assert len(png) < 90_000, len(png)


@pytest.mark.parametrize("game", UIS)
def test_no_private_card_reaches_the_picture(game):
    """Cards only in hands are never drawn: the picture is built from the public view."""
    ui = UIS[game]()
    table = table_of(game, 4)
    for k, (state, view) in enumerate(positions(game, 4, 7)):
        if k % 5:
            continue
        public = public_cards(game, view)
        hidden = Counter()
        for seat in range(4):
            hidden.update(c for c in state.view(seat)["hand"])
        hidden -= public  # Phỏm's eaten cards are in a hand and public
        drawn = picture_cards(ui.table_picture(view, table.names(), table))
        assert not drawn - public
        assert sum((drawn & hidden).values()) <= sum((public & hidden).values())


def test_a_name_with_nothing_printable_gets_its_seat_number():
    table = table_of("phom", 2)
    table.seats[1].name = "\ue000\ue001"  # private-use characters: no font draws them
    view = next(positions("phom", 2, 1))[1]
    assert [s.name for s in PhomUI().table_picture(view, table.names(), table).seats] == ["Lan", "Seat 2"]


def test_phom_groups_and_last_round():
    """A seat's discards are marked with the discards' glyph, its eaten cards underlined (in a
    phỏm too); the last round is in the title."""
    ui = PhomUI()
    table = table_of("phom", 4)
    last = None
    for state, view in positions("phom", 4, 3, ai=True):
        if view["last_round"] and not state.is_over:
            last = view
    assert last is not None
    picture = ui.table_picture(last, table.names(), table)
    assert picture.title == "Phỏm · table #42 · last round"
    for seat, row in enumerate(picture.sections[0].rows):
        assert row.groups[0].glyph == "discards" and row.groups[0].cards == tuple(last["discards"][seat])
        assert not any(g.label for g in row.groups)
        underlined = [card for g in row.groups for k, card in enumerate(g.cards) if k in g.marked]
        assert sorted(underlined) == sorted(last["eaten"][seat])


def test_chan_drawn_card_and_card_on_offer():
    ui = ChanUI()
    table = table_of("chan", 2)
    kinds = set()
    for _, view in positions("chan", 2, 5, ai=True):
        pile = ui.table_picture(view, table.names(), table).piles[1]
        if view["active"] is None:
            assert pile.card is None and pile.label == "On offer"
        elif view["active_from"] is None:
            kinds.add("drawn")
            assert pile.label == "Drawn" and pile.caption == f"by {['Lan', '🤖 AI 1'][view['current']]}"
        else:
            kinds.add("offer")
            assert pile.label == "On offer" and pile.caption == f"from {['Lan', '🤖 AI 1'][view['active_from']]}"
            assert view["rows"][view["active_from"]][-1] == view["active"]
    assert kinds == {"drawn", "offer"}


def test_chan_chiu_offer_outlines_the_seat_offered_not_the_current_one():
    ui = ChanUI()
    table = table_of("chan", 4)
    offers = 0
    for seed in range(1, 40):
        for _, view in positions("chan", 4, seed, ai=True, options={"chiu": "ask"}):
            if view["phase"] == "offer" and view["to_act"] != [view["current"]]:
                offers += 1
                picture = ui.table_picture(view, table.names(), table)
                assert [s.active for s in picture.seats] == [seat in view["to_act"] for seat in range(4)]
                assert picture.piles[1].card == view["offer"]["card"]
        if offers >= 2:
            break
    assert offers


def test_tusac_active_card_and_public_sets():
    """The discards first (their glyph), then the public sets, unlabelled (Quan and Khui: in the
    embed); a seat's khạp count is a badge."""
    ui = TuSacUI()
    table = table_of("tusac", 4)
    captions = set()
    for _, view in positions("tusac", 4, 3, ai=True):
        picture = ui.table_picture(view, table.names(), table)
        pile = picture.piles[1]
        assert pile.label == "Active card" and pile.card == view["active"]
        if view["active"]:
            captions.add(pile.caption.split(" by ")[0])
        for seat, row in enumerate(picture.sections[0].rows):
            assert row.groups[0].glyph == "discards"
            assert [g.cards for g in row.groups[1:]] == [tuple(m["cards"]) for m in view["public"][seat]]
            assert Badge("khap", str(view["khap_counts"][seat])) in picture.seats[seat].badges
    assert captions == {"drawn", "discarded"}


def test_an_empty_table_says_so():
    """Before the first discard every row is empty: the section shows its empty text."""
    for game, ui in (("phom", PhomUI), ("chan", ChanUI)):  # (Tứ Sắc: a Quan is laid at the deal)
        table = table_of(game, 4)
        view = next(positions(game, 4, 1))[1]
        picture = ui().table_picture(view, table.names(), table)
        assert not picture_cards(picture) - Counter(), game
        assert Image.open(io.BytesIO(render_table_picture(picture))).height < 900


def test_the_embed_says_what_the_pictures_glyphs_mean():
    """The glyphs are explained once, in a line under the picture, in the table's language:
    those the picture shows."""
    from bot.tables.pictures import legend_line

    table = table_of("phom", 4)
    view = next(view for state, view in positions("phom", 4, 3, ai=True) if any(view["eaten"]))
    with i18n.language("en"):
        assert legend_line(PhomUI().table_picture(view, table.names(), table)) == \
            "▮ cards in hand · ↓ discards · ▁ eaten"
    with i18n.language("vi"):
        assert legend_line(PhomUI().table_picture(view, table.names(), table)).startswith("▮ lá trên tay · ↓ ")
    assert legend_line(None) == ""
