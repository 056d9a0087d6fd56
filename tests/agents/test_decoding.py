"""How a trained policy acts when scored: sampled from its own distribution (the default, seeded
per episode) or greedy. Same seeds give the same episodes whatever was played before; greedy is
the argmax; the dev curve decodes as the deployed policy does."""

from __future__ import annotations

import pytest
import torch

from searchgym.agents.policy_actor import DECODINGS, PolicyActor
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.envs.search import SearchEnv
from searchgym.harness.evaluate import evaluate_suite
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-decoding-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6}, world_size="tiny",
                             dev_size=2, test_size=8, description="tests: decoding"))


def _population():
    config = TrainConfig(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                         group_size=2, tasks_per_iteration=1, eval_tasks=2, device="cpu", seed=1)
    trainer = Trainer(config, log=lambda row: None)
    with torch.no_grad():  # a flat policy, so sampling and argmax part ways
        for p in trainer.population.parameters():
            p.mul_(0.0)
    return trainer.population


def _actions(actor: PolicyActor, episode_seed: int, steps: int = 4) -> list[int]:
    env = SearchEnv(action_mode="candidates", world_size="tiny", max_steps=steps)
    obs, info = env.reset(seed=0)
    actor.reset(seed=episode_seed)
    out = []
    for _ in range(steps):
        action = actor.act(env, obs, info)
        out.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return out


def test_sampled_episodes_depend_only_on_the_actor_and_episode_seeds() -> None:
    population = _population()
    actor = PolicyActor(population, decoding="sample", seed=7)
    first = _actions(actor, episode_seed=3)
    _actions(actor, episode_seed=99)  # another episode in between changes nothing
    assert _actions(actor, episode_seed=3) == first
    draws = {tuple(_actions(PolicyActor(population, seed=s), episode_seed=3)) for s in range(8)}
    assert len(draws) > 1  # a flat policy sampled under other seeds acts otherwise


def test_greedy_decoding_is_the_argmax_of_the_logits() -> None:
    population = _population()
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    obs, info = env.reset(seed=0)
    logits, _ = population.policy_for(0)([obs])
    assert PolicyActor(population, decoding="greedy").act(env, obs, info) == int(logits.argmax(-1))


def test_a_suite_evaluation_is_the_same_twice_and_in_any_order() -> None:
    actor = PolicyActor(_population(), decoding="sample", seed=2)
    once = evaluate_suite(SUITE, actor, split="test")
    assert evaluate_suite(SUITE, actor, split="test") == once
    assert evaluate_suite(SUITE, actor, split="test", limit=3) == once[:3]


def test_unknown_decodings_are_refused_with_what_is_accepted() -> None:
    assert DECODINGS == ("sample", "greedy")
    with pytest.raises(ValueError, match="accepted: sample, greedy"):
        TrainConfig(decoding="beam")
    with pytest.raises(ValueError, match="accepted: sample, greedy"):
        PolicyActor(_population(), decoding="top-k")


def test_the_dev_curve_decodes_as_configured_and_repeats_itself() -> None:
    base = dict(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                group_size=2, tasks_per_iteration=1, eval_tasks=4, device="cpu", seed=1)
    sampled = Trainer(TrainConfig(**base), log=lambda row: None)
    assert sampled.evaluate_dev() == sampled.evaluate_dev()
    greedy = Trainer(TrainConfig(**base, decoding="greedy"), log=lambda row: None)
    assert greedy.evaluate_dev() == greedy.evaluate_dev()
