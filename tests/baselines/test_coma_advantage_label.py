"""COMA's method record names the advantage its update computes: the TD(lambda) return minus the
counterfactual baseline. Before: the record said estimator "gae" alone, which COMA's update never
calls; the "gae" stays as the config's estimator, because every COMA checkpoint records it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from baselines_helpers import TINY_TEAM, make_ctx, spec_config
from searchgym.baselines import coma

from searchgym.method_table import METHOD_SPECS, TD_LAMBDA_COUNTERFACTUAL


def test_the_record_names_what_the_update_computes_and_keeps_the_estimator_checkpoints_hold() -> None:
    spec = METHOD_SPECS["coma"]
    assert spec.computes == spec.advantage == TD_LAMBDA_COUNTERFACTUAL == "td_lambda_counterfactual"
    assert spec.estimator == "gae"  # the TrainConfig field its checkpoints record (resume compares it)
    assert coma.COMATrainer.progress_label == TD_LAMBDA_COUNTERFACTUAL
    others = [s for s in METHOD_SPECS.values() if s.name != "coma"]
    assert all(s.computes == s.estimator and not s.advantage for s in others)


def test_the_coma_update_is_the_td_lambda_return_minus_the_counterfactual_baseline(tmp_path, monkeypatch) -> None:
    """One iteration: no registered estimator (GAE or any other) is called; the TD(lambda) targets
    and the counterfactual baseline are, and the advantage is their difference."""
    seen: dict[str, list] = {"returns": [], "baselines": []}

    def refuse(*args, **kwargs):
        raise AssertionError("COMA's update called a registered estimator")

    targets, baseline = coma.td_lambda_targets, coma.counterfactual_baseline

    def spy_targets(rewards, q_taken, dones, gamma, lam, bootstrap=0.0):
        seen["returns"].append((lam, targets(rewards, q_taken, dones, gamma, lam, bootstrap)))
        return seen["returns"][-1][1]

    def spy_baseline(q, probs, mask):
        seen["baselines"].append(baseline(q, probs, mask))
        return seen["baselines"][-1]

    monkeypatch.setattr("searchgym.agents.train.compute_advantages", refuse)
    monkeypatch.setattr("searchgym.agents.advantages.compute_advantages", refuse)
    monkeypatch.setattr(coma, "td_lambda_targets", spy_targets)
    monkeypatch.setattr(coma, "counterfactual_baseline", spy_baseline)
    ctx = make_ctx(TINY_TEAM, tmp_path, budget=8, advantage_scale="none")
    trainer = coma.COMATrainer(spec_config("coma", ctx), log=lambda row: None)
    stats = trainer.update(_one_batch(trainer))
    assert seen["returns"] and all(lam == trainer.coma.td_lambda == 1.0 for lam, _ in seen["returns"])
    assert len(seen["baselines"]) == 1
    returns = torch.tensor(np.concatenate([g for _, g in seen["returns"]])).float()
    expected = (returns - seen["baselines"][0]).abs().mean().item()
    assert stats["coma/adv_abs_mean"] == pytest.approx(expected, rel=1e-6)


def _one_batch(trainer) -> list:
    """One iteration's groups of trajectories, as the Trainer collects them."""
    from searchgym.agents.dynamic_sampling import collect_iteration

    task_ids = trainer.train_tasks[:trainer.config.tasks_per_iteration]
    groups, _, _ = collect_iteration(trainer, task_ids, 0)
    return groups
