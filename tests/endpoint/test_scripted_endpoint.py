"""The scripted endpoint speaks the OpenAI response format: replies and streamed chunks validate
against the official ``openai`` types, a framework-style loop (task API + openai client +
structured env actions) scores the oracle's 1.0, and `searchgym serve` starts it. What a buggy or
hostile client sends (JSON nested past the parser's depth, OpenAI list-of-parts content, a
Content-Length that is no number, negative or huge, a body that never finishes arriving) gets a JSON
4xx saying what was wrong, never a dropped connection, and the endpoint keeps serving."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk

import searchgym
from searchgym.action_types import Action
from searchgym.actions import parse_tool_call
from searchgym.endpoint import scripted_endpoint
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite

TINY = Suite("tiny-text-endpoint", 1, "SearchQA-v0", {"max_steps": 8, "tool_format": "hermes"}, world_size="tiny",
             dev_size=3, test_size=2)
ROOT = Path(__file__).resolve().parents[2]
HI = {"messages": [{"role": "user", "content": "hi"}]}


def post(url: str, payload: dict | bytes) -> tuple[int, str, str]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    request = urllib.request.Request(url + "/chat/completions", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


@pytest.fixture(scope="module")
def record():
    return searchgym.tasks(TINY, "dev")[0]


@pytest.mark.parametrize("native", [False, True])
def test_replies_validate_as_chat_completions(record, native):
    with ScriptedEndpoint(TINY, "oracle", native=native, splits=("dev",)) as endpoint:
        status, kind, body = post(endpoint.base_url, {"model": "my-model", "messages": record.messages,
                                                      "tools": record.tools})
    assert status == 200 and kind == "application/json"
    reply = ChatCompletion.model_validate(json.loads(body))
    assert reply.object == "chat.completion" and reply.model == "my-model" and reply.id == "chatcmpl-0"
    assert isinstance(reply.created, int) and reply.created > 1_600_000_000
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens
    assert reply.usage.prompt_tokens == sum(len(m["content"].split()) for m in record.messages)
    choice = reply.choices[0]
    if native:
        assert choice.finish_reason == "tool_calls" and choice.message.content is None
        assert isinstance(parse_tool_call(choice.message.tool_calls[0], "hermes", ["web_search", "knowledge_base",
                                          "calculator", "current_time", "ask_for_clarification"]), Action)
    else:
        assert choice.finish_reason == "stop" and choice.message.content.startswith("<tool_call>")


def test_streamed_chunks_validate_and_add_up_to_the_reply(record):
    request = {"model": "m", "messages": record.messages}
    with ScriptedEndpoint(TINY, "oracle", native=True, splits=("dev",)) as endpoint:
        whole = ChatCompletion.model_validate(json.loads(post(endpoint.base_url, request)[2]))
        status, kind, body = post(endpoint.base_url, {**request, "stream": True,
                                                      "stream_options": {"include_usage": True}})
        client = OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0)
        streamed = list(client.chat.completions.create(model="m", messages=record.messages, stream=True))
    assert status == 200 and kind == "text/event-stream"
    events = [e.removeprefix("data: ") for e in body.split("\n\n") if e]
    assert events[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate(json.loads(e)) for e in events[:-1]]
    assert all(c.object == "chat.completion.chunk" and c.id == "chatcmpl-1" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    calls = [c for chunk in chunks for choice in chunk.choices for c in choice.delta.tool_calls or ()]
    assert [(c.index, c.function.name, c.function.arguments) for c in calls] == \
        [(0, t.function.name, t.function.arguments) for t in whole.choices[0].message.tool_calls]
    assert chunks[-2].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == whole.usage.total_tokens
    assert [c.choices[0].finish_reason for c in streamed][-1] == "tool_calls"  # the client reads the stream


def test_a_framework_loop_through_the_openai_client_scores_one():
    """What a framework does: prompts from the task API, the model through the openai client, its
    tool_call objects handed to env.step as they are, tool results back as tool messages."""
    with ScriptedEndpoint(TINY, "oracle", native=True, splits=("dev",)) as endpoint:
        client = OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0)
        for record in searchgym.tasks(TINY, "dev"):
            env = searchgym.make_task_env(TINY, "dev", record.task_id)
            env.reset(seed=0)
            messages, done, info = list(record.messages), False, {}
            while not done:
                message = client.chat.completions.create(model="m", messages=messages, tools=record.tools)\
                    .choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                (call,) = message.tool_calls  # answer is offered as a tool, so every reply is a call
                observation, _, terminated, truncated, info = env.step(call)
                done = terminated or truncated
                messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
            assert call.function.name == "answer"
            assert info["success"] and info["format_errors"] == 0, (record.task_id, info["answer"], record.answers)


def test_bad_requests_models_and_settings():
    with ScriptedEndpoint(TINY, "random", splits=("dev",), limit=1) as endpoint:
        assert len(endpoint.script) == 1  # limit: the first task of the split
        status, _, body = post(endpoint.base_url, b"{not json")
        assert status == 400 and "a JSON object with a list of messages" in body
        status, _, body = post(endpoint.base_url, {"messages": "hi"})
        assert status == 400
        with urllib.request.urlopen(endpoint.base_url + "/models", timeout=30) as response:
            assert json.loads(response.read())["data"][0]["id"] == "searchgym-scripted"
        status, _, body = post(endpoint.base_url, {"messages": [{"role": "user", "content": "hi"}]})
        assert ChatCompletion.model_validate(json.loads(body)).model == "searchgym-scripted"
    with pytest.raises(ValueError, match=r"port must be an int in 0..65535 \(0: any free port\), got 70000"):
        ScriptedEndpoint(TINY, "prose", port=70000)
    with pytest.raises(ValueError, match=r"unknown behaviour 'sage'; accepted: oracle, random, reader, prose, hostile, stall"):
        ScriptedEndpoint(TINY, "sage")
    # before: -1 was taken, and then every reply failed in time.sleep; 1e308 too, with an OverflowError (HTTP 500)
    for stall in (-1, float("nan"), "2", 1e308, 86400.5):
        with pytest.raises(ValueError, match=r"stall must be a number of seconds in 0\.\.86400 \(how long each reply waits\)"):
            ScriptedEndpoint(TINY, "stall", stall=stall, limit=1)


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"])
def test_other_methods_get_a_405_in_json_naming_the_routes(method):
    """Before: the stdlib's HTML page "Unsupported method" with a 501."""
    with ScriptedEndpoint(TINY, "random", splits=("dev",), limit=1) as endpoint:
        request = urllib.request.Request(endpoint.base_url + "/models", method=method,
                                         data=b"{}" if method in ("PUT", "PATCH") else None)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        body = caught.value.read()
        assert caught.value.code == 405 and caught.value.headers["Allow"] == "GET, POST"
        assert body == b"" if method == "HEAD" else "POST /v1/chat/completions or GET /v1/models" in \
            json.loads(body)["error"]["message"]


def test_searchgym_serve_starts_an_endpoint_and_stops_on_sigterm():
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "searchgym.cli", "serve", "--suite", "searchqa-text-v2", "--port", "0",
               "--splits", "dev", "--limit", "2", "--native"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("recording the oracle replies for searchqa-text-v2 (dev)"), lines
        url = lines[1].split(" at ", 1)[1].split()[0]
        assert lines[1].startswith("serving searchqa-text-v2 (oracle) at http://127.0.0.1:") and url.endswith("/v1")
        record = searchgym.tasks("searchqa-text-v2", "dev")[0]
        status, _, body = post(url, {"model": "m", "messages": record.messages})
        call = ChatCompletion.model_validate(json.loads(body)).choices[0].message.tool_calls[0]
        assert status == 200 and call.function.name in [t["function"]["name"] for t in record.tools]
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0 and out.strip().endswith("stopped"), err


def raw(port: int, data: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


@pytest.mark.parametrize("body", [b"[" * 200_000 + b"]" * 200_000,
                                  b'{"messages": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"])
def test_json_nested_too_deep_is_a_400(body):
    # before: RecursionError in json.loads, the connection closed with no reply
    with ScriptedEndpoint(TINY, "prose", keep_requests=True) as endpoint:
        status, _, text = post(endpoint.base_url, body)
        assert status == 400 and "a JSON object with a list of messages" in text
        assert post(endpoint.base_url, HI)[0] == 200


@pytest.mark.parametrize("behaviour", ["random", "reader"])
@pytest.mark.parametrize("content", [[{"type": "text", "text": "hi"}], [{"text": 5}, "x", 3], 5])
def test_list_of_parts_and_odd_content_get_a_reply(behaviour, content):
    # before: random/oracle/stall failed on .rfind of a list (OpenAI's content parts), the reader on
    # "".join of a part whose text is a number: no reply
    with ScriptedEndpoint(TINY, behaviour, splits=("dev",), limit=1) as endpoint:
        status, _, text = post(endpoint.base_url, {"messages": [{"role": "user", "content": content}]})
        assert status == 200, text
        assert json.loads(text)["choices"][0]["message"]["content"]


@pytest.mark.parametrize("length, status, says", [("abc", 400, "Content-Length must be a whole number of bytes"),
                                                   ("-1", 400, "Content-Length must be a whole number of bytes"),
                                                   ("\xb2", 400, "Content-Length must be a whole number of bytes"),
                                                   (str(1 << 40), 413, "accepted: at most 67108864")])
def test_bad_content_length_is_a_4xx_unread(length, status, says):
    # before: "abc" was a ValueError and no reply; "-1" read to the end of the stream (unbounded memory, and a
    # client that keeps the socket open held the thread for ever); a huge one read up to 64 MiB of it
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode("latin-1")
        reply = raw(port, head + b"{}")
        assert reply.startswith(f"HTTP/1.0 {status}".encode()) and says.encode() in reply, reply[:300]
        assert post(endpoint.base_url, HI)[0] == 200


def test_half_a_body_gets_408_after_the_read_timeout(monkeypatch):
    # before: the handler waited for the rest for ever (no socket timeout); now 408 after READ_TIMEOUT
    monkeypatch.setattr(scripted_endpoint, "READ_TIMEOUT", 0.5)
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        reply = raw(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{", timeout=10)
        assert reply.startswith(b"HTTP/1.0 408") and b"did not arrive within 0.5 seconds" in reply, reply[:300]
        assert post(endpoint.base_url, HI)[0] == 200


def test_headers_dripped_a_byte_at_a_time_are_cut_off_at_the_read_timeout():
    # before: the socket timeout bounded each read, not the request, so a byte every 0.1 s held the
    # handler thread for ever; now the request line and headers share the request's read_timeout
    import threading
    import time

    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 400 + b"\r\n\r\n"
    stop = threading.Event()
    with ScriptedEndpoint(TINY, "prose", read_timeout=1.0) as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            def drip() -> None:
                for i in range(len(head)):  # 40 s of headers, unless the server hangs up
                    if stop.wait(0.1):
                        return
                    try:
                        slow.sendall(head[i:i + 1])
                    except OSError:
                        return

            started = time.monotonic()
            dripper = threading.Thread(target=drip, daemon=True)
            dripper.start()
            try:
                time.sleep(0.3)
                assert post(endpoint.base_url, HI)[0] == 200  # another client is served meanwhile
                try:
                    closed = slow.recv(65536) == b""
                except ConnectionResetError:
                    closed = True
                waited = time.monotonic() - started
            finally:
                stop.set()
                dripper.join(timeout=5)
        assert closed and 0.9 <= waited < 15, waited  # before: open after 10 s, for ever; loose above (a busy machine)
        assert post(endpoint.base_url, HI)[0] == 200
    with pytest.raises(ValueError, match=r"read_timeout must be a number of seconds > 0"):
        ScriptedEndpoint(TINY, "prose", read_timeout=0)


@pytest.mark.parametrize("field, value, says", [("stream", "yes", "'stream' must be a boolean, got a string"),
                                                ("tools", "x", "'tools' must be a list, got a string"),
                                                ("model", 5, "'model' must be a string, got a number"),
                                                ("temperature", True, "'temperature' must be a number, got a boolean"),
                                                ("max_tokens", 1.5, "'max_tokens' must be an integer, got a number")])
def test_an_optional_field_of_the_wrong_type_is_a_400_naming_it(field, value, says):
    # before: the field was read as absent and the request got a 200
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        status, _, text = post(endpoint.base_url, {"messages": [{"role": "user", "content": "hi"}], field: value})
        assert status == 400 and says in json.loads(text)["error"]["message"], text
        nulled = post(endpoint.base_url, {"messages": [{"role": "user", "content": "hi"}], field: None})
        assert nulled[0] == 200  # null is absent, as in OpenAI's API


def test_a_chunked_body_without_a_length_is_a_411():
    # before: the body was left unread (no Content-Length: 0 bytes) and the reply was a 400 about the JSON
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        chunked = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                   b"2\r\n{}\r\n0\r\n\r\n")
        reply = raw(port, chunked)
        assert reply.startswith(b"HTTP/1.0 411") and b"send the body with a Content-Length header" in reply, reply[:300]
        assert post(endpoint.base_url, HI)[0] == 200


def test_a_post_to_another_path_is_a_404_not_a_chat():
    """Before: a POST to any path (``/v1/foo``, ``/``) was answered as a chat completion."""
    with ScriptedEndpoint(TINY, "prose", limit=1) as endpoint:
        for path in ("/v1/foo", "/", "/v1/chat/completionsx", "/v1/models"):
            request = urllib.request.Request(endpoint.base_url.removesuffix("/v1") + path, data=b"{}",
                                             headers={"Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 404, path
            assert b"POST /v1/chat/completions" in refused.value.read()
        assert endpoint.requests == 0
