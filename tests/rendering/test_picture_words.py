"""Words, not codes, in the table pictures."""

from __future__ import annotations

from bot import i18n
from cogs.chan import ChanUI
from tests.support.picture_games import table_of


def test_a_chan_seat_box_says_what_its_row_is():
    ui = ChanUI()
    table = table_of("chan", 4)
    view = ui.game.new(4, seed=1, options=ui.engine_options({})).view(None)
    with i18n.language("en"):
        picture = ui.table_picture(view, table.raw_names(), table)
    for box in picture.seats:
        assert "in the trash row" in box.detail and "row 0" not in box.detail, box.detail
