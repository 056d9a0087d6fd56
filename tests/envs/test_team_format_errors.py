"""A team member's format error names the forms its role may write, as its prompt does.

Why: text actions are read with every tool name (so another role's tool is a refusal, not a parse
error), and the parse error listed every tool's form: a searcher that wrote nothing readable was
told a ``calculator`` call was accepted, and then refused with the invalid cost.
"""

from __future__ import annotations

import pytest

import searchgym


@pytest.mark.parametrize("tool_format, searcher_form, analyst_form",
                         [("hermes", '"name": "web_search"', '"name": "calculator"'),
                          ("tags", "<search>", "<calculate>")])
def test_a_format_error_lists_the_roles_own_forms(tool_format, searcher_form, analyst_form):
    env = searchgym.make("TeamSearch-v0", world_size="tiny", tool_format=tool_format)
    obs, _ = env.reset(seed=0)
    assert searcher_form in obs["searcher"]["text"] and analyst_form not in obs["searcher"]["text"]
    obs, _, _, _, infos = env.step({"lead": "<wait/>", "searcher": "blah", "analyst": "<post></post>"})
    searcher, analyst = obs["searcher"]["text"], obs["analyst"]["text"]
    assert infos["searcher"]["format_error"] and infos["analyst"]["format_error"]
    assert "Could not read your action" in searcher and searcher_form in searcher and "<wait/>" in searcher
    assert analyst_form not in searcher and "ask_for_clarification" not in searcher
    assert analyst_form in analyst and searcher_form not in analyst and "<post>" in analyst


def test_a_structured_call_that_cannot_be_read_lists_the_roles_forms():
    env = searchgym.make("TeamSearch-v0", world_size="tiny")
    env.reset(seed=0)
    obs, *_ = env.step({"lead": {"name": 3}, "searcher": "<wait/>", "analyst": "<wait/>"})
    text = obs["lead"]["text"]
    assert "Could not read your action" in text and '"name": "ask_for_clarification"' in text
    assert '"name": "web_search"' not in text


def test_an_unknown_structured_call_names_the_roles_own_calls():
    """Before: a searcher's unknown structured call listed calculator, current_time and
    ask_for_clarification (not its tools) and never named answer, post_note or wait; in a group,
    {"name": "wait"} was "unknown tool 'wait'"."""
    import searchgym

    env = searchgym.make("TeamSearch-v0", world_size="tiny")
    env.reset(seed=0)
    obs, *_ = env.step({"lead": "<wait/>", "searcher": {"name": "browse", "arguments": {"url": "x"}},
                        "analyst": "<wait/>"})
    first = obs["searcher"]["text"].splitlines()[0]
    assert first.endswith("unknown tool 'browse'; accepted calls: web_search, knowledge_base, answer, post_note, wait.")
    group = searchgym.make("GroupSearch-v0", world_size="tiny", group_size=1)
    group.reset(seed=0)
    obs, *_ = group.step({"agent_0": {"name": "wait", "arguments": {}}})
    assert "wait is a team action, not available here" in obs["agent_0"]["text"].splitlines()[0]
