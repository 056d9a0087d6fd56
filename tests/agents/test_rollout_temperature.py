"""rollout_temperature: rollouts sample, and updates score, softmax(logits / T); the dev curve,
the saved policy and the tests act at 1; T = 1 changes nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from searchgym.agents.population import Population
from searchgym.agents.train import TrainConfig, Trainer

from agents_helpers import tiny_train_config


def config(**overrides) -> TrainConfig:
    return tiny_train_config(**{"estimator": "grpo", "eval_every": 1, "eval_tasks": 3, **overrides})


def test_sampling_temperature_divides_the_logits_inside_the_block_only():
    population = Population.build("separate", 2, seed=0)
    policy = population.policy_for(1)
    logits = torch.tensor([[2.0, -1.0, torch.finfo(torch.float32).min]])
    with population.sampling_temperature(4.0):
        hot, hot_entropy = policy.distribution(logits)
        assert all(member.temperature == 4.0 for member in population.unique_members())
    cold, cold_entropy = policy.distribution(logits)
    assert torch.allclose(hot, torch.log_softmax(logits / 4.0, dim=-1))
    assert torch.equal(cold, torch.log_softmax(logits, dim=-1)) and policy.temperature == 1.0
    assert hot[0, 2].exp() == 0 and hot_entropy[0] > cold_entropy[0]  # masked stays impossible; flatter


def test_rollouts_and_updates_use_the_temperature_and_the_dev_curve_does_not(monkeypatch):
    """At a huge temperature every admissible candidate is equally likely: each stored log-prob is
    -log(number admissible), and the update scores the same actions alike. The dev evaluation
    that follows acts at 1."""
    trainer = Trainer(config(rollout_temperature=1e6), log=lambda row: None)
    seen = {}
    update, evaluate_dev = Trainer.update, Trainer.evaluate_dev

    def spy_update(self, groups):
        steps = [step for group in groups for traj in group for step in traj.steps]
        seen["stored"] = [(step.log_prob, math.log(int(np.sum(step.mask)))) for step in steps]
        obs, actions = [step.obs for step in steps], torch.tensor([step.action for step in steps])
        seen["scored"] = self.population.policy_for(0).evaluate(obs, actions)[0].detach()
        return update(self, groups)

    def spy_dev(self):
        seen["dev_temperature"] = self.population.policy_for(0).temperature
        return evaluate_dev(self)

    monkeypatch.setattr(Trainer, "update", spy_update)
    monkeypatch.setattr(Trainer, "evaluate_dev", spy_dev)
    trainer.iterate()
    stored = np.array(seen["stored"])
    assert np.allclose(stored[:, 0], -stored[:, 1], atol=1e-4)
    assert torch.allclose(seen["scored"], torch.tensor(stored[:, 0], dtype=seen["scored"].dtype), atol=1e-4)
    assert seen["dev_temperature"] == 1.0 and trainer.population.policy_for(0).temperature == 1.0


def test_the_temperature_is_restored_when_the_block_raises():
    population = Population.build("shared", 1, seed=0)
    with pytest.raises(RuntimeError, match="rollout failed"):
        with population.sampling_temperature(3.0):
            raise RuntimeError("rollout failed")
    assert population.policy_for(0).temperature == 1.0


def test_at_temperature_one_rollouts_store_the_policys_own_log_probs(monkeypatch):
    """The default leaves the distribution as it was: the stored log-prob of each action is the
    untempered log-softmax of the policy's logits."""
    trainer = Trainer(config(eval_every=100), log=lambda row: None)
    seen = {}
    update = Trainer.update

    def spy_update(self, groups):
        steps = [step for group in groups for traj in group for step in traj.steps]
        with torch.no_grad():
            logits, _ = self.population.policy_for(0)([step.obs for step in steps])
        plain = torch.log_softmax(logits, dim=-1)[torch.arange(len(steps)), [step.action for step in steps]]
        seen["pairs"] = (torch.tensor([step.log_prob for step in steps]), plain)
        return update(self, groups)

    monkeypatch.setattr(Trainer, "update", spy_update)
    trainer.iterate()
    stored, plain = seen["pairs"]
    assert torch.allclose(stored, plain.to(stored.dtype), atol=1e-5)


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, "2", True])
def test_a_temperature_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match=r"rollout_temperature must be a number > 0 .*got"):
        config(rollout_temperature=bad)


def test_rollout_workers_sample_at_the_plans_temperature():
    """The Ray workers' body (collect_task, run here through its in-process reference) reads the
    temperature from the plan, since a worker's own population is built at 1."""
    from searchgym.agents.rollout_workers import RolloutPlan, collect_per_task, make_envs

    cfg = config(rollout_temperature=1e6)
    trainer = Trainer(cfg, log=lambda row: None)
    envs = make_envs(cfg, "single")
    groups, _ = collect_per_task(envs, trainer.population, trainer.train_tasks[:2], RolloutPlan("single", 11, temperature=1e6))
    steps = [step for group in groups for traj in group for step in traj.steps]
    assert steps and all(abs(step.log_prob + math.log(int(np.sum(step.mask)))) < 1e-4 for step in steps)
    assert trainer.population.policy_for(0).temperature == 1.0
