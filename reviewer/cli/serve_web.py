"""The web server of ``rubricate serve``: the review app in a browser, one session per visitor,
through textual-serve (each websocket runs :func:`reviewer.tui.run.session` as a process of its own).

Every URL but the static assets holds a link's token (``/l/TOKEN`` for the page, ``/l/TOKEN/ws``
for its session). A request with no token is answered 401 and one with a token that opens no live
link 403, before any session is given out: no app runs, nothing is written. A session gets the
token (in its environment, or on the standard input of the spare started ahead for the next
visitor: never on a command line) and opens the store through it, so it signs as the link's
person only and marks its rows as written through the link.

The page loads nothing but this server: textual-serve's own page pulls its font from Google Fonts,
so the page here is ours — the same terminal and script, the font taken from the package's own
static files, and a Content-Security-Policy that lets the browser reach this server alone.
"""

from __future__ import annotations

import asyncio
import html
import ipaddress
import json
import logging
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import WSMsgType, web

from reviewer.errors import UserError
from reviewer.locations import LINK_TOKEN_ENV
from reviewer.safetext import safe_line

if TYPE_CHECKING:
    from asyncio.subprocess import Process

    from textual_serve.app_service import AppService

    from reviewer.store.core import Store

log = logging.getLogger("rubricate.serve")

#: What the page may load: this server only (the websocket included), nothing inline but the
#: page's own two handlers and styles.
CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "font-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
           "X-Content-Type-Options": "nosniff"}
NO_TOKEN = "401: this server opens only with a link (ask a lead for yours: rubricate serve link NAME)\n"
BAD_TOKEN = "403: this link is not valid (unknown, revoked or expired): ask a lead for a new one\n"

PAGE = """<!DOCTYPE html>
<html>
  <head>
    <meta charset="utf-8">
    <title>{title}</title>
    <link rel="stylesheet" href="/static/css/xterm.css" />
    <script src="/static/js/textual.js"></script>
    <style>
      @font-face {{ font-family: "Roboto Mono"; font-style: normal;
        src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }}
      @font-face {{ font-family: "Roboto Mono"; font-style: italic;
        src: url("/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }}
      body {{ background: #0c181f; margin: 0; }}
      .dialog-container {{ position: absolute; width: 100vw; height: 100vh; display: flex;
        align-items: center; justify-content: center; z-index: 10; }}
      .intro {{ width: 640px; height: 160px; font-size: 16px; z-index: 20;
        font-family: "Roboto Mono", menlo, monospace; text-align: center; color: rgba(255, 255, 255, 0.95);
        background-color: #12232d; display: flex; align-items: center; justify-content: center; }}
      body.-first-byte .intro-dialog {{ display: none; }}
      body .textual-terminal {{ opacity: 0; }}
      body.-first-byte .textual-terminal {{ opacity: 1; }}
      .closed-dialog {{ display: none; }}
      body.-closed .closed-dialog {{ display: flex; }}
      button {{ padding: 16px 32px; background-color: #5e0ba7; color: rgba(255, 255, 255, 0.95);
        border: none; font-family: "Roboto Mono", menlo, monospace; margin: 16px; }}
    </style>
    <script>
      function restart() {{ window.location.href = window.location.pathname; }}
    </script>
  </head>
  <body>
    <div class="dialog-container intro-dialog"><div class="intro"><div>{title}</div></div></div>
    <div class="dialog-container closed-dialog">
      <div class="intro"><div class="message">Session ended.</div>
        <button type="button" onClick="restart()">Restart</button></div>
    </div>
    <div id="terminal" class="textual-terminal" data-session-websocket-url="{ws_url}"
      data-font-size="{font_size}"></div>
  </body>
</html>
"""


def check_host(host: str, behind_proxy: bool) -> None:
    """Refuse a host that is not loopback unless the operator says a TLS proxy is in front."""
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not behind_proxy:
        raise UserError(f"--host {host}: not a loopback address, and this server speaks plain HTTP: serve "
                        "beyond this machine only behind a reverse proxy with TLS, and say so with --behind-proxy")


def session_command(db: str, name: str) -> str:
    """The shell command textual-serve runs for one visitor (its environment holds the token)
    when no spare session is ready."""
    return (f"exec {shlex.quote(sys.executable)} -m reviewer.tui.run --db {shlex.quote(db)} "
            f"--reviewer {shlex.quote(name)}")


def session_environment() -> dict[str, str]:
    """A session's environment as textual-serve builds it (its web driver, colours), 80×24."""
    from textual_serve.app_service import AppService
    from textual_serve.download_manager import DownloadManager

    async def nothing(*_: object) -> None:
        return None

    service = AppService("", write_bytes=nothing, write_str=nothing, close=nothing,
                         download_manager=DownloadManager())
    env = service._build_environment(80, 24)
    env.pop(LINK_TOKEN_ENV, None)
    return env


async def relay(socket: web.WebSocketResponse, service: AppService) -> None:
    """The browser's messages to the app process (textual-serve's protocol: keys and pastes on
    ``stdin``, ``resize``, ``ping``, ``focus`` and ``blur``); anything else is ignored."""
    async for message in socket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        except (ValueError, TypeError, IndexError, KeyError):
            continue
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            await service.set_terminal_size(int(data.get("width", 80)), int(data.get("height", 24)))
        elif kind == "ping":
            await socket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


class LinkServer:
    """The aiohttp application: the page and the session behind each live link."""

    def __init__(self, store: Store, db: str, *, behind_proxy: bool = False, title: str = "rubricate") -> None:
        import textual_serve

        self.store = store
        self.db = db
        self.behind_proxy = behind_proxy
        self.title = title
        self.statics = Path(textual_serve.__file__).parent / "static"
        self.sessions: set[AppService] = set()
        #: a session started ahead for the next visitor (:func:`reviewer.tui.run.spare`)
        self.spare: Process | None = None
        self._refill: asyncio.Task[None] | None = None

    def make_app(self) -> web.Application:
        """The routes: the page and its websocket per token, the package's static assets."""
        app = web.Application()
        app.add_routes([
            web.get("/", self.no_token),
            web.get("/l/{token}", self.page),
            web.get("/l/{token}/ws", self.websocket),
            web.static("/static", self.statics),
        ])
        app.on_response_prepare.append(self._headers)
        app.on_startup.append(self._start_spare)
        app.on_shutdown.append(self._stop_sessions)
        return app

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        for key, value in HEADERS.items():
            response.headers.setdefault(key, value)

    async def no_token(self, request: web.Request) -> web.Response:
        """401: the server opens only with a link."""
        return web.Response(status=401, text=NO_TOKEN)

    async def person(self, request: web.Request) -> str | None:
        """The person the request's token acts for (read off the event loop), else None."""
        token = request.match_info["token"]
        return await asyncio.get_running_loop().run_in_executor(None, self.store.links.link_person, token)

    async def page(self, request: web.Request) -> web.Response:
        """The page for a live link; 403 otherwise."""
        if await self.person(request) is None:
            return web.Response(status=403, text=BAD_TOKEN)
        proto = request.headers.get("X-Forwarded-Proto", "") if self.behind_proxy else ""
        scheme = "wss" if (proto or request.scheme) == "https" else "ws"
        ws_url = f"{scheme}://{request.host}/l/{request.match_info['token']}/ws"
        font_size = request.query.get("fontsize", "16")
        body = PAGE.format(title=html.escape(self.title), ws_url=html.escape(ws_url, quote=True),
                           font_size=font_size if font_size.isdigit() and 6 <= int(font_size) <= 48 else "16")
        return web.Response(text=body, content_type="text/html")

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """The session of a live link: refused (403) before the websocket opens otherwise."""
        found = await self.person(request)
        if found is None:
            return web.Response(status=403, text=BAD_TOKEN)
        name: str = found  # (the class below reads it: a narrowed name would not stay narrowed there)
        from textual_serve.app_service import AppService
        from textual_serve.download_manager import DownloadManager
        from textual_serve.server import to_int

        token = request.match_info["token"]
        server = self

        class LinkSession(AppService):
            """One visitor's app process: the spare, handed the visitor's line, or a new process
            with the link's token in its environment."""

            def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
                env = super()._build_environment(width, height)
                env[LINK_TOKEN_ENV] = token
                return env

            async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
                process = await server.take_spare({"token": token, "reviewer": name, "width": width,
                                                   "height": height})
                if process is None:
                    return await super()._open_app_process(width, height)
                assert process.stdin is not None
                self._process, self._stdin = process, process.stdin
                return process

            async def close_process(self) -> None:
                """After :meth:`stop`: close the ended process's input and reap it (textual-serve
                leaves both open)."""
                if self._process is not None:
                    if self._process.stdin is not None:
                        self._process.stdin.close()
                    await self._process.wait()

        socket = web.WebSocketResponse(heartbeat=15)
        await socket.prepare(request)

        async def close() -> None:
            await socket.close()

        service = LinkSession(session_command(self.db, name), write_bytes=socket.send_bytes,
                              write_str=socket.send_str, close=close,
                              download_manager=DownloadManager())
        self.sessions.add(service)
        try:
            await service.start(to_int(request.query.get("width", "80"), 80),
                                to_int(request.query.get("height", "24"), 24))
            await relay(socket, service)
        except asyncio.CancelledError:
            await socket.close()
        except Exception as exc:  # one visitor's failure never stops the server
            log.warning(safe_line(f"session for {name} ended: {exc or type(exc).__name__}"))
        finally:
            self.sessions.discard(service)
            await service.stop()
            await service.close_process()
        return socket

    async def _start_spare(self, app: web.Application | None = None) -> None:
        """Start the next spare session (its modules load while nobody waits)."""
        self.spare = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "reviewer.tui.run", "--spare", "--db", self.db,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=session_environment())

    async def take_spare(self, visitor: dict[str, str | int]) -> Process | None:
        """The spare session, given its visitor (None when there is none alive); the next one
        starts behind it."""
        process, self.spare = self.spare, None
        if process is None or process.returncode is not None or process.stdin is None:
            return None
        process.stdin.write(json.dumps(visitor).encode("utf-8") + b"\n")
        await process.stdin.drain()
        self._refill = asyncio.create_task(self._start_spare())
        return process

    async def _stop_sessions(self, app: web.Application) -> None:
        for service in list(self.sessions):
            await service.stop()
        if self._refill is not None:
            await self._refill
        spare, self.spare = self.spare, None
        if spare is not None:
            if spare.returncode is None:
                spare.kill()
            if spare.stdin is not None:
                spare.stdin.close()
            await spare.wait()


def run(store: Store, db: str, host: str, port: int, behind_proxy: bool) -> None:
    """Serve until interrupted (Ctrl+C or SIGTERM)."""
    server = LinkServer(store, db, behind_proxy=behind_proxy)
    print(safe_line(f"serving the review app on http://{host}:{port}/ — open it with a link "
                    "(rubricate serve link NAME); Ctrl+C stops"), file=sys.stderr, flush=True)
    web.run_app(server.make_app(), host=host, port=port, access_log=None, print=None)
