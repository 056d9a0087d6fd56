"""Behaviour cloning: demonstrations from an env, the examples' checks, agreement rising with training."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import searchgym
from searchgym.agents import make_policy
from searchgym.agents.imitation import Examples, SFTConfig, agreement, demonstrations, imitate
from searchgym.baselines import OracleAgent


class SessionOracle:
    """The single-agent oracle as a harness-style actor (reads the live session)."""

    def __init__(self) -> None:
        self.agent = OracleAgent()

    def reset(self) -> None:
        self.agent.reset() if hasattr(self.agent, "reset") else None

    def act(self, env, observation, info):
        return self.agent.choose_action(env.unwrapped.session)


class FirstCandidate:
    def act(self, env, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])


def _env():
    return searchgym.make("SearchQA-Candidates-v0", world_size="tiny", max_steps=6)


def test_one_example_per_decision_with_the_demonstrators_choice():
    env = _env()
    task = env.unwrapped.tasks.tasks("train")[0]
    examples, success = demonstrations(env, SessionOracle(), [task], seed=0)
    assert success == 1.0  # the oracle solves it
    assert len(examples) >= 2 and set(examples.family) == {task.family}
    assert examples.text[0].startswith("Question: ")
    last = examples.observations([len(examples) - 1])[0]
    assert last["candidates"][examples.action[-1]].startswith("answer(")
    assert all(m[a] == 1 for m, a in zip(examples.mask, examples.action))


def test_dagger_labels_the_learners_states():
    env = _env()
    tasks_ = env.unwrapped.tasks.tasks("train")[:2]
    by_oracle, _ = demonstrations(env, SessionOracle(), tasks_, seed=0)
    # the learner (always the first candidate) acts; the oracle labels what it would do there
    labelled, _ = demonstrations(env, SessionOracle(), tasks_, seed=0, learner=FirstCandidate())
    assert len(labelled) > 0 and labelled.text != by_oracle.text


def test_a_choice_that_is_not_admissible_is_refused():
    examples = Examples.empty()
    obs = {"text": "Question: q", "candidates": ("a", "b", ""), "action_mask": np.array([1, 0, 0])}
    with pytest.raises(ValueError, match="chose candidate 1, which is not admissible"):
        examples.add(obs, 1, "lookup")
    examples.add(obs, 0, "lookup")
    assert examples.candidates == [["a"]] and examples.mask == [[1]]  # padding after the last admissible dropped


@pytest.mark.parametrize("policy", ["hash", "attn"])
def test_agreement_rises_with_imitation(policy):
    env = _env()
    tasks_ = env.unwrapped.tasks.tasks("train")[:12]
    examples, _ = demonstrations(env, SessionOracle(), tasks_, seed=0)
    kwargs = {"dim": 32, "heads": 2, "hidden": 32} if policy == "attn" else {"dim": 32, "hidden": 32}
    learner = make_policy(policy, seed=0, **kwargs)
    before = agreement(learner, examples)["all"]
    losses = imitate(learner, examples, SFTConfig(sft_epochs=20, sft_lr=1e-2, sft_batch_size=16),
                     torch.Generator().manual_seed(0))
    after = agreement(learner, examples)
    assert losses[-1] < 0.5 * losses[0]
    assert after["all"] >= 0.85 and after["all"] >= before + 0.3
    assert set(after) == {"all", *examples.family}


def test_settings_are_checked():
    with pytest.raises(ValueError, match="sft_lr must be a number > 0; got -1"):
        SFTConfig(sft_lr=-1)
    with pytest.raises(ValueError, match="sft_dagger_rounds must be an integer >= 0; got -1"):
        SFTConfig(sft_dagger_rounds=-1)
