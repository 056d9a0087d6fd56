"""What ``evaluate --agent openai`` makes of replies it cannot use, against fake servers on 127.0.0.1.

Before: an HTTP 200 whose body was no chat completion (``{not json``, HTML, no ``choices``) was handed
to the env as the action, scored 0, and the run exited 0 with DONE while its own warning blamed the
server; a reply over 4 MiB ended in "check --base-url and that the server is running", which a re-run
cannot fix; a 404 from a wrong path (a missing /v1) was blamed on --model and the API key.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.endpoint.chat_client import MAX_BODY_BYTES, ChatClient, EndpointConfig
from searchgym.endpoint.chat_replies import reply_from_body
from searchgym.endpoint.reply_checks import read_transcripts, rerun_cannot_help, unanswered
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-endpoint-fix-replies-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=2, description="tests: unusable endpoint replies"))
GOOD = b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}'
#: a reply the env cannot read, in a chat completion: the model's doing, not the server's
ODD = b'{"choices": [{"message": {"content": "I think the answer is somewhere"}}]}'

Answer = Callable[[int], tuple[int, bytes]]  # request number -> (status, body)


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], tuple[str, list[int]]]]:
    """Start a server answering each POST with ``answer(n)``; its base URL and the request count."""
    servers: list[ThreadingHTTPServer] = []

    def start(answer: Answer) -> tuple[str, list[int]]:
        seen: list[int] = []
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    seen.append(len(seen))
                    n = seen[-1]
                status, body = answer(n)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1", seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def evaluate(url: str, out: Path, *options: str) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", url,
                 "--out", str(out), "--no-progress", "--concurrency", "1", "--agent-option", "timeout=5",
                 "--agent-option", "backoff=0", *options])


@pytest.mark.parametrize(("body", "said"), [
    (b"{not json", "(reply is not JSON): '{not json'"),
    (b"<html><body>Welcome to nginx!</body></html>", "(reply is not JSON): '<html><body>Welcome"),
    (b'{"choices": []}', "(reply has no choices): '{\"choices\": []}'"),
    (b'{"id": "x", "object": "list"}', "(reply has no choices)"),
])
def test_a_200_that_is_no_chat_completion_ends_the_run_in_an_error_naming_it(serve, tmp_path, capsys, body, said):
    url, seen = serve(lambda n: (200, body))
    out = tmp_path / "run"
    assert evaluate(url, out, "--agent-option", "retries=1") == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "got no usable reply" in line and "HTTP 200 but the body is no chat completion" in line, line
    assert said in line, line
    assert "not an OpenAI-compatible API" not in line and "not with chat completions" in line
    assert not (out / "DONE").exists() and not (out / "result.json").exists()
    assert len(seen) >= 2  # retried, as a request with no reply is


def test_a_client_retries_an_unusable_body_then_reads_a_good_one(serve) -> None:
    url, _ = serve(lambda n: (200, b"{not json") if n == 0 else (200, GOOD))
    client = ChatClient(EndpointConfig("m", url, retries=2, backoff=0), reply_from_body)
    reply = client.complete([{"role": "user", "content": "hi"}], None, time.monotonic() + 5)
    assert (reply.action, reply.error, reply.attempts) == ("<answer>x</answer>", None, 2)


def test_an_unusable_body_after_every_retry_is_a_failed_reply_with_no_message(serve) -> None:
    url, seen = serve(lambda n: (200, b"<html>oops</html>"))
    client = ChatClient(EndpointConfig("m", url, retries=2, backoff=0), reply_from_body)
    reply = client.complete([{"role": "user", "content": "hi"}], None, time.monotonic() + 5)
    assert reply.action == "" and not reply.message and reply.attempts == 3 and len(seen) == 3
    assert reply.error == ("gave up after 3 attempts (HTTP 200 but the body is no chat completion (reply is not "
                           "JSON): '<html>oops</html>')")


def test_chat_completions_the_env_cannot_read_still_finish_the_run(serve, tmp_path) -> None:
    url, _ = serve(lambda n: (200, ODD))
    out = tmp_path / "run"
    assert evaluate(url, out) == 0 and (out / "DONE").is_file()


def test_a_reply_over_4_mib_advises_max_tokens_not_the_server(serve, tmp_path, capsys) -> None:
    huge = b'{"choices": [{"message": {"content": "' + b"x" * MAX_BODY_BYTES + b'"}}]}'
    url, _ = serve(lambda n: (200, huge))
    out = tmp_path / "run"
    assert evaluate(url, out, "--limit", "1") == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "got no usable reply (e.g. the reply is longer than 4 MiB" in line, line
    assert "the model writes without end: lower --agent-option max_tokens" in line
    assert "the same options will fail the same way" in line
    assert "check --base-url and that the server is running" not in line


def test_a_404_from_a_wrong_path_points_at_the_base_url_path(serve, tmp_path, capsys) -> None:
    url, _ = serve(lambda n: (404, b'{"detail": "Not Found"}'))
    out = tmp_path / "run"
    assert evaluate(url.removesuffix("/v1"), out, "--limit", "1") == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "(e.g. HTTP 404: Not Found)" in line and "check the --base-url path" in line and "a missing /v1" in line
    assert "check --model" not in line


@pytest.mark.parametrize(("error", "advice"), [
    ("HTTP 404: Not Found", "check the --base-url path: requests go to U (a missing /v1?)"),
    ("HTTP 404: The model `m` does not exist.", "check --model, the API key"),
    ("HTTP 401: Invalid API key", "check --model, the API key"),
    ("the reply is longer than 4 MiB, more than any action", "the model writes without end"),
    ("gave up after 4 attempts (HTTP 200 but the body is no chat completion (reply has no choices): '{}')",
     "the server answers, but not with chat completions"),
    ("gave up after 4 attempts (ConnectionRefusedError: [Errno 111] Connection refused)",
     "check --base-url and that the server is running"),
])
def test_the_advice_fits_what_came_back(error: str, advice: str) -> None:
    rows = [{"turns": [{"parsed": False, "error": error, "reply": None}] * 3}]
    assert advice in unanswered(rows, "U")


def test_a_completions_style_choice_text_is_still_the_reply():
    """A 200 whose choice has ``text`` and no ``message`` (the completions API's shape) is played as
    before, not retried as a broken reply; a choice with neither is the server's fault."""
    from searchgym.endpoint.chat_replies import reply_from_body

    played = reply_from_body(b'{"choices": [{"text": "<answer>Paris</answer>"}]}')
    assert played.error is None and "Paris" in played.action
    assert reply_from_body(b'{"choices": [{"text": 5}]}').error == "choice has no message"


@pytest.mark.parametrize(("answer", "lasting"), [
    ((200, b"<html><body>Welcome to nginx!</body></html>"), True),  # no chat completion, after every retry
    ((400, b'{"error": {"message": "the prompt is longer than the maximum context length of 16 tokens"}}'), True),
    ((401, b'{"error": {"message": "Invalid API key"}}'), True),
    ((503, b'{"error": {"message": "the model is loading"}}'), False),  # retried: may be up by the next run
])
def test_the_same_command_is_advised_again_only_where_it_can_help(serve, tmp_path, capsys, answer, lasting):
    """Before: every unfinished run ended in "re-run the same command to evaluate again", also where the
    server refused each request or never sent a chat completion, which the re-run only repeats."""
    url, _ = serve(lambda n: answer)
    out = tmp_path / "run"
    assert evaluate(url, out, "--limit", "1", "--agent-option", "retries=1") == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "not marked DONE" in line and f"delete {out} (or use another --out) to evaluate with other options" in line
    assert ("re-run the same command" not in line) == lasting, line
    assert line.endswith(f"(transcripts: {out / 'transcripts.jsonl'})")
    assert ("the same options will fail the same way" in line) == lasting, line


def test_a_server_message_cannot_pass_for_a_lasting_failure() -> None:
    """Only the advice ends the line: a 503 that says the words still advises a re-run."""
    said = "gave up after 2 attempts (HTTP 503: the same options will fail the same way)"
    reason = unanswered([{"turns": [{"parsed": False, "error": said, "reply": None}] * 3}], "U")
    assert reason is not None and not rerun_cannot_help(reason)
    lasting = unanswered([{"turns": [{"parsed": False, "error": "HTTP 401: Invalid API key", "reply": None}] * 3}], "U")
    assert lasting is not None and rerun_cannot_help(lasting)


# ------------------------------------------------------------------------------ the kind of a failure
HUGE = b'{"choices": [{"message": {"content": "' + b"x" * MAX_BODY_BYTES + b'"}}]}'


@pytest.mark.parametrize(("answer", "kind"), [
    ((401, b'{"error": {"message": "Invalid API key"}}'), "refused"),
    ((404, b'{"detail": "Not Found"}'), "path"),
    ((404, b'{"error": {"message": "The model `m` does not exist."}}'), "refused"),
    ((200, b"<html>oops</html>"), "unusable"),
    ((200, HUGE), "too long"),
    ((503, b'{"error": {"message": "the model is loading"}}'), "no reply"),
    ((200, b'{"error": {"message": "overloaded"}}'), "no reply"),
])
def test_a_failed_reply_names_its_kind(serve, answer, kind) -> None:
    url, _ = serve(lambda n: answer)
    client = ChatClient(EndpointConfig("m", url, retries=1, backoff=0), reply_from_body)
    reply = client.complete([{"role": "user", "content": "hi"}], None, time.monotonic() + 5)
    assert reply.error and reply.error_kind == kind, reply.error


def test_the_kind_not_the_wording_decides_the_advice(serve, tmp_path, capsys) -> None:
    """Before: a 503 whose message read like an unusable body was advised as one (no re-run), since the
    advice was told apart by the error's wording; the transcript now keeps what the client saw."""
    url, _ = serve(lambda n: (503, b'{"error": {"message": "HTTP 200 but the body is no chat completion"}}'))
    out = tmp_path / "run"
    assert evaluate(url, out, "--limit", "1", "--agent-option", "retries=1") == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "got no reply" in line and "re-run the same command" in line, line
    assert "the same options will fail the same way" not in line
    rows, damaged = read_transcripts(out / "transcripts.jsonl")
    assert damaged == 0 and {t["error_kind"] for row in rows for t in row["turns"]} == {"no reply"}


#: Errors as transcripts written before turns kept ``error_kind`` hold them, with the kind the client now gives.
OLD_ERRORS = [
    ("HTTP 401: Invalid API key", "refused"),
    ("HTTP 404: Not Found", "path"),
    ("HTTP 404: The model `m` does not exist.", "refused"),
    ("the reply is longer than 4 MiB, more than any action; it was not read", "too long"),
    ("gave up after 2 attempts (HTTP 200 but the body is no chat completion (reply is not JSON): '<html>')",
     "unusable"),
    ("timeout (HTTP 200 but the body is no chat completion (reply has no choices): '{}')", "unusable"),
    ("gave up after 2 attempts (HTTP 503: the model is loading)", "no reply"),
    ("timeout", "no reply"),
]
NOT_SENT_ERROR = ("not sent: the server has not replied to any request, and the requests of 3 tasks all ran past "
                  "the per-task timeout (1 s)")


def _old_turn(error: str) -> dict:
    """A failed turn as transcripts held it before ``error_kind``."""
    return {"observation": "Q", "reply": None, "action": "", "error": error, "attempts": 1, "seconds": 0.1,
            "parsed": False}


@pytest.mark.parametrize(("error", "kind"), OLD_ERRORS)
def test_transcripts_without_error_kind_are_advised_as_before(tmp_path, error, kind) -> None:
    old = tmp_path / "transcripts.jsonl"
    old.write_text(json.dumps({"task_id": "t", "split": "test", "turns": [_old_turn(error)] * 3}) + "\n")
    rows, damaged = read_transcripts(old)
    said = unanswered(rows, "U")
    advice = {"refused": "check --model, the API key", "path": "check the --base-url path: requests go to U",
              "too long": "the model writes without end", "unusable": "not with chat completions",
              "no reply": "check --base-url and that the server is running"}[kind]
    assert damaged == 0 and said.startswith("3 of 3 requests to U got ") and f"(e.g. {error})" in said, said
    assert advice in said and rerun_cannot_help(said) == (kind != "no reply"), said
    kept = [{**_old_turn(error), "error_kind": kind}] * 3  # the same failure, as a transcript now holds it
    assert unanswered([{"turns": kept}], "U") == said


def test_old_transcripts_that_stopped_sending_are_advised_as_before(tmp_path) -> None:
    old = tmp_path / "transcripts.jsonl"
    turns = [_old_turn("gave up after 1 attempts (TimeoutError: timed out)")] * 3 + [_old_turn(NOT_SENT_ERROR)] * 4
    old.write_text(json.dumps({"task_id": "t", "split": "test", "turns": turns}) + "\n")
    said = unanswered(read_transcripts(old)[0], "U")
    assert said == ("7 of 7 requests to U got no reply (e.g. gave up after 1 attempts (TimeoutError: timed out)); the "
                    "server has not replied to any request, and the requests of 3 tasks all ran past the per-task "
                    "timeout (1 s), so the rest were not sent; check --base-url and that the server is running and "
                    "answers within the per-task timeout (--agent-option timeout=SECONDS)")
    kinds = ["no reply"] * 3 + ["not sent"] * 4
    assert unanswered([{"turns": [{**t, "error_kind": k} for t, k in zip(turns, kinds)]}], "U") == said
