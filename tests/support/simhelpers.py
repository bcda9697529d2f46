"""Driving tables as users do, through SimCord. Private SimCord API is used only here."""

from __future__ import annotations

import asyncio
import copy
import random
import time
from types import SimpleNamespace
from typing import Any

import discord

from bot import i18n, ledger
from simcord import interactions as sim_interactions
from simcord.backend import serializers
from simcord.enums import ComponentType, InteractionType
from simcord.results import InteractionResult


class Players:
    """A guild, a channel and some members ready to play."""

    def __init__(self, env, count: int, names=("lan", "minh", "duc", "hoa", "tuan", "mai"),
                 guild_id: int | None = None, shard_id: int | None = None) -> None:
        self.env = env
        self.guild = env.create_guild(id=guild_id, shard_id=shard_id)
        self.channel = self.guild.create_text_channel("cards")
        self.members = [self.guild.add_member(env.create_user(name)) for name in names[:count]]

    def outsider(self, name: str = "zed"):
        return self.guild.add_member(self.env.create_user(name))

    def admin(self, name: str = "ada"):
        """A member with Manage Server (not seated)."""
        role = self.guild.create_role("admins", permissions=discord.Permissions(manage_guild=True))
        return self.guild.add_member(self.env.create_user(name), roles=[role])


def dm(member) -> discord.Message | None:
    """The member's hand: his latest DM from the bot that shows a picture (a turn notice, a
    short text, may have come after it)."""
    return next((m for m in reversed(member.user.dm_channel.history()) if m.attachments), None)


def hand_dms(member) -> list[discord.Message]:
    """The member's DMs that carry a hand (a picture)."""
    return [m for m in member.user.dm_channel.history() if m.attachments]


def turn_notices(member) -> list[discord.Message]:
    """The turn notices in the member's DMs (short texts, no picture)."""
    return [m for m in member.user.dm_channel.history() if not m.attachments and "🔔" in m.content]


def play_channel(players: Players):
    """The table's thread if one was opened, else the channel."""
    threads = players.channel.threads
    return threads[-1] if threads else players.channel


def buttons(message) -> dict[str, Any]:
    """label -> button of every button on a message (a discord.Message, or a simulator
    ResponseMessage, whose components are raw dicts)."""
    found = {}
    for row in message.components:
        if isinstance(row, dict):
            for child in row.get("components", []):
                if child.get("type") == 2:
                    found[child.get("label")] = SimpleNamespace(
                        label=child.get("label"), custom_id=child.get("custom_id"),
                        disabled=bool(child.get("disabled")), url=child.get("url"))
            continue
        for child in getattr(row, "children", [row]):
            if isinstance(child, discord.components.Button):
                found[child.label] = child
    return found


def enabled(message: discord.Message) -> set[str]:
    """Labels of the buttons one can click (a link, such as Go to table, is not a control)."""
    return {label for label, b in buttons(message).items() if not b.disabled and not b.url}


def custom_id(message: discord.Message, label: str) -> str:
    return buttons(message)[label].custom_id


async def click_many(env, clicks: list[tuple[Any, discord.Message, str]]) -> list[InteractionResult]:
    """Emit several button clicks before letting the bot run, as if they arrived at the same instant.

    Each click is (actor, message, custom_id). The custom id need not be on the message:
    this is also how a forged click is sent.
    """
    records = [emit_component(env, actor, message, cid) for actor, message, cid in clicks]
    await env.settle()
    return [InteractionResult(env, record) for record in records]


async def forged_select(env, actor, message: discord.Message, cid: str, values: list[str]) -> InteractionResult:
    """A select interaction carrying any ``values`` (a modified client can send anything)."""
    record = emit_component(env, actor, message, cid, values=values)
    await env.settle()
    return InteractionResult(env, record)


async def until(what: str, check, timeout: float) -> float:
    """Poll ``check()`` (a coroutine function) in real time until it is true; the seconds it took
    (an AssertionError naming ``what`` after ``timeout``). For tests of real processes and servers."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def warm_every_deck() -> None:
    """Every game's sprites drawn once in this process (they are cached), before a bot starts:
    its own warm-up then takes milliseconds, not the seconds a loaded machine needs, which
    would overrun SimCord's 5 s settle when it attaches the bot."""
    import importlib

    from bot.app import EXTENSIONS
    from bot.tables.commands import GameCog
    from rendering import warm_sprites

    cogs = [value for extension in EXTENSIONS for value in vars(importlib.import_module(extension)).values()
            if isinstance(value, type) and issubclass(value, GameCog) and value is not GameCog]
    for deck in sorted({deck for cog in cogs for deck in cog.ui_class().decks_used()}):
        warm_sprites(deck)


def seed_deals(bot, name: str) -> None:
    """Deal ``bot``'s games and draw its seatings from randoms seeded by ``name`` (once its
    setup has made the table service), so that a test plays the same games on every run."""
    setup = bot.setup_hook

    async def seeded_setup() -> None:
        await setup()
        bot.tables.lobby.dealing.deal_random = random.Random(f"deals of {name}")
        bot.tables.lobby.dealing.seating_random = random.Random(f"seatings of {name}")

    bot.setup_hook = seeded_setup


def emit_component(env, actor, message: discord.Message, cid: str, *, values: list[str] | None = None,
                   channel_id: int | None = None):
    record, payload = component_payload(env, actor, message, cid, values=values, channel_id=channel_id)
    env.backend.emit("INTERACTION_CREATE", payload)
    return record


def component_payload(env, actor, message: discord.Message, cid: str, *, values: list[str] | None = None,
                      channel_id: int | None = None):
    """A click's record and its INTERACTION_CREATE payload, not sent yet; ``channel_id``: sent
    from another channel than the message's (a forged click, e.g. from another server)."""
    backend = env.backend
    stored = backend.get_message(message.channel.id, message.id)
    guild = getattr(actor, "guild", None)
    data: dict[str, Any] = {"custom_id": cid, "component_type": ComponentType.BUTTON}
    if values is not None:
        data = {"custom_id": cid, "component_type": ComponentType.STRING_SELECT, "values": values}
    record, payload = sim_interactions.base_payload(
        backend, type=InteractionType.MESSAGE_COMPONENT, channel_id=channel_id or message.channel.id,
        guild_id=guild.id if guild is not None else None, user_id=actor.id, data=data)
    payload["message"] = dict(serializers.message_payload(backend, stored))
    record.source_message_id = stored.id
    return record, payload


async def tampered_click(env, actor, message: discord.Message, cid: str) -> InteractionResult:
    """A click on ``cid`` from a tampered client, which claims ``message`` carries that button
    (Discord would not let it through; the bot does not trust it either): unlike a forged
    click (:func:`click_many`), it reaches the control's own checks."""
    record, payload = component_payload(env, actor, message, cid)
    payload["message"]["components"] = [
        {"type": 1, "components": [{"type": 2, "style": 2, "label": "?", "custom_id": cid}]}]
    env.backend.emit("INTERACTION_CREATE", payload)
    await env.settle()
    return InteractionResult(env, record)


def deliver_to(env, bot, payload: dict) -> None:
    """Gateway event ``payload`` (INTERACTION_CREATE) delivered to ``bot``'s process whatever its
    shard: Discord delivering one interaction twice (to two processes, around a reconnect)."""
    with env._bot_scope():
        bot._connection.parsers["INTERACTION_CREATE"](copy.deepcopy(payload))


def private_texts(result: InteractionResult) -> list[str]:
    """What the clicker alone was told: an ephemeral response and any followups."""
    texts = [f.content for f in result.followups]
    if result.ephemeral and result.response is not None:
        texts.insert(0, result.response.content)
    return texts


async def start_table(env, game: str, humans: int, ai: int, *, deck=None, decks=None, seed=None,
                      seating="lobby", guild_id: int | None = None, shard_id: int | None = None, bot=None,
                      level: str | None = None, **options) -> Players:
    """``/<game> new`` by the first member, the others join, AI seats fill up, Start deals ``deck``
    (a match: ``decks``, the packs of its first rounds) to the seats in ``seating`` (positions in
    the lobby): "lobby" keeps the lobby's order even where the table draws the seating (Concan),
    None seats the players as the table would. ``guild_id`` or ``shard_id``: the server's id or
    its shard, ``bot``: the bot process that receives the server's commands (env.bot by default),
    ``level``: the table's AI level (the ``ai`` option)."""
    if level is not None:
        options["ai"] = level
    players = Players(env, humans, guild_id=guild_id, shard_id=shard_id)
    host = players.members[0]
    await host.slash(players.channel, f"{game} new", **options)
    lang = options.get("language", "en")  # the lobby speaks the table's language
    for member in players.members[1:]:
        await member.click(players.channel.last_message, label=i18n.in_language(lang, "Join"))
    for _ in range(ai):
        await host.click(players.channel.last_message, label=i18n.in_language(lang, "Add AI"))
    service = (bot or env.bot).tables
    dealing = service.lobby.dealing
    dealing.next_deck = deck
    dealing.next_decks = decks
    dealing.next_seed = seed
    dealing.next_seating = list(range(humans + ai)) if seating == "lobby" else seating
    await host.click(players.channel.last_message, label=i18n.in_language(lang, "Start"))
    return players


def select_id(message: discord.Message, key: str = "sel") -> str:
    """The custom id of the message's select named ``key`` (the card select by default)."""
    for row in message.components:
        for child in getattr(row, "children", [row]):
            if isinstance(child, discord.components.SelectMenu) and child.custom_id.endswith(f":{key}"):
                return child.custom_id
    raise AssertionError(f"no {key} select on the message")


def select_options(message: discord.Message, key: str = "sel") -> dict[str, str]:
    """value -> label of the options of the message's select named ``key``."""
    for row in message.components:
        for child in getattr(row, "children", [row]):
            if isinstance(child, discord.components.SelectMenu) and child.custom_id.endswith(f":{key}"):
                return {o.value: o.label for o in child.options}
    return {}


PHOM_MOVES = ("Eat", "Show", "Discard", "Draw")  # the order to try after Quick Select


async def quick_move(actor, message_of, moves=PHOM_MOVES) -> list[str]:
    """Quick Select (when a move takes cards: else it is off), then the first enabled move
    button; returns what the player was told."""
    if "Quick Select" in enabled(message_of()):
        await actor.click(message_of(), label="Quick Select")
    message = message_of()
    move = next(label for label in moves if label in enabled(message))
    return private_texts(await actor.click(message, label=move))


async def play_until_over(players: Players, member, *, limit: int = 80) -> None:
    """Member plays Quick Select moves (Phỏm) until the game's result is posted or the table
    has finished (a result whose post fails is not there yet)."""
    table = table_of(players.env)
    for _ in range(limit):
        if table.status != "playing" or table.state.is_over:
            return
        assert await quick_move(member.user, lambda: dm(member)) == []
    raise AssertionError("the game did not end")


def fail_posts(env, *channels, status: int = 503) -> None:
    """Every post to these channels fails (an outage) until the test clears ``env.backend.faults``."""
    for channel in channels:
        env.inject_error("POST", f"/channels/{channel.id}/messages", status=status, times=None)


def table_of(env):
    """The one table of the test."""
    (table,) = list(env.bot.tables.tables.values())
    return table


def game_over(players: Players) -> bool:
    """The result is posted: the table's last message offers Rematch (in the table's language)."""
    last = play_channel(players).last_message
    return last is not None and any(i18n.in_language(lang, "Rematch") in buttons(last) for lang in i18n.LANGUAGES)


async def let_the_clock_play(players: Players, *, turns: int) -> None:
    """Nobody clicks: every human turn times out and the AI plays it, until the result is
    posted (at most ``turns`` minutes of the table's clock)."""
    for _ in range(turns):
        if game_over(players):
            return
        await players.env.advance_time(60)
    assert game_over(players), f"no result after {turns} turns"


async def settle(env, guild_id: int, game: str, results: dict) -> None:
    """One settled game of ``game`` (written as the table's end writes it: the ledger's own
    tests cover how games get there): ``results`` maps members (or None, an AI) to chips won."""
    db = env.bot.db
    table_id = await db.insert_table(guild_id=guild_id, channel_id=1, game=game, options={}, host_id=1, seats=[])
    game_id = await db.insert_game(table_id=table_id, game_no=1, guild_id=guild_id, game=game, seats=[],
                                   options={}, decks=[[]], stake=10)
    entries = [ledger.Entry(seat=i, user_id=member.id if member else None,
                            name=member.name if member else "AI 1", chips=won, ga=0, rank=i + 1,
                            points=None, won=won > 0, detail=[])
               for i, (member, won) in enumerate(results.items())]
    assert await ledger.settle(db, game_id=game_id, guild_id=guild_id, game=game, entries=entries)


async def ledger_rows(env, game_id: int):
    return await env.bot.db.fetchall("SELECT * FROM ledger WHERE game_id = ? ORDER BY seat", (game_id,))


async def adopt_in(env, bot, table_id: int):
    """``bot``'s process adopts the table now (as its next beat would), its work the simulated
    Discord's bot work: the tasks it starts for the table (its outbox, its clock) run on the
    simulated clock, as a beat's would."""
    with env._bot_scope():
        table = await bot.tables.driving.adopt(table_id)
    await env.settle()
    return table


def shard_guild_id(shard: int, number: int = 1, shards: int = 2) -> int:
    """A guild id (a snowflake) that Discord routes to ``shard`` of ``shards``."""
    return ((number * shards + shard) << 22) | 7


async def attach_shard_process(env, bot, *, shard: int = 1, shards: int = 2) -> None:
    """Run ``bot`` as a second process of the same application beside ``env.bot``, on the env's
    one Discord (SimCord runs one Env per event loop): its REST calls and interaction answers go
    to the env's backend as env.bot's do, and it receives the gateway events of its shard only
    (guild events by the guild's id), while env.bot keeps every other event, every DM
    interaction included (Discord sends those to shard 0). Its work counts as the env's bot work
    (settled, on the virtual clock), and its errors as the env's errors."""
    from simcord import _dpy_internals
    from simcord.backend import serializers as _serializers
    from simcord.gateway import ShardRouter
    from simcord.http import FakeHTTPClient

    _dpy_internals.install_http(bot, FakeHTTPClient(env.backend, asyncio.get_running_loop()))
    _dpy_internals.set_guild_ready_timeout(bot, 0.0)
    state = _dpy_internals.get_state(bot)
    state.shard_count, state.shard_ids = shards, [shard]
    router = ShardRouter(env.backend, state, bot.dispatch, shards, (shard,))
    _dpy_internals.install_websocket(bot, router.websockets[shard])
    first = env._gateway_feed

    def split(event, payload) -> None:
        if router._event_shard_id(event, payload) == shard:
            with env._bot_scope():
                router.feed(event, payload)
        else:
            first(event, payload)

    subscribers = env.backend.subscribers
    subscribers[subscribers.index(first)] = split
    env._gateway_feed = split  # removed at shutdown
    main, env.bot = env.bot, bot
    try:
        env._capture_errors()
    finally:
        env.bot = main
    with env._bot_scope():
        await bot.login("simcord.fake.token")  # its setup_hook: database, restore, leases
        router.identify(shard)
        for guild in list(env.backend.guilds.values()):
            router.feed("GUILD_CREATE", _serializers.guild_create_payload(env.backend, guild))
    await env.settle()
