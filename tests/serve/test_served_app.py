"""``rubricate serve`` for real: a served demo store, headless Chromium opening a link over the
DevTools protocol, keys typed in the browser; what the store holds afterwards. And the refusals:
no token, a wrong, revoked or expired one — the HTTP status, and nothing written."""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest

from tests.devtools import Browser
from tests.devtools import chromium as need_chromium
from tests.serve.served import ROOT, build, serving

#: Where the screenshot of the served item screen is kept for a person to look at (else the
#: test's temporary directory).
SHOTS = os.environ.get("RUBRICATE_TEST_SCREENS")


def counts(db: Path) -> tuple[int, ...]:
    """Rows in every table a session could write."""
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in (
            "human_score", "assignment", "item_comment", "item_reveal", "safety_flag", "safety_decision",
            "pair_choice", "reviewer", "lead_review", "span_mark"))


async def status(session: aiohttp.ClientSession, url: str) -> int:
    """The HTTP status of a GET."""
    async with session.get(url) as resp:
        return resp.status


async def ws_status(session: aiohttp.ClientSession, url: str) -> int:
    """The status the session's websocket handshake gets (101 when it opens)."""
    try:
        async with session.ws_connect(url.replace("http://", "ws://") + "/ws?width=80&height=24") as ws:
            await ws.close()
            return 101
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status


async def test_no_wrong_revoked_or_expired_token_is_refused_before_a_session(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    live = build(db)
    from reviewer.store import open_store

    store = open_store(str(db))
    try:
        revoked = store.links.add_link("ben", timedelta(days=1))
        store.links.revoke_links("ben")
        expired = store.links.add_link("chen", timedelta(days=1))
    finally:
        store.close()
    with sqlite3.connect(db) as conn:  # an expiry in the past, as time would make it
        conn.execute("UPDATE serve_link SET expires_at = '2020-01-01 00:00:00' WHERE name = 'chen'")
    before = counts(db)
    with serving(db) as base:
        async with aiohttp.ClientSession() as http:
            assert await status(http, f"{base}/") == 401
            for token in ("wrong", live[:-1] + ("A" if live[-1] != "A" else "B"), revoked, expired):
                assert await status(http, f"{base}/l/{token}") == 403, token
                assert await ws_status(http, f"{base}/l/{token}") == 403, token
            assert await status(http, f"{base}/l/{live}") == 200  # the live link opens (page only)
        await asyncio.sleep(0.5)  # a session started by mistake would have claimed an item by now
    assert counts(db) == before


def test_a_non_loopback_host_needs_behind_proxy(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    build(db)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "reviewer", "serve", "--db", str(db), "--host", "0.0.0.0"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "--behind-proxy" in lines[0] and "0.0.0.0" in lines[0], run.stderr


async def test_a_link_in_a_browser_scores_as_its_person_through_the_link(tmp_path: Path) -> None:
    chromium = need_chromium()
    db = tmp_path / "demo.db"
    token = build(db)
    with sqlite3.connect(db) as conn:
        assert token not in "".join(str(r) for r in conn.execute("SELECT * FROM serve_link"))  # only its hash
    with serving(db) as base:
        browser = Browser(chromium)
        await browser.start()
        try:
            await browser.open(f"{base}/l/{token}")
            assert "reviewer ana" in await browser.wait_text("reviewer ana")
            await browser.key("g")  # start reviewing: the first item of the queue, claimed for ana
            screen = await browser.wait_text("agree")
            await browser.wait_text("esc queue")  # the footer's keys painted too
            await asyncio.sleep(0.3)
            shots = Path(SHOTS) if SHOTS else tmp_path
            shots.mkdir(parents=True, exist_ok=True)
            await browser.screenshot(shots / "served_item.png")
            await browser.key("7")  # a score on the focused dimension
            for _ in range(200):
                with sqlite3.connect(db) as conn:
                    rows = conn.execute("SELECT reviewer, actor, via, score, kind FROM human_score "
                                        "WHERE via IS NOT NULL").fetchall()
                if rows:
                    break
                await asyncio.sleep(0.05)
            requests = list(browser.requests)
            before = counts(db)
            from reviewer.store import open_store

            lead = open_store(str(db))
            try:
                lead.links.revoke_links("ana")
            finally:
                lead.close()
            # the browser refused: no token, a wrong one, the revoked one (the page it had open too)
            assert await browser.status_of(f"{base}/") == 401
            assert await browser.status_of(f"{base}/l/{token[::-1]}") == 403
            assert await browser.status_of(f"{base}/l/{token}") == 403
            await asyncio.sleep(0.5)
        finally:
            await browser.close()
    assert counts(db) == before  # no row added by the refused requests
    assert rows == [("ana", "ana", "link", 7.0, "score")], screen
    with sqlite3.connect(db) as conn:  # the session's lease is ana's too
        assert conn.execute("SELECT DISTINCT reviewer FROM assignment WHERE state = 'active'").fetchall() == [("ana",)]
    assert requests and all(u.startswith(base + "/") for u in requests), requests  # nothing beyond the server


@pytest.mark.parametrize("args", [("--port", "0"), ("--port", "70000")])
def test_a_port_out_of_range_is_refused(tmp_path: Path, args: tuple[str, str]) -> None:
    run = subprocess.run([sys.executable, "-m", "reviewer", "serve", "--db", str(tmp_path / "x.db"), *args],
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=60)
    assert run.returncode == 2 and "--port" in run.stderr


@pytest.mark.parametrize("behind_proxy, proto, scheme", [(True, "https", "wss"), (False, "https", "ws"), (True, None, "ws")])
async def test_the_session_url_follows_the_proxy_only_when_told(tmp_path: Path, behind_proxy: bool,
                                                                proto: str | None, scheme: str) -> None:
    """Behind a TLS proxy the page's session is ``wss://``; ``X-Forwarded-Proto`` is believed only
    with ``--behind-proxy`` (anyone can send the header to a server reached directly)."""
    from aiohttp.test_utils import TestClient, TestServer

    from reviewer.cli.serve_web import LinkServer
    from reviewer.store import open_store

    db = tmp_path / "demo.db"
    token = build(db)
    store = open_store(str(db))
    client = TestClient(TestServer(LinkServer(store, str(db), behind_proxy=behind_proxy).make_app()))
    await client.start_server()
    try:
        resp = await client.get(f"/l/{token}", headers={"X-Forwarded-Proto": proto} if proto else {})
        page = await resp.text()
        assert resp.status == 200 and "connect-src 'self'" in resp.headers["Content-Security-Policy"]
        assert f'data-session-websocket-url="{scheme}://{resp.url.host}:{resp.url.port}/l/{token}/ws"' in page
        assert "googleapis" not in page and "http" not in page.replace(f"{scheme}://", "")  # nothing from elsewhere
    finally:
        await client.close()
        store.close()


async def test_a_session_starts_from_the_spare_and_afresh_when_there_is_none(tmp_path: Path) -> None:
    """The first visitor gets the session started ahead; with no spare alive (here: killed), a
    session starts afresh. Both draw the queue as the link's person."""
    from aiohttp.test_utils import TestClient, TestServer

    from reviewer.cli.serve_web import LinkServer
    from reviewer.store import open_store

    db = tmp_path / "demo.db"
    token = build(db)
    store = open_store(str(db))
    server = LinkServer(store, str(db))
    client = TestClient(TestServer(server.make_app()))
    await client.start_server()
    try:
        for spare in (True, False):
            for _ in range(600):  # the spare (re)started
                if server.spare is not None:
                    break
                await asyncio.sleep(0.05)
            assert server.spare is not None and server.spare.returncode is None
            if not spare:
                server.spare.kill()
                await server.spare.wait()
            async with asyncio.timeout(60), client.ws_connect(f"/l/{token}/ws?width=120&height=30") as ws:
                shown = ""
                while "reviewer ana" not in shown:
                    msg = await ws.receive(timeout=60)
                    assert msg.type == aiohttp.WSMsgType.BINARY, (msg, shown)
                    shown += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", msg.data.decode("utf-8", "replace"))
    finally:
        await client.close()
        store.close()


async def test_a_correction_typed_in_the_browser_is_saved_with_ctrl_s_as_the_links_person(tmp_path: Path) -> None:
    """``e`` opens the editor in the browser, typed text goes into it, and ``ctrl+s`` reaches the
    app (not the browser's "save page"): the correction lands signed by the link's person."""
    chromium = need_chromium()
    db = tmp_path / "demo.db"
    token = build(db)
    with serving(db) as base:
        browser = Browser(chromium)
        await browser.start()
        try:
            await browser.open(f"{base}/l/{token}")
            await browser.wait_text("reviewer ana")
            await browser.key("g")
            await browser.wait_text("esc queue")
            await browser.key("e")
            await browser.wait_text("should have given")
            for ch in "Fixed":  # (letters: the helper sends a character's code as its key code, and "." is Delete's)
                await browser.key(ch)
            await browser.wait_text("FixedAbout")  # typed into the editor, at its start
            await browser.ctrl("s")
            rows: list[tuple[str, str, str, str]] = []
            for _ in range(200):
                with sqlite3.connect(db) as conn:
                    rows = conn.execute("SELECT reviewer, actor, via, text FROM item_correction").fetchall()
                if rows:
                    break
                await asyncio.sleep(0.05)
        finally:
            await browser.close()
    assert [(r[0], r[1], r[2]) for r in rows] == [("ana", "ana", "link")] and rows[0][3].startswith("FixedAbout ")

