"""What reaches Discord as an interaction's first responses, for tests that stage a moment
around one (tests/integration/test_late_answer.py, test_deleted_message.py)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import discord
from simcord.http.client import FakeWebhookAdapter

#: called as a callback leaves for Discord: (its route, its callback type)
BeforeCallback = Callable[[object, "int | None"], Awaitable[None]]


def watch_callbacks(monkeypatch, before: BeforeCallback | None = None) -> list[tuple[int | None, bool]]:
    """Every interaction callback the bot sends, as (callback type, refused or not), in order;
    ``before`` runs as each leaves, before Discord sees it."""
    original = FakeWebhookAdapter.request
    reached: list[tuple[int | None, bool]] = []

    async def request(self, route, session, *, payload=None, multipart=None, **kwargs):
        if not (route.method == "POST" and route.url.endswith("/callback")):
            return await original(self, route, session, payload=payload, multipart=multipart, **kwargs)
        body = payload
        if multipart:  # (a response with files: its payload is a part of the form)
            body = json.loads(next(part["value"] for part in multipart if part["name"] == "payload_json"))
        kind = (body or {}).get("type")
        if before is not None:
            await before(route, kind)
        try:
            answer = await original(self, route, session, payload=payload, multipart=multipart, **kwargs)
        except discord.HTTPException:
            reached.append((kind, True))
            raise
        reached.append((kind, False))
        return answer

    monkeypatch.setattr(FakeWebhookAdapter, "request", request)
    return reached
