"""The local mode (``bash scripts/start --local``) played as a person plays it: through its
page's HTTP API (what the page's own script sends), no browser and no Discord."""

from __future__ import annotations

import asyncio
import contextlib
import time

import aiohttp
import pytest

from bot.config import load
from bot.local import LocalOptions, LocalSession
from tests.support.preview_client import PagePerson, PreviewRejected, buttons, controls, text
from tests.support.simclock import real_time
from tests.support.simhelpers import PHOM_MOVES, seed_deals

CHINCHON_MOVES = ("Draw", "Close", "Discard")


@contextlib.asynccontextmanager
async def local_page(tmp_path, request, people=("you",), ai_delay_seconds=0.0):
    # production pauses would make each AI move wait a second: the test plays them at once
    options = LocalOptions(people=people, database=str(tmp_path / "local.sqlite3"), open_browser=False,
                           overrides={"ai_delay_seconds": ai_delay_seconds, "table_edit_seconds": 0,
                                      "rest_calls_per_second": 1e6})
    with real_time():
        async with LocalSession(load(), options, prepare=lambda bot: seed_deals(bot, request.node.nodeid)) as session:
            async with aiohttp.ClientSession() as http:
                yield session, http, await PagePerson(http, session.url).open()


def result_posted(page: PagePerson) -> dict | None:
    return next((m for m in reversed(page.messages()) if "Rematch" in buttons(m)), None)


async def my_hand(page: PagePerson) -> dict:
    """My hand on the table message: the hand as it is now, shown to me alone. (The table
    message, edited in place, may have scrolled out of the page's last 50 messages.)"""
    table = page.shown.get("table") or page.last_with("My hand")  # (clicked by its id)
    page.shown["table"] = table
    result = await page.click(table, "My hand")
    (outcome,) = [o for o in result["outcomes"] if o.get("messageId")]
    return page.state["messages"][outcome["messageId"]]


async def play_a_move(page: PagePerson, moves, hand: dict | None = None) -> bool:
    """Quick Select, then the first move the hand offers; False if it is not my turn."""
    hand = hand or await my_hand(page)
    if "Draw" in buttons(hand) and "Draw" in moves and "Discard" not in buttons(hand):
        await page.click(hand, "Draw")
        return True
    if "Quick Select" in buttons(hand):
        await page.click(hand, "Quick Select")
        hand = page.state["messages"][hand["id"]]
    move = next((label for label in moves if label in buttons(hand)), None)
    if move is None:
        return False
    await page.click(hand, move)
    return True


async def play_until(page: PagePerson, done, moves, *, seconds: float, people=(None,)) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the game did not end"
        moved = False
        for person in people:
            if done():
                return
            if person is not None and len(people) > 1:
                await page.view_as(person)
            moved |= await play_a_move(page, moves)
        if not moved:
            await asyncio.sleep(0.1)  # the AI seats play (on the real clock)
            await page.refresh()


async def test_a_phom_game_on_the_local_page_hot_seat(tmp_path, request):
    async with local_page(tmp_path, request, people=("you", "friend")) as (session, http, page):
        # the page needs its secret, and listens on loopback only
        assert session.url.startswith("http://127.0.0.1:")
        async with http.get(page.base + "/api/state") as response:
            assert response.status == 401

        await page.command("phom new")
        lobby = page.last_with("Join")
        await page.view_as("friend")  # the second person at the same screen
        await page.click(lobby, "Join")
        await page.view_as("you")
        await page.click(page.last_with("Add AI"), "Add AI")
        await page.click(page.last_with("Start"), "Start")
        table = page.last_with("My hand")
        assert "Phỏm · table #1" in text(table) and table["attachments"]  # the table's picture

        await play_until(page, lambda: result_posted(page), PHOM_MOVES, seconds=90, people=("you", "friend"))
        result = result_posted(page)
        assert "result" in text(result).lower() or result["attachments"]

        await page.view_as("you")
        balance = await page.command("balance")
        assert balance["settlement"] == "settled"
        assert "chip" in text(page.messages()[-1]).lower()
        await page.command("leaderboard")
        board = text(page.messages()[-1])
        assert "Leaderboard" in board and "you" in board and "friend" in board

        await page.click(result, "Rematch")  # the same people again, on the same page
        rematch = page.last_with("Start")
        assert "table #1" in text(rematch) and "friend" in text(rematch)


async def test_a_chinchon_match_on_the_local_page(tmp_path, request):
    async with local_page(tmp_path, request) as (session, http, page):
        await page.command("chinchon new", target="20", close_limit="10")  # (the page sends what is typed)
        await page.click(page.last_with("Add AI"), "Add AI")
        await page.click(page.last_with("Start"), "Start")

        deadline = time.monotonic() + 150
        hand_id = None  # My hand once: the hand it shows follows the match, round after round
        while not result_posted(page):
            assert time.monotonic() < deadline, "the match did not end"
            await page.refresh()
            next_round = page.last()
            if "Next round" in buttons(next_round):  # a round's result: on to the next one
                with contextlib.suppress(PreviewRejected):  # (it may have started meanwhile)
                    await page.click(next_round, "Next round")
                continue
            hand = page.state["messages"].get(hand_id) or await my_hand(page)
            hand_id = hand["id"]
            if "Decline" in buttons(hand):  # over the target: no buying back in
                await page.click(hand, "Decline")
            elif not await play_a_move(page, CHINCHON_MOVES, hand):
                await asyncio.sleep(0.2)  # the AI seats play (on the real clock)
        history = await page.command("history")
        assert history["settlement"] == "settled"
        assert "Chinchón" in text(page.messages()[-1])


async def test_a_click_on_a_page_that_has_not_read_the_bots_newest_change_is_honoured(tmp_path, request):
    # (on Discord a click names its button, not a version of the message: the page's own
    # script sends the revision it last read, and the bot may have published since)
    async with local_page(tmp_path, request) as (session, http, page):
        await page.command("chan new")
        lobby = page.last_with("Add AI")
        footer = lobby["embeds"][0]["footer"]["text"]  # (no DM here: the lobby says where hands are)
        assert "DM" not in footer and "My hand" in footer
        seen = page.state["publishedRevision"]
        await session.preview.refresh()  # the refresher publishes what the bot did meanwhile
        add_ai = next(c for c in controls(lobby, "Add AI") if c["type"] == 2)
        result = await page.send("click", revision=seen, target_id=lobby["id"], control_key=add_ai["control_key"])
        assert not result.get("rejected"), result.get("diagnostics")
        assert result["settlement"] == "settled"
        await page.refresh()
        assert "AI 1" in text(page.state["messages"][lobby["id"]])


async def test_my_hand_follows_the_game_while_the_ai_seats_play(tmp_path, request):
    # the hand My hand showed is his only one (no DM here): the outbox keeps it up to date,
    # through his click, as it does a hand DM; he does not click My hand again after each AI move
    async with local_page(tmp_path, request, ai_delay_seconds=0.5) as (session, http, page):
        await page.command("phom new")
        await page.click(page.last_with("Add AI"), "Add AI")
        await page.click(page.last_with("Start"), "Start")
        hand = await my_hand(page)
        await play_a_move(page, PHOM_MOVES, hand)  # (if he opens; else the AI seat plays first)
        assert "Draw" not in buttons(page.state["messages"][hand["id"]])
        deadline = time.monotonic() + 15
        while "Draw" not in buttons(page.state["messages"][hand["id"]]):
            assert time.monotonic() < deadline, "the hand still shows the game before the AI's move"
            await asyncio.sleep(0.1)
            await page.refresh()
        shown = page.state["messages"][hand["id"]]
        assert "Your turn" in text(shown) and shown["attachments"]
        await page.click(shown, "Draw")  # and it plays on from there
        assert "Quick Select" in buttons(page.state["messages"][hand["id"]])  # (then Discard)
        again = await my_hand(page)  # a second My hand: the first says where the hand went
        assert again["id"] != hand["id"] and "Quick Select" in buttons(again)
        await page.refresh()
        first = page.state["messages"][hand["id"]]
        assert "moved to a newer message, below" in text(first) and not buttons(first) and not first["attachments"]
        assert "discord.com" not in text(first)  # (no link reaches a private answer)


async def test_tables_an_earlier_run_left_open_are_closed_at_the_start(tmp_path, request, caplog):
    # their messages were on that run's page, gone with it: a new run starts with none, and a
    # game left in play is void (no chip moves for it), as when an admin closes a table
    async with local_page(tmp_path, request) as (session, http, page):
        await page.command("phom new")
        await page.click(page.last_with("Add AI"), "Add AI")
        await page.click(page.last_with("Start"), "Start")
        await page.command("chan new")  # and a lobby
    caplog.set_level("INFO", logger="bot.local")
    async with local_page(tmp_path, request) as (session, http, page):
        assert session.bot.tables.tables == {}
        db = session.bot.db
        assert [row["status"] for row in await db.fetchall("SELECT status FROM tables ORDER BY id")] == \
            ["cancelled", "cancelled"]
        assert [row["status"] for row in await db.fetchall("SELECT status FROM games")] == ["aborted"]
        assert "closed 2 tables an earlier run left open (#1, #2)" in caplog.text
        await page.command("chan new")  # the channel is free for new tables
        assert "table #3" in text(page.last_with("Join"))


async def test_rules_and_the_language_setting_on_the_local_page(tmp_path, request):
    async with local_page(tmp_path, request) as (session, http, page):
        await page.command("rules phom")
        assert "Phỏm — rules" in text(page.messages()[-1])
        for language, rules in (("vi", "Phỏm — luật chơi"), ("es", "Phỏm — reglas")):
            await page.command("settings language", language=language)
            await page.command("rules phom")
            assert rules in text(page.messages()[-1])
