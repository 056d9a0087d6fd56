"""Tool-call reading: team actions match as tools do, answer and name errors say what was wrong,
raw control characters in JSON strings are read, and an over-long call is a format error as a
structured call as it is as text (docs/INTEGRATIONS.md, "Structured actions")."""

from __future__ import annotations

import json

import numpy as np
import pytest

import searchgym
from searchgym.action_types import Action, ParseError
from searchgym.actions import MAX_ACTION_CHARS, parse_action, parse_tool_call
from searchgym.lenient_json import load_object

TOOLS = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")


def call_text(name: str, arguments: dict) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


@pytest.mark.parametrize(("name", "arguments", "action"), [
    ("Post-Note", {"note": "hi"}, Action.post("hi")),
    ("post note", {"note": "hi"}, Action.post("hi")),
    ("POST_NOTE", {"note": "hi"}, Action.post("hi")),
    ("Post", {"note": "hi"}, Action.post("hi")),
    ("wait-", {}, Action.wait()),
    (" Wait ", {}, Action.wait()),
    ("Answer", {"answer": "x"}, Action.answer("x")),
])
def test_team_actions_match_regardless_of_case_blanks_and_dashes(name, arguments, action):
    """Before: "Post-Note", "post note" and "wait-" were "unknown tool", while "Current-Time" ran."""
    assert parse_tool_call({"name": name, "arguments": arguments}, "hermes", TOOLS, True) == action
    assert parse_action(call_text(name, arguments), "hermes", TOOLS, True) == action


@pytest.mark.parametrize("name", ["Post-Note", "post note", "wait-"])
def test_team_actions_spelled_loosely_are_still_refused_outside_a_team(name):
    result = parse_tool_call({"name": name, "arguments": {"note": "hi"}}, "hermes", TOOLS)
    assert isinstance(result, ParseError) and f"{name.strip()} is a team action, not available here" in result.message


def test_tool_names_match_with_separators_at_the_ends_as_team_actions_do():
    assert parse_tool_call({"name": "web-search-", "arguments": {"query": "x"}}, "hermes", TOOLS) == \
        Action.call("web_search", query="x")
    assert parse_tool_call({"name": "Current Time", "arguments": {}}, "hermes", TOOLS) == Action.call("current_time")


@pytest.mark.parametrize(("arguments", "problem"), [
    ({"final": "zz", "why": "b"},
     'the answer call has several arguments (\'final\', \'why\') and none named "answer" or "text"'),
    ({"answer": None, "text": "x"}, 'the answer call\'s "answer" is null (it is read before "text")'),
    ({"text": None}, 'the answer call\'s "text" is null'),
    ({}, "the answer call is empty"),
    ({"answer": "  "}, "the answer call is empty"),
])
def test_an_unreadable_answer_call_says_what_was_wrong(arguments, problem):
    """Before: every one of these read "the answer call is empty (whitespace ... do not count)"."""
    for result in (parse_tool_call({"name": "answer", "arguments": arguments}, "hermes", TOOLS),
                   parse_action(call_text("answer", arguments), "hermes", TOOLS)):
        assert isinstance(result, ParseError) and problem in result.message


def test_an_answer_call_still_reads_its_only_argument_whatever_its_name():
    assert parse_tool_call({"name": "answer", "arguments": {"final": "zz"}}, "hermes", TOOLS) == Action.answer("zz")


@pytest.mark.parametrize("name", [5, ["web_search"], {"n": 1}])
def test_a_name_that_is_no_string_is_called_that(name):
    """Before: 'the tool call has no "name"' though it had one."""
    result = parse_tool_call({"name": name, "arguments": {}}, "hermes", TOOLS)
    assert isinstance(result, ParseError) and 'the "name" of a tool call must be a string, got a' in result.message


@pytest.mark.parametrize("character", ["\n", "\t", "\x00", "\r", "\x1f"])
def test_a_raw_control_character_inside_a_json_string_is_read(character):
    """Before: a raw newline or NUL was "Invalid control character" while a raw tab was read."""
    text = '<tool_call>{"name": "web_search", "arguments": {"query": "a' + character + 'b"}}</tool_call>'
    assert parse_action(text, "hermes", TOOLS) == Action.call("web_search", query=f"a{character}b")
    assert load_object('{"q": "line one\nline two"}') == ({"q": "line one\nline two"}, "")
    arguments = '{"query": "a' + character + 'b"}'
    assert parse_tool_call({"name": "web_search", "arguments": arguments}, "hermes", TOOLS) == \
        Action.call("web_search", query=f"a{character}b")
    assert parse_tool_call({"name": "web_search", "arguments": json.dumps(arguments)}, "hermes", TOOLS) == \
        Action.call("web_search", query=f"a{character}b")  # arguments encoded twice


def test_an_answer_of_control_characters_only_is_still_empty():
    result = parse_action('<tool_call>{"name": "answer", "arguments": {"answer": "\n\x00"}}</tool_call>', "hermes",
                          TOOLS)
    assert isinstance(result, ParseError) and "the answer call is empty" in result.message


@pytest.mark.parametrize("call", [
    {"name": "web_search", "arguments": {"query": "q" * 30_000}},
    {"name": "web_search", "arguments": json.dumps({"query": "q" * 30_000})},
    {"name": "web_search", "arguments": {"query": ["q" * 100] * 300}},
])
def test_an_over_long_structured_call_is_a_format_error_as_its_text_is(call):
    """Before: the text was a format error and the same dict ran (and its tool refused the query)."""
    text = '<tool_call>{"name":"web_search","arguments":{"query":"' + "q" * 30_000 + '"}}</tool_call>'
    assert "the action is" in parse_action(text, "hermes", TOOLS).message
    result = parse_tool_call(call, "hermes", TOOLS)
    assert isinstance(result, ParseError) and f"over {MAX_ACTION_CHARS} characters long as JSON" in result.message


def test_a_structured_call_just_under_the_limit_is_read():
    query = "q" * (MAX_ACTION_CHARS - 100)
    assert parse_tool_call({"name": "answer", "arguments": {"answer": "x", "pad": query}}, "hermes", TOOLS) == \
        Action.answer("x")


def test_the_size_walk_ends_on_cyclic_and_odd_values():
    from searchgym.tool_calls import json_chars_over

    cyclic: list = []
    cyclic.append(cyclic)
    assert json_chars_over(cyclic, 1000)
    assert json_chars_over({"a": np.zeros(5000)}, 1000)
    assert not json_chars_over({"name": "web_search", "arguments": {"query": "x", "n": 3, "b": None}}, 100)


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "TeamSearch-v0"])
def test_envs_class_an_over_long_call_alike_as_text_and_as_a_dict(env_id):
    env = searchgym.make(env_id, world_size="tiny")
    infos = []
    for action in ('<tool_call>{"name":"web_search","arguments":{"query":"' + "q" * 30_000 + '"}}</tool_call>',
                   {"name": "web_search", "arguments": {"query": "q" * 30_000}}):
        env.reset(seed=0)
        if env_id == "SearchQA-v0":
            info = env.step(action)[4]
        else:
            agent = env.agents[0]
            info = env.step({a: action if a == agent else "<wait/>" for a in env.agents})[4][agent]
        infos.append((info["format_error"], info["invalid"]))
    assert infos == [(True, False), (True, False)]


def test_a_call_that_contains_itself_is_said_to_and_a_shared_value_is_no_cycle():
    """Before: a tiny call whose arguments held the call itself was "over 20000 characters long as JSON"."""
    from searchgym.tool_calls import contains_itself

    call = {"name": "web_search", "arguments": {}}
    call["arguments"]["self"] = call
    error = parse_tool_call(call, "hermes", ["web_search"])
    assert "the call holds a dict or list that contains itself, which JSON cannot write" in error.message
    nested = [1]
    nested.append([nested])
    assert contains_itself(nested) and contains_itself(({"a": nested},))
    shared = ["x"]
    assert not contains_itself({"a": shared, "b": [shared, shared]}) and not contains_itself([[[[]]]])
