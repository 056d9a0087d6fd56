"""The endpoint transport against hostile servers on 127.0.0.1: one deadline bounds connect,
headers, body and retries, and every transport error comes back as a failed reply, never raised.

Each scripted server answers the raw bytes of one hostile case (malformed status line, too many
or too long headers, truncated or malformed chunked bodies, dripping one byte every 0.2 s,
silence, resets); every loop in it is bounded, and it stops when the test ends.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.endpoint.chat_client import ChatClient, EndpointConfig
from searchgym.endpoint.openai_agent import evaluate_openai, reply_from_body
from searchgym.endpoint.raw_server import RawServer, drip
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-chat-client-v0", 0, "SearchQA-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=1, test_size=3, description="tests: the endpoint transport"))
TIMEOUT = 1.5  # the per-task deadline these tests give the client
SLACK = 2.0  # what a loaded machine may add past it (thread start, env steps); a drip runs for 30 s
OK_BODY = b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}'
STATUS_OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


def send(payload: bytes) -> Callable[[socket.socket, threading.Event], None]:
    return lambda conn, stop: conn.sendall(payload)


def then_hang(payload: bytes) -> Callable[[socket.socket, threading.Event], None]:
    def act(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(payload)
        stop.wait(30)
    return act


def reset(conn: socket.socket, stop: threading.Event) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


HOSTILE: dict[str, Callable[[socket.socket, threading.Event], None]] = {
    "malformed status line": send(b"HTTP/1.1 OK-ish\r\n\r\n"),
    "not HTTP at all": send(b"hello there, I am not a web server\r\n\r\n"),
    "over 100 headers": send(STATUS_OK + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n"),
    "a 70 kB header line": send(STATUS_OK + b"X-Big: " + b"a" * 70_000 + b"\r\n\r\n"),
    "truncated chunked body": send(STATUS_OK + b"Transfer-Encoding: chunked\r\n\r\n100\r\nabc"),
    "malformed chunk size": send(STATUS_OK + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
    "body shorter than its length": send(STATUS_OK + b"Content-Length: 1000\r\n\r\n" + OK_BODY),
    "closes before answering": send(b""),
    "resets the connection": reset,
    "drips the status line": lambda conn, stop: drip(conn, STATUS_OK + b"Content-Length: 61\r\n\r\n" + OK_BODY, stop),
    "drips the body": lambda conn, stop: (conn.sendall(STATUS_OK + b"Content-Length: 1000\r\n\r\n"),
                                          drip(conn, b"x" * 1000, stop)),
    "drips a chunked body": lambda conn, stop: (conn.sendall(STATUS_OK + b"Transfer-Encoding: chunked\r\n\r\n"),
                                                drip(conn, b"1\r\nx\r\n" * 500, stop)),
    "never answers": then_hang(b""),
    "headers, then silence": then_hang(STATUS_OK + b"Content-Length: 100\r\n\r\n"),
    "no length, never closes": then_hang(b"HTTP/1.0 200 OK\r\n\r\n" + OK_BODY[:20]),
    "500 every time": send(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"),
    "error object every time": send(STATUS_OK + b'Content-Length: 24\r\n\r\n{"error": {"code": 503}}'),
}


@pytest.fixture
def raw_server():
    servers: list[RawServer] = []

    def start(act: Callable[[socket.socket, threading.Event], None]) -> RawServer:
        servers.append(RawServer(act))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def client(url: str, retries: int = 3) -> ChatClient:
    return ChatClient(EndpointConfig("m", url, timeout=TIMEOUT, retries=retries, backoff=0.05), reply_from_body)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_every_hostile_reply_is_a_failed_reply_within_the_deadline(raw_server, case) -> None:
    server = raw_server(HOSTILE[case])
    start = time.monotonic()
    reply = client(server.url).complete([{"role": "user", "content": "hi"}], None, start + TIMEOUT)
    elapsed = time.monotonic() - start
    assert reply.error, reply
    assert reply.action == "" or reply.action.startswith("(the endpoint refused")
    assert elapsed < TIMEOUT + SLACK, (case, elapsed)
    assert server.requests >= 1


def test_a_refused_connection_is_retried_then_a_failed_reply() -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    reply = client(f"http://127.0.0.1:{port}/v1", retries=2).complete([], None, time.monotonic() + TIMEOUT)
    assert reply.attempts == 3 and "ConnectionRefusedError" in reply.error


def test_after_a_request_got_no_reply_the_next_ones_try_once_until_one_is_answered(raw_server) -> None:
    """Before: against a server that was not there every request waited out its backoff (3.5 s with the
    defaults, 24 requests a task): about an hour for a 300-task suite to say that nothing listened."""
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    down = client(f"http://127.0.0.1:{port}/v1", retries=3)
    first = down.complete([], None, time.monotonic() + TIMEOUT)
    later = [down.complete([], None, time.monotonic() + TIMEOUT) for _ in range(3)]
    assert first.attempts == 4 and [r.attempts for r in later] == [1, 1, 1]
    assert all("gave up after 1 attempts (ConnectionRefusedError" in r.error for r in later)
    answers: list[int] = []

    def answer_from_the_second(conn: socket.socket, stop: threading.Event) -> None:
        answers.append(1)
        conn.sendall(STATUS_OK + b"Content-Length: %d\r\n\r\n" % len(OK_BODY) + OK_BODY if len(answers) > 1
                     else b"HTTP/1.1 OK-ish\r\n\r\n")

    up = client(raw_server(answer_from_the_second).url)
    up.unreachable = True  # as after a request that got no reply
    assert up.complete([], None, time.monotonic() + TIMEOUT).attempts == 1  # one try, a bad reply
    assert up.complete([], None, time.monotonic() + TIMEOUT).error is None and not up.unreachable
    assert up.complete([], None, time.monotonic() + TIMEOUT).error is None


def test_a_good_reply_after_a_hostile_one_is_read(raw_server) -> None:
    calls: list[int] = []

    def flaky(conn: socket.socket, stop: threading.Event) -> None:
        calls.append(1)
        if len(calls) == 1:
            conn.sendall(b"HTTP/1.1 OK-ish\r\n\r\n")
        else:
            conn.sendall(STATUS_OK + b"Content-Length: %d\r\n\r\n" % len(OK_BODY) + OK_BODY)

    server = raw_server(flaky)
    reply = client(server.url).complete([], None, time.monotonic() + TIMEOUT)
    assert (reply.action, reply.error, reply.attempts) == ("<answer>x</answer>", None, 2)


def test_evaluate_against_a_dripping_server_ends_within_the_deadline(raw_server, tmp_path: Path) -> None:
    server = raw_server(HOSTILE["drips the status line"])
    start = time.monotonic()
    predictions = evaluate_openai(SUITE, "m", server.url, concurrency=3, timeout=TIMEOUT, retries=2,
                                  out_dir=tmp_path / "pool")
    assert time.monotonic() - start < TIMEOUT + SLACK + 3.0  # + making three envs on a loaded machine
    assert len(predictions) == 3 and not any(p.success for p in predictions)


def test_the_evaluate_command_against_a_server_that_never_answers_ends(raw_server, tmp_path: Path) -> None:
    server = raw_server(HOSTILE["never answers"])
    out = tmp_path / "run"
    start = time.monotonic()
    code = main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", server.url,
                 "--agent-option", f"timeout={TIMEOUT}", "--agent-option", "retries=2", "--concurrency", "3",
                 "--out", str(out), "--no-progress"])
    elapsed = time.monotonic() - start
    # no reply at all is no measurement: not DONE, no scores, exit 1 (a re-run evaluates again)
    assert code == 1 and not (out / "DONE").exists() and not (out / "result.json").exists()
    assert elapsed < 2 * TIMEOUT + SLACK + 5.0, elapsed  # two splits (test, dev), each one wave of the pool


def test_an_http_error_keeps_the_servers_message_and_the_advice_fits_it(raw_server, tmp_path: Path, capsys) -> None:
    """Before: "HTTP 404" alone, and "check --base-url and that the server is running" for a server that
    answered that the model does not exist."""
    body = b'{"error": {"message": "The model `m` does not exist.\\nTry another.", "type": "invalid_request_error"}}'
    server = raw_server(send(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                             % len(body) + body))
    reply = client(server.url).complete([{"role": "user", "content": "hi"}], None, time.monotonic() + TIMEOUT)
    assert reply.error == "HTTP 404: The model `m` does not exist. Try another."
    out = tmp_path / "run"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", server.url,
                 "--agent-option", f"timeout={TIMEOUT}", "--out", str(out), "--no-progress"]) == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "(e.g. HTTP 404: The model `m` does not exist. Try another.)" in line
    assert "check --model, the API key" in line and "check --base-url" not in line


def test_the_clients_of_a_pool_share_what_a_request_found() -> None:
    """Before: a pool made one client per task, each with its own flag, so every task's first request
    waited out every retry: 4.5 minutes for `evaluate --agent openai` to say nothing listened."""
    from searchgym.endpoint.openai_agent import run_pool
    from searchgym.suites import get_suite

    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    config = EndpointConfig("m", f"http://127.0.0.1:{port}/v1", timeout=TIMEOUT, retries=3, backoff=0.2)
    predictions, actors = run_pool(get_suite("searchqa-text-v2"), "dev", config, concurrency=1, limit=4)
    attempts = [turn["attempts"] for a in actors for t in a.transcripts for turn in t["turns"]]
    assert len(predictions) == 4 and len(attempts) > 4
    assert attempts[0] == 4 and set(attempts[1:]) == {1}  # one request paid the retries; the rest tried once
    assert len({id(a.client.reachability) for a in actors}) == 1


def test_a_reply_longer_than_the_limit_says_so_and_spares_the_retries(raw_server) -> None:
    """Before: cut at MAX_BODY_BYTES, then "reply is not JSON", retried, and the server was taken for
    unreachable ("check --base-url, that the server is running") though it had answered."""
    from searchgym.endpoint.chat_client import MAX_BODY_BYTES

    body = b'{"choices": [{"message": {"content": "' + b"x" * MAX_BODY_BYTES + b'"}}]}'
    server = raw_server(send(STATUS_OK + b"Content-Length: %d\r\n\r\n" % len(body) + body))
    long = client(server.url)
    reply = long.complete([], None, time.monotonic() + TIMEOUT)
    assert reply.attempts == 1 and reply.error.startswith("the reply is longer than 4 MiB, more than any action")
    assert not long.unreachable
