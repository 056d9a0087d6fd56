"""A raw-socket server on 127.0.0.1 that answers each HTTP request with whatever bytes a case
writes: hostile servers for the endpoint client's tests and deadline benchmark (malformed
status lines, truncated bodies, one byte every 0.2 s, silence). Every loop is bounded and
stops with :meth:`RawServer.close`."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

#: What a case does with a connection whose request has been read: (connection, stop event).
Act = Callable[[socket.socket, threading.Event], None]


def drip(conn: socket.socket, data: bytes, stop: threading.Event, every: float = 0.2) -> None:
    """Send ``data`` one byte every ``every`` seconds (bounded by its length; ends on stop)."""
    for i in range(len(data)):
        if stop.wait(every):
            return
        conn.sendall(data[i : i + 1])


class RawServer:
    """Accepts on 127.0.0.1, reads each request (headers and a Content-Length body), then runs
    ``act`` on the connection; ``requests`` counts the requests read, ``url`` is the /v1 base."""

    def __init__(self, act: Act) -> None:
        self.act, self.stop = act, threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.requests = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < min(length, 1 << 22):
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    body += chunk
                self.requests += 1
                self.act(conn, self.stop)
            except OSError:
                pass  # the client hung up: what these cases expect

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(timeout=5)


__all__ = ["Act", "RawServer", "drip"]
