"""A team role that cannot submit the answer is not offered ``<answer>``: its prompt said "You cannot
submit the final answer" and then listed ``<answer>your final answer</answer>`` among its accepted
actions, and so did its parse errors and ``searchgym play``'s help."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.commands.play import text_help

ANSWER_FORM = "<answer>your final answer</answer>"


@pytest.mark.parametrize("tool_format", ["hermes", "tags"])
def test_only_the_answering_role_is_shown_the_answer_form(tool_format):
    env = searchgym.make("TeamSearch-v0", world_size="tiny", tool_format=tool_format)
    obs, _ = env.reset(seed=0)
    roles = env.unwrapped.roles
    assert [a for a in env.agents if roles[a].can_answer] == ["lead"]
    for agent in env.agents:
        prompt = obs[agent]["text"]
        assert "<post>a note for your team</post>" in prompt
        assert (ANSWER_FORM in prompt) is roles[agent].can_answer
        assert ("You cannot submit the final answer" in prompt) is not roles[agent].can_answer

    obs, *_ = env.step({"lead": "gibberish", "searcher": "gibberish", "analyst": "<answer>3</answer>"})
    assert "Could not read your action" in obs["lead"]["text"] and ANSWER_FORM in obs["lead"]["text"]
    assert "Could not read your action" in obs["searcher"]["text"] and ANSWER_FORM not in obs["searcher"]["text"]
    # the answer is still read, and refused for what it is
    assert "your role cannot submit the answer; post what you found for lead" in obs["analyst"]["text"]


def test_a_structured_call_error_to_a_non_answering_role_lists_no_answer_form():
    env = searchgym.make("TeamSearch-v0", world_size="tiny")
    env.reset(seed=0)
    wait = {"name": "wait", "arguments": {}}
    obs, *_ = env.step({"lead": wait, "searcher": {"arguments": {}}, "analyst": wait})
    assert "Could not read your action" in obs["searcher"]["text"]
    assert ANSWER_FORM not in obs["searcher"]["text"]


def test_play_help_shows_a_role_only_its_own_forms():
    env = searchgym.make("TeamSearch-v0", world_size="tiny")
    env.reset(seed=0)
    sessions = env.unwrapped.sessions
    assert ANSWER_FORM in text_help(sessions["lead"], team=True)
    assert ANSWER_FORM not in text_help(sessions["searcher"], team=True)
