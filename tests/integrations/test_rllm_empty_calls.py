"""rLLM's step answers an empty list of calls (or None) as it answers any other list: with
{"tool_outputs": ...}. Before: the env's format error came back as a plain string, which rLLM's
ToolAgent reads as a user turn, not as a tool result."""

from __future__ import annotations

import pytest

from searchgym.integrations.rllm import SearchgymRllmEnv, rllm_rows


@pytest.mark.parametrize("action", [[], None, ()])
def test_no_call_is_a_format_error_in_tool_outputs(action):
    env = SearchgymRllmEnv.from_dict(rllm_rows("searchqa-text-v2", "dev")[0])
    env.reset()
    observation, reward, done, info = env.step(action)
    assert isinstance(observation, dict) and list(observation) == ["tool_outputs"]
    [(key, text)] = observation["tool_outputs"].items()
    assert key == "call_0" and "no <tool_call> or <answer> found" in text and not text.startswith("<tool_response>")
    assert reward < 0 and not done and info["format_error"]
    other, *_ = env.step(5)  # anything else that is no call: the same shape
    assert list(other) == ["tool_outputs"]
