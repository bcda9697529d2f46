"""Real hands of every game: what each cog's ``GameUI.hand_image`` gives, seat by seat, at
every position of seeded AI games (arranged and not), and the largest of them.

Used by ``tests/rendering/test_hand_sizes.py`` and ``benchmarks/render_hand.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.ai.levels import normal
from bot.tables.adapter import GameUI, HandImage
from cogs.chan import ChanUI
from cogs.chinchon import ChinchonUI
from cogs.concan import ConcanUI
from cogs.phom import PhomUI
from cogs.tusac import TuSacUI

#: game -> (its UI, table options); Chinchón twice, with each of its packs.
GAMES: dict[str, tuple[type[GameUI], dict]] = {
    "chan": (ChanUI, {}),
    "tusac": (TuSacUI, {}),
    "concan": (ConcanUI, {}),
    "phom": (PhomUI, {}),
    "chinchon": (ChinchonUI, {}),
    "chinchon-spanish": (ChinchonUI, {"deck": "spanish48"}),
}


def ui_of(game: str) -> GameUI:
    cls, options = GAMES[game]
    ui = cls()
    bind = getattr(ui, "bind", None)
    return bind(options) if bind is not None else ui


def hands(game: str, players: int, seed: int, *, limit: int = 400) -> Iterator[HandImage]:
    """Each seat's hand picture data (arranged, then as dealt) before each move of a seeded
    AI game of ``players``, at most ``limit`` moves."""
    ui = ui_of(game)
    _, options = GAMES[game]
    state = ui.game.new(players, seed=seed,
                        options=ui.engine_options(ui.table_options(dict(options), stake=1)))
    for _ in range(limit):
        for seat in range(players):
            view = state.view(seat)
            for arranged in (True, False):
                yield ui.hand_image(view, [], arranged)
        if state.is_over:
            return
        seat = state.to_act[0]
        state.apply(seat, normal(state.name, state.view(seat)))


def shape(image: HandImage) -> tuple[int, ...]:
    return tuple(len(g) for g in image.groups if g)


def largest_hands(game: str, seeds=(1, 2, 3)) -> list[HandImage]:
    """One hand of each group shape seen with the most cards (and one card fewer) in games of
    2 and of the most players, the widest first (most cards, then most groups)."""
    ui = ui_of(game)
    seen: dict[tuple[int, ...], HandImage] = {}
    for players in sorted({2, ui.game.max_players}):
        for seed in seeds:
            for image in hands(game, players, seed):
                seen.setdefault(shape(image), image)
    most = max(sum(s) for s in seen)
    big = [image for s, image in seen.items() if sum(s) >= most - 1]
    return sorted(big, key=lambda im: (-sum(shape(im)), -len(shape(im)), shape(im)))
