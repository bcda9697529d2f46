"""/admin tables, Close and /admin remove, clicked as a server's admin clicks them: a closed game
is void (no chip moves, zero-sum totals), every message of the table says who closed it and
keeps no control (hands in DMs too), nothing runs or comes back after a restart; a removed
player's seat is the AI's and the game ends normally. Refused, changing nothing, for a member
who may not administer, a forged custom id and a button from another server."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import pytest
from simcord.results import InteractionResult

from bot import ledger
from tests.integration.test_chinchon_game import round_one_pack, round_results
from tests.support.simhelpers import (Players, adopt_in, attach_shard_process, buttons, click_many, dm, emit_component,
                              game_over, let_the_clock_play, play_channel, play_until_over, private_texts,
                              shard_guild_id, start_table, table_of)

REFUSED = "Only this server's admins (Manage Server) and its game masters may do that."
GAMES = ("phom", "chan", "tusac", "chinchon", "concan")


def on(response) -> SimpleNamespace:
    """A private answer, as a message a forged click may name (its channel and id)."""
    return SimpleNamespace(id=response.id, channel=SimpleNamespace(id=response.channel_id))


async def open_tables(players: Players, admin):
    """/admin tables, as the admin sees it (privately)."""
    listing = await admin.slash(players.channel, "admin tables")
    assert listing.ephemeral
    return listing.response


async def close(players: Players, admin, table_id: int):
    """Close #id on /admin tables, then the confirmation's button: what the admin was told."""
    asked = await admin.click(await open_tables(players, admin), label=f"Close #{table_id}")
    assert asked.ephemeral and "Close this table?" in asked.response.content
    return await admin.click(asked.response, label=f"Close table #{table_id}")


async def counts(db, game_id: int) -> tuple[int, int]:
    """(moves written, ledger rows) of a game."""
    (moves,) = await db.fetchone("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,))
    (rows,) = await db.fetchone("SELECT COUNT(*) FROM ledger WHERE game_id = ?", (game_id,))
    return moves, rows


async def assert_closed(env, players: Players, table_id: int, game_id: int | None, admin) -> None:
    """The table is closed for good: not driven, its game void and its ledger zero-sum, its
    messages say so without a control, nothing moves on, and a restart brings nothing back."""
    db = env.bot.db
    assert table_id not in env.bot.tables.tables
    row = await db.get_table(table_id)
    assert row["status"] == "cancelled" and row["closed_by"] == admin.id
    (total,) = await db.fetchone("SELECT COALESCE(SUM(chips), 0) FROM ledger")
    assert total == 0
    if game_id is not None:
        game = await db.get_game(game_id)
        assert game["status"] == "aborted" and game["closed_by"] == admin.id
        assert (await counts(db, game_id))[1] == 0, "no chip moves for a closed game"
        table_message = next(m for m in play_channel(players).history()
                             if m.embeds and f"table #{table_id} · game" in (m.embeds[0].title or ""))
        assert "Closed by an admin" in table_message.embeds[0].description and not table_message.components
        for member in players.members:
            hands = [m for m in member.user.dm_channel.history() if f"table #{table_id}" in m.content]
            assert hands and all(not m.components and not m.attachments for m in hands[-1:])
            assert "Closed by an admin" in hands[-1].content
            assert not any("🔔" in m.content for m in member.user.dm_channel.history())
    lobby = next(m for m in players.channel.history() if m.embeds and f"table #{table_id}" in m.embeds[0].title)
    assert "Closed by an admin" in lobby.embeds[0].description and not lobby.components
    (logged,) = await db.fetchone("SELECT COUNT(*) FROM admin_log WHERE action = 'close' AND table_id = ?",
                                  (table_id,))
    assert logged == 1
    before = None if game_id is None else await counts(db, game_id)
    await env.advance_time(900)  # timers and AI seats are stopped
    assert (None if game_id is None else await counts(db, game_id)) == before


async def test_the_list_greys_close_once_the_table_is_closed(simcord_env):
    """Issue #41: /admin tables kept **Close #N** lit after table N was closed."""
    env = simcord_env
    players = await start_table(env, "phom", 2, 1, stake=10)
    table = table_of(env)
    admin = players.admin()
    listing = await open_tables(players, admin)
    assert not buttons(listing)[f"Close #{table.id}"].disabled
    asked = await admin.click(listing, label=f"Close #{table.id}")
    await admin.click(asked.response, label=f"Close table #{table.id}")
    assert buttons(listing)[f"Close #{table.id}"].disabled


@pytest.mark.parametrize("game", GAMES)
async def test_closing_a_game_in_play_voids_it(simcord_env, bot_factory, game):
    env = simcord_env
    players = await start_table(env, game, 2, 1, stake=10)
    table = table_of(env)
    lan = players.members[0]
    admin = players.admin()
    done = await close(players, admin, table.id)
    assert "Table #%d is closed. Its game is void" % table.id in done.response.content and not done.response.components
    await assert_closed(env, players, table.id, table.game_id, admin)

    await env.restart_bot(bot_factory())
    assert table.id not in env.bot.tables.tables and not env.bot.tables.tables
    assert (await counts(env.bot.db, table.game_id))[1] == 0
    listing = await open_tables(players, admin)
    assert "No table is open" in listing.embeds[0].description
    history = await lan.slash(players.channel, "history")
    assert f"table #{table.id} · game 1: closed by an admin" in history.response.embeds[0].description


async def test_closing_a_lobby(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    await minh.click(players.channel.last_message, label="Join")
    table = table_of(env)
    # a game master (the server's gm role), granted /admin on the Integrations page
    gm_role = players.guild.create_role("game masters")
    await env.bot.db.save_server_settings(players.guild.id, {"gm_role": gm_role.id})
    admin = players.guild.add_member(env.create_user("gia"), roles=[gm_role])
    players.guild.set_command_permissions(int(env.backend.commands[None][("admin", 1)]["id"]), {admin: True})
    done = await close(players, admin, table.id)
    assert done.response.content == f"Table #{table.id} is closed."
    await assert_closed(env, players, table.id, None, admin)


async def test_closing_between_two_rounds_of_a_match(simcord_env, bot_factory):
    env = simcord_env
    players = await start_table(env, "chinchon", 1, 2, decks=[round_one_pack()], seed=11, stake=10)
    (lan,) = players.members
    await lan.user.click(dm(lan), label="Draw")
    await lan.user.click(dm(lan), label="Quick Select")
    await lan.user.click(dm(lan), label="Discard")
    table = table_of(env)
    assert table.rounds_done() == 1 and table.pause_until is not None
    assert "Next round" in buttons(round_results(players)[-1])
    admin = players.admin()
    await close(players, admin, table.id)
    await assert_closed(env, players, table.id, table.game_id, admin)
    assert not round_results(players)[-1].components, "the round's Next round is gone"
    await env.restart_bot(bot_factory())
    assert not env.bot.tables.tables and (await counts(env.bot.db, table.game_id))[1] == 0


async def test_closing_while_the_settlement_is_pending(simcord_env, bot_factory, monkeypatch):
    """The game ended but its settlement keeps failing: closed, it is void, and the settlement
    retried behind it (or at the next start) writes nothing."""
    env = simcord_env
    real_settle = ledger.settle

    async def down(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ledger, "settle", down)
    players = await start_table(env, "phom", 1, 1, stake=10)
    (lan,) = players.members
    await play_until_over(players, lan)
    table = table_of(env)
    assert table.state.is_over and table.game_id in env.bot.tables.unsettled
    admin = players.admin()
    done = await close(players, admin, table.id)
    assert "void" in done.response.content
    result = next(m for m in play_channel(players).history() if m.embeds and "— result" in m.embeds[0].title)
    assert "This game is void" in result.embeds[0].description and not result.components, "no Rematch"
    assert "will be" not in result.embeds[0].description
    monkeypatch.setattr(ledger, "settle", real_settle)
    await env.advance_time(60)  # the settlement's retry comes and goes
    game = await env.bot.db.get_game(table.game_id)
    assert game["status"] == "aborted" and (await counts(env.bot.db, table.game_id))[1] == 0
    await env.restart_bot(bot_factory())
    assert (await counts(env.bot.db, table.game_id))[1] == 0
    assert (await env.bot.db.get_game(table.game_id))["status"] == "aborted"


async def test_a_settlement_written_before_the_close_stays(simcord_env):
    """A close racing a settlement that got there first: the settlement stays, once."""
    env = simcord_env
    players = await start_table(env, "phom", 1, 1, stake=10)
    table = table_of(env)
    db = env.bot.db
    entries = [ledger.Entry(seat=s, user_id=seat.user_id, name=seat.name, chips=(10, -10)[s], ga=0, rank=s + 1,
                            points=None, won=s == 0, detail=[]) for s, seat in enumerate(table.seats)]
    assert await ledger.settle(db, game_id=table.game_id, guild_id=table.guild_id, game="phom", entries=entries)
    admin = players.admin()
    done = await close(players, admin, table.id)
    assert "recorded before the close and stay recorded" in done.response.content
    rows = await db.fetchall("SELECT chips FROM ledger WHERE game_id = ?", (table.game_id,))
    assert sorted(r["chips"] for r in rows) == [-10, 10]
    assert (await db.get_game(table.game_id))["status"] == "finished"


async def test_refused_for_members_who_may_not_administer_and_forged_or_foreign_buttons(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0)
    lan, minh = players.members
    table = table_of(env)
    # a member granted /admin on the Integrations page, without Manage Server or the gm role
    command = env.backend.commands[None][("admin", 1)]
    players.guild.set_command_permissions(int(command["id"]), {lan: True})
    for name, options in (("admin tables", {}), ("admin remove", {"member": minh})):
        refused = await lan.slash(players.channel, name, **options)
        assert refused.ephemeral and "Only this server's admins" in refused.response.content

    # the admin's own buttons (Discord shows them to him only), clicked by a player who forged
    # the interaction: each checks the clicker itself
    admin = players.admin()
    listing = await open_tables(players, admin)
    confirm = (await admin.click(listing, label=f"Close #{table.id}")).response
    removal = (await admin.slash(players.channel, "admin remove", member=minh)).response
    clicks = [(listing, f"chieu:admin:{table.id}:close"), (confirm, f"chieu:admin:{table.id}:closeyes"),
              (removal, f"chieu:admin:{table.id}:removeyes:{minh.id}")]
    for message, cid in clicks:
        (result,) = await click_many(env, [(lan, on(message), cid)])
        assert private_texts(result) == [REFUSED]
    # a custom id forged onto a message that does not carry it: refused all the same
    (result,) = await click_many(env, [(admin, play_channel(players).last_message,
                                        f"chieu:admin:{table.id}:closeyes")])
    assert private_texts(result) == ["That control is not valid."]

    # an admin of another server, clicking this server's admin buttons
    elsewhere = Players(env, 0)
    foreign = elsewhere.admin("ann")
    for message, cid in clicks:
        record = emit_component(env, foreign, on(message), cid, channel_id=elsewhere.channel.id)
        await env.settle()
        result = InteractionResult(env, record)
        assert private_texts(result) == ["That button is not for a table of this server; nothing changed."]

    assert table.status == "playing" and table.id in env.bot.tables.tables
    assert [s.user_id for s in table.seats] == [lan.id, minh.id]
    assert (await env.bot.db.get_game(table.game_id))["status"] == "playing"
    (logged,) = await env.bot.db.fetchone("SELECT COUNT(*) FROM admin_log")
    assert logged == 0


async def test_removing_a_player_in_play_hands_his_seat_to_the_ai(simcord_env):
    env = simcord_env
    players = await start_table(env, "phom", 2, 0, stake=10)
    lan, minh = players.members
    table = table_of(env)
    admin = players.admin()
    asked = await admin.slash(players.channel, "admin remove", member=minh)
    assert asked.ephemeral and "Remove minh from this table?" in asked.response.content
    done = await admin.click(asked.response, label="Remove minh")
    assert "the AI plays the seat" in done.response.content
    seat = next(i for i, s in enumerate(table.seats) if s.name.startswith("AI"))
    assert table.seats[seat].is_ai and table.seat_of(minh.id) is None
    last = [m for m in minh.user.dm_channel.history() if f"table #{table.id}" in m.content][-1]
    assert "removed you from this game" in last.content and not last.components and not last.attachments
    (logged,) = await env.bot.db.fetchone("SELECT COUNT(*) FROM admin_log WHERE action = 'remove'")
    assert logged == 1

    await let_the_clock_play(players, turns=80)  # Lan's turns time out; the AI plays both seats
    assert game_over(players)
    rows = await env.bot.db.fetchall("SELECT user_id, chips FROM ledger WHERE game_id = ?", (table.game_id,))
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    assert {r["user_id"] for r in rows} == {lan.id, None}, "the seat's result is the AI's"


async def test_removing_a_player_from_a_lobby(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    await lan.slash(players.channel, "phom new")
    await minh.click(players.channel.last_message, label="Join")
    table = table_of(env)
    admin = players.admin()
    asked = await admin.slash(players.channel, "admin remove", member=lan)
    done = await admin.click(asked.response, label="Remove lan")
    assert "has left the lobby" in done.response.content
    assert [s.user_id for s in table.seats] == [minh.id] and table.host_id == minh.id
    assert "minh" in players.channel.last_message.embeds[0].fields[0].value
    assert "lan" not in players.channel.last_message.embeds[0].fields[0].value
    nobody = await admin.slash(players.channel, "admin remove", member=lan)
    assert "sits at no open table" in nobody.response.content


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_a_close_reaches_the_process_that_drives_the_table(simcord_env, bot_factory):
    """Two processes on PostgreSQL (tests/integration/test_routing.py): the table is driven by b,
    the admin's clicks reach a (the server's shard), which routes them to b: b removes a player,
    then closes the table, its timers and AI stop there, and its messages say so."""
    env = simcord_env
    a = env.bot
    b = bot_factory(instance_name="b")
    await attach_shard_process(env, b)
    players = await start_table(env, "phom", 2, 1, seed=1, guild_id=shard_guild_id(0), stake=10)
    (mine,) = a.tables.tables.values()
    await a.db.execute("UPDATE leases SET expires_at = expires_at - 3600 WHERE holder = ?", (a.tables.leases.holder,))
    driven = await adopt_in(env, b, mine.id)
    assert driven is not None and mine.id in a.tables.tables, "a does not know yet"

    admin = players.admin()
    minh = players.members[1]
    asked = await admin.slash(players.channel, "admin remove", member=minh)
    await admin.click(asked.response, label="Remove minh")
    assert driven.seat_of(minh.id) is None and mine.seat_of(minh.id) is not None, "removed by b, the driver"
    await close(players, admin, mine.id)
    assert driven.closed and driven.status == "cancelled" and mine.id not in b.tables.tables
    assert mine.id not in a.tables.tables
    routed = await a.db.fetchall("SELECT sender, taken_by FROM routed_clicks WHERE payload <> ''")
    assert [tuple(r) for r in routed] == [(a.tables.leases.holder, "b")] * 2, "applied by b, the table's driver"
    game_id = driven.game_id
    assert (await a.db.get_game(game_id))["status"] == "aborted"
    await env.advance_time(600)
    (moves,) = await a.db.fetchone("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,))
    await env.advance_time(600)
    assert (await a.db.fetchone("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)))[0] == moves
    assert (await counts(a.db, game_id))[1] == 0
    assert not a.tables.tables and not b.tables.tables, "nobody adopts a closed table"
    table_message = next(m for m in play_channel(players).history()
                         if m.embeds and f"table #{mine.id} · game" in (m.embeds[0].title or ""))
    assert "Closed by an admin" in table_message.embeds[0].description and not table_message.components



async def test_a_move_that_waited_while_an_admin_closed_the_table_is_told_it_is_closed(simcord_env):
    """The move reached the table before the close and waited for its lock while the close held
    it: it is not applied to the closed table, and the player is told the table is closed (not
    that his move "could not be saved" and to try again)."""
    import asyncio

    from tests.support.simhelpers import PHOM_MOVES, enabled, private_texts, table_of

    env = simcord_env
    players = await start_table(env, "phom", 1, 1, seed=1)
    lan = players.members[0]
    table = table_of(env)
    if "Quick Select" in enabled(dm(lan)):
        await lan.user.click(dm(lan), label="Quick Select")
    hand = dm(lan)
    move = next(label for label in PHOM_MOVES if label in enabled(hand))
    cid = next(c.custom_id for row in hand.components for c in row.children if getattr(c, "label", None) == move)
    version = table.version
    await table.lock.acquire()  # the admin's close holds the table's lock
    try:
        record = emit_component(env, lan.user, hand, cid)
        for _ in range(200):  # the click reaches the table and waits for the lock
            if table.lock._waiters:
                break
            await asyncio.sleep(0.005)
        assert table.lock._waiters, "the click waits for the table"
        # what the close does under the lock (bot/tables/admin.py): closed, forgotten here
        table.status = "cancelled"
        table.closed = {"by": players.admin().id, "playing": True, "voided": True, "earlier": False}
        env.bot.tables.core.close_table(table)
    finally:
        table.lock.release()
    await env.settle()
    said = private_texts(InteractionResult(env, record))
    assert said == ["This table is closed."], said
    assert table.version == version, "nothing applied to the closed table"
