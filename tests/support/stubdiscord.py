"""A table service without Discord: what the service calls on its bot to show messages
(``get_partial_messageable``, ``create_dm``, ``get_channel``), answered in memory.

The leases, adoption and failover tests drive tables whose seats are AI (or people whose turns
time out), so nothing clicks: Discord only receives what the tables show. Every post gets a
new id and every edit or delete succeeds (unless ``failing``); each is recorded in ``calls``
(and handed to ``on_call``, which the failover worker writes to its log). Pictures are not drawn
(``quiet_pictures``): what is shown is not what these tests look at.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import discord

from bot.config import Config, load
from bot.db import Database
from bot.tables.model import Seat, Table
from bot.tables.service import TableService

_ids = itertools.count(10**12)
GUILD, CHANNEL = 4242, 4343
# What Discord remembers of the bot's nonces, whichever of its processes sent them (a post with
# enforce_nonce and a nonce it saw returns the earlier message and creates none); one bot per
# database
_NONCES: dict[tuple[str, int, str], int] = {}


class StubDiscord:
    """The bot as the table service sees it, with Discord's REST side in memory."""

    def __init__(self, config: Config, on_call: Callable[[dict], None] | None = None) -> None:
        self.config = config
        self.calls: list[dict] = []
        self.on_call = on_call
        self.failing = False  # Discord unreachable: every call fails (and is recorded as "refused")

    def record(self, **call: Any) -> None:
        if self.failing:
            call = {**call, "op": "refused", "what": call["op"]}
        self.calls.append(call)
        if self.on_call is not None:
            self.on_call(call)
        if self.failing:
            raise ConnectionError("Discord cannot be reached (stub)")

    def get_channel(self, channel_id: int) -> None:
        return None

    def get_partial_messageable(self, channel_id: int) -> "_Channel":
        return _Channel(self, channel_id)

    async def create_dm(self, user: discord.abc.Snowflake) -> "_Channel":
        return _Channel(self, 7 * 10**11 + user.id)


class _Channel:
    def __init__(self, stub: StubDiscord, channel_id: int) -> None:
        self.stub, self.id = stub, channel_id

    async def send(self, content: str | None = None, embed: discord.Embed | None = None, nonce: str | None = None,
                   **_: Any) -> Any:
        seen = (self.stub.config.database, self.id, nonce)
        if nonce is not None and seen in _NONCES:  # Discord: that message, no new one
            message = _Message(self.stub, self, _NONCES[seen])
            self.stub.record(op="post again", channel=self.id, message=message.id, nonce=nonce)
            return message
        message = _Message(self.stub, self, next(_ids))
        self.stub.record(op="post", channel=self.id, message=message.id, content=content,
                         title=embed.title if embed is not None else None, nonce=nonce)
        if nonce is not None:
            _NONCES[seen] = message.id
        return message

    def get_partial_message(self, message_id: int) -> "_Message":
        return _Message(self.stub, self, message_id)


class _Message:
    def __init__(self, stub: StubDiscord, channel: _Channel, message_id: int) -> None:
        self.stub, self.channel, self.id = stub, channel, message_id

    async def edit(self, **_: Any) -> None:
        self.stub.record(op="edit", channel=self.channel.id, message=self.id)

    async def delete(self) -> None:
        self.stub.record(op="delete", channel=self.channel.id, message=self.id)


def quiet_pictures(monkeypatch: Any = None) -> None:
    """No picture is drawn (the result's rows, the attachments): it costs CPU, and nothing
    here looks at pictures."""
    import bot.tables.outbox as outbox
    import bot.tables.results as results

    async def no_rows(*args: Any, **kwargs: Any) -> bytes:
        return b"png"

    async def content(draft: Any, *, with_attachment: bool) -> dict:
        return {"content": draft.content, "embed": draft.embed, "view": draft.view}

    if monkeypatch is not None:
        monkeypatch.setattr(results, "render_rows_async", no_rows)
        monkeypatch.setattr(outbox.Presenter, "_content", staticmethod(content))
    else:
        results.render_rows_async = no_rows
        outbox.Presenter._content = staticmethod(content)


def game_uis() -> list[Any]:
    from cogs.chan import ChanUI
    from cogs.chinchon import ChinchonUI
    from cogs.concan import ConcanUI
    from cogs.phom import PhomUI
    from cogs.tusac import TuSacUI

    return [PhomUI(), ChanUI(), TuSacUI(), ChinchonUI(), ConcanUI()]


async def headless_service(database: str, name: str, on_call: Callable[[dict], None] | None = None,
                           **overrides: Any) -> TableService:
    """A table service (as one bot process has) on ``database``, named ``name`` in the leases,
    with every game and the stub Discord; its tables are restored (``restore``) by the caller."""
    config = load(**{"database": database, "instance_name": name, "ai_delay_seconds": 0, "table_edit_seconds": 0,
                     "rest_calls_per_second": 1e6, **overrides})
    db = await Database.open(database, lock_seconds=config.lease_seconds / 2)  # as the bot opens it
    service = TableService(StubDiscord(config, on_call), db)
    for ui in game_uis():
        service.register(ui)
    return service


async def close_service(service: TableService) -> None:
    await service.close()
    await service.db.close()


async def open_table(service: TableService, game: str, *, ai: int, people: int = 0, **options: Any) -> Table:
    """A table of ``ai`` AI seats and ``people`` people (users 1, 2...), opened and started
    as /<game> new, Join, Add AI and Start would, without Discord."""
    ui = service.uis[game]
    settings = {**ui.table_options({}, stake=1), "stake": 1, "seats": ai + people,
                "turn_seconds": service.config.default_turn_seconds, "language": "en", **options}
    table = await service.lobby.new_table(guild_id=GUILD, channel_id=CHANNEL, game=game, options=settings,
                                    host=Seat(1, "person 1"), guild_name="stub")
    async with table.lock:
        table.seats = [Seat(n, f"person {n}") for n in range(1, people + 1)] + \
                      [Seat(None, f"AI {n}") for n in range(1, ai + 1)]
        await service.core.save_table(table, seats=table.seats_json())
        table.lobby_timer.cancel()
        table.lobby_timer = None
        await service.lobby.start_game(table, None)
    return table
