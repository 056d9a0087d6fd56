"""An agent's tool call may name any argument: one named like a Python parameter of the tool
(``self``) is an unknown argument the env reports, never a TypeError out of ``env.step``."""

from __future__ import annotations

import pytest

import searchgym

CALLS = [
    '<tool_call>{"name": "web_search", "arguments": {"query": "x", "self": 1}}</tool_call>',
    '<tool_call>{"name": "current_time", "arguments": {"self": "now"}}</tool_call>',
    {"name": "calculator", "arguments": {"expression": "1 + 2", "self": None}},
]


@pytest.mark.parametrize("call", CALLS)
def test_an_argument_named_self_is_an_unknown_argument(call):
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    obs, _, terminated, _, info = env.step(call)  # before: TypeError "multiple values for 'self'"
    assert "got unknown argument(s) ['self']" in obs and not terminated
    assert info["invalid_actions"] == 1 and info["tool_calls"] == 1
    obs, *_ = env.step('<tool_call>{"name": "web_search", "arguments": {"query": "capital"}}</tool_call>')
    assert "unknown argument" not in obs  # the episode goes on
