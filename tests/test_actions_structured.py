"""Structured actions: a dict or an OpenAI tool_call object reads as the same Action as its text,
and a bad one gives the same clear error; the envs take them in text mode."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from openai.types.chat import ChatCompletionMessageToolCall

import searchgym
from searchgym.action_types import Action, ParseError
from searchgym.actions import parse_action, parse_tool_call
from searchgym.tools import ANSWER_SCHEMA, chat_tools

TOOLS = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")
SEARCH = Action.call("web_search", query="Vexa Corp")


def openai_call(name: str, arguments: str) -> ChatCompletionMessageToolCall:
    return ChatCompletionMessageToolCall.model_validate(
        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}})


@pytest.mark.parametrize("call", [
    {"name": "web_search", "arguments": {"query": "Vexa Corp"}},
    {"name": "web_search", "arguments": '{"query": "Vexa Corp"}'},  # a JSON string, as OpenAI sends it
    {"type": "function", "function": {"name": "web_search", "arguments": '{"query": "Vexa Corp"}'}},
    openai_call("web_search", '{"query": "Vexa Corp"}'),
    SimpleNamespace(function=SimpleNamespace(name="web_search", arguments={"query": "Vexa Corp"})),
])
def test_every_structured_form_reads_as_the_text_form(call):
    text = parse_action('<tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp"}}</tool_call>',
                        "hermes", TOOLS)
    assert text == SEARCH
    assert parse_tool_call(call, "hermes", TOOLS) == SEARCH


@pytest.mark.parametrize("arguments", [None, "", "  ", "null", " null ", {}])
def test_no_arguments_in_any_form_are_no_arguments(arguments):
    """Before: None was no arguments and the JSON string "null" (the same, as OpenAI sends it) a format error."""
    assert parse_tool_call({"name": "wait", "arguments": arguments}, "hermes", TOOLS, True) == Action.wait()
    assert parse_tool_call(openai_call("wait", arguments if isinstance(arguments, str) else "{}"), "hermes", TOOLS,
                           True) == Action.wait()


def test_answer_post_and_wait_are_calls():
    assert parse_tool_call({"name": "answer", "arguments": {"answer": " Mara Quell "}}, "hermes", TOOLS) == \
        Action.answer("Mara Quell")
    assert parse_tool_call(openai_call("answer", '{"answer": "42"}'), "tags", TOOLS) == Action.answer("42")
    assert parse_tool_call({"name": "post_note", "arguments": {"note": "n"}}, "hermes", TOOLS, True) == Action.post("n")
    assert parse_tool_call({"name": "wait", "arguments": {}}, "hermes", TOOLS, True) == Action.wait()


@pytest.mark.parametrize(("call", "problem"), [
    ({"name": "browse", "arguments": {}}, "unknown tool 'browse'; accepted calls: web_search, knowledge_base"),
    ({"name": "web_search", "arguments": "{query: "}, 'could not read the "arguments" of web_search'),
    ({"name": "web_search", "arguments": [1, 2]}, 'the "arguments" of web_search must be a JSON object, got a list'),
    ({"arguments": {"query": "x"}}, 'the tool call has no "name"'),
    ({"name": "answer", "arguments": {"answer": "  "}}, "the answer call is empty"),
    ({"name": "wait", "arguments": {}}, "wait is a team action, not available here"),  # team actions only in a team
    (7, "a structured action must be a dict"),
    (None, "a structured action must be a dict"),
])
def test_bad_structured_calls_give_the_texts_errors(call, problem):
    error = parse_tool_call(call, "hermes", TOOLS)
    assert isinstance(error, ParseError)
    first, forms = error.message.split("\n", 1)
    assert first.startswith("Could not read your action: ") and problem in first
    assert forms.startswith("Accepted actions (hermes format), one per turn:")
    if isinstance(call, dict) and "name" in call:  # the text form of the same call says the same
        text = "<tool_call>" + json.dumps(call) + "</tool_call>"
        assert parse_action(text, "hermes", TOOLS).message == error.message


def test_answer_is_a_function_schema():
    names = [t["function"]["name"] for t in chat_tools(["web_search"], answer=True)]
    assert names == ["web_search", "answer"]
    assert [t["function"]["name"] for t in chat_tools(["web_search", "answer"], team_actions=True)] == \
        ["web_search", "answer", "post_note", "wait"]
    assert ANSWER_SCHEMA["function"]["parameters"]["required"] == ["answer"]
    tools = chat_tools(answer=True)
    tools[-1]["function"]["name"] = "changed"  # a copy: the shared schema is not edited
    assert ANSWER_SCHEMA["function"]["name"] == "answer"


def _play(env, actions):
    obs, _ = env.reset(seed=3, options={"task_id": env.unwrapped.tasks.tasks()[0].id})
    out = [obs]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs, reward, terminated, truncated, info["format_errors"], info["answer"]))
    return out


def test_search_env_steps_dicts_and_openai_objects_like_text():
    env = searchgym.make("SearchQA-v0", world_size="tiny", split="dev")
    text = _play(env, ['<tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp"}}</tool_call>',
                       "<answer>Mara Quell</answer>"])
    structured = _play(env, [{"name": "web_search", "arguments": {"query": "Vexa Corp"}},
                             openai_call("answer", '{"answer": "Mara Quell"}')])
    assert structured == text
    assert structured[-1][2] is True and structured[-1][5] == "Mara Quell" and structured[-1][4] == 0
    bad = _play(env, [{"name": "browse", "arguments": {}}])
    assert bad[1][4] == 1 and bad[1][0].startswith("Error: Could not read your action: unknown tool 'browse'")


def test_team_env_steps_structured_calls():
    env = searchgym.make("TeamSearch-v0", world_size="tiny", split="dev")
    env.reset(seed=0)
    actions = {"lead": {"name": "wait", "arguments": {}},
               "searcher": openai_call("web_search", '{"query": "Vexa Corp"}'),
               "analyst": {"name": "post_note", "arguments": {"note": "checking"}}}
    _, _, _, _, infos = env.step(actions)
    assert all(infos[a]["format_errors"] == 0 for a in actions)
    assert infos["searcher"]["tool_calls"] == 1


@pytest.mark.parametrize("action", [
    "<answer>\x00</answer>",
    "<answer> \x00\x07\u200b </answer>",
    {"name": "answer", "arguments": {"answer": "\x00\x07"}},
    {"name": "answer", "arguments": {"answer": ["\x00", " \x1f "]}},
])
def test_an_answer_of_only_control_characters_is_a_format_error_like_an_empty_one(action):
    env = searchgym.make("SearchQA-v0", world_size="tiny", split="dev")
    (_, (obs, _, terminated, _, format_errors, answer)) = _play(env, [action])
    assert not terminated and format_errors == 1 and answer is None
    assert "is empty (whitespace and control characters do not count)" in obs
    assert "Accepted actions (hermes format)" in obs
    empty = _play(env, ["<answer></answer>" if isinstance(action, str) else {"name": "answer", "arguments": {}}])
    assert empty[1][0] == obs  # word for word the empty answer's error
    assert parse_action("<answer>\x00Mara Quell</answer>", "hermes", TOOLS) == Action.answer("\x00Mara Quell")


def test_numpy_values_in_a_structured_call_are_the_python_values_they_hold():
    # before: np.int64(3) was refused ("must be an integer, got int64") and np.array([3]) crashed the
    # step with "unhashable type: 'numpy.ndarray'"
    import numpy as np

    call = parse_tool_call({"name": "web_search", "arguments": {"query": np.str_("Vexa Corp"), "k": np.int64(3)}},
                           "hermes", TOOLS)
    assert call == Action.call("web_search", query="Vexa Corp", k=3) and type(dict(call.arguments)["k"]) is int
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    _, _, _, _, info = env.step({"name": "web_search", "arguments": {"query": "x", "k": np.array([3])}})
    assert info["invalid"] and "'k' must be an integer, got a JSON object or array" in \
        env.unwrapped.session.transcript[-1][1]
    _, _, _, _, info = env.step({"name": "web_search", "arguments": {"query": "x", "k": bytearray(b"1")}})
    assert info["format_error"] and "an argument value must be JSON" in env.unwrapped.session.transcript[-1][1]
