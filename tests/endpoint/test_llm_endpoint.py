"""LLM endpoints as first-class users: the text suites through ``evaluate --agent openai``, the chat
format (chat prompt, raw tool results, team actions as tools), parallel tool calls, and the
readable-reply warning. Every server is on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from searchgym.actions import format_tool_result, unwrap_tool_result
from searchgym.cli import main
from searchgym.fileio import read_json, read_jsonl
from searchgym.endpoint.chat_replies import MAX_PARALLEL_CALLS, reply_from_body
from searchgym.endpoint.openai_agent import evaluate_openai, reply_report
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite, make_env, register_suite
from searchgym.tools import chat_tools

TINY_TEXT = register_suite(Suite("test-llm-text-v0", 0, "SearchQA-v0", {"max_steps": 6}, world_size="tiny",
                                 dev_size=2, test_size=4, description="tests: endpoint, text mode"))
TINY_TEAM = register_suite(Suite("test-llm-team-v0", 0, "TeamSearch-v0", {"max_rounds": 12}, world_size="tiny",
                                 dev_size=1, test_size=3, description="tests: endpoint, team text mode"))


def _evaluate(tmp_path: Path, suite: str, endpoint: ScriptedEndpoint, *extra: str) -> dict:
    out = tmp_path / suite
    code = main(["evaluate", "--suite", suite, "--agent", "openai", "--model", "m", "--base-url", endpoint.base_url,
                 "--out", str(out), "--no-progress", "--concurrency", "4", *extra])
    assert code == 0 and (out / "DONE").is_file()
    return read_json(out / "result.json")


# ------------------------------------------------------------------------- the same episode
@pytest.mark.parametrize("suite", ["searchqa-text-v2", "team-text-v2", "group-text-v2"])
def test_the_oracle_replayed_through_the_endpoint_scores_one_on_every_text_suite(suite, tmp_path):
    with ScriptedEndpoint(suite, "oracle", native=suite == "team-text-v2") as endpoint:
        options = ["--agent-option", "native_tools=true"] if suite == "team-text-v2" else []
        result = _evaluate(tmp_path, suite, endpoint, *options)
    assert result["test"]["all"]["n"] == 200 and result["test"]["all"]["success"] == 1.0
    assert result["dev"]["all"]["success"] == 1.0
    assert result["endpoint"]["unparseable"] == 0 and result["endpoint"]["warning"] is None


@pytest.mark.parametrize(("behaviour", "suite"), [("prose", TINY_TEXT.id), ("hostile", TINY_TEXT.id),
                                                 ("hostile", TINY_TEAM.id)])
def test_malformed_and_hostile_replies_score_zero_and_warn(behaviour, suite, tmp_path, capsys):
    """Replies that arrive but are no readable action are the model's: a finished evaluation (DONE)."""
    with ScriptedEndpoint(suite, behaviour) as endpoint:
        # hostile bodies that are no chat completion are retried (one left unusable after its retries ends
        # the run as the server's fault); chat completions the env cannot read are the model's
        result = _evaluate(tmp_path, suite, endpoint, "--agent-option", "timeout=5", "--agent-option", "retries=3",
                           "--agent-option", "backoff=0", "--concurrency", "1")
    assert result["test"]["all"]["success"] == 0.0
    report = result["endpoint"]
    assert report["unparseable_share"] > 0.5 and "not a readable action" in report["warning"]
    assert "WARNING" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection to it is refused once it is closed
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("server", ["down", "stall"])
def test_a_run_whose_requests_got_no_reply_is_not_done_and_a_rerun_evaluates_again(server, tmp_path, capsys):
    # Before: with nothing listening (or a server stalling past the per-task timeout) every task scored 0,
    # evaluate exited 0 and wrote DONE; run again once the server was up, it printed "already evaluated
    # (DONE); showing it" with those zeros.
    port, out = _free_port(), tmp_path / "ev"
    url = f"http://127.0.0.1:{port}/v1"
    args = ["evaluate", "--suite", TINY_TEXT.id, "--agent", "openai", "--model", "m", "--base-url", url, "--out",
            str(out), "--no-progress", "--agent-option", "retries=0", "--agent-option", "timeout=3"]
    # The timeout is part of the run, so the rerun has it too: 3 s per task, not 0.5 s, since on a loaded
    # machine (CI) the in-process oracle's six replies to a task took past 0.5 s and the rerun failed.
    if server == "down":
        assert main(args) == 1
    else:
        with ScriptedEndpoint(TINY_TEXT, "stall", stall=10.0, port=port):
            assert main(args) == 1
    [line] = capsys.readouterr().err.splitlines()
    error = "ConnectionRefusedError" if server == "down" else "TimeoutError"
    assert line.startswith(f"searchgym evaluate: error: 36 of 36 requests to {url}/chat/completions got no reply "
                           f"(e.g. gave up after 1 attempts ({error}")
    assert "check --base-url and that the server is running" in line and "not marked DONE" in line
    # before: only "re-run the same command", and a re-run with a longer timeout was "a different run"
    assert f"delete {out} (or use another --out) to evaluate with other options" in line
    assert not any((out / name).exists() for name in ("DONE", "result.json", "predictions.jsonl"))
    rows = read_jsonl(out / "transcripts.jsonl")  # kept: they show what the requests came to
    assert rows and all(turn["error"] for row in rows for turn in row["turns"])
    with ScriptedEndpoint(TINY_TEXT, "oracle", port=port):
        assert main(args) == 0
    printed = capsys.readouterr().out
    assert "already evaluated" not in printed and "| all | 4 | 1.000 | 1.000 |" in printed
    assert (out / "DONE").is_file() and read_json(out / "result.json")["endpoint"]["unparseable"] == 0


def test_text_actions_on_a_candidate_suite_are_flagged(tmp_path):
    suite = register_suite(Suite("test-llm-cand-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 3},
                                 world_size="tiny", dev_size=1, test_size=2))
    with ScriptedEndpoint(suite, "oracle", splits=()) as endpoint:  # "<answer>unknown</answer>": no candidate
        result = _evaluate(tmp_path, suite.id, endpoint)
    assert result["endpoint"]["warning"] is not None


# ---------------------------------------------------------------------------- chat format
def test_chat_prompt_has_no_tool_list_and_one_accepted_actions_header():
    env = make_env(TINY_TEXT, "test")
    plain, _ = env.reset(seed=0)
    session = env.unwrapped.session
    chat = session.prompt(chat=True)
    assert plain.count("Accepted actions") == 1 and "Tools: [" in plain
    assert "Tools:" not in chat and "<tool_call>" not in chat and chat.endswith(f"Question: {session.task.question}")
    assert "<answer>" in chat and "<post>" not in chat
    assert "<post>" in session.prompt(team_actions=True, chat=True)


def test_tool_results_unwrap_to_raw_text_and_keep_what_follows():
    for fmt in ("hermes", "tags"):
        wrapped = format_tool_result("web_search", "line one\nline two", fmt)
        assert unwrap_tool_result(wrapped) == "line one\nline two"
        assert unwrap_tool_result(wrapped + "\n\nNew notes on the blackboard:\n- x") == \
            "line one\nline two\n\nNew notes on the blackboard:\n- x"
    assert unwrap_tool_result("Could not read your action") == "Could not read your action"


def test_native_chat_sends_the_chat_prompt_tools_and_raw_tool_messages():
    with ScriptedEndpoint(TINY_TEAM, "oracle", native=True, keep_requests=True, splits=("test",)) as endpoint:
        predictions = evaluate_openai(TINY_TEAM, "m", endpoint.base_url, concurrency=1, native_tools=True)
        kept = endpoint.kept
    assert all(p.success for p in predictions)
    names = {t["function"]["name"] for r in kept for t in r["tools"]}
    assert {"post_note", "wait"} <= names
    users = [m["content"] for r in kept for m in r["messages"] if m["role"] == "user"]
    assert users and not any("Tools: [" in u or "Accepted actions" in u for u in users)
    tools = [m for r in kept for m in r["messages"] if m["role"] == "tool"]
    assert tools and not any("<tool_response>" in m["content"] for m in tools)
    calls = [c["function"]["name"] for r in kept for m in r["messages"] if m["role"] == "assistant"
             for c in m.get("tool_calls") or []]
    assert "post_note" in calls or "wait" in calls
    assert "answer" in names  # offered, so the scripted lead answers with an answer call (the last reply: no request shows it)
    assert chat_tools(["web_search"], team_actions=False) == chat_tools(["web_search"])[:1]


# ------------------------------------------------------------------------ parallel calls
class TwoCallsServer:
    """First reply: ``n_calls`` native tool calls at once; then checks the tool messages and answers."""

    def __init__(self, n_calls: int, native: bool = True) -> None:
        self.n_calls, self.native, self.requests = n_calls, native, []

    def reply(self, request: dict) -> dict:
        self.requests.append(request)
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        if turn > 0:
            return {"role": "assistant", "content": "<answer>done</answer>"}
        queries = [f"query {i}" for i in range(self.n_calls)]
        if not self.native:
            return {"role": "assistant", "content": "".join(
                f'<tool_call>{{"name": "web_search", "arguments": {{"query": "{q}"}}}}</tool_call>' for q in queries)}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "web_search", "arguments": json.dumps({"query": q})}}
            for i, q in enumerate(queries)]}

    def __enter__(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = json.dumps({"choices": [{"message": server.reply(body)}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("native", [True, False])
def test_parallel_tool_calls_run_in_order_each_answered(native):
    server = TwoCallsServer(2, native)
    with server as url:
        [prediction] = evaluate_openai(TINY_TEXT, "m", url, concurrency=1, limit=1, native_tools=native)
    assert (prediction.tool_calls, prediction.steps, prediction.answer) == (2, 3, "done")
    assert len(server.requests) == 2  # the second call was played without asking the model again
    messages = server.requests[1]["messages"]
    if native:
        tool_messages = [m for m in messages if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["c0", "c1"]
        assert all("<tool_response>" not in m["content"] for m in tool_messages)
    else:
        assert sum(m["role"] == "user" for m in messages) == 3  # the prompt, then one result per call


def test_calls_past_the_limit_are_refused_with_a_message_the_model_sees():
    server = TwoCallsServer(MAX_PARALLEL_CALLS + 3)
    suite = register_suite(Suite("test-llm-long-v0", 0, "SearchQA-v0", {"max_steps": 12}, world_size="tiny",
                                 dev_size=1, test_size=1))
    with server as url:
        [prediction] = evaluate_openai(suite, "m", url, concurrency=1, native_tools=True)
    assert prediction.tool_calls == MAX_PARALLEL_CALLS and prediction.answer == "done"
    last = server.requests[1]["messages"]
    assert sum(m["role"] == "tool" for m in last) == MAX_PARALLEL_CALLS
    assert "3 more tool call(s) in your last reply were not run" in last[-1]["content"]


def test_reply_reading_keeps_every_call():
    body = json.dumps({"choices": [{"message": {"content": "", "tool_calls": [
        {"id": "a", "function": {"name": "web_search", "arguments": "{\"query\": \"x\"}"}},
        {"id": "b", "function": {"name": "calculator", "arguments": {"expression": "1+1"}}}]}}]}).encode()
    reply = reply_from_body(body)
    assert reply.tool_call_id == "a" and [q.call_id for q in reply.queued] == ["b"]
    assert "calculator" in reply.queued[0].action and len(reply.message["tool_calls"]) == 2
    unnamed = json.loads(body)
    del unnamed["choices"][0]["message"]["tool_calls"][1]["id"]
    reply = reply_from_body(json.dumps(unnamed).encode())
    assert reply.tool_call_id is None and "tool_calls" not in reply.message and len(reply.queued) == 1


def test_reply_report_counts_turns_and_warns_only_when_most_are_unreadable():
    rows = [{"turns": [{"parsed": True}, {"parsed": False}, {"parsed": True, "queued": True}]}]
    assert reply_report(rows) == {"replies": 2, "unparseable": 1, "unparseable_share": 0.5, "warning": None}
    assert reply_report([{"turns": [{"parsed": False}] * 3}])["warning"].startswith("3 of 3 model replies")
    assert reply_report([])["replies"] == 0



def test_reply_report_names_the_request_error_when_most_requests_got_no_reply():
    # Before: a server that was down read as "24 of 24 model replies (100%) were not a readable
    # action; check that the suite's mode fits the model", never naming the connection error.
    refused = "gave up after 4 attempts (ConnectionRefusedError: [Errno 111] Connection refused)"
    report = reply_report([{"turns": [{"parsed": False, "error": refused, "reply": None}] * 3 + [{"parsed": True}]}])
    assert report["unparseable"] == 3 and report["warning"] == (
        f"3 of 4 model replies (75%) were not a readable action: 3 requests got no usable reply (e.g. {refused}); "
        "check --base-url, that the server is running and the transcripts")
    unreadable = reply_report([{"turns": [{"parsed": False, "error": None, "reply": "hi"}] * 3}])
    assert unreadable["warning"].startswith("3 of 3 model replies (100%) were not a readable action")

def test_calls_left_when_the_episode_ends_are_in_the_transcript(tmp_path):
    suite = register_suite(Suite("test-llm-short-v0", 0, "SearchQA-v0", {"max_steps": 2}, world_size="tiny",
                                 dev_size=1, test_size=1))
    with TwoCallsServer(4) as url:
        [prediction] = evaluate_openai(suite, "m", url, concurrency=1, native_tools=True, out_dir=tmp_path)
    assert prediction.tool_calls == 2 and prediction.answer is None  # the step limit came first
    [row] = read_jsonl(tmp_path / "transcripts.jsonl")
    assert len(row["turns"][-1]["unplayed_calls"]) == 2 and row["turns"][-1]["why"] == "the episode ended first"


def test_showing_a_finished_run_never_rewrites_its_report_from_a_damaged_transcripts_file(tmp_path, capsys):
    # Before: showing a DONE run re-summed transcripts.jsonl into result.json whatever it held: a file cut
    # mid-line (a copy that stopped) turned "replies": 22 into 0 and printed "endpoint: 0 of 0 replies".
    from searchgym.damaged import DamagedFileWarning

    out = tmp_path / TINY_TEXT.id
    with ScriptedEndpoint(TINY_TEXT, "oracle") as endpoint:
        report = _evaluate(tmp_path, TINY_TEXT.id, endpoint)["endpoint"]
        whole, stored = (out / "transcripts.jsonl").read_bytes(), (out / "result.json").read_bytes()
        first_row = whole[: whole.index(b"\n") + 1]
        mid_line = whole[: len(first_row) + 20]  # the second row cut after 20 bytes (before: at half the file,
        # which the rows' timings shift: a cut that fell just before a newline left a whole row, no damage)
        assert report["replies"] > 0 and not mid_line.endswith(b"\n")
        for cut in (mid_line, first_row, b""):  # a stored report is shown as it is, never re-summed
            (out / "transcripts.jsonl").write_bytes(cut)
            capsys.readouterr()
            _evaluate(tmp_path, TINY_TEXT.id, endpoint)
            assert (out / "result.json").read_bytes() == stored
            assert f"endpoint: {report['replies']} of {report['replies']} replies" in capsys.readouterr().out
        # no report kept (stopped between DONE and writing it): made only from a file that reads whole
        (out / "result.json").write_text(json.dumps({k: v for k, v in json.loads(stored).items() if k != "endpoint"}))
        for cut, what in ((mid_line, ("has 1 line(s) that are no transcript row (cut or damaged); no endpoint "
                                      "report is made")),
                          (first_row, "holds transcripts of 1 tasks, fewer than the 6 the run played")):
            (out / "transcripts.jsonl").write_bytes(cut)
            with pytest.warns(DamagedFileWarning, match=re.escape(f"{out / 'transcripts.jsonl'}: {what}")):
                _evaluate(tmp_path, TINY_TEXT.id, endpoint)
            assert "endpoint" not in read_json(out / "result.json")
        (out / "transcripts.jsonl").write_bytes(whole)
        assert _evaluate(tmp_path, TINY_TEXT.id, endpoint)["endpoint"] == report
