"""``rl_fresh_tasks=true`` with no task left names what showed the base every task.

Before: with sft_tasks=800, 894 in the split and a DAgger round of 100 tasks, it said "sft_tasks=800 ...;
lower sft_tasks", though the DAgger tasks took the rest."""

from __future__ import annotations

import pytest
from searchgym.agents.imitation import SFTConfig, not_shown_to_base

SPLIT = [f"t{i}" for i in range(894)]


def test_the_dagger_tasks_are_named_when_they_took_the_rest():
    config = SFTConfig(sft_tasks=800, sft_dagger_rounds=1, sft_dagger_tasks=100)
    with pytest.raises(ValueError) as caught:
        not_shown_to_base(SPLIT, 0, config)
    said = str(caught.value)
    assert "sft_dagger_rounds=1 x sft_dagger_tasks=100" in said and "894 in the split" in said
    assert "lower sft_dagger_tasks" in said and "\n" not in said


def test_sft_tasks_alone_is_named_when_it_covers_the_split():
    with pytest.raises(ValueError, match=r"\(sft_tasks=900, 894 in the split\); lower sft_tasks to leave"):
        not_shown_to_base(SPLIT, 0, SFTConfig(sft_tasks=900))
    with pytest.raises(ValueError, match=r"demonstrated and sft_dagger_rounds=1 x sft_dagger_tasks=5 .*; lower sft_tasks to"):
        not_shown_to_base(SPLIT, 0, SFTConfig(sft_tasks=900, sft_dagger_rounds=1, sft_dagger_tasks=5))
    assert len(not_shown_to_base(SPLIT, 0, SFTConfig(sft_tasks=800, sft_dagger_rounds=1, sft_dagger_tasks=50))) == 44
