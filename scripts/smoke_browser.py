"""The local mode in a real browser: headless Chromium (Debian's ``chromium``) opens the page
of ``python -m bot --local``, runs ``/chan new``, adds AI seats, starts, makes several moves
with the hand's controls, and saves screenshots (data/smoke/*.png) to look at.

Chromium is driven over its remote debugging protocol (a websocket, through aiohttp, which
discord.py brings): no browser download, no other package. Run by ``bash scripts/smoke-browser``;
without Chromium it says so and skips."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "data" / "smoke"
DEADLINE = 90  # seconds for the whole check


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    """One tab of a headless Chromium, spoken to over the DevTools protocol."""

    def __init__(self, ws) -> None:
        self.ws, self.ids, self.pending = ws, itertools.count(1), {}

    async def send(self, method: str, **params):
        number = next(self.ids)
        await self.ws.send_json({"id": number, "method": method, "params": params})
        while True:
            message = await self.ws.receive_json(timeout=30)
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def js(self, expression: str):
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def until(self, what: str, expression: str, seconds: float = 20, shot: bool = True):
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            value = await self.js(expression)
            if value:
                return value
            await asyncio.sleep(0.2)
        if shot:
            await self.screenshot("failed")
        raise AssertionError(f"timed out waiting for {what}")

    async def screenshot(self, name: str) -> Path:
        data = await self.send("Page.captureScreenshot", format="png")
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        path.write_bytes(base64.b64decode(data["data"]))
        print(f"  screenshot {path.relative_to(ROOT)}", flush=True)
        return path

    # what a person does on the page
    def _button(self, label: str) -> str:
        # the newest enabled button with that label, after its emoji if any (the messages are in
        # order, oldest first)
        return ("[...document.querySelectorAll('button')].filter(b => "
                f"b.textContent.trim().replace(/^[^\\p{{L}}]+/u, '') === {json.dumps(label)}"
                f" && !b.disabled && b.offsetParent !== null).pop()")

    async def has(self, label: str) -> bool:
        return bool(await self.js(f"!!({self._button(label)})"))

    async def click(self, label: str, seconds: float = 20) -> None:
        await self.until(f"a button {label!r}", f"!!({self._button(label)})", seconds)
        status = "document.querySelector('#action-status')"
        await self.js(f"{status}.textContent = ''")
        await self.mouse(self._button(label))
        # the page says how the click went once the bot answered it (a refusal is shown too)
        said = await self.until(f"the answer to {label!r}",
                                f"(() => {{ const t = {status}.textContent; return t.endsWith('…') ? '' : t; }})()")
        if said != "Callback completed":
            await self.screenshot("failed")
            raise AssertionError(f"clicking {label!r}: the page says {said!r}")

    async def mouse(self, element: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        x, y = await self.js(f"(() => {{ const e = {element}; e.scrollIntoView({{block: 'center'}}); "
                             "const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def key(self, key: str) -> None:
        """A real key press (the page listens to keydown on the focused element)."""
        codes = {"Enter": 13, "Tab": 9, "Escape": 27}
        for kind in ("rawKeyDown", "keyUp"):
            await self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                            windowsVirtualKeyCode=codes[key], nativeVirtualKeyCode=codes[key])

    async def slash(self, command: str) -> None:
        """Run a slash command as a person does: type it in the message box, pick it in the
        command list (Enter), send it (Enter). The box is the page's only once the page has its
        first snapshot (before that, the page's first update empties it), and the list is there
        once the page has loaded the bot's commands."""
        box = "document.querySelector('#channel-composer-input')"
        await self.until("the message box", f"!!{box} && !!{box}.dataset.controlKey && !{box}.form.hidden")
        await self.js(f"{box}.focus()")
        await self.send("Input.insertText", text="/" + command)
        entry = ("[...document.querySelectorAll('.command-entry')].find("
                 f"e => e.textContent.includes({json.dumps('/' + command)}))")
        await self.until(f"/{command} in the command list", f"!!({entry})")
        await self.key("Enter")  # picks the active entry: the command's chip, its options
        await self.until("the command's chip", "!!document.querySelector('.command-chip')")
        # sends it (Enter on the focused chip would open its optional options instead); Send is
        # off for a moment while the page has an action of its own under way (its viewport)
        send = "document.querySelector('#send-message')"
        for _ in range(10):
            await self.until("Send", f"!{send}.disabled")
            await self.mouse(send)
            try:
                await self.until("the command sent", "!document.querySelector('.command-chip')", 2, shot=False)
                return
            except AssertionError:
                continue
        await self.until("the command sent", "!document.querySelector('.command-chip')", 0)


async def start_local(tmp: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--local", "--no-browser", "--database", str(tmp / "local.sqlite3")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    for line in process.stdout:
        match = re.search(r"(http://127\.0\.0\.1:\d+/#\S+)", line)
        if match:
            return process, match.group(1)
        if time.monotonic() - started > 60:
            break
    process.kill()
    raise AssertionError("the local mode did not print its address")


async def open_chromium(tmp: Path, binary: str) -> subprocess.Popen:
    profile = tmp / "profile"
    process = subprocess.Popen(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", f"--user-data-dir={profile}",
         "--window-size=1280,1100", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        if (profile / "DevToolsActivePort").exists() and (profile / "DevToolsActivePort").read_text().strip():
            return process
        await asyncio.sleep(0.1)
    process.kill()
    raise AssertionError("Chromium did not open its debugging port")


async def play(browser: Browser, url: str) -> None:
    await browser.send("Page.enable")
    await browser.send("Emulation.setFocusEmulationEnabled", enabled=True)  # (headless: no window has focus)
    await browser.send("Page.navigate", url=url)
    await browser.until("the page", "!!document.querySelector('#channel-composer-input')")
    await browser.slash("chan new")
    await browser.click("Add AI")
    await browser.click("Add AI")
    await browser.screenshot("1-lobby")
    await browser.click("Start")
    await browser.until("the table", f"!!({browser._button('My hand')})")
    await asyncio.sleep(1)
    await browser.screenshot("2-table")
    moves = 0
    started = time.monotonic()
    await browser.click("My hand")  # once: the hand it shows follows the game
    await asyncio.sleep(0.5)
    await browser.screenshot("3-hand")
    while moves < 4 and time.monotonic() - started < 45:
        for label in ("Draw", "Pass"):
            if await browser.has(label):
                await browser.click(label)
                moves += 1
                break
        else:
            if await browser.has("Quick Select"):
                await browser.click("Quick Select")
                if await browser.has("Discard"):
                    await browser.click("Discard")
                    moves += 1
                    continue
            await asyncio.sleep(1)  # the AI seats play (a second each, as in production)
    await asyncio.sleep(1.5)
    await browser.screenshot("4-after-moves")
    assert moves >= 3, f"only {moves} moves were made"
    print(f"  {moves} moves made through the hand's controls", flush=True)


async def main() -> int:
    binary = chromium()
    if binary is None:
        print("smoke-browser: skipped: no Chromium here (Debian: apt-get install chromium)")
        return 0
    with tempfile.TemporaryDirectory(prefix="chieu-smoke-") as name:
        tmp = Path(name)
        local, url = await start_local(tmp)
        browser_process = await open_chromium(tmp, binary)
        try:
            port = (tmp / "profile" / "DevToolsActivePort").read_text().split()[0]
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json") as response:
                    tab = next(t for t in await response.json() if t["type"] == "page")
                async with http.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    await asyncio.wait_for(play(Browser(ws), url), DEADLINE)
        finally:
            browser_process.terminate()
            local.send_signal(2)  # Ctrl+C: the local mode stops cleanly
            try:
                code = local.wait(timeout=15)
            except subprocess.TimeoutExpired:
                local.kill()
                raise AssertionError("the local mode did not stop on Ctrl+C")
            browser_process.wait(timeout=15)
        assert code == 0, f"the local mode exited with {code}"
    print("smoke-browser: ok")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
