"""One deadline for the whole of a request's arrival (request line, headers and body).

Why: a socket timeout bounds each read, not their sum, so a client that sends its request line and
headers one byte every few seconds never trips it and holds a server thread (and its socket) for
ever. :class:`DeadlineReader` gives every read only the time left until the request's deadline and
raises ``TimeoutError`` once it has passed, which ``BaseHTTPRequestHandler`` answers by closing
the connection (a late body gets the handler's own 408).
"""

from __future__ import annotations

import io
import math
import socket
import time


class DeadlineReader(io.RawIOBase):
    """A socket's reads, each waiting at most until the deadline :meth:`start` set; writes keep the
    socket's own timeout, ``seconds``, which every read restores."""

    def __init__(self, connection: socket.socket, seconds: float) -> None:
        super().__init__()
        self._connection = connection
        self._raw = connection.makefile("rb", buffering=0)
        self.seconds = seconds
        self.deadline = math.inf

    def start(self) -> None:
        """A new request: it has ``seconds`` to arrive in full."""
        self.deadline = time.monotonic() + self.seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int | None:  # type: ignore[override]
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request did not arrive within {self.seconds:g} seconds")
        self._connection.settimeout(min(left, self.seconds))
        try:
            return self._raw.readinto(buffer)
        finally:
            self._connection.settimeout(self.seconds)

    def close(self) -> None:
        self._raw.close()
        super().close()


def deadline_rfile(connection: socket.socket, seconds: float) -> io.BufferedReader:
    """A buffered ``rfile`` over :class:`DeadlineReader` (its ``raw.start()`` begins a request)."""
    return io.BufferedReader(DeadlineReader(connection, seconds))
