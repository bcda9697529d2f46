"""Two bot processes of one application on one PostgreSQL database, with SimCord: process
"a" runs shard 0 (every DM click reaches it, as Discord sends DMs to shard 0), process "b"
runs shard 1 (tests/simhelpers.attach_shard_process). Each drives the tables opened in its
servers; a click on a hand of b's table arrives at a, which routes it to b: applied once, by b,
and answered through the interaction. When b dies, a adopts its table once b's lease expired
and the game goes on where it was."""

from __future__ import annotations

import pytest

from tests.support.simhelpers import (Players, attach_shard_process, component_payload, custom_id, deliver_to, dm, enabled,
                              game_over, play_channel, private_texts, quick_move, shard_guild_id, start_table)

pytestmark = pytest.mark.parametrize("backend", ["postgres"], indirect=True)

# renewals every 20 s of the simulated clock; the lease itself runs in the database's clock
LEASE = {"lease_seconds": 60}


@pytest.fixture
def simcord_bot(bot_factory):
    return bot_factory(instance_name="a", **LEASE)


async def holders(db) -> dict[int, str]:
    return {r["table_id"]: r["holder"] for r in await db.fetchall("SELECT table_id, holder FROM leases")}


async def moves(db, game_id: int) -> list[int]:
    return [r["idx"] for r in await db.fetchall("SELECT idx FROM actions WHERE game_id = ? ORDER BY idx", (game_id,))]


async def routed_clicks(db) -> list:
    """The clicks routed from one process to another (not those a driver received itself,
    which are recorded too, with no payload, so that a second delivery is not applied)."""
    return await db.fetchall("SELECT * FROM routed_clicks WHERE payload <> '' ORDER BY interaction_id")


def version_of(message) -> int:
    """The turn a hand's buttons belong to (chieu:play:<table>:<game>:<version>:<key>)."""
    return int(custom_id(message, "Auto-arrange").split(":")[4])


async def test_tables_spread_and_a_click_reaches_the_driver_once(simcord_env, bot_factory):
    env = simcord_env
    a = env.bot
    b = bot_factory(instance_name="b", ai_delay_seconds=10, **LEASE)
    await attach_shard_process(env, b)

    here = await start_table(env, "phom", 1, 1, seed=1, guild_id=shard_guild_id(0))
    there = await start_table(env, "phom", 1, 1, seed=2, guild_id=shard_guild_id(1), bot=b)
    (mine,) = a.tables.tables.values()
    (theirs,) = b.tables.tables.values()
    assert await holders(a.db) == {mine.id: "a", theirs.id: "b"}
    assert a.tables.driven_count() == b.tables.driven_count() == 1

    # Minh plays in his DM: the click reaches a (shard 0), which does not drive his table
    minh = there.members[0]
    assert list(theirs.state.to_act) == [0] and version_of(dm(minh)) == theirs.version == 0
    assert await quick_move(minh.user, lambda: dm(minh)) == []
    assert theirs.version == 1 and await moves(a.db, theirs.game_id) == [0], "applied once, by b"
    assert version_of(dm(minh)) == 1, "answered: his hand shows the move"
    assert theirs.id not in a.tables.tables
    routed = await routed_clicks(a.db)
    assert len(routed) == 2 and {r["taken_by"] for r in routed} == {"b"} and {r["sender"] for r in routed} == {"a"}

    # while the AI seat thinks (10 s), Minh arranges his hand: b answers, through a
    arranged = theirs.arranged.get(0, True)
    result = await minh.user.click(dm(minh), label="Auto-arrange")
    assert result.acknowledged and private_texts(result) == [] and theirs.arranged[0] is not arranged
    assert theirs.version == 1
    routed = await routed_clicks(a.db)
    assert len(routed) == 3 and {r["taken_by"] for r in routed} == {"b"}

    # the same click heard twice is applied once
    for row in routed:
        await a.db.clicks.notify({"kind": "click", "to": "b", "id": row["interaction_id"], "table": theirs.id})
    await env.settle()
    assert theirs.version == 1 and await moves(a.db, theirs.game_id) == [0]
    assert theirs.arranged[0] is not arranged, "Auto-arrange was not toggled back by a second delivery"

    # Lan's table, a's own, is played by a without routing
    lan = here.members[0]
    assert await quick_move(lan.user, lambda: dm(lan)) == []
    assert mine.version >= 1 and len(await routed_clicks(a.db)) == 3

    # b dies (nothing renews its lease any more); once the lease expired, a adopts its table
    while list(theirs.state.to_act) != [0]:
        await env.advance_time(10)  # the AI of b's table plays its turn first
    record, played = theirs.state.record(), theirs.version
    await die(b)
    await a.db.execute("UPDATE leases SET expires_at = expires_at - 3600 WHERE holder = 'b'")
    await env.advance_time(20)  # a's next renewal looks for orphans
    adopted = a.tables.tables[theirs.id]
    assert adopted.state.record() == record and (await holders(a.db))[theirs.id] == "a"
    assert a.tables.driven_count() == 2

    # Minh plays on, at a now, and the clock plays for him until the end: settled once
    assert await quick_move(minh.user, lambda: dm(minh)) == []
    assert adopted.version == played + 1 and await moves(a.db, adopted.game_id) == list(range(played + 1))

    # shard 1 runs again, in a new process (b2); the table stays a's: a click in its thread
    # reaches b2, which routes it to a, which answers privately (My hand, a picture)
    b2 = bot_factory(instance_name="b2", **LEASE)
    await attach_shard_process(env, b2)
    assert b2.tables.driven_count() == 0
    table_message = next(m for m in play_channel(there).history() if "My hand" in enabled(m))
    result = await minh.click(table_message, label="My hand")
    (shown,) = result.followups
    assert shown.ephemeral and shown.attachments[0].filename == "hand.png"
    assert (await a.db.fetchone("SELECT taken_by, sender FROM routed_clicks ORDER BY interaction_id DESC"
                                " LIMIT 1")) == ("a", "b2")
    for _ in range(100):
        if game_over(there):
            break
        await env.advance_time(60)
    assert game_over(there) and adopted.status == "finished"
    rows = await a.db.fetchall("SELECT chips FROM ledger WHERE game_id = ?", (adopted.game_id,))
    assert len(rows) == 2 and sum(r["chips"] for r in rows) == 0
    (settled,) = await a.db.fetchone("SELECT COUNT(*) FROM settlements WHERE game_id = ?", (adopted.game_id,))
    assert settled == 1
    results = [m for m in play_channel(there).history() if m.embeds and "— result" in (m.embeds[0].title or "")]
    assert len(results) == 1
    assert "Rematch" in enabled(play_channel(there).last_message)


async def test_one_interaction_delivered_to_both_processes_is_applied_once(simcord_env, bot_factory):
    """Discord delivers one interaction to both processes (around a reconnect): whichever sees
    it first, it is applied once, also for controls that carry no version to refuse a repeat
    (Add AI in b's lobby; Auto-arrange on b's table, clicked in a DM, which reaches a)."""
    env = simcord_env
    a = env.bot
    b = bot_factory(instance_name="b", ai_delay_seconds=10, **LEASE)
    await attach_shard_process(env, b)
    there = await start_table(env, "phom", 1, 1, seed=2, guild_id=shard_guild_id(1), bot=b)
    (theirs,) = b.tables.tables.values()
    minh = there.members[0]
    lobbies = Players(env, 1, names=("duc",), guild_id=shard_guild_id(1, 2))
    (duc,) = lobbies.members
    await duc.slash(lobbies.channel, "phom new", seats=4)
    lobby_table = b.tables.tables[max(b.tables.tables)]
    assert lobby_table.status == "lobby" and not a.tables.tables

    async def twice(actor, message, label, first, second) -> None:
        record, payload = component_payload(env, actor, message, custom_id(message, label))
        deliver_to(env, first, payload)
        await env.settle()
        deliver_to(env, second, payload)
        await env.settle()
        env.errors  # the second process's answer to an interaction answered already may fail

    for first, second in ((b, a), (a, b)):
        seats = len(lobby_table.seats)
        await twice(duc, lobbies.channel.last_message, "Add AI", first, second)
        assert len(lobby_table.seats) == seats + 1, f"one AI seat added ({first.config.instance_name} first)"

    for first, second in ((a, b), (b, a)):
        arranged = theirs.arranged.get(0, True)
        await twice(minh.user, dm(minh), "Auto-arrange", first, second)
        assert theirs.arranged.get(0, True) is not arranged, f"toggled once ({first.config.instance_name} first)"
    assert theirs.version == 0


async def test_a_click_reaching_the_old_driver_after_a_takeover_goes_to_the_new_one(simcord_env, bot_factory):
    """a stalled unnoticed (its clock did not see it) and b adopted a's table: a click that
    reaches a is not answered by a, which no longer drives the table; it goes to b."""
    env = simcord_env
    a = env.bot
    b = bot_factory(instance_name="b", **LEASE)
    await attach_shard_process(env, b)
    here = await start_table(env, "phom", 1, 1, seed=1, guild_id=shard_guild_id(0))
    (mine,) = a.tables.tables.values()
    lan = here.members[0]
    await a.db.execute("UPDATE leases SET expires_at = expires_at - 3600 WHERE holder = 'a'")
    adopted = await b.tables.driving.adopt(mine.id)
    assert adopted is not None and mine.id in a.tables.tables, "a does not know yet"

    arranged = adopted.arranged.get(0, True)
    result = await lan.user.click(dm(lan), label="Auto-arrange")
    assert result.acknowledged and private_texts(result) == []
    assert adopted.arranged.get(0, True) is not arranged, "applied by b, the table's driver"
    assert mine.dropped and mine.id not in a.tables.tables
    # what the metrics show (bot.metrics: chieu_leases_adopted_total, chieu_leases_lost_total)
    assert (b.tables.leases.adopted, a.tables.leases.lost, a.tables.leases.adopted) == (1, 1, 0)
    (last,) = await a.db.fetchall("SELECT sender, taken_by FROM routed_clicks WHERE payload <> ''")
    assert tuple(last) == ("a", "b")


async def die(bot) -> None:
    """The process is gone: nothing it ran goes on, and it gives nothing up (a crash)."""
    service = bot.tables
    service.driving._keeper.cancel()
    await service.driving._listener.close()
    for table in list(service.tables.values()):
        service.core.stop_driving(table, "the process died")
    service.leases.epochs.clear()
