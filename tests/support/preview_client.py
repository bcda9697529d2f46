"""A person at the local page (``bash scripts/start --local``), spoken through the page's own
HTTP API (SimCord Preview's protocol 3, what its JavaScript sends): open a page, run a slash
command, click a button, pick in a select, read the messages the page shows."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from typing import Any

import aiohttp


class PreviewRejected(AssertionError):
    """The page refused an action (what its diagnostic says)."""


class PagePerson:
    """One page of the local mode, as its viewer (``viewer``: a name of the local people)."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.base, self.capability = url.split("/#", 1)
        self.http = http
        self.context: str | None = None
        self.state: dict[str, Any] = {}
        self._sequence = itertools.count(1)
        self._catalog: dict[str, Any] | None = None
        self.shown: dict[str, dict[str, Any]] = {}  # messages the person keeps an eye on

    def _headers(self) -> dict[str, str]:
        headers = {"X-Simcord-Capability": self.capability, "Origin": self.base}
        if self.context is not None:
            headers["X-Simcord-Context"] = self.context
        return headers

    async def open(self, viewer: str | None = None) -> "PagePerson":
        async with self.http.post(f"{self.base}/api/pages", json={}, headers=self._headers()) as response:
            response.raise_for_status()
            self.state = await response.json()
        self.context = self.state["context"]["id"]
        if viewer is not None:
            await self.view_as(viewer)
        return self

    async def refresh(self) -> dict[str, Any]:
        async with self.http.get(f"{self.base}/api/state", headers=self._headers()) as response:
            response.raise_for_status()
            self.state = await response.json()
        return self.state

    async def send(self, kind: str, revision: int | None = None, **body: Any) -> dict[str, Any]:
        """One action as the page's script sends it, on the state the page last read (or on
        ``revision``, the state a page that has not read the newest one yet shows)."""
        sequence = next(self._sequence)
        envelope = {**body, "protocol_version": 3, "sequence": sequence, "request_id": uuid.uuid4().hex,
                    "generation": self.state["context"]["generation"],
                    "bot_generation": self.state["botGeneration"],
                    "published_revision": self.state["publishedRevision"] if revision is None else revision,
                    "kind": kind}
        async with self.http.post(f"{self.base}/api/action", json=envelope, headers=self._headers()) as response:
            response.raise_for_status()
            result = await response.json()
        if result.get("rejected"):  # (a refusal consumes no number: the page expects the one after the last it took)
            self._sequence = itertools.count(result.get("expectedSequence", sequence - 1) + 1)
        return result

    async def _act(self, kind: str, **body: Any) -> dict[str, Any]:
        """One action; a refusal because the page was busy is sent again, as the page's own
        script does."""
        last: list = []
        for _ in range(20):
            await self.refresh()
            result = await self.send(kind, **body)
            if not result.get("rejected"):
                if result.get("settlement") not in ("settled", None):
                    raise PreviewRejected(f"{kind} {body}: {result.get('settlement')} {result.get('diagnostics')}")
                await self.refresh()
                return result
            codes = [d.get("code") for d in result.get("diagnostics", [])]
            last = codes
            if not set(codes) <= {"busy", "stale-sequence", "sequence-gap"}:
                raise PreviewRejected(f"{kind} {body}: {codes}")
            await asyncio.sleep(0.05)
        raise PreviewRejected(f"{kind} {body}: the page kept refusing ({last})")

    async def view_as(self, name: str) -> None:
        viewer = next(v for v in self.state["viewers"] if v["name"] == name)
        await self._act("viewer", viewer_id=viewer["id"])

    async def command(self, invocation: str, **options: Any) -> dict[str, Any]:
        if self._catalog is None:
            async with self.http.get(f"{self.base}/api/commands", headers=self._headers()) as response:
                response.raise_for_status()
                self._catalog = await response.json()
        entry = next(e for e in self._catalog["entries"] if e["invocation"] == invocation)
        return await self._act("run_command", command_id=entry["commandId"], path=entry["path"],
                               schema_fingerprint=entry["schemaFingerprint"], options=options)

    # ------------------------------------------------------------------ what the page shows
    def messages(self) -> list[dict[str, Any]]:
        """The messages the page shows, oldest first."""
        shown = self.state["messages"]
        return [shown[i] for i in self.state["timeline"] if i in shown]

    def last(self, where=lambda message: True) -> dict[str, Any]:
        return next(m for m in reversed(self.messages()) if where(m))

    def last_with(self, label: str) -> dict[str, Any]:
        """The newest message that has a control ``label`` (a button, or a select's option)."""
        return self.last(lambda m: controls(m, label))

    async def click(self, message: dict[str, Any], label: str) -> dict[str, Any]:
        (control,) = [c for c in controls(message, label) if c["type"] == 2][:1] or [None]
        if control is None or control.get("disabled"):
            raise PreviewRejected(f"no button {label!r} to click on {text(message)[:80]!r}")
        return await self._act("click", target_id=message["id"], control_key=control["control_key"])

    async def select(self, message: dict[str, Any], *labels: str) -> dict[str, Any]:
        """Pick options (by label) in the message's select that offers the first of them."""
        (menu,) = [c for c in controls(message, labels[0]) if c["type"] == 3][:1] or [None]
        if menu is None:
            raise PreviewRejected(f"no select offering {labels[0]!r}")
        values = [o["value"] for label in labels for o in menu["options"] if o["label"] == label]
        return await self._act("select", target_id=message["id"], control_key=menu["control_key"], values=values)


def controls(message: dict[str, Any], label: str | None = None) -> list[dict[str, Any]]:
    """The message's buttons and selects (those with ``label``, or offering an option ``label``)."""
    found = []

    def walk(component: dict[str, Any]) -> None:
        if component.get("type") in (2, 3):
            labels = {component.get("label")} | {o.get("label") for o in component.get("options", [])}
            if label is None or label in labels:
                found.append(component)
        for child in component.get("components", []) or []:
            walk(child)

    for component in message.get("components", []):
        walk(component)
    return found


def buttons(message: dict[str, Any]) -> set[str]:
    """The labels of the message's buttons one can click."""
    return {c["label"] for c in controls(message) if c["type"] == 2 and not c.get("disabled") and c.get("label")}


def text(message: dict[str, Any]) -> str:
    """What a message says: its content, its embeds' titles, descriptions and fields."""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds", []):
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f.get('name')} {f.get('value')}" for f in embed.get("fields", [])]
    return "\n".join(p for p in parts if p)
