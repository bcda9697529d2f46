"""In-memory tables. A table is a lobby and a sequence of games at the same seats."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .names import picture_names, safe_name


@dataclass
class Seat:
    user_id: int | None  # None: an AI seat
    name: str
    away: bool = False

    @property
    def is_ai(self) -> bool:
        return self.user_id is None

    @property
    def auto(self) -> bool:
        """Whether the AI plays this seat right now."""
        return self.is_ai or self.away

    def to_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "name": self.name, "away": self.away}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Seat":
        return cls(data["user_id"], data["name"], data.get("away", False))


@dataclass
class Table:
    id: int
    guild_id: int
    channel_id: int
    game: str
    options: dict[str, Any]
    host_id: int
    status: str
    seats: list[Seat]
    game_no: int = 0
    guild_name: str | None = None  # named in the players' DMs
    thread_id: int | None = None
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    # the game in play
    game_id: int | None = None
    state: Any = None
    version: int = 0  # actions applied in the current game: stale buttons carry an older number
    log: deque[str] = field(default_factory=lambda: deque(maxlen=8))
    selection: dict[int, list[str]] = field(default_factory=dict)
    picks: dict[int, dict[str, str]] = field(default_factory=dict)  # other selects (a meld number...)
    arranged: dict[int, bool] = field(default_factory=dict)
    timeouts: dict[int, int] = field(default_factory=dict)
    dm_closed: set[int] = field(default_factory=set)
    deadline: float | None = None  # unix time the current human turn times out (persisted)
    lobby_expires_at: float | None = None  # unix time an unstarted lobby closes (persisted)
    lobby_note: str | None = None  # replaces the lobby's status line (why it closed)
    # an admin closed the table (its messages say so instead of controls): who, and what became
    # of the game in play ({"by": user id, "playing": bool, "voided": bool, "earlier": bool})
    closed: dict[str, Any] | None = None
    # matches of several rounds
    pause_until: float | None = None  # unix time the next round starts, while between rounds (persisted)
    decks_stored: int = 0  # packs of the current game already in SQLite
    rounds_shown: int = 0  # round results of the current game handed to the outbox
    # the last round result and result posted (channel, message, game[, round index]): an admin's
    # close takes their Next round or Rematch away
    round_message: tuple[int, int, int, int] | None = None
    result_message: tuple[int, int, int] | None = None
    ai_failures: int = 0  # AI moves in a row that could not be saved
    acting: set[int] = field(default_factory=set)  # people who were to act at the last look
    clicked_at: dict[int, float] = field(default_factory=dict)  # seat -> last click on its hand (loop time)
    notices: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> its turn notice (channel, message)
    ready: set[int] = field(default_factory=set)  # seats that clicked Next round
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clock: asyncio.Task | None = None  # sleeps until the turn's deadline or the pause's end
    lobby_timer: asyncio.Task | None = None
    presenter: Any = None  # the table's :class:`~bot.tables.outbox.Presenter`: everything it shows
    finishing: bool = False  # the game is over and being settled
    tasks: set = field(default_factory=set)  # what this process runs for the table (cancelled when it stops driving it)
    dropped: bool = False  # this process no longer drives the table (its lease went to another)

    @property
    def play_channel_id(self) -> int:
        return self.thread_id or self.channel_id

    @property
    def language(self) -> str:
        """The language of the lobby and table messages (players' DMs follow their own)."""
        return str(self.options.get("language", "en"))

    @property
    def jump_url(self) -> str:
        """A link to the table message (or the lobby before the first deal)."""
        message = self.table_message_id or self.lobby_message_id or ""
        return f"https://discord.com/channels/{self.guild_id}/{self.play_channel_id}/{message}".rstrip("/")

    @property
    def stake(self) -> int:
        return int(self.options.get("stake", 1))

    @property
    def ga_stake(self) -> int:
        """Chips per gà point (Chắn; 0: gà moves no chips)."""
        return int(self.options.get("ga_stake", 0))

    @property
    def turn_seconds(self) -> int:
        return int(self.options["turn_seconds"])

    @property
    def max_seats(self) -> int:
        return int(self.options["seats"])

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def names(self) -> list[str]:
        """The seats' names for message text and embeds (escaped: see :func:`safe_name`)."""
        return [safe_name(seat.name) for seat in self.seats]

    def raw_names(self) -> list[str]:
        """The seats' names as chosen, for the pictures (drawn as text, never parsed)."""
        return [seat.name for seat in self.seats]

    def picture_names(self) -> list[str]:
        """The seats' names as the pictures draw them (:func:`names.picture_names`); call it in
        the table's language."""
        return picture_names(self.raw_names())

    def rounds_done(self) -> int:
        """Rounds finished in the current game (0 for games of one round)."""
        return len(getattr(self.state, "round_results", ()) or ())

    def seats_json(self) -> list[dict[str, Any]]:
        return [seat.to_json() for seat in self.seats]
