"""The trainer: a resumed run makes exactly the update the uninterrupted run makes; devices;
the harness glue returns an actor that acts."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from searchgym.agents.policy_actor import PolicyActor
from searchgym.agents.train import Trainer
from searchgym.envs.search import SearchEnv

from agents_helpers import tiny_train_config as small_config


@pytest.mark.parametrize("estimator", ["cw_round", "cw_value"])
def test_resume_from_checkpoint_gives_the_same_next_update(tmp_path, estimator):
    first = Trainer(small_config(estimator=estimator), out_dir=tmp_path / "a", log=lambda row: None)
    first.iterate()
    first.iterate()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    resumed = Trainer(small_config(estimator=estimator), out_dir=tmp_path / "b", log=lambda row: None)
    assert resumed.state.iteration == 2 and resumed.state.env_steps == first.state.env_steps
    first.iterate()
    resumed.iterate()
    for (name, a), (_, b) in zip(first.population.state_dict().items(), resumed.population.state_dict().items()):
        assert torch.equal(a, b), name
    fresh = Trainer(small_config(estimator=estimator, seed=4), log=lambda row: None)
    fresh.iterate()
    differs = any(not torch.equal(a, b) for a, b in zip(fresh.population.state_dict().values(),
                                                       first.population.state_dict().values()))
    assert differs, "a different seed must give a different run"


def test_metrics_rows_carry_what_the_issue_asks_for(tmp_path):
    rows = []
    trainer = Trainer(small_config(eval_every=1), log=rows.append)
    trainer.iterate()
    row = rows[-1]
    for key in ("step", "dev_success", "dev_f1", "train_success", "adv/mean", "adv/std", "adv/pos_mean",
                "adv/neg_mean", "loss/entropy", "groups/zero_variance_fraction", "contribution/step_rate",
                "steps_per_s"):
        assert key in row, key


def test_value_loss_is_logged_for_value_estimators():
    rows = []
    Trainer(small_config(estimator="cw_value", eval_every=1), log=rows.append).iterate()
    assert "loss/value" in rows[-1]
    rows = []
    Trainer(small_config(estimator="cw_round", eval_every=1), log=rows.append).iterate()
    assert "loss/value" not in rows[-1] and "estimator/differs_from_grpo_mean" in rows[-1]
    with pytest.raises(ValueError, match="estimator 'cw_value' reads values: set value_head=True"):
        small_config(estimator="cw_value", value_head=False)


def test_cpu_placement_and_actor():
    trainer = Trainer(small_config(), log=lambda row: None)
    assert all(p.device.type == "cpu" for p in trainer.population.parameters())
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    obs, info = env.reset(seed=0)
    action = PolicyActor(trainer.population).act(env, obs, info)
    assert info["action_mask"][action] == 1


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_placement():
    trainer = Trainer(small_config(device="cuda"), log=lambda row: None)
    assert all(p.device.type == "cuda" for p in trainer.population.parameters())
    trainer.iterate()


def test_gae_reads_denormalised_values_when_returns_are_normalised():
    from searchgym.agents.calibration import CalibrationConfig

    trainer = Trainer(small_config(estimator="gae", calibration=CalibrationConfig(normalize_returns=True)),
                      log=lambda row: None)
    trainer.calibrator.return_stats.mean, trainer.calibrator.return_stats.var = 10.0, 4.0
    groups, _ = trainer.collect(trainer.train_tasks[:1], seed=0)
    back = trainer._denormalised(groups)
    stored = np.concatenate([t.values for g in groups for t in g])
    np.testing.assert_allclose(np.concatenate([t.values for g in back for t in g]),
                               10.0 + np.sqrt(4.0 + 1e-8) * stored)
    assert trainer.update(groups)["loss/value"] >= 0.0  # the update runs on the mapped values


def test_rl_tasks_trains_on_one_seeded_subset_of_the_train_tasks_and_leaves_the_default_run_unchanged():
    every = Trainer(small_config())
    subset = Trainer(small_config(rl_tasks=3))
    assert len(subset.train_tasks) == 3 and set(subset.train_tasks) < set(every.train_tasks)
    assert Trainer(small_config(rl_tasks=3)).train_tasks == subset.train_tasks  # the same draw for a seed
    assert Trainer(small_config(rl_tasks=3, seed=4)).train_tasks != subset.train_tasks
    played, collect = [], subset.collect
    subset.collect = lambda task_ids, seed: (played.extend(task_ids), collect(task_ids, seed))[1]
    for _ in range(4):
        assert subset.iterate()["step"] > 0
    assert len(played) == 8 and set(played) <= set(subset.train_tasks)  # RL sees only the drawn tasks
    # a run without the option keeps its task order and its generator state untouched
    assert every.rng.bit_generator.state == np.random.default_rng(3).bit_generator.state
    assert Trainer(small_config(rl_tasks=10**6)).train_tasks == every.train_tasks  # more than there are: all
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="rl_tasks must be an integer >= 1"):
            small_config(rl_tasks=bad)


@pytest.mark.parametrize("name", ["group_size", "tasks_per_iteration", "eval_every"])
def test_loop_sizes_below_one_are_refused_by_name(name):
    # group_size=0 was an IndexError in the vector env, eval_every=0 a ZeroDivisionError mid-run
    for bad in (0, -2, True, "4"):
        with pytest.raises(ValueError, match=f"{name} must be an integer >= 1; got"):
            small_config(**{name: bad})
