"""/balance and /leaderboard show chips over time as a picture beside their text, once there
are two settled games to join: a palette PNG with a text alternative (its description)."""

from __future__ import annotations

import io

from PIL import Image

from rendering.chart import WIDTH
from tests.support.databases import both_backends
from tests.support.simhelpers import Players, settle


async def picture(message) -> Image.Image:
    (attachment,) = message.attachments
    data = await attachment.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) <= 60_000
    image = Image.open(io.BytesIO(data))
    assert image.width == WIDTH
    return image


@both_backends
async def test_balance_shows_the_chips_over_time_from_the_second_game(simcord_env):
    env = simcord_env
    players = Players(env, 2)
    lan, minh = players.members
    gid = players.guild.id

    await settle(env, gid, "phom", {lan: 30, minh: -30})
    one = (await lan.slash(players.channel, "balance")).response
    assert one.content.startswith(f"**{lan.name}**: **+30 chips** · 1 win in 1 game")
    assert one.attachments == []  # one game is not a line

    await settle(env, gid, "chan", {lan: -50, minh: 20, None: 30})
    await settle(env, gid, "phom", {lan: 5, minh: -5})
    answer = (await lan.slash(players.channel, "balance")).response
    assert answer.content.startswith(f"**{lan.name}**: **−15 chips** · 2 wins in 3 games")
    await picture(answer)
    (attachment,) = answer.attachments
    assert attachment.description.startswith(f"Line chart of {lan.name}'s chips over 3 games (")
    assert "now −15, highest +30, lowest −20." in attachment.description

    # one game only: Phỏm's two games, not Chắn's
    phom = (await lan.slash(players.channel, "balance", game="phom")).response
    assert phom.content.startswith(f"**{lan.name}**: **+35 chips** · 2 wins in 2 games · Phỏm")
    await picture(phom)
    assert "over 2 games" in phom.attachments[0].description and "now +35, highest +35, lowest" in (
        phom.attachments[0].description)
    chan = (await lan.slash(players.channel, "balance", game="chan")).response
    assert chan.content.startswith(f"**{lan.name}**: **−50 chips** · 0 wins in 1 game · Chắn")
    assert chan.attachments == []

    # someone else's, by the user option; an outsider with no game has no picture
    assert "Line chart of minh's chips over 3 games" in (
        await lan.slash(players.channel, "balance", user=minh.user)).response.attachments[0].description
    assert (await players.outsider().slash(players.channel, "balance")).response.attachments == []


@both_backends
async def test_the_leaderboard_keeps_its_text_and_shows_the_top_players_running_totals(simcord_env):
    env = simcord_env
    names = ("lan", "minh", "duc", "hoa", "tuan", "mai")
    players = Players(env, 6, names=names)
    gid = players.guild.id
    members = dict(zip(names, players.members))

    await settle(env, gid, "phom", {members["lan"]: 40, members["minh"]: -40})
    board = (await members["lan"].slash(players.channel, "leaderboard")).response
    assert board.attachments == [] and board.embeds[0].image.url is None  # a single game is no race
    assert "**1. lan** — +40 chips" in board.embeds[0].description

    await settle(env, gid, "phom", {members["duc"]: 10, members["hoa"]: 5, members["tuan"]: 3,
                                    members["mai"]: -18})
    await settle(env, gid, "chan", {members["minh"]: 60, members["lan"]: -20, None: -40})
    board = (await members["lan"].slash(players.channel, "leaderboard")).response
    embed = board.embeds[0]
    assert embed.description.splitlines()[0].startswith("**1. lan** — +20 chips")  # the text is as it was
    assert len(embed.description.splitlines()) == 6
    (attachment,) = board.attachments
    assert embed.image.url == f"attachment://{attachment.filename}"
    await picture(board)
    # the top five, in the ranking's order, each at his total: mai (sixth) is not drawn
    assert attachment.description.startswith("Line chart of the top players' running totals over 3 games (")
    assert attachment.description.endswith(": lan +20, minh +20, duc +10, hoa +5, tuan +3.")

    # by wins, one game: the running count of wins in Phỏm
    wins = (await members["lan"].slash(players.channel, "leaderboard", game="phom", by="wins")).response
    assert wins.attachments[0].description.endswith(": lan 1, duc 1, hoa 1, tuan 1, minh 0.")
    # a period without two games has no picture
    chan = (await members["lan"].slash(players.channel, "leaderboard", game="chan")).response
    assert chan.attachments == []
