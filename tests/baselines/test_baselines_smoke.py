"""Every baseline trains a few iterations through the harness protocol and returns an actor that plays."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from baselines_helpers import TINY_GROUP, TINY_QA, TINY_TEAM, make_ctx, play_one_episode, spec_config
from searchgym.agents import Population
from searchgym.agents.rollout import collect_parallel
from searchgym.baselines.coma import COMATrainer
from searchgym.baselines.mappo import MAPPOTrainer

from searchgym.harness.methods import load_method

METHOD_OF = {MAPPOTrainer: "mappo", COMATrainer: "coma"}
from searchgym.suites import make_env

RUNS = [("grpo", TINY_QA), ("grpo", TINY_GROUP), ("grpo", TINY_TEAM), ("dr_grpo", TINY_QA), ("dr_grpo", TINY_TEAM),
        ("mappo", TINY_GROUP), ("mappo", TINY_TEAM), ("ippo", TINY_TEAM), ("coma", TINY_GROUP), ("coma", TINY_TEAM)]


@pytest.mark.parametrize(("method", "suite"), RUNS, ids=[f"{m}-{s.id.split('-')[2]}" for m, s in RUNS])
def test_harness_method_trains_and_returns_an_actor(method, suite, tmp_path):
    ctx = make_ctx(suite, tmp_path, budget=40)
    actor = load_method(method)(ctx)
    rows = ctx.rows
    assert rows[0]["step"] == 0 and "dev_success" in rows[0]
    trained = [r for r in rows if r.get("iteration", 0) > 0]
    assert len(trained) >= 2 and trained[-1]["step"] >= 40
    assert all(0.0 <= r["dev_success"] <= 1.0 for r in rows if "dev_success" in r)
    assert all(np.isfinite(r["loss/policy"]) and np.isfinite(r["loss/entropy"]) for r in trained)
    if method in ("grpo", "dr_grpo"):
        assert all(0.0 <= r["groups/zero_variance_fraction"] <= 1.0 for r in trained)
    if method == "coma":
        assert all(np.isfinite(r["coma/adv_abs_mean"]) and np.isfinite(r["loss/critic"]) for r in trained)
    assert play_one_episode(suite, actor) >= 1


@pytest.mark.parametrize("method", ["mappo", "coma"])
def test_centralised_methods_refuse_a_single_agent_suite(method, tmp_path):
    with pytest.raises(ValueError, match="multi-agent suite with a global state"):
        load_method(method)(make_ctx(TINY_QA, tmp_path))


def test_collect_parallel_records_state_and_the_others_actions():
    env = make_env(TINY_TEAM, "train")
    population = Population.build("shared", 2, seed=0)
    generator = torch.Generator().manual_seed(0)
    groups, _ = collect_parallel(env, population, [env.tasks.tasks("train")[0].id], 1, generator, 0,
                                 record_state=True)
    a, b = groups[0]
    assert len(a) == len(b)  # team agents act every round
    for step_a, step_b in zip(a.steps, b.steps):
        assert step_a.state.shape == env.state_space.shape and np.array_equal(step_a.state, step_b.state)
        assert step_a.other_actions == {b.agent_id: step_b.obs["candidates"][step_b.action]}
        assert step_b.other_actions == {a.agent_id: step_a.obs["candidates"][step_a.action]}
    assert a.states[0, 0] == 0.0 and a.states.shape == (len(a), env.state_space.shape[0])  # round 0 of 4
    plain, _ = collect_parallel(env, population, [env.tasks.tasks("train")[0].id], 1, generator, 0)
    assert all(s.state is None and s.other_actions is None for t in plain[0] for s in t.steps)
    with pytest.raises(ValueError, match="record_state=True"):
        _ = plain[0][0].states


@pytest.mark.parametrize("trainer_cls", [MAPPOTrainer, COMATrainer])
def test_centralised_trainer_resumes_its_critic(trainer_cls, tmp_path):
    ctx = make_ctx(TINY_TEAM, tmp_path, budget=20)
    config = spec_config(METHOD_OF[trainer_cls], ctx)
    first = trainer_cls(config, out_dir=tmp_path / "ckpt", log=lambda row: None)
    first.train(progress=False)
    resumed = trainer_cls(config, out_dir=tmp_path / "ckpt", log=lambda row: None)
    assert resumed.state.iteration == first.state.iteration >= 1
    for key, value in first.critic.state_dict().items():
        torch.testing.assert_close(resumed.critic.state_dict()[key], value)
    if trainer_cls is MAPPOTrainer:
        assert resumed.value_norm.state_dict() == first.value_norm.state_dict() and first.value_norm.stats.count > 1
    else:
        for key, value in first.target_critic.state_dict().items():
            torch.testing.assert_close(resumed.target_critic.state_dict()[key], value)


@pytest.mark.parametrize("trainer_cls", [MAPPOTrainer, COMATrainer])
def test_critic_initialisation_follows_the_seed_only(trainer_cls, tmp_path):
    config = spec_config(METHOD_OF[trainer_cls], make_ctx(TINY_TEAM, tmp_path, seed=3))
    first = trainer_cls(config, log=lambda row: None)
    torch.rand(5)  # whatever ran before in the process must not change the critic
    second = trainer_cls(config, log=lambda row: None)
    for key, value in first.critic.state_dict().items():
        torch.testing.assert_close(second.critic.state_dict()[key], value)


def test_method_options_are_checked(tmp_path):
    with pytest.raises(ValueError, match=r"unknown option 'ppo_epoch' for mappo; accepted: "):
        load_method("mappo")(make_ctx(TINY_TEAM, tmp_path, ppo_epoch=3))
