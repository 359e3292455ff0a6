"""A real browser for the page tests: headless Chromium driven over the DevTools protocol (a
websocket from aiohttp). It loads a file, records every console error, uncaught exception and
request, measures every ``<svg>`` the page lays out, and saves a screenshot."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.serve.cdp import chromium_path


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


@dataclass
class Rendered:
    """What the browser saw on one page."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    #: (id, width, height) of every svg element, in CSS pixels as laid out
    svgs: list[tuple[str, float, float]] = field(default_factory=list)
    png: bytes = b""


class _Session:
    def __init__(self, ws: Any, session: str | None = None) -> None:
        self.ws, self.session, self.next_id = ws, session, 0
        self.events: list[dict[str, Any]] = []

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        await self.ws.send_str(json.dumps(msg))
        while True:
            reply = json.loads((await self.ws.receive(timeout=60)).data)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    async def until(self, method: str) -> None:
        if any(e.get("method") == method for e in self.events):
            return
        while True:
            event = json.loads((await self.ws.receive(timeout=60)).data)
            self.events.append(event)
            if event.get("method") == method:
                return


async def _render(exe: str, url: str, width: int, height: int) -> Rendered:
    import aiohttp

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # (chromium's helpers may still write the profile as it is removed)
        proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-default-apps", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            endpoint = None
            for line in proc.stderr:
                found = re.search(r"DevTools listening on (ws://\S+)", line)
                if found:
                    endpoint = found.group(1)
                    break
            assert endpoint, "Chromium printed no DevTools endpoint"
            async with aiohttp.ClientSession() as http, http.ws_connect(endpoint, max_msg_size=0) as ws:
                browser = _Session(ws)
                target = (await browser.call("Target.createTarget", url="about:blank"))["targetId"]
                sid = (await browser.call("Target.attachToTarget", targetId=target, flatten=True))["sessionId"]
                page = _Session(ws, sid)
                page.events = browser.events
                for domain in ("Page", "Runtime", "Log", "Network"):
                    await page.call(f"{domain}.enable")
                await page.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                                deviceScaleFactor=1, mobile=False)
                await page.call("Page.navigate", url=url)
                await page.until("Page.loadEventFired")
                # (that load event may be about:blank's, the tab's first page: wait for this one's)
                for _ in range(300):
                    state = await page.call("Runtime.evaluate", returnByValue=True,
                                            expression="[document.URL, document.readyState]")
                    if state["result"]["value"] == [url, "complete"]:
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError(f"{url} did not finish loading")
                sizes = await page.call("Runtime.evaluate", returnByValue=True, expression=(
                    "[...document.querySelectorAll('svg')].map(s => {const r = s.getBoundingClientRect();"
                    " return [s.id, r.width, r.height]})"))
                shot = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
                out = Rendered(svgs=[(str(s[0]), float(s[1]), float(s[2])) for s in sizes["result"]["value"]],
                               png=base64.b64decode(shot["data"]))
                for e in page.events:
                    m, p = e.get("method"), e.get("params", {})
                    if m == "Network.requestWillBeSent" and p["request"]["url"] != url:
                        out.requests.append(p["request"]["url"])
                    elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                        out.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
                    elif m == "Runtime.exceptionThrown":
                        out.errors.append(p["exceptionDetails"].get("text", "exception"))
                    elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                        out.errors.append(p["entry"]["text"])
                return out
        finally:
            proc.kill()
            proc.wait()


def render(path: Path, png: Path | None = None, width: int = 1400, height: int = 4000) -> Rendered:
    """Open ``path`` in headless Chromium at ``width`` × ``height``; the screenshot goes to ``png``."""
    out = asyncio.run(_render(chromium(), path.resolve().as_uri(), width, height))
    if png is not None:
        png.write_bytes(out.png)
    return out
