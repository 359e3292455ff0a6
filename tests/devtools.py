"""The tests' one DevTools client: a headless Chromium driven over the DevTools protocol (an
aiohttp websocket): open a page, evaluate JavaScript in it, read what a served terminal shows,
type keys, take a screenshot, and record every request, response status, console error and
uncaught exception. Used by the page tests (:mod:`tests.page.browser`), the served-app tests and
``benchmarks/bench_serve.py``.

The terminal's text is read from xterm.js's DOM rows: WebGL is turned off (``--disable-3d-apis``),
so xterm draws with its DOM renderer. A hook installed before the page loads records the time of
each message the session's websocket delivers (``window.__frames``)."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

#: Installed before any script of the page runs: wraps WebSocket to time what the server sends.
HOOK = """
window.__frames = [];
window.__socket = null;
const _WS = window.WebSocket;
window.WebSocket = function(url, protocols) {
  const ws = protocols === undefined ? new _WS(url) : new _WS(url, protocols);
  window.__socket = ws;
  ws.addEventListener('message', () => { window.__frames.push(performance.now()); });
  return ws;
};
window.WebSocket.prototype = _WS.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""
#: The terminal's visible text, one line per row (xterm's DOM rows).
SCREEN_TEXT = "Array.from(document.querySelectorAll('.xterm-rows > div')).map(r => r.textContent).join('\\n')"


def chromium_path() -> str | None:
    """``$RUBRICATE_TEST_CHROMIUM``, else ``chromium`` on the PATH; None when neither is there
    (the one lookup: :func:`chromium` fails or skips on None)."""
    path = os.environ.get("RUBRICATE_TEST_CHROMIUM") or shutil.which("chromium")
    return path if path and Path(path).exists() else None


def chromium() -> str:
    """Chromium's path (``RUBRICATE_TEST_CHROMIUM``, else ``chromium`` on PATH). Missing: the
    test fails under CI (``CI=true``) and is skipped, with that reason, elsewhere."""
    path = chromium_path()
    if path is None:
        why = "Chromium not found: set RUBRICATE_TEST_CHROMIUM or install Debian's chromium package"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return path


class Browser:
    """One headless Chromium with one page, driven over its DevTools websocket."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.profile = tempfile.TemporaryDirectory(prefix="rubricate-chromium-", ignore_cleanup_errors=True)
        self.proc: subprocess.Popen[bytes] | None = None
        self.session: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._reader: asyncio.Task[None] | None = None
        self.requests: list[str] = []
        #: the HTTP status of each URL's last response
        self.statuses: dict[str, int] = {}
        #: console errors and assertions, uncaught exceptions and error log entries, as they came
        self.errors: list[str] = []

    async def start(self, width: int = 1280, height: int = 800) -> None:
        """Launch the browser and attach to its page."""
        self.proc = subprocess.Popen(
            [self.binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-3d-apis", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile.name}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = await asyncio.get_running_loop().run_in_executor(None, self.proc.stderr.readline)
            m = re.search(rb"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
            elif not line and self.proc.poll() is not None:
                raise RuntimeError("chromium exited before it listened")
        assert port is not None, "chromium did not say where DevTools listens"
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as resp:
            targets = await resp.json()
        page = next(t for t in targets if t["type"] == "page")
        self.ws = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        self._reader = asyncio.create_task(self._read())
        for domain in ("Page", "Runtime", "Log", "Network"):
            await self.send(f"{domain}.enable")
        await self.send("Page.addScriptToEvaluateOnNewDocument", source=HOOK)

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data and data["id"] in self._pending:
                self._pending.pop(data["id"]).set_result(data)
            elif data.get("method") == "Network.requestWillBeSent":
                self.requests.append(data["params"]["request"]["url"])
            elif data.get("method") == "Network.responseReceived":
                self.statuses[data["params"]["response"]["url"]] = data["params"]["response"]["status"]
            else:
                self._error(data.get("method"), data.get("params", {}))

    def _error(self, method: str | None, p: dict[str, Any]) -> None:
        """Record an event that says something went wrong in the page."""
        if method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
        elif method == "Runtime.exceptionThrown":
            self.errors.append(p["exceptionDetails"].get("text", "exception"))
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            self.errors.append(p["entry"]["text"])

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (an error is raised)."""
        assert self.ws is not None
        msg_id = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        await self.ws.send_str(json.dumps({"id": msg_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(fut, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    async def open(self, url: str) -> None:
        """Navigate the page to ``url``."""
        await self.send("Page.navigate", url=url)

    async def viewport(self, width: int, height: int) -> None:
        """Lay the page out at ``width`` × ``height`` CSS pixels (one device pixel each)."""
        await self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                        deviceScaleFactor=1, mobile=False)

    async def loaded(self, url: str, timeout: float = 30.0) -> None:
        """Wait until the page shows ``url`` with every resource loaded."""
        await self.wait_for(f"document.URL === {json.dumps(url)} && document.readyState === 'complete'", timeout, 0.05)

    async def wait_for(self, expression: str, timeout: float = 20.0, poll: float = 0.005) -> Any:
        """Poll a JavaScript expression until it is truthy; its value (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            value = await self.eval(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression!r}; the screen shows:\n{await self.screen()}")
            await asyncio.sleep(poll)

    async def wait_text(self, text: str, timeout: float = 20.0) -> str:
        """Wait until the terminal shows ``text``; the screen's text."""
        await self.wait_for(f"({SCREEN_TEXT}).includes({json.dumps(text)})", timeout)
        return str(await self.screen())

    async def status_of(self, url: str, timeout: float = 10.0) -> int:
        """Open ``url`` and return the HTTP status the browser got for it."""
        self.statuses.pop(url, None)
        await self.open(url)
        deadline = time.monotonic() + timeout
        while url not in self.statuses:
            if time.monotonic() > deadline:
                raise AssertionError(f"no response for {url}")
            await asyncio.sleep(0.01)
        return self.statuses[url]

    async def screen(self) -> str:
        """The terminal's visible text."""
        return str(await self.eval(SCREEN_TEXT) or "")

    async def key(self, key: str) -> None:
        """Type one key (a character, or Enter / Escape)."""
        await self.eval("document.querySelector('.xterm-helper-textarea')?.focus()")
        special = {"Enter": ("\r", 13), "Escape": ("", 27)}
        text, code = special.get(key, (key, ord(key.upper()) if len(key) == 1 else 0))
        down: dict[str, Any] = {"type": "keyDown", "key": key, "windowsVirtualKeyCode": code}
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", **down)
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, windowsVirtualKeyCode=code)

    async def ctrl(self, letter: str) -> None:
        """Type ctrl and a letter together (``ctrl("s")``), as a person's keyboard sends it."""
        await self.eval("document.querySelector('.xterm-helper-textarea')?.focus()")
        code = ord(letter.upper())
        for kind in ("rawKeyDown", "keyUp"):
            await self.send("Input.dispatchKeyEvent", type=kind, key=letter, code=f"Key{letter.upper()}",
                            windowsVirtualKeyCode=code, modifiers=2)

    async def png(self, whole: bool = False) -> bytes:
        """A PNG of the page: the viewport, or (``whole``) all of the page's layout."""
        data = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=whole)
        return base64.b64decode(data["data"])

    async def screenshot(self, path: Path) -> None:
        """A PNG of the page, written to ``path``."""
        path.write_bytes(await self.png())

    async def close(self) -> None:
        """Close the page's connection and end the browser."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
        if self.session is not None:
            await self.session.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.profile.cleanup()
