from __future__ import annotations

import re

import jsonschema
import pytest

from searchgym.tools import TOOL_NAMES, build_tools, clarifier, shared_tools, tool_schemas
from searchgym.tools.base import Tool


@pytest.fixture(scope="module")
def tools(world):
    built = build_tools(world)
    built["ask_for_clarification"] = clarifier(world.task_by_id["t_ambiguous"])
    return built


def test_build_tools_makes_the_world_level_tools(world):
    assert list(build_tools(world)) == ["web_search", "knowledge_base", "calculator", "current_time"]


def test_every_schema_is_valid_openai_function_format(tools):
    assert set(tools) == set(TOOL_NAMES)
    for name, tool in tools.items():
        schema = tool.schema()
        assert set(schema) == {"type", "function"} and schema["type"] == "function"
        function = schema["function"]
        assert set(function) == {"name", "description", "parameters"}
        assert function["name"] == name and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name)
        assert isinstance(function["description"], str) and len(function["description"]) > 20
        params = function["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop["type"] in {"string", "integer"} and prop["description"]


def test_tool_schemas_lists_tools_in_canonical_order(tools):
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    assert schemas == [tools[name].schema() for name in TOOL_NAMES]
    assert [s["function"]["name"] for s in tool_schemas(["calculator", "web_search"])] == ["calculator", "web_search"]


def test_tool_schemas_rejects_unknown_names():
    with pytest.raises(ValueError, match="accepted: web_search, knowledge_base"):
        tool_schemas(["search"])


def test_valid_arguments_pass_the_schema_and_the_tool(tools):
    examples = {
        "web_search": {"query": "Olbrecht", "k": 2},
        "knowledge_base": {"entity": "Olbrecht"},
        "calculator": {"expression": "1 + 1"},
        "current_time": {},
        "ask_for_clarification": {"question": "Which one?"},
    }
    for name, arguments in examples.items():
        jsonschema.validate(arguments, tools[name].schema()["function"]["parameters"])
        assert tools[name](**arguments).ok


BAD_VALUES = [None, 3, 2.5, True, ["x"], {"x": 1}]


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_kind_of_bad_argument_is_a_failed_result_never_an_exception(tools, name):
    tool: Tool = tools[name]
    params = tool.parameters
    results = [tool(no_such_argument=1)]
    if params["required"]:
        results.append(tool())
    for key, spec in params["properties"].items():
        others = {k: "x" for k in params["required"] if k != key}
        wrong = [v for v in BAD_VALUES if not (spec["type"] == "integer" and type(v) is int)]
        results.extend(tool(**others, **{key: value}) for value in wrong)
    for result in results:
        assert not result.ok and result.error and result.text.startswith("Error: ")
        assert result.evidence_ids == ()


def test_shared_tools_builds_once_per_world_and_backend(world):
    shared_tools.cache_clear()
    try:
        first = shared_tools(world)
        assert shared_tools(world) is first
        assert set(first) == {"web_search", "knowledge_base", "calculator", "current_time"}
        with pytest.raises(TypeError):
            first["calculator"] = None  # shared by every env: read-only
        assert shared_tools(world, backend="rank_bm25") is not first
        assert first["web_search"].snippet_sentences == 12  # envs read whole entity pages
    finally:
        shared_tools.cache_clear()


@pytest.mark.parametrize("names", [5, None, b"web_search", [["web_search"]], [{"a": 1}], ["web_search", 3]])
def test_names_that_are_no_list_of_strings_are_a_clear_type_error(names):
    """Before: "'int' object is not iterable", "unhashable type: 'list'", bytes read as ints."""
    from searchgym.tools import chat_tools

    with pytest.raises(TypeError, match=r"tool_schemas: names must be a tool name or a list of tool names "
                                        r"\(web_search, .*ask_for_clarification\), got "):
        tool_schemas(names)
    with pytest.raises(TypeError, match=r"chat_tools: names must be .*ask_for_clarification, answer\), got "):
        chat_tools(names)


def test_chat_tools_flags_are_booleans():
    """Before: answer="no" or team_actions="no" added the schemas (a truthy string)."""
    from searchgym.tools import chat_tools

    for flag in ("answer", "team_actions"):
        with pytest.raises(TypeError, match=f"chat_tools: {flag} must be True or False, got str 'no'"):
            chat_tools(**{flag: "no"})
    names = [s["function"]["name"] for s in chat_tools(("calculator",), team_actions=True, answer=True)]
    assert names == ["calculator", "answer", "post_note", "wait"]
    assert [s["function"]["name"] for s in tool_schemas({"web_search"})] == ["web_search"]
