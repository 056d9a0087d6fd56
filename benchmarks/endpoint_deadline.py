"""The endpoint client's worst-case time against servers that drip or stall, beside its deadline.

A loopback server answers every request by dripping one byte every 0.2 s (the status line, the
body, or a chunked body), or by sending headers and then nothing. Printed: for each deadline,
the worst wall time of ``ChatClient.complete`` past the deadline (with CPU time beside it), and
the wall time of ``evaluate_openai`` on a tiny suite (3 tasks, concurrency 3) against the
status-line drip, whose bound is the per-task deadline plus env set-up.

    python benchmarks/endpoint_deadline.py [--deadlines 1.5,5] [--repeats 2]
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time

from searchgym.harness.chat_client import ChatClient, EndpointConfig
from searchgym.harness.openai_agent import evaluate_openai, reply_from_body
from searchgym.suites import Suite, register_suite

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
BODY = b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}'
CASES = {
    "drip status line": (b"", HEAD + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY),
    "drip body": (HEAD + b"Content-Length: 1000\r\n\r\n", b"x" * 1000),
    "drip chunked body": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n", b"1\r\nx\r\n" * 500),
    "headers then silence": (HEAD + b"Content-Length: 100\r\n\r\n", b""),
}


class DripServer:
    """Sends ``prefix`` at once, then ``dripped`` one byte every 0.2 s (bounded by its length)."""

    def __init__(self, prefix: bytes, dripped: bytes) -> None:
        self.prefix, self.dripped, self.stop = prefix, dripped, threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        threading.Thread(target=self._serve, daemon=True).start()

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
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                conn.recv(1 << 20)
                conn.sendall(self.prefix)
                for i in range(len(self.dripped)):
                    if self.stop.wait(0.2):
                        return
                    conn.sendall(self.dripped[i : i + 1])
                self.stop.wait(30 if not self.dripped else 0)
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadlines", default="1.5,5")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"{'deadline s':>10}  {'case':<22}{'worst wall s':>13}{'past deadline ms':>18}{'CPU ms':>8}")
    for deadline in (float(d) for d in args.deadlines.split(",")):
        for name, (prefix, dripped) in CASES.items():
            worst_wall = worst_cpu = 0.0
            for _ in range(args.repeats):
                server = DripServer(prefix, dripped)
                client = ChatClient(EndpointConfig("m", server.url, timeout=deadline, retries=3), reply_from_body)
                wall, cpu = time.monotonic(), time.process_time()
                reply = client.complete([{"role": "user", "content": "hi"}], None, wall + deadline)
                worst_wall = max(worst_wall, time.monotonic() - wall)
                worst_cpu = max(worst_cpu, time.process_time() - cpu)
                server.close()
                assert reply.error, reply
            print(f"{deadline:>10.1f}  {name:<22}{worst_wall:>13.3f}{(worst_wall - deadline) * 1e3:>18.1f}"
                  f"{worst_cpu * 1e3:>8.1f}")
    suite = register_suite(Suite("bench-endpoint-deadline-v0", 0, "SearchQA-v0", {"max_steps": 4}, world_size="tiny",
                                 dev_size=1, test_size=3), replace=True)
    server = DripServer(*CASES["drip status line"])
    deadline = max(float(d) for d in args.deadlines.split(","))
    start = time.monotonic()
    evaluate_openai(suite, "m", server.url, concurrency=3, timeout=deadline, out_dir=tempfile.mkdtemp())
    print(f"evaluate_openai, 3 tasks at concurrency 3, per-task deadline {deadline} s, status-line drip: "
          f"{time.monotonic() - start:.2f} s wall")
    server.close()


if __name__ == "__main__":
    main()
