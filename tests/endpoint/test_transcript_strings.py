"""A server's lone surrogate reaches transcripts.jsonl as it reaches predictions.jsonl: as escape text a
strict JSON reader takes, read back by the run's readers as the server sent it. Before: the transcript
held it as the JSON escape ``\\ud800``, so pyarrow and jq refused the whole file, and the same answer read
as a surrogate there and as six characters in predictions.jsonl."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from searchgym.cli import main
from searchgym.endpoint.reply_checks import read_transcripts
from searchgym.harness.finished_files import finished_predictions
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-transcript-strings-v0", 0, "SearchQA-v0", {"max_steps": 3},
                             world_size="tiny", dev_size=1, test_size=2, description="tests: reply text"))
#: the JSON a server sends: a lone surrogate (an escape), then six characters \ud800 (an escaped backslash)
BODY = b'{"choices": [{"message": {"content": "<answer>Par\\ud800is \\\\ud800</answer>"}}]}'
ANSWER = "Par\ud800is \\ud800"


@pytest.fixture
def base_url() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _strict_rows(path) -> list[dict]:
    """The rows as a strict reader gets them: UTF-8 bytes and no text a UTF-8 encoder refuses."""
    rows = [json.loads(line.decode("utf-8")) for line in path.read_bytes().splitlines()]
    json.dumps(rows, ensure_ascii=False).encode("utf-8")  # a lone surrogate cannot be: UnicodeEncodeError
    return rows


def test_a_servers_surrogate_reads_back_alike_from_both_files(base_url, tmp_path):
    out = tmp_path / "run"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", base_url,
                 "--out", str(out), "--no-progress", "--concurrency", "1"]) == 0
    written = [row["answer"] for row in _strict_rows(out / "predictions.jsonl")]
    replies = [t["reply"]["content"] for row in _strict_rows(out / "transcripts.jsonl") for t in row["turns"]]
    assert replies and all(reply == f"<answer>{written[0]}</answer>" for reply in replies)  # the same text
    assert [row["answer"] for row in finished_predictions(out, 2)] == [ANSWER] * 2
    rows, damaged = read_transcripts(out / "transcripts.jsonl")
    assert damaged == 0
    assert {t["reply"]["content"] for row in rows for t in row["turns"]} == {f"<answer>{ANSWER}</answer>"}
    arrow = pytest.importorskip("pyarrow.json")  # a strict reader (RapidJSON)
    assert arrow.read_json(out / "transcripts.jsonl").num_rows == len(rows)
