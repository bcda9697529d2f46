"""Pure game engines (no discord import). ``REGISTRY[name]`` is the :class:`~bot.games.base.Game`."""

from .base import Event, Game, IllegalAction, Outcome, SeatResult, Transfer
from .chan import GAME as CHAN
from .chinchon import GAME as CHINCHON
from .concan import GAME as CONCAN
from .phom import GAME as PHOM
from .tusac import GAME as TUSAC

REGISTRY: dict[str, Game] = {game.name: game for game in (PHOM, CHAN, TUSAC, CHINCHON, CONCAN)}

__all__ = ["REGISTRY", "Event", "Game", "IllegalAction", "Outcome", "SeatResult", "Transfer"]
