"""`searchgym serve --behaviour reader`: the non-privileged reader as an OpenAI-compatible model.

It reads only the conversation it is sent, so a pipeline that follows it plays exactly what the
reader plays on the env itself (the same actions, the same successes), and it answers questions
no suite scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from searchgym.baselines.reader_text import ReaderTextAgent

import searchgym
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint, reader_observations
from searchgym.suites import Suite

openai = pytest.importorskip("openai", reason="the reader endpoint is checked through the official openai client")

TINY = Suite("tiny-text-reader", 1, "SearchQA-v0", {"max_steps": 8, "tool_format": "hermes"}, world_size="tiny",
             dev_size=4, test_size=2)
ROOT = Path(__file__).resolve().parents[2]


def play_direct(task_id: str) -> tuple[list[str], dict]:
    """The reader on the env itself: its action texts and the last info."""
    env = searchgym.make_task_env(TINY, "dev", task_id)
    observation, info = env.reset(seed=0)
    agent, actions, done = ReaderTextAgent(), [], False
    while not done:
        actions.append(agent.act(env, observation, info))
        observation, _, terminated, truncated, info = env.step(actions[-1])
        done = terminated or truncated
    return actions, info


def play_through_endpoint(client, record) -> tuple[list[str], dict, float]:
    """A framework loop: the task API's prompt, native tool calls through the openai client."""
    env = searchgym.make_task_env(TINY, "dev", record.task_id)
    env.reset(seed=0)
    messages, actions, total, done, info = list(record.messages), [], 0.0, False, {}
    while not done:
        message = client.chat.completions.create(model="reader", messages=messages, tools=record.tools)\
            .choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        (call,) = message.tool_calls
        actions.append(call.function.name)
        observation, reward, terminated, truncated, info = env.step(call)
        total += reward
        done = terminated or truncated
        messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
    return actions, info, total


def test_the_reader_endpoint_plays_what_the_reader_plays_on_the_env():
    records = searchgym.tasks(TINY, "dev")
    with ScriptedEndpoint(TINY, "reader", native=True) as endpoint:
        assert endpoint.script == {}  # nothing recorded from the env: it reads the conversation only
        client = openai.OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0)
        successes = 0
        for record in records:
            direct, direct_info = play_direct(record.task_id)
            served, info, _ = play_through_endpoint(client, record)
            assert [a.split('"name": "', 1)[1].split('"', 1)[0] if "<tool_call>" in a else "answer" for a in direct] \
                == served, record.task_id
            assert info["answer"] == direct_info["answer"] and info["success"] == direct_info["success"]
            successes += info["success"]
    assert successes >= 1  # the reader solves some of the tiny world's tasks (it is no oracle)


def test_the_reader_answers_a_question_no_suite_scripts():
    with ScriptedEndpoint(TINY, "reader", native=True) as endpoint:
        client = openai.OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0)
        question = "Who founded Quorblix Industries?"
        messages = [{"role": "user", "content": f"Answer with the tools.\nQuestion: {question}"}]
        record_tools = searchgym.tasks(TINY, "dev")[0].tools
        call = client.chat.completions.create(model="r", messages=messages, tools=record_tools)\
            .choices[0].message.tool_calls[0]
        assert call.function.name in ("knowledge_base", "web_search")
        assert "Quorblix Industries" in json.loads(call.function.arguments).popitem()[1]
        text = client.chat.completions.create(model="r", messages=[{"role": "user", "content": "hello"}])
        assert text.choices[0].message.content == "<answer>unknown</answer>"  # no question: nothing to plan


def test_reader_observations_are_the_prompt_then_what_followed_each_turn():
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "Question: q"},
                {"role": "assistant", "content": "a1"}, {"role": "tool", "content": "r1"},
                {"role": "tool", "content": [{"type": "text", "text": "r2"}]},
                {"role": "assistant", "content": "a2"}]
    assert reader_observations(messages) == ["Question: q", "r1\nr2"]
    assert reader_observations([{"role": "system", "content": "s"}]) == []


def test_searchgym_serve_reader_starts_and_replies():
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "searchgym.cli", "serve", "--suite", "searchqa-text-v2", "--port", "0",
               "--behaviour", "reader", "--native"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("starting the reader endpoint for searchqa-text-v2"), lines
        url = lines[1].split(" at ", 1)[1].split()[0]
        record = searchgym.tasks("searchqa-text-v2", "dev")[0]
        request = urllib.request.Request(url + "/chat/completions", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"model": "m", "messages": record.messages}).encode())
        with urllib.request.urlopen(request, timeout=60) as response:
            reply = openai.types.chat.ChatCompletion.model_validate(json.loads(response.read()))
        assert reply.choices[0].message.tool_calls[0].function.name in ("knowledge_base", "web_search")
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0 and out.strip().endswith("stopped"), err
