"""A suite's definition, and so its hash, records the registered tools when they are not searchgym's
own: every env plays every registered tool, so a run with a user's tool is not a run of the frozen
suite (random's tool calls per episode moved from 4.35 to 4.85 under an unchanged hash)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from harness_helpers import WORD_COUNT_CALLS, WordCount, word_count_spec

from searchgym.suites import BUILT_IN_TOOLS, Suite, get_suite, registered_tools
from searchgym.tools import (
    TOOL_NAMES,
    FixedCall,
    Tool,
    ToolResult,
    ToolSpec,
    register_tool,
    scoped_tools,
    tool_spec,
)

SEARCHQA_V2 = "e940bb71899be524eb95a6aa7a7bc384a5d89eb4a8529345b58655410a4101fe"  # tests/test_suite_hash_pins.py




class MyCalculator(Tool):
    name = "calculator"
    description = "A calculator of my own."
    parameters: dict[str, Any] = {"type": "object", "properties": {"expression": {"type": "string"}}}

    def run(self, expression: str) -> ToolResult:
        return ToolResult(text="42")


def test_searchgyms_own_tools_are_no_record():
    assert tuple(TOOL_NAMES) == BUILT_IN_TOOLS and registered_tools() is None
    assert "registered_tools" not in get_suite("searchqa-v2").definition()


def test_a_users_tool_is_recorded_and_changes_the_hash_while_it_is_registered():
    suite = get_suite("searchqa-v2")
    with scoped_tools():
        register_tool(word_count_spec(candidates=WORD_COUNT_CALLS))
        definition = suite.definition()
        assert definition["registered_tools"][-1] == "word_count=harness_helpers.WordCount"
        assert definition["registered_tools"][0] == "web_search=searchgym.tools.web_search.WebSearch"
        assert suite.content_hash != SEARCHQA_V2
        read_back = Suite(**definition)  # how report and evaluate read a run's config.json
        assert read_back == suite and read_back.definition() == definition
    assert suite.content_hash == SEARCHQA_V2


def test_a_built_in_tool_replaced_by_a_users_class_is_recorded():
    with scoped_tools():
        register_tool(dataclasses.replace(tool_spec("calculator"), tool_class=MyCalculator,
                                          build=lambda world, options: MyCalculator()), replace=True)
        assert f"calculator={__name__}.MyCalculator" in get_suite("searchqa-v2").definition()["registered_tools"]
        assert get_suite("searchqa-v2").content_hash != SEARCHQA_V2
    assert get_suite("searchqa-v2").content_hash == SEARCHQA_V2


def test_a_tool_of_the_callers_script_is_recorded_alike_in_a_compare_worker():
    """A spawn worker imports the caller's script as ``__mp_main__``: the same class must give the
    same record (and suite hash) as in the script itself, ``__main__``, or the hash changed with --workers."""
    hashes = []
    for module in ("__main__", "__mp_main__"):
        script_tool = type("ScriptTool", (WordCount,), {"__module__": module})
        with scoped_tools():
            register_tool(ToolSpec("word_count", script_tool, build=lambda world, options: WordCount(),
                                   candidates=FixedCall((("text", "{name}"),))))
            definition = get_suite("searchqa-v2").definition()
            assert definition["registered_tools"][-1] == "word_count=__main__.ScriptTool"
            hashes.append(get_suite("searchqa-v2").content_hash)
    assert hashes[0] == hashes[1] != SEARCHQA_V2


@pytest.mark.parametrize("changes, shown", [
    ({"roles": ("lead", "analyst")}, "[roles=('lead', 'analyst')]"),
    ({"order": 35}, "[order=35]"),
    ({"roles": ("lead",), "order": 5}, "[roles=('lead',), order=5]"),
])
def test_a_built_in_tool_re_registered_with_other_roles_or_order_is_recorded(changes, shown):
    """Before: searchgym's own class with other roles or order (what the team's members get, the order
    prompts list the tools in) was no record, so the envs changed under the pinned hash."""
    suite = get_suite("searchqa-v2")
    with scoped_tools():
        register_tool(dataclasses.replace(tool_spec("calculator"), **changes), replace=True)
        records = suite.definition()["registered_tools"]
        assert "calculator=searchgym.tools.calculator.Calculator" + shown in records
        assert "web_search=searchgym.tools.web_search.WebSearch" in records  # the others as they are
        assert len(records) == len(BUILT_IN_TOOLS) and suite.content_hash != SEARCHQA_V2
    assert suite.content_hash == SEARCHQA_V2 and registered_tools() is None


def test_a_built_in_tool_re_registered_as_it_was_changes_no_definition():
    suite = get_suite("searchqa-v2")
    before = suite.definition()
    with scoped_tools():
        register_tool(dataclasses.replace(tool_spec("calculator")), replace=True)
        register_tool(dataclasses.replace(tool_spec("current_time"), roles=["analyst"]), replace=True)
        assert registered_tools() is None and suite.definition() == before
        assert suite.content_hash == SEARCHQA_V2
