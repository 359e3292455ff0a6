"""The loopback judge server's connections have TCP_NODELAY (no reply's last segment waits for
an ACK, so a benchmark measures the scripted delay), set by aiohttp/asyncio on every accepted
TCP socket: the server does not set it itself."""

from __future__ import annotations

import json
import socket
import urllib.request

from aiohttp import web

from tests.judge.loopback import LoopbackServer


class _Probe(LoopbackServer):
    """The loopback server with one more route: the TCP_NODELAY of the connection asking."""

    def routes(self, app: web.Application) -> None:
        super().routes(app)
        app.router.add_get("/nodelay", self._nodelay)

    async def _nodelay(self, request: web.Request) -> web.Response:
        sock = request.transport.get_extra_info("socket") if request.transport is not None else None
        value = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) if sock is not None else None
        return web.json_response({"nodelay": value})


def test_the_loopback_servers_connections_have_tcp_nodelay() -> None:
    server = _Probe().start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/nodelay", timeout=10) as reply:
            said = json.load(reply)
    finally:
        server.stop()
    assert said["nodelay"] not in (None, 0)
    # a socket accepted without aiohttp reads 0: the probe sees the option, not a default
    with socket.create_server(("127.0.0.1", 0)) as listener, socket.create_connection(listener.getsockname()):
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
