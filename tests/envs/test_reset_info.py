"""Every env's info at reset has the keys it has after a step, with zero reward components and
empty signals, so infos of different envs and steps stack alike."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.envs.session import NO_REWARD, NO_SCORE, NO_SIGNALS


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "GroupSearch-Candidates-v0", "TeamSearch-Candidates-v0",
                                    "SearchQA-v0", "TeamSearch-v0"])
def test_reset_info_has_the_step_keys_with_zero_rewards(env_id: str) -> None:
    env = searchgym.make(env_id, world_size="tiny")
    _, infos = env.reset(seed=0)
    per_agent = infos.values() if hasattr(env, "possible_agents") else [infos]
    for info in per_agent:
        assert info["reward_components"] == dict(NO_REWARD) and info["signals"] == dict(NO_SIGNALS)
        assert info["score"] == dict(NO_SCORE)  # a team's was None until someone answered
    if hasattr(env, "possible_agents"):
        action = 0 if "Candidates" in env_id else "<answer>x</answer>"
        _, _, _, _, after = env.step({a: action for a in env.agents})
        first = next(iter(after.values()))
        assert set(first["reward_components"]) == set(NO_REWARD) and set(first["signals"]) == set(NO_SIGNALS)


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "GroupSearch-Candidates-v0", "TeamSearch-Candidates-v0"])
@pytest.mark.parametrize("options", [[1], "split", 5, {1: "test"}])
def test_reset_refuses_options_that_are_not_a_dict_naming_the_keys(env_id: str, options) -> None:
    """Before: "cannot convert dictionary update sequence element #0 to a sequence" (a list), or
    "'int' object is not iterable", from deep inside reset."""
    env = searchgym.make(env_id, world_size="tiny")
    with pytest.raises(TypeError, match=r"reset options must be a dict with string keys \(or None\); "
                                        r"accepted keys: task_id, split"):
        env.reset(seed=0, options=options)
    env.reset(seed=0, options={"split": "dev"})  # the env is as usable as before
