"""``python -m tests.support.offline_bot [chieu's arguments]``: the real ``chieu`` command — its main,
its runner, its signal handlers, its clean stop — in a process of its own, with Discord
replaced by a stand-in on this machine (tests/integration/test_clean_stop.py starts it).

The stand-in (a thread of its own, on 127.0.0.1) accepts the token (``GET /users/@me``, and the
application's ``GET /applications/@me``, and the slash commands' sync) and answers every other REST call 503, Discord being unavailable: the tables' outboxes keep their
messages and retry them, as in an outage. The gateway is never joined: ``ChieuBot.start`` logs
in (which sets the bot up: database, cogs, tables restored, leases) and then waits, as a bot
whose gateway is still connecting. Pictures are not drawn (nothing could receive them).
Everything else is the production code.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading

import discord
from aiohttp import web

from bot import __main__ as cli
from bot.app import ChieuBot
from tests.support.stubdiscord import quiet_pictures

BOT_USER = {"id": "100000000000000001", "username": "Chiếu", "discriminator": "0", "avatar": None, "bot": True}
APPLICATION = {"id": BOT_USER["id"], "name": "Chiếu", "description": "", "icon": None, "bot_public": True,
               "bot_require_code_grant": False, "owner": {**BOT_USER, "id": "100000000000000002", "bot": False},
               "verify_key": "0" * 64, "flags": 0}


def serve_discord() -> int:
    """Start the stand-in in a thread; its port."""
    started = threading.Event()
    port: list[int] = []

    def answered(status: int, body: dict | list) -> web.Response:  # (discord.py reads JSON by this exact type)
        return web.Response(status=status, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})

    async def answer(request: web.Request) -> web.Response:
        if request.method == "GET" and request.path.endswith("/users/@me"):
            return answered(200, BOT_USER)
        if request.method == "GET" and request.path.endswith("/applications/@me"):
            return answered(200, APPLICATION)
        if request.method == "PUT" and request.path.endswith("/commands"):
            return answered(200, [])  # the slash commands' sync (accepted; none are read back)
        return answered(503, {"message": "Service Unavailable", "code": 0})

    async def main() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port.append(site._server.sockets[0].getsockname()[1])
        started.set()
        await asyncio.Event().wait()

    threading.Thread(target=lambda: asyncio.run(main()), daemon=True, name="stand-in Discord").start()
    started.wait(10)
    return port[0]


async def start_without_gateway(self: ChieuBot, token: str, *, reconnect: bool = True) -> None:
    await self.login(token)
    await asyncio.Event().wait()


if __name__ == "__main__":
    discord.http.Route.BASE = f"http://127.0.0.1:{serve_discord()}/api/v10"
    ChieuBot.start = start_without_gateway
    quiet_pictures()  # (no picture reaches the stand-in: drawing them would only load the machine)
    sys.exit(cli.main(sys.argv[1:]))
