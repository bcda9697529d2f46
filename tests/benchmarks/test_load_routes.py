"""The load benchmark tells the calls Discord's global rate limit counts from interaction traffic."""

import io

import discord

from benchmarks.load.routes import GLOBAL, INTERACTION, classify, route, tables_per_token, upload_size


def test_interaction_callbacks_and_webhooks_are_not_globally_limited():
    assert classify("POST", "/interactions/1/tok/callback") == INTERACTION
    assert classify("PATCH", "/webhooks/123456789012/a.token-x/messages/@original") == INTERACTION
    assert classify("POST", "/webhooks/123456789012/a.token-x") == INTERACTION
    assert classify("POST", "/webhooks/123456789012/a.token-x?wait=true") == INTERACTION


def test_messages_threads_and_dm_channels_are_globally_limited():
    assert classify("PATCH", "/channels/1/messages/2") == GLOBAL
    assert classify("POST", "/channels/1/messages") == GLOBAL
    assert classify("DELETE", "/channels/1/messages/2") == GLOBAL
    assert classify("POST", "/channels/1/messages/2/threads") == GLOBAL
    assert classify("POST", "/users/@me/channels") == GLOBAL
    assert classify("GET", "/users/123456789") == GLOBAL
    assert classify("GET", "/webhooks/123456789012") == GLOBAL  # a bot-authorised webhook call


def test_routes_hide_ids_and_tokens():
    assert route("/channels/123456789/messages/987654321") == "/channels/:id/messages/:id"
    assert route("/interactions/123456789/secret/callback") == "/interactions/:id/:token/callback"
    assert route("/webhooks/123456789/secret/messages/@original") == "/webhooks/:id/:token/messages/@original"


def test_uploads_and_capacity():
    files = [discord.File(io.BytesIO(b"x" * 1000), filename="hand.png"), discord.File(io.BytesIO(b"yy"), "t.png")]
    assert upload_size(files) == 1002 and upload_size(None) == 0
    assert tables_per_token(60) == 50 and tables_per_token(60, 0.8) == 40
