"""The OpenAI-compatible endpoint agent against scripted servers on 127.0.0.1.

The oracle server replays :class:`OracleAgent` on a shadow env of the task named in the
conversation (found by its question), so an agent that follows it must score 1.0; the other
servers stall, fail or send garbage, and the agent must score low without crashing.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from searchgym.baselines import OracleAgent

from searchgym.action_types import Action
from searchgym.actions import parse_action
from searchgym.cli import main
from searchgym.fileio import read_json, read_jsonl
from searchgym.endpoint.openai_agent import (
    ChatClient,
    EndpointConfig,
    choose_candidate,
    evaluate_openai,
    reply_from_body,
)
from searchgym.suites import Suite, make_env, register_suite

TEXT_SUITE = register_suite(Suite("test-openai-text-v0", 0, "SearchQA-v0", {"max_steps": 8}, world_size="tiny",
                                  dev_size=2, test_size=5, description="tests: the OpenAI agent, text mode"))
CANDIDATE_SUITE = register_suite(Suite("test-openai-cand-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 3},
                                       world_size="tiny", dev_size=1, test_size=2))
TEAM_SUITE = register_suite(Suite("test-openai-team-v0", 0, "TeamSearch-v0", {"max_rounds": 2}, world_size="tiny",
                                  dev_size=1, test_size=2))
QUESTIONS = {t.question: t for t in TEXT_SUITE.world().tasks}

GARBAGE = [
    (200, "text/html", b"<html><body>502 Bad Gateway</body></html>"),
    (200, "application/json", b'{"choices": []}'),
    (200, "application/json", b"{not json"),
    (200, "application/json", b'{"choices": [{"message": null}]}'),
    (200, "application/json", b"[" * 100_000 + b"]" * 100_000),
    (200, "application/json", json.dumps({"choices": [{"message": {"content": None, "tool_calls": [
        {"id": 7, "function": {"name": "__import__('os').system", "arguments": "{\"cmd\": \"rm -rf /\""}}]}}]}).encode()),
    (200, "application/json", json.dumps({"choices": [{"message": {"content": None, "tool_calls": [
        {"function": {"name": "calculator", "arguments": {"expression": "9**9**9**9**9"}}}]}}]}).encode()),
    (200, "application/json", json.dumps({"choices": [{"message": {"content": "<tool_call>" + "{" * 5000}}]}).encode()),
    (200, "application/json", json.dumps({"choices": [{"message": {"content": ["x", 3, {"text": 5}]}}]}).encode()),
    (200, "application/json", json.dumps({"choices": [{"message": {"content": "A" * 50_000}}]}).encode()),
    (400, "application/json", b'{"error": {"message": "bad request"}}'),
]


def oracle_action(messages: list[dict]) -> str:
    """The oracle's next action for the conversation (its question picks the task)."""
    first = next(m["content"] for m in messages if m["role"] == "user")
    question = first[first.rindex("Question: ") + len("Question: "):].strip()
    task = QUESTIONS[question]
    env = make_env(TEXT_SUITE, task.split)
    env.reset(seed=0, options={"task_id": task.id})
    for m in messages:
        if m["role"] != "assistant":
            continue
        text = m.get("content") or ""
        for call in m.get("tool_calls") or []:
            text = f'<tool_call>{{"name": "{call["function"]["name"]}", "arguments": {call["function"]["arguments"]}}}</tool_call>'
        env.step(text)
    return OracleAgent().choose_action(env.unwrapped.session)


class Script:
    """What the server does: ``mode`` in oracle, native (tool_calls), stall, garbage, flaky."""

    def __init__(self, mode: str, stall: float = 0.0, failures: int = 0) -> None:
        self.mode, self.stall, self.failures = mode, stall, failures
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()

    def respond(self, body: bytes, headers: dict) -> tuple[int, str, bytes]:
        with self.lock:
            n = len(self.requests)
            self.requests.append(json.loads(body))
            self.headers.append(headers)
        request = self.requests[n]
        if self.mode == "stall":
            time.sleep(self.stall)
        if self.mode == "garbage":
            return GARBAGE[n % len(GARBAGE)]
        if self.mode == "flaky" and n < self.failures:
            return 503, "text/plain", b"overloaded"
        action = oracle_action(request["messages"])
        message: dict = {"role": "assistant", "content": action}
        parsed = parse_action(action, "hermes", ["web_search", "knowledge_base", "calculator", "current_time",
                                                  "ask_for_clarification"])
        if self.mode == "native" and isinstance(parsed, Action) and parsed.kind == "tool":
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function",
                 "function": {"name": parsed.tool, "arguments": json.dumps(parsed.args)}}]}
        return 200, "application/json", json.dumps({"choices": [{"index": 0, "message": message}]}).encode()


@pytest.fixture
def server():
    started = []

    def start(script: Script) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                status, kind, payload = script.respond(self.rfile.read(length), dict(self.headers))
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the stall test)

            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        started.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/v1"

    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


def test_cli_evaluate_against_an_oracle_server_scores_one(server, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")  # restored after the test: the command sets it
    script = Script("oracle")
    url = server(script)
    out = tmp_path / "run"
    code = main(["evaluate", "--suite", TEXT_SUITE.id, "--agent", "openai", "--model", "scripted-oracle",
                 "--base-url", url, "--api-key", "sk-test-123", "--concurrency", "3", "--out", str(out),
                 "--no-progress"])
    assert code == 0
    result = read_json(out / "result.json")
    assert result["test"]["all"]["success"] == 1.0 and result["test"]["all"]["n"] == 5
    assert result["dev"]["all"]["success"] == 1.0
    predictions = read_jsonl(out / "predictions.jsonl")
    assert len(predictions) == 5 and all(p["success"] for p in predictions)
    transcripts = read_jsonl(out / "transcripts.jsonl")
    assert {(t["task_id"], t["split"]) for t in transcripts} == {(p["task_id"], "test") for p in predictions} | {
        (t.id, "dev") for t in TEXT_SUITE.tasks("dev")}
    assert all(t["turns"][-1]["action"].startswith("<answer>") for t in transcripts)
    # every request was made by the pool (the harness replayed); the key went in the header only
    assert len(script.requests) == sum(len(t["turns"]) for t in transcripts)
    assert all(h.get("Authorization") == "Bearer sk-test-123" for h in script.headers)
    assert "sk-test-123" not in (out / "config.json").read_text()
    assert script.requests[0]["model"] == "scripted-oracle"


def test_native_tool_calls_answered_with_tool_messages_score_one(server) -> None:
    script = Script("native")
    predictions = evaluate_openai(TEXT_SUITE, "m", server(script), concurrency=2, native_tools=True)
    assert [p.success for p in predictions] == [True] * 5
    with_tools = [r for r in script.requests if any(m["role"] == "tool" for m in r["messages"])]
    assert with_tools and all(r["tools"][0]["type"] == "function" for r in script.requests)
    tool_message = next(m for m in with_tools[0]["messages"] if m["role"] == "tool")
    assert tool_message["tool_call_id"].startswith("call_")
    assert not any("Tools: [" in m["content"] for r in script.requests for m in r["messages"] if m["role"] == "user")


def test_retries_with_backoff_recover_from_server_errors(server, tmp_path: Path) -> None:
    script = Script("flaky", failures=2)
    predictions = evaluate_openai(TEXT_SUITE, "m", server(script), concurrency=1, retries=3, limit=1,
                                  backoff=0.01, out_dir=tmp_path)
    assert predictions[0].success
    first_turn = read_jsonl(tmp_path / "transcripts.jsonl")[0]["turns"][0]
    assert first_turn["attempts"] == 3 and first_turn["error"] is None


def test_a_stalling_server_times_out_per_task_and_scores_zero(server, tmp_path: Path) -> None:
    url = server(Script("stall", stall=3.0))
    start = time.monotonic()
    predictions = evaluate_openai(TEXT_SUITE, "m", url, concurrency=5, timeout=0.6, retries=2, out_dir=tmp_path)
    assert time.monotonic() - start < 2.5  # five tasks at once, each cut at 0.6 s
    assert len(predictions) == 5 and not any(p.success for p in predictions)
    assert all(p.answer is None for p in predictions)
    turns = [turn for t in read_jsonl(tmp_path / "transcripts.jsonl") for turn in t["turns"]]
    assert "timeout" in turns[0]["error"] or "timed out" in turns[0]["error"]
    assert all(turn["error"] for turn in turns)


def test_garbage_replies_are_malformed_actions_not_crashes(server, tmp_path: Path) -> None:
    script = Script("garbage")
    code = main(["evaluate", "--suite", TEXT_SUITE.id, "--agent", "openai", "--model", "junk", "--base-url",
                 server(script), "--concurrency", "2", "--out", str(tmp_path / "run"), "--no-progress"])
    assert code == 0
    result = read_json(tmp_path / "run" / "result.json")
    assert result["test"]["all"]["success"] == 0.0 and result["test"]["all"]["n"] == 5
    assert len(script.requests) >= len(GARBAGE)  # every kind of garbage was served at least once


def test_candidate_and_team_suites_run_without_crashing(server, tmp_path: Path) -> None:
    script = Script("garbage")
    url = server(script)
    for suite in (CANDIDATE_SUITE, TEAM_SUITE):
        predictions = evaluate_openai(suite, "m", url, concurrency=2, timeout=5, out_dir=tmp_path / suite.id)
        assert len(predictions) == 2 and not any(p.success for p in predictions)
    agents = {t["agent"] for t in read_jsonl(tmp_path / TEAM_SUITE.id / "transcripts.jsonl")}
    assert agents == {"lead", "searcher", "analyst"}
    before = len(script.requests)
    out = tmp_path / "team-run"
    assert main(["evaluate", "--suite", TEAM_SUITE.id, "--agent", "openai", "--model", "m", "--base-url", url,
                 "--out", str(out), "--no-progress"]) == 0
    transcripts = read_jsonl(out / "transcripts.jsonl")
    assert {t["source"] for t in transcripts} == {"pool"}  # the harness replayed every recorded action
    # a body that is no chat completion is retried: a request per attempt, not per turn
    assert len(script.requests) - before == sum(turn.get("attempts", 0) for t in transcripts for turn in t["turns"])


def test_a_diverging_replay_continues_live(server) -> None:
    from searchgym.harness.evaluate import play_single
    from searchgym.endpoint.openai_agent import OpenAIActor

    script = Script("oracle")
    task = TEXT_SUITE.tasks("test")[2]
    actor = OpenAIActor(EndpointConfig("m", server(script)),
                        replay={(task.id, "agent_0"): [("an observation that never comes", "<answer>x</answer>")]})
    answer, steps, _ = play_single(make_env(TEXT_SUITE, "test"), actor, task.id, seed=0)
    actor.flush()
    assert answer is not None and steps >= 2 and len(script.requests) == steps
    assert [t["source"] for t in actor.transcripts] == ["live"]
    assert actor.transcripts[0]["turns"][-1]["action"] == f"<answer>{answer}</answer>"


@pytest.mark.parametrize(("body", "action", "error"), [
    (b'{"choices": [{"message": {"content": "<answer>x</answer>"}}]}', "<answer>x</answer>", None),
    (b"<html>oops</html>", "<html>oops</html>", "reply is not JSON"),
    (b'{"choices": []}', "", "reply has no choices"),
    (b'{"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}',
     "ab", None),
])
def test_reply_from_body(body: bytes, action: str, error: str | None) -> None:
    reply = reply_from_body(body)
    assert (reply.action, reply.error) == (action, error)


def test_native_tool_call_becomes_hermes_text_the_env_parses() -> None:
    body = json.dumps({"choices": [{"message": {"content": "", "tool_calls": [
        {"id": "c1", "function": {"name": "web_search", "arguments": "{\"query\": \"Vexa\"}"}}]}}]}).encode()
    reply = reply_from_body(body)
    assert reply.tool_call_id == "c1"
    assert parse_action(reply.action, "hermes", ["web_search"]) == Action.call("web_search", query="Vexa")


def test_choose_candidate_by_action_then_by_number() -> None:
    candidates = [Action.call("web_search", query="Vexa"), Action.answer("Mara Quell"), Action.call("current_time")]
    assert choose_candidate("<answer>Mara Quell</answer>", candidates) == 1
    assert choose_candidate("I pick 2.", candidates) == 2
    assert choose_candidate("<answer>someone else</answer> 0", candidates) == -1  # an action, not a candidate
    assert choose_candidate("number 17", candidates) == -1


def test_client_does_not_retry_a_refused_request_and_respects_the_deadline(server) -> None:
    url = server(Script("garbage"))  # first reply of this script is HTML with status 200
    client = ChatClient(EndpointConfig("m", url, retries=5), reply_from_body)
    assert client.complete([{"role": "user", "content": "hi"}], None, time.monotonic() - 1).error.startswith("timeout")
    with pytest.raises(ValueError, match="base_url"):
        EndpointConfig("m", "127.0.0.1:8000")
