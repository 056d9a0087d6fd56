"""RolloutConfig's text, switches and role are checked when it is made, each error starting with the
field's name. Before: system_prompt=5 failed mid-rollout on a TypeError, and tools_in_template="no"
(true to Python), guided="yes" and observation_role="x" ran silently."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from searchgym.agents.llm_rollout import RolloutConfig


@pytest.mark.parametrize("settings, message", [
    ({"system_prompt": 5}, "system_prompt must be text; got 5"),
    ({"tools_in_template": "no"}, "tools_in_template must be true or false; got 'no'"),
    ({"guided": 1}, "guided must be true or false; got 1"),
    ({"observation_role": "x"}, ("observation_role must be one of 'tool', 'user' (the chat role of a tool result); "
                                 "got 'x'")),
    ({"max_turns": -1}, "max_turns must be an integer in [1, 1048576]; got -1"),  # as before
])
def test_a_bad_value_is_one_line_starting_with_its_field(settings, message):
    with pytest.raises(ValueError) as caught:
        RolloutConfig(**settings)
    assert str(caught.value) == message


def test_every_good_value_is_kept():
    config = RolloutConfig(system_prompt="", tools_in_template=False, observation_role="user", guided=True)
    assert (config.system_prompt, config.tools_in_template, config.observation_role, config.guided) == \
        ("", False, "user", True)
    assert RolloutConfig() == RolloutConfig(observation_role="tool", tools_in_template=True, guided=False)
