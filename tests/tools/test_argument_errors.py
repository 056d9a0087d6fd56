"""A wrongly typed tool argument is named in JSON's words: what the agent sent, never the frozen
Python type ("got tuple" for a JSON object)."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.tools.base import validate_arguments

SCHEMA = {"properties": {"query": {"type": "string"}, "k": {"type": "integer"}}, "required": ["query"]}


@pytest.mark.parametrize(("value", "said"), [
    ((("a", 1),), "a JSON object or array"), (("x",), "a JSON object or array"), (None, "null"),
    (2.5, "a number"), (True, "a boolean"), (3, "an integer"),
])
def test_the_wrong_type_is_named_as_json_names_it(value, said):
    assert validate_arguments("web_search", SCHEMA, {"query": value}) == \
        f"web_search argument 'query' must be a string, got {said}"


@pytest.mark.parametrize("query", ['{"nested": "dict"}', '["a", "b"]'])
def test_an_agent_that_sends_an_object_or_array_for_a_string_is_told_so(query):
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    obs, _, _, _, info = env.step(f'<tool_call>{{"name": "web_search", "arguments": {{"query": {query}}}}}</tool_call>')
    assert info["invalid"] and "must be a string, got a JSON object or array" in obs and "tuple" not in obs
