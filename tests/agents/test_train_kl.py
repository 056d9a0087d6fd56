"""The KL term in the trainers: the reference is the weights training started from, it is kept
in the checkpoint, beta = 0 changes nothing, and the exact KL path scores rows as before."""

from __future__ import annotations

import shutil

import pytest
import torch
from searchgym.agents.losses import categorical_kl, policy_loss
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.update_batch import UpdateBatch
from searchgym.baselines.mappo import MAPPOTrainer

from agents_helpers import tiny_train_config


def config(**overrides) -> TrainConfig:
    return tiny_train_config(**{"estimator": "grpo", **overrides})


def weights(module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in module.state_dict().items()}


def test_beta_zero_builds_no_reference_and_logs_no_kl(tmp_path):
    rows = []
    trainer = Trainer(config(), out_dir=tmp_path, log=rows.append)
    trainer.iterate()
    assert trainer.reference is None and "loss/kl" not in rows[-1]
    assert "reference" not in torch.load(tmp_path / "checkpoint.pt", weights_only=False)


def test_beta_zero_surrogate_is_the_plain_policy_loss():
    trainer = Trainer(config(), log=lambda row: None)
    groups, _ = trainer.collect(trainer.train_tasks[:2], seed=5)
    result, _ = trainer.calibrated_advantages(groups)
    batch = UpdateBatch.build(result, [0] * len(result.flat_advantages()),
                              result.flat_returns() * 0, trainer.device)
    loss, stats = trainer.surrogate_loss(batch)
    logp, ent, _ = trainer.population.policy_for(0).evaluate(batch.obs, batch.actions)
    plain, plain_stats = policy_loss(logp, batch.old_log_probs, batch.advantages, ent, batch.seq_ids, trainer.config.loss)
    assert torch.equal(loss, plain) and stats == plain_stats


def test_reference_is_the_start_weights_and_kl_is_logged(tmp_path):
    rows = []
    trainer = Trainer(config(loss={"kl_coef": 0.1}), out_dir=tmp_path, log=rows.append)
    base = {k: v + 0.01 for k, v in weights(trainer.population).items()}  # weights loaded after construction
    trainer.population.load_state_dict(base)
    trainer.iterate()
    trainer.iterate()
    for name, tensor in trainer.reference.population.state_dict().items():
        assert torch.equal(tensor, base[name]), name
    moved = any(not torch.equal(v, base[k]) for k, v in trainer.population.state_dict().items())
    assert moved and rows[-1]["loss/kl"] > 0
    saved = torch.load(tmp_path / "checkpoint.pt", weights_only=False)["reference"]
    assert all(isinstance(v, torch.Tensor) for v in saved.values())


def test_resume_restores_the_reference_and_the_next_update(tmp_path):
    cfg = config(loss={"kl_coef": 0.5})
    first = Trainer(cfg, out_dir=tmp_path / "a", log=lambda row: None)
    first.iterate()
    first.iterate()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    resumed = Trainer(cfg, out_dir=tmp_path / "b", log=lambda row: None)
    for (name, a), b in zip(first.reference.population.state_dict().items(),
                            resumed.reference.population.state_dict().values()):
        assert torch.equal(a, b), name
    first.iterate()
    resumed.iterate()
    for (name, a), b in zip(first.population.state_dict().items(), resumed.population.state_dict().values()):
        assert torch.equal(a, b), name


def test_kl_on_a_checkpoint_without_reference_is_refused(tmp_path):
    Trainer(config(), out_dir=tmp_path, log=lambda row: None).iterate()
    resumed = Trainer(config(loss={"kl_coef": 0.1}), out_dir=tmp_path, log=lambda row: None)
    with pytest.raises(ValueError, match="checkpoint has none"):
        resumed.iterate()


def test_a_large_beta_keeps_the_policy_near_its_reference():
    kls = {}
    for beta in (0.0, 5.0):
        trainer = Trainer(config(loss={"kl_coef": beta}, lr=3e-2, seed=4), log=lambda row: None)
        start = weights(trainer.population)
        for _ in range(4):
            trainer.iterate()
        groups, _ = trainer.collect(trainer.train_tasks[:4], seed=9)
        obs = [s.obs for g in groups for t in g for s in t.steps]
        with torch.no_grad():
            logits, _ = trainer.population.policy_for(0)(obs)
            trainer.population.load_state_dict(start)
            ref_logits, _ = trainer.population.policy_for(0)(obs)
        kls[beta] = float(categorical_kl(logits, ref_logits).mean())
    assert kls[5.0] < 0.5 * kls[0.0], kls


def test_separate_members_and_mappo_score_rows_as_without_kl():
    team = dict(env_id="TeamSearch-Generalists-Candidates-v0", env_kwargs={"team_size": 2, "max_rounds": 3,
                "world_size": "tiny"}, estimator="gae", value_head=True, group_size=2, tasks_per_iteration=1,
                population_mode="separate", loss={"kl_coef": 0.2})
    trainer = MAPPOTrainer(config(**team), log=lambda row: None)
    groups, _ = trainer.collect(trainer.train_tasks[:1], seed=1)
    trajs = [t for g in groups for t in g]
    obs = [s.obs for t in trajs for s in t.steps]
    actions = torch.tensor([s.action for t in trajs for s in t.steps])
    agent_of = [trainer._agent_index(t.agent_id) for t in trajs for _ in t.steps]
    assert set(agent_of) == {0, 1}
    logp, ent, val, kl = trainer._evaluate_kl(obs, actions, agent_of)
    ref_logp, ref_ent, ref_val = trainer._evaluate(obs, actions, agent_of)
    assert torch.equal(logp, ref_logp) and torch.equal(ent, ref_ent) and torch.equal(val, ref_val)
    assert torch.allclose(kl, torch.zeros_like(kl), atol=1e-6)  # no update yet: pi = pi_ref
    rows = []
    trainer.log_fn = rows.append
    trainer.iterate()
    assert rows[-1]["loss/kl"] > 0.0  # the last epoch's policy has moved from the reference
