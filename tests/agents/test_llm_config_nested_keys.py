"""``LLMTrainConfig.from_dict`` names an unknown key of a nested config (rollout, loss, advantage) with what is
accepted. Before: a bare TypeError ("RolloutConfig.__init__() got an unexpected keyword argument 'bogus'")."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from searchgym.agents.llm_train import LLMTrainConfig  # noqa: E402


@pytest.mark.parametrize("section", ["rollout", "loss", "advantage"])
def test_an_unknown_nested_key_is_named_with_the_accepted_ones(section) -> None:
    with pytest.raises(ValueError, match=rf"unknown LLMTrainConfig\.{section} field\(s\) \['bogus'\]; accepted: \["):
        LLMTrainConfig.from_dict({section: {"bogus": 1}})


def test_known_nested_keys_still_build_the_config() -> None:
    config = LLMTrainConfig.from_dict({"rollout": {"max_turns": 3}, "loss": {}, "advantage": {}})
    assert config.rollout.max_turns == 3
