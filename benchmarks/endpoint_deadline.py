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
import tempfile
import time

from suite_arg import count, deadlines, describe

from searchgym.endpoint.chat_client import ChatClient, EndpointConfig
from searchgym.endpoint.openai_agent import evaluate_openai, reply_from_body
from searchgym.endpoint.raw_server import RawServer, drip
from searchgym.suites import Suite, register_suite

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
BODY = b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}'
CASES = {
    "drip status line": (b"", HEAD + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY),
    "drip body": (HEAD + b"Content-Length: 1000\r\n\r\n", b"x" * 1000),
    "drip chunked body": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n", b"1\r\nx\r\n" * 500),
    "headers then silence": (HEAD + b"Content-Length: 100\r\n\r\n", b""),
}


def drip_server(prefix: bytes, dripped: bytes) -> RawServer:
    """Sends ``prefix`` at once, then ``dripped`` one byte every 0.2 s (bounded by its length)."""

    def act(conn, stop) -> None:
        conn.sendall(prefix)
        drip(conn, dripped, stop)
        stop.wait(30 if not dripped else 0)

    return RawServer(act)


def main() -> None:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--deadlines", type=deadlines, default=[1.5, 5.0],
                        help="comma list of seconds (default 1.5,5)")
    parser.add_argument("--repeats", type=count, default=2,
                        help="requests per deadline and case; the worst is printed (default 2)")
    args = parser.parse_args()
    print(f"{'deadline s':>10}  {'case':<22}{'worst wall s':>13}{'past deadline ms':>18}{'CPU ms':>8}")
    for deadline in args.deadlines:
        for name, (prefix, dripped) in CASES.items():
            worst_wall = worst_cpu = 0.0
            for _ in range(args.repeats):
                server = drip_server(prefix, dripped)
                try:
                    client = ChatClient(EndpointConfig("m", server.url, timeout=deadline, retries=3), reply_from_body)
                    wall, cpu = time.monotonic(), time.process_time()
                    reply = client.complete([{"role": "user", "content": "hi"}], None, wall + deadline)
                    worst_wall = max(worst_wall, time.monotonic() - wall)
                    worst_cpu = max(worst_cpu, time.process_time() - cpu)
                finally:
                    server.close()
                assert reply.error, reply
            print(f"{deadline:>10.1f}  {name:<22}{worst_wall:>13.3f}{(worst_wall - deadline) * 1e3:>18.1f}"
                  f"{worst_cpu * 1e3:>8.1f}")
    suite = register_suite(Suite("bench-endpoint-deadline-v0", 0, "SearchQA-v0", {"max_steps": 4}, world_size="tiny",
                                 dev_size=1, test_size=3), replace=True)
    server = drip_server(*CASES["drip status line"])
    deadline = max(args.deadlines)
    # Removed on success and on failure (before: a mkdtemp folder was left in /tmp by every run).
    with tempfile.TemporaryDirectory(prefix="endpoint-deadline-") as out_dir:
        try:
            start = time.monotonic()
            evaluate_openai(suite, "m", server.url, concurrency=3, timeout=deadline, out_dir=out_dir)
        finally:
            server.close()
    print(f"evaluate_openai, 3 tasks at concurrency 3, per-task deadline {deadline} s, status-line drip: "
          f"{time.monotonic() - start:.2f} s wall")


if __name__ == "__main__":
    main()
