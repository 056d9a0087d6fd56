"""A tool whose ``build`` makes no tool of its spec's class is refused when the tool is built, in one
line naming the tool and what ``build`` must return. Before: the registration and the env were
made, and the env's first prompt failed with "'NoneType' object has no attribute 'schema'".
Registration cannot check it: ``build`` needs a world (or a task) that it has not got."""

from __future__ import annotations

import pytest
from harness_helpers import WordCount

import searchgym
from searchgym.tools import Tool, ToolResult, ToolSpec, build_tools, register_tool, scoped_tools, task_tools


class OtherTool(Tool):
    name = "other_tool"
    description = "Another tool."
    parameters = {"type": "object", "properties": {}}

    def run(self) -> ToolResult:
        return ToolResult(text="other")


def _one_line(raised: pytest.ExceptionInfo) -> str:
    text = str(raised.value)
    assert "\n" not in text
    return text


def test_a_world_tool_built_as_none_is_refused_naming_the_tool_and_what_build_returns(world):
    with scoped_tools():
        register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: None))
        with pytest.raises(TypeError) as raised:
            build_tools(world)
    assert _one_line(raised) == ("tool 'word_count': build(world, options) returned None; it must return a "
                                 "WordCount (the spec's tool_class)")


def test_a_tool_of_another_class_is_refused_too(world):
    with scoped_tools():
        register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: OtherTool()))
        refused = r"^tool 'word_count': build\(world, options\) returned <.*OtherTool"
        with pytest.raises(TypeError, match=refused):
            build_tools(world)


def test_a_per_task_tool_names_build_task(world):
    with scoped_tools():
        register_tool(ToolSpec("word_count", WordCount, build=lambda task: "a tool", per_task=True))
        with pytest.raises(TypeError) as raised:
            task_tools(world.task_by_id["t_ambiguous"])
    assert _one_line(raised).startswith(
        "tool 'word_count': build(task) returned 'a tool'; it must return a WordCount")


def test_registration_does_not_call_build_and_a_good_build_is_used_as_it_returns(world):
    calls = []

    def build(world, options):
        calls.append(world)
        return WordCount()

    with scoped_tools():
        register_tool(ToolSpec("word_count", WordCount, build=build))
        assert calls == []
        assert isinstance(build_tools(world)["word_count"], WordCount) and calls == [world]


def test_the_env_fails_on_making_with_the_one_line_not_on_its_first_prompt():
    with scoped_tools():
        register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: None))
        # before: made, then reset failed with AttributeError "'NoneType' object has no attribute 'schema'"
        with pytest.raises(TypeError, match=r"^tool 'word_count': build\(world, options\) returned None"):
            searchgym.make("SearchQA-v0", world_size="tiny").reset(seed=0)
