"""An endpoint run's ``privileged`` mark comes from what its replies said: the scripted endpoint names
its behaviour in each reply, and that decides over the model name the user chose.

Before: config.json's ``privileged`` was written before any reply came, from the model name alone, and
never again: ``--model oracle`` played by the scripted oracle kept ``false`` there, and ``--model
scripted-random`` played by the random baseline was marked privileged everywhere (its printed table,
config.json, load_results and the board), though its replies said ``random``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.harness import load_results
from searchgym.harness.methods import AGENT_METHOD
from searchgym.harness.privileged_runs import run_reads_private_state
from searchgym.leaderboard_html import SCRIPTED_ENDPOINT_NAME, is_privileged
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-endpoint-run-privilege-text-v0", 0, "SearchQA-v0", {"max_steps": 8},
                             world_size="tiny", dev_size=1, test_size=2,
                             description="tests: an endpoint run's privilege from its replies"))
#: Options both attempts of one run give (the same command, so the same run).
OPTIONS = ["--concurrency", "1", "--agent-option", "retries=0", "--agent-option", "backoff=0"]


@pytest.fixture(autouse=True)
def _no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")


def _evaluate(model: str, base_url: str, out: Path) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", model,
                 "--base-url", base_url, "--out", str(out), "--no-progress", *OPTIONS])


def _config(out: Path) -> dict:
    return json.loads((out / "config.json").read_text())


def test_config_json_says_privileged_when_the_scripted_oracle_played_a_plain_model_name(tmp_path, capsys):
    """The same command again shows the finished run (the rewritten field is no part of its identity)."""
    out = tmp_path / "run"
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        assert _evaluate("oracle", endpoint.base_url, out) == 0
        assert _config(out)["privileged"] is True and _config(out)["attempt"] == 1
        assert _evaluate("oracle", endpoint.base_url, out) == 0
    printed = capsys.readouterr().out
    assert "already evaluated (DONE)" in printed and printed.count("openai (privileged) on") == 2
    assert _config(out)["privileged"] is True and _config(out)["attempt"] == 1


@pytest.fixture
def refusing_server() -> Iterator[ThreadingHTTPServer]:
    """A server on 127.0.0.1 answering every request with HTTP 404 (no reply: the run is not finished)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_unfinished_run_resumes_and_settles_its_mark_when_it_finishes(tmp_path, refusing_server):
    """An attempt that got no replies keeps the model name's guess (not finished, no DONE); the same
    command, once the scripted oracle answers at that address, resumes that run and records the mark."""
    out, port = tmp_path / "run", refusing_server.server_address[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    assert _evaluate("oracle", base_url, out) == 1
    assert not (out / "DONE").exists() and _config(out)["privileged"] is False
    refusing_server.shutdown()
    refusing_server.server_close()
    with ScriptedEndpoint(SUITE, "oracle", port=port) as endpoint:
        assert endpoint.base_url == base_url
        assert _evaluate("oracle", base_url, out) == 0
    assert (out / "DONE").exists() and _config(out)["attempt"] == 2 and _config(out)["privileged"] is True


def test_a_scripted_model_name_the_random_baseline_played_is_not_marked(tmp_path, capsys):
    """Printed table, config.json, load_results, submit, verify and build all follow the replies."""
    run, board = tmp_path / "run", tmp_path / "board"
    with ScriptedEndpoint(SUITE, "random") as endpoint:
        assert _evaluate("scripted-random", endpoint.base_url, run) == 0
    printed = capsys.readouterr().out
    assert "openai on" in printed and "privileged" not in printed
    assert json.loads((run / "result.json").read_text())["endpoint"]["scripted"] == ["random"]
    assert _config(run)["privileged"] is False and not load_results(run)["privileged"].any()
    assert main(["leaderboard", "submit", str(run), "--name", "my-model", "--dir", str(board)]) == 0
    submission = next((board / "submissions").glob("*.json"))
    assert main(["leaderboard", "verify", str(submission)]) == 0
    assert not is_privileged(json.loads(submission.read_text()))
    assert main(["leaderboard", "build", "--dir", str(board)]) == 0
    assert "my-model (privileged)" not in (board / "index.html").read_text()


#: What an endpoint run made before the mark was settled recorded: the flag its model name set.
OLDER_RUN = {"method": "openai", "method_path": AGENT_METHOD, "privileged": True,
             "options": {"agent": "openai", "agent_options": {"model": "scripted-random"}}}


def test_the_replies_decide_over_the_flag_an_older_run_set_from_its_model_name():
    assert not run_reads_private_state(OLDER_RUN, {"replies": 9, "unparseable": 0, "scripted": ["random"]})
    assert run_reads_private_state(OLDER_RUN, {"replies": 9, "unparseable": 0, "scripted": ["oracle"]})
    assert run_reads_private_state(OLDER_RUN, {"replies": 9, "unparseable": 0})  # no fingerprint: the name
    assert run_reads_private_state(OLDER_RUN)


def test_a_method_flag_is_kept_whatever_replies_it_recorded():
    """Only the evaluated agent's flag was the model name's guess; a privileged method's is its own."""
    method_run = {**OLDER_RUN, "method_path": "plugin.module:privileged_method"}
    assert run_reads_private_state(method_run, {"replies": 9, "unparseable": 0, "scripted": ["random"]})


def test_the_board_name_of_the_scripted_endpoint_yields_to_the_replies():
    run = {"method": SCRIPTED_ENDPOINT_NAME, "method_path": AGENT_METHOD, "options": OLDER_RUN["options"]}
    named = {"method": {"name": SCRIPTED_ENDPOINT_NAME}, "run": run}
    assert is_privileged(named)  # no replies recorded (the shipped rows): the name is all there is
    assert not is_privileged({**named, "run": {**run, "endpoint": {"scripted": ["random"]}}})
    assert is_privileged({**named, "run": {**run, "endpoint": {"scripted": ["oracle"]}}})
    oracle_named = {"method": {"name": "oracle"}, "run": {**run, "endpoint": {"scripted": ["random"]}}}
    assert is_privileged(oracle_named)  # the oracle's own name is no scripted model's guess
