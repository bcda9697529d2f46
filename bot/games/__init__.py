"""Pure game engines (no discord import). ``REGISTRY[name]`` is the :class:`~bot.games.base.Game`."""

from bot.games.base import Event, Game, IllegalAction, Outcome, SeatResult, Transfer
from bot.games.chan.game import GAME as CHAN
from bot.games.chinchon.game import GAME as CHINCHON
from bot.games.concan.game import GAME as CONCAN
from bot.games.phom.game import GAME as PHOM
from bot.games.tusac.game import GAME as TUSAC

REGISTRY: dict[str, Game] = {game.name: game for game in (PHOM, CHAN, TUSAC, CHINCHON, CONCAN)}

__all__ = ["REGISTRY", "Event", "Game", "IllegalAction", "Outcome", "SeatResult", "Transfer"]
