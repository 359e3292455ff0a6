"""A bare-socket HTTP server for judge tests that need replies no real server library would send
(a body cut short of its ``Content-Length``) or need to see when the client closes a connection."""

from __future__ import annotations

import socket
import threading


class RawServer:
    """Accepts connections on 127.0.0.1 and hands each to :meth:`answer` on its own thread."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.opened = 0
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        """The OpenAI-style base URL litellm is given."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the test is over
                return
            self.opened += 1
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn: socket.socket) -> None:
        """Serve one connection (each test's server says how)."""
        raise NotImplementedError

    @staticmethod
    def read_request(conn: socket.socket, data: bytes = b"") -> tuple[bytes, bytes] | None:
        """One request's body and the bytes after it (``data``: bytes already read), or None when
        the client closed the connection first."""
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                return None
            data += more
        head, _, data = data.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        while len(data) < length:
            data += conn.recv(65536)
        return data[:length], data[length:]

    def stop(self) -> None:
        """Stop accepting connections."""
        self.sock.close()
