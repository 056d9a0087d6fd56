"""A server that accepts connections and never answers is found out after a few tasks, not after every
task's whole timeout. Before: each task waited its full per-task timeout (about 75 minutes for a run at
the default settings before the error); only refused connections were found out quickly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from searchgym.cli import main
from searchgym.endpoint import chat_client
from searchgym.endpoint.chat_client import ChatClient, EndpointConfig, Reachability
from searchgym.endpoint.chat_replies import reply_from_body
from searchgym.fileio import read_jsonl
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-endpoint-fix-stall-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=6, description="tests: a stalling endpoint"))
STALLED_TASKS = 3  # the number docs/llm.md gives
GOOD = b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}'


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[int], bool]], tuple[str, list[int]]]]:
    """A server that answers request n at once when ``answers(n)``, else holds it until the test ends."""
    servers: list[ThreadingHTTPServer] = []
    release = threading.Event()

    def start(answers: Callable[[int], bool]) -> tuple[str, list[int]]:
        seen: list[int] = []
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    seen.append(len(seen))
                    n = seen[-1]
                if not answers(n):
                    release.wait(30)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(GOOD)))
                self.end_headers()
                self.wfile.write(GOOD)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1", seen

    yield start
    release.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def evaluate(url: str, out, timeout: float) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", url,
                 "--out", str(out), "--no-progress", "--concurrency", "1", "--agent-option", f"timeout={timeout}",
                 "--agent-option", "retries=0"])


def test_a_server_that_never_answers_is_cut_off_after_a_few_tasks(serve, tmp_path, capsys) -> None:
    url, seen = serve(lambda n: False)
    out = tmp_path / "run"
    start = time.monotonic()
    assert evaluate(url, out, 1) == 1
    elapsed = time.monotonic() - start
    # one request per task (its timeout ends the task), and only the first STALLED_TASKS tasks' are sent
    assert len(seen) == STALLED_TASKS, seen
    assert elapsed < STALLED_TASKS * 1.0 + 10, elapsed  # before: each of the 7 tasks (6 test, 1 dev) waited 1 s
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "the server has not replied to any request, and the requests of 3 tasks all ran past the per-task " \
           "timeout (1 s), so the rest were not sent; check --base-url and that the server is running" in line, line
    assert not (out / "DONE").exists()
    turns = [turn for row in read_jsonl(out / "transcripts.jsonl") for turn in row["turns"]]
    assert sum(str(t["error"]).startswith("not sent: ") for t in turns) > 0
    assert {t["error_kind"] for t in turns if str(t["error"]).startswith("not sent: ")} == {"not sent"}


def test_a_server_that_answered_once_is_not_cut_off_for_being_slow_later(serve, tmp_path) -> None:
    url, seen = serve(lambda n: n == 0)  # the first task is answered, every later request stalls
    assert evaluate(url, tmp_path / "run", 0.3) == 1  # most requests got no reply: still not a finished run
    assert len(seen) == 7  # every task (6 test, 1 dev) sent its request: none was cut off


def test_reachability_counts_tasks_by_deadline_and_forgets_nothing_once_answered() -> None:
    assert getattr(chat_client, "STALLED_TASKS", None) == STALLED_TASKS
    seen = Reachability()
    for deadline in (1.0, 1.0, 2.0):  # two requests of one task (a team's agents share a deadline)
        seen.timed_out(deadline)
    assert seen.stopped(60) is None
    seen.timed_out(3.0)
    assert seen.stopped(60).startswith("not sent: the server has not replied to any request")
    seen.answered = True  # a reply after all: the server is there
    assert seen.stopped(60) is None


def test_a_client_whose_server_never_answered_sends_nothing_once_stopped(serve) -> None:
    url, seen = serve(lambda n: False)
    shared = Reachability()
    config = EndpointConfig("m", url, timeout=0.2, retries=0)
    for _ in range(STALLED_TASKS):  # one client per task, as a pool makes them
        reply = ChatClient(config, reply_from_body, shared).complete([], None, time.monotonic() + 0.2)
        assert "TimeoutError" in reply.error and reply.error_kind == "no reply"
    reply = ChatClient(config, reply_from_body, shared).complete([], None, time.monotonic() + 0.2)
    assert reply.error.startswith("not sent: ") and reply.attempts == 0 and len(seen) == STALLED_TASKS
    assert reply.error_kind == "not sent"
