"""What an env does with a caller's mistakes: stepping a finished episode, a failed reset, an
action changed after it was sent, an index given as a 0-d array."""

from __future__ import annotations

import pytest

import searchgym

TOOL_CALL = '<tool_call>{"name": "web_search", "arguments": {"query": "Tistel Group"}}</tool_call>'


def test_a_step_after_the_episode_ended_runs_no_tool():
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    assert env.step("<answer>x</answer>")[2]
    session = env.unwrapped.session
    calls = []
    tool = session.tools["web_search"]
    session.tools["web_search"] = lambda **kwargs: calls.append(kwargs) or tool(**kwargs)
    with pytest.raises(RuntimeError, match="episode is over; call reset"):
        env.step(TOOL_CALL)
    assert calls == [] and session.tool_calls == 0 and session.steps == 1
