"""The policy-loss registry and the aggregation table: hand-computed losses, names that are not
registered fail with the accepted ones, and a registered entry is what a config selects."""

from __future__ import annotations

import math

import pytest
import torch

from searchgym.agents import (
    AGGREGATIONS,
    POLICY_LOSSES,
    LossConfig,
    aggregate,
    get_aggregation,
    get_policy_loss,
    policy_loss,
    register_aggregation,
    register_policy_loss,
)
from searchgym.agents.train import Trainer
from searchgym.harness.method_specs import resolve_options
from searchgym.method_table import METHOD_SPECS

# trajectory 0: [1, 3] ; trajectory 1: [2, 4, 6]
STEPS = torch.tensor([1.0, 3.0, 2.0, 4.0, 6.0])
IDS = torch.tensor([0, 0, 1, 1, 1])


def test_seq_mean_token_sum_by_hand():
    assert float(aggregate(STEPS, IDS, "seq-mean-token-sum")) == pytest.approx(8.0)  # (4 + 12) / 2
    assert float(aggregate(STEPS, torch.tensor([0, 0, 3, 3, 3]), "seq-mean-token-sum")) == pytest.approx(8.0)


def test_the_table_says_how_a_micro_batch_is_weighed():
    assert get_aggregation("token-mean").weight_by == "tokens"
    assert {get_aggregation(name).weight_by for name in AGGREGATIONS if name != "token-mean"} == {"sequences"}
    assert [name for name in AGGREGATIONS if get_aggregation(name).needs_norm_length] == ["seq-mean-token-sum-norm"]


def test_unknown_names_list_what_is_accepted():
    with pytest.raises(ValueError, match="seq-mean-token-sum-norm") as agg:
        aggregate(STEPS, IDS, "token-sum")
    assert "token-sum" in str(agg.value) and all(name in str(agg.value) for name in AGGREGATIONS)
    with pytest.raises(ValueError, match=r"unknown policy loss 'clip'; accepted: ppo_clip, pg"):
        get_policy_loss("clip")
    with pytest.raises(ValueError, match="unknown policy loss"):
        LossConfig(policy_loss="clip")
    with pytest.raises(ValueError, match="already registered"):
        register_policy_loss("ppo_clip")(lambda ratio, adv, config: (ratio, {}))
    with pytest.raises(ValueError, match="already registered"):
        register_aggregation("token-mean")(lambda per_step, ids, norm: per_step.sum())
    with pytest.raises(ValueError, match="weight_by"):
        register_aggregation("per-token", weight_by="steps")


def _ratio_one_and_a_half():
    """ratio 1.5 on both steps (new log-prob log 1.5, old 0), A = [1, -2], one trajectory each."""
    new = torch.full((2,), math.log(1.5))
    return new, torch.zeros(2), torch.tensor([1.0, -2.0]), torch.zeros(2), torch.tensor([0, 1])


def test_ppo_clip_and_pg_by_hand():
    # ppo_clip, eps 0.2: A = 1 -> -min(1.5, 1.2) = -1.2 ; A = -2 -> -min(-3, -2.4) = 3 (dual cap 6 not hit)
    clip, clip_stats = policy_loss(*_ratio_one_and_a_half(), LossConfig(entropy_coef=0.0))
    assert clip.item() == pytest.approx((-1.2 + 3.0) / 2)
    assert clip_stats["loss/clip_fraction"] == 1.0 and clip_stats["loss/dual_clip_fraction"] == 0.0
    # pg: -r A = [-1.5, 3]; no clip, so no clip statistics
    pg, pg_stats = policy_loss(*_ratio_one_and_a_half(), LossConfig(entropy_coef=0.0, policy_loss="pg"))
    assert pg.item() == pytest.approx((-1.5 + 3.0) / 2)
    assert "loss/clip_fraction" not in pg_stats and pg_stats["loss/ratio_mean"] == pytest.approx(1.5)


def test_a_registered_policy_loss_and_aggregation_are_what_the_config_selects():
    with POLICY_LOSSES.scoped(), AGGREGATIONS.scoped():
        @register_policy_loss("test_negated_advantage")
        def negated(ratio, advantages, config):
            return -advantages + 0.0 * ratio, {"loss/test_marker": 1.0}

        @register_aggregation("test-token-sum", weight_by="tokens")
        def token_sum(per_step, seq_ids, norm_length=None):
            return per_step.sum()

        config = LossConfig(entropy_coef=0.0, policy_loss="test_negated_advantage", aggregation="test-token-sum")
        loss, stats = policy_loss(*_ratio_one_and_a_half(), config)
        assert loss.item() == pytest.approx(-1.0 + 2.0) and stats["loss/test_marker"] == 1.0
    assert "test_negated_advantage" not in POLICY_LOSSES and "test-token-sum" not in AGGREGATIONS


def test_the_policy_loss_is_a_method_option():
    resolved = resolve_options(METHOD_SPECS["grpo"], {"policy_loss": "pg"}, Trainer)
    assert resolved["loss"] == {"policy_loss": "pg"}
