"""The OpenEnv server: a rollout through OpenEnv's own WebSocket client reaches searchgym's env,
and the episode's rewards are the env's."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("openenv.core")

import searchgym
from searchgym.integrations.openenv import SearchgymAction, SearchgymClient, SearchgymEnvironment

SUITE, SPLIT = "searchqa-text-v2", "dev"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "searchgym.integrations.openenv", "--suite", SUITE,
                                "--split", SPLIT, "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
                    if json.load(reply)["status"] == "healthy":
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{process.stdout.read()}") from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def _local_return(task_id: str, seed: int, calls: list[dict]) -> tuple[float, bool]:
    env = searchgym.make_task_env(SUITE, SPLIT, task_id)
    env.reset(seed=seed)
    total, done = 0.0, False
    for call in calls:
        _, reward, terminated, truncated, _ = env.step(call)
        total, done = total + reward, terminated or truncated
    return total, done


def test_a_rollout_through_the_openenv_client_scores_as_the_env(server) -> None:
    records = {r.task_id: r for r in searchgym.tasks(SUITE, SPLIT)}
    with SearchgymClient(base_url=server).sync() as env:
        first = env.reset(seed=5)
        record = records[first.observation.task_id]
        assert first.observation.question == record.question and not first.done
        assert [t["function"]["name"] for t in first.observation.tools] == [t["function"]["name"] for t in record.tools]
        calls = [{"name": "web_search", "arguments": {"query": record.question}},
                 {"name": "calculator", "arguments": {"expr": "1+1"}},  # a wrong argument name: an invalid call
                 {"name": "answer", "arguments": {"answer": record.answers[0]}}]
        rewards, results = [], []
        for call in calls:
            result = env.step(SearchgymAction(**call))
            rewards.append(result.reward)
            results.append(result)
        state = env.state()
    assert results[0].observation.text.startswith("<tool_response>") and not results[0].done
    assert results[1].observation.info["invalid"] and "accepted: expression" in results[1].observation.text
    assert not results[1].done
    assert results[2].done and results[2].observation.info["success"]
    expected, done = _local_return(record.task_id, 5, calls)
    assert done and sum(rewards) == pytest.approx(expected)
    assert state.total_reward == pytest.approx(expected) and state.task_id == record.task_id and state.step_count == 3


def test_schema_and_state_endpoints_describe_searchgym(server) -> None:
    with urllib.request.urlopen(f"{server}/schema", timeout=10) as reply:
        schema = json.load(reply)
    assert schema["action"]["required"] == ["name"] and "arguments" in schema["action"]["properties"]
    assert {"text", "task_id", "tools", "info"} <= set(schema["observation"]["properties"])


def test_plain_http_says_what_is_wrong(server) -> None:
    def post(path: str, body: dict) -> tuple[int, dict]:
        request = urllib.request.Request(f"{server}{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.load(reply)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    status, first = post("/reset", {"seed": 1})
    assert status == 200 and first["observation"]["question"] and first["done"] is False
    status, refused = post("/reset", {"task_id": "no-such-task"})
    assert status == 422 and "not in the dev split" in refused["detail"]
    status, refused = post("/step", {"action": {"name": "answer", "arguments": {"answer": "x"}}})
    assert status == 409 and "/ws session" in refused["detail"]


def test_reset_plays_the_task_asked_for_and_refuses_an_unknown_one() -> None:
    env = SearchgymEnvironment(SUITE, SPLIT)
    record = searchgym.tasks(SUITE, SPLIT)[7]
    assert env.reset(task_id=record.task_id).task_id == record.task_id
    assert env.reset(seed=11).task_id == env.reset(seed=11).task_id
    with pytest.raises(ValueError, match="not in the dev split"):
        env.reset(task_id="no-such-task")
    env.close()


SEED_SAYS = "seed must be a non-negative int (NumPy integers too)"  # the core env's own check


@pytest.mark.parametrize("data, says", [({"seed": -1}, SEED_SAYS), ({"seed": "abc"}, SEED_SAYS),
                                        ({"seed": 1.5}, SEED_SAYS), ({"seed": [1]}, SEED_SAYS),
                                        ({"seed": True}, SEED_SAYS),
                                        ({"task_id": ["x"]}, "task_id must be a string"),
                                        ({"task_id": {"a": 1}}, "task_id must be a string")])
def test_a_bad_seed_or_task_id_over_the_websocket_names_the_field(data, says) -> None:
    # before: OpenEnv passes /ws reset data unvalidated: NumPy's "expected non-negative integer" or
    # "SeedSequence expects int ...", and "unhashable type: 'list'" for a list task_id
    from fastapi.testclient import TestClient

    from searchgym.integrations.openenv import create_searchgym_app

    client = TestClient(create_searchgym_app(SUITE, SPLIT))
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": data}))
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and says in reply["data"]["message"], reply
        ws.send_text(json.dumps({"type": "reset", "data": {}}))
        assert json.loads(ws.receive_text())["type"] == "observation"  # the session still serves


def test_step_before_reset_says_to_reset() -> None:
    env = SearchgymEnvironment(SUITE, SPLIT)
    with pytest.raises(ValueError, match="call reset first"):
        env.step(SearchgymAction(name="answer", arguments={"answer": "x"}))


def test_a_multi_agent_suite_is_refused_with_the_accepted_kind() -> None:
    with pytest.raises(ValueError, match="single-agent"):
        SearchgymEnvironment("team-text-v2", SPLIT)
    with pytest.raises(ValueError, match="candidates-mode"):
        SearchgymEnvironment("searchqa-v2", SPLIT)


def test_a_websocket_message_that_is_not_a_json_object_is_answered_and_the_session_goes_on() -> None:
    # before: OpenEnv read message.get("type") of any JSON, so [1,2], "x" or 3 ended the session
    # ("'list' object has no attribute 'get'", then the socket closed); a binary frame and JSON nested
    # past the recursion limit did too
    from fastapi.testclient import TestClient

    from searchgym.integrations.openenv import create_searchgym_app

    client = TestClient(create_searchgym_app(SUITE, SPLIT))
    accepted = 'each message is a text frame holding a JSON object {"type": "reset" | "step" | "state" | "close"'
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 3}}))
        task_id = json.loads(ws.receive_text())["data"]["observation"]["task_id"]
        for frame, says in [("[1,2]", "the message is an array, not a JSON object"),
                            ('"x"', "the message is a string, not a JSON object"),
                            ("3", "the message is a number, not a JSON object"),
                            ("null", "the message is null, not a JSON object"),
                            ("[" * 100_000, "the message cannot be read (maximum recursion depth"),
                            (b"{}", "a binary frame is not accepted")]:
            ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", reply
            assert reply["data"]["message"].startswith(says) and accepted in reply["data"]["message"]
        ws.send_text(json.dumps({"type": "state"}))  # the same session, its episode kept
        assert json.loads(ws.receive_text())["data"]["task_id"] == task_id
        ws.send_text(json.dumps({"type": "step", "data": {"name": "answer", "arguments": {"answer": "x"}}}))
        assert json.loads(ws.receive_text())["data"]["done"] is True


@pytest.mark.parametrize("argv,says", [(["--port", "70000"], "--port must be an int in 0..65535"),
                                       (["--port", "-1"], "--port must be an int in 0..65535"),
                                       (["--max-concurrent-envs", "0"], "--max-concurrent-envs must be an int >= 1")])
def test_an_out_of_range_flag_is_one_usage_line_before_the_world_is_built(argv, says, capsys, monkeypatch) -> None:
    # before: --port 70000 built the world and then died in uvicorn ("OverflowError: bind(): port must
    # be 0-65535"), --max-concurrent-envs 0 in a pydantic ValidationError traceback
    from searchgym.integrations import openenv

    monkeypatch.setattr(openenv, "create_searchgym_app", lambda *a: pytest.fail("the app was built"))
    with pytest.raises(SystemExit) as exit_info:
        openenv.main(argv)
    assert exit_info.value.code == 2 and says in capsys.readouterr().err


def test_an_address_it_cannot_listen_on_is_one_usage_line_before_the_world_is_built(capsys, monkeypatch) -> None:
    """Before: the world was built, then uvicorn logged "[Errno 98] ... address already in use" over
    several lines and exited 3."""
    from searchgym.integrations import openenv

    monkeypatch.setattr(openenv, "create_searchgym_app", lambda *a: pytest.fail("the app was built"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exit_info:
            openenv.main(["--port", str(port)])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2
    assert f"cannot listen on --host 127.0.0.1 --port {port} (" in err and "and a free port" in err


@pytest.mark.parametrize("value", [0, -3, 2.5, "8"])
def test_the_app_factory_names_a_bad_session_count(value) -> None:
    # before: create_searchgym_app(max_concurrent_envs=0) raised pydantic's ValidationError dump
    from searchgym.integrations.openenv import create_searchgym_app

    with pytest.raises(ValueError, match=r"max_concurrent_envs must be an integer >= 1 .*got"):
        create_searchgym_app(max_concurrent_envs=value)


def test_the_close_after_a_client_has_gone_ends_the_session_quietly() -> None:
    """Before: OpenEnv's session handler closed the socket in its ``finally`` after the client had left,
    uvicorn raised ClientDisconnected (an OSError) past it, and the server printed a 60-line "Exception
    in ASGI application" traceback for about one in three sessions of the documented example."""
    import asyncio

    from uvicorn.protocols.utils import ClientDisconnected

    from searchgym.integrations.openenv import WsObjectMessagesOnly

    sent = []

    async def send(message):
        if message["type"] == "websocket.close":
            raise ClientDisconnected()
        sent.append(message)

    async def receive():
        return {"type": "websocket.receive", "text": '{"type": "close"}'}

    async def handler(scope, receive, send):  # as OpenEnv's: read a message, answer, then close in finally
        assert json.loads((await receive())["text"]) == {"type": "close"}
        try:
            await send({"type": "websocket.send", "text": "{}"})
        finally:
            await send({"type": "websocket.close", "code": 1000})

    asyncio.run(WsObjectMessagesOnly(handler)({"type": "websocket", "path": "/ws"}, receive, send))
    assert sent == [{"type": "websocket.send", "text": "{}"}]

    async def failing_send(message):  # a failed send of anything but the close still reaches the handler
        raise ClientDisconnected()

    with pytest.raises(ClientDisconnected):
        asyncio.run(WsObjectMessagesOnly(handler)({"type": "websocket", "path": "/ws"}, receive, failing_send))
