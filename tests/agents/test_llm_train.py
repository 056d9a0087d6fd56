"""LLM training: updates move the policy the way the advantages say, checkpoints resume to the
same next update, team training with separate models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from searchgym.agents.llm_losses import LLMLossConfig, make_token_batch, token_log_probs
from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer

TINY_ENV = {"world_size": "tiny", "max_steps": 2}
ROLLOUT = RolloutConfig(max_new_tokens=6, max_episode_tokens=2048)


def tiny_config(**overrides) -> LLMTrainConfig:
    base = {"env_kwargs": TINY_ENV, "group_size": 2, "tasks_per_iteration": 1, "budget": 8, "lr": 1e-3,
            "rollout": ROLLOUT, "eval_tasks": 1, "eval_every": 1, "device": "cpu", "log_entropy": False}
    return LLMTrainConfig(**{**base, **overrides})


def sequence_log_prob(trainer: LLMTrainer, episode) -> float:
    conv = episode.conversation
    batch = make_token_batch([conv.token_ids], [conv.loss_mask], [[0.0] * len(conv.token_ids)], [0], 0)
    with torch.no_grad():
        logp, _ = token_log_probs(trainer.members[0].model, batch.input_ids, batch.attention_mask)
    return float(logp[batch.loss_mask].sum())


def test_updates_raise_the_rewarded_episode_and_lower_the_other() -> None:
    trainer = LLMTrainer(tiny_config(method="grpo", lr=3e-3))
    groups, _ = trainer.collect([trainer.train_tasks[0]], 2)
    (good, bad) = groups[0]
    good.steps[-1].reward += 1.0  # a scripted reward: the group now has a winner
    before = sequence_log_prob(trainer, good), sequence_log_prob(trainer, bad)
    for _ in range(3):
        stats = trainer.update(groups)
    after = sequence_log_prob(trainer, good), sequence_log_prob(trainer, bad)
    assert after[0] > before[0] + 1.0 and after[1] < before[1] - 1.0
    assert stats["groups/zero_variance"] == 0.0 and stats["adv/pos_mean"] > 0 > stats["adv/neg_mean"]
    assert stats["grad_norm"] > 0 and stats["tokens/scored"] == good.conversation.generated_tokens + \
        bad.conversation.generated_tokens


def test_a_zero_variance_group_leaves_the_weights_alone() -> None:
    trainer = LLMTrainer(tiny_config())
    weights = [p.detach().clone() for p in trainer.members[0].model.parameters()]
    row = trainer.iterate()  # a random model fails every episode the same way: no signal
    assert row["groups/zero_variance_fraction"] == 1.0 and row["grad_norm"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(weights, trainer.members[0].model.parameters()))
    assert row["generated_tokens"] > 0 and row["generate_tokens_per_s"] > 0 and row["step"] == 4


def test_resume_makes_the_same_next_update(tmp_path: Path) -> None:
    config = tiny_config(budget=8, loss=LLMLossConfig(entropy_coef=0.05))  # entropy: a gradient every update
    straight = LLMTrainer(config, out_dir=tmp_path / "straight")
    straight.train(progress=False)
    assert straight.state.iteration == 2
    first = LLMTrainer(tiny_config(budget=4, loss=LLMLossConfig(entropy_coef=0.05)), out_dir=tmp_path / "resumed")
    initial = [p.detach().clone() for p in first.members[0].model.parameters()]
    first.train(progress=False)
    resumed = LLMTrainer(config, out_dir=tmp_path / "resumed")
    assert resumed.state.iteration == 1
    resumed.train(progress=False)
    for a, b, c in zip(straight.members[0].model.parameters(), resumed.members[0].model.parameters(), initial):
        assert torch.equal(a, b)
    assert not all(torch.equal(a, c) for a, c in zip(resumed.members[0].model.parameters(), initial))
    rows = [json.loads(line) for line in (tmp_path / "resumed" / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0, 1, 2] and "dev_success" in rows[-1]
    assert json.loads((tmp_path / "resumed" / "config.json").read_text())["method"] == "cw_grpo"


def test_team_training_with_a_model_per_role() -> None:
    config = tiny_config(env_id="TeamSearch-v0", env_kwargs={"world_size": "tiny", "max_rounds": 2},
                         team_mode="separate", eval_tasks=0)
    trainer = LLMTrainer(config)
    assert len(trainer.members) == 3 and len(trainer.optimizers) == 3
    assert trainer.policies["lead"] is not trainer.policies["searcher"]
    row = trainer.iterate()
    assert row["step"] == 12 and "update_seconds/lead" in row and "update_seconds/analyst" in row


def test_configuration_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="text env"):
        LLMTrainer(tiny_config(env_id="SearchQA-Candidates-v0"))
    with pytest.raises(ValueError, match="unknown method 'ppo'; accepted: cw_grpo, grpo, dr_grpo"):
        tiny_config(method="ppo")
    with pytest.raises(ValueError, match="cannot train method 'gigpo': its anchor states"):
        tiny_config(method="gigpo")
    with pytest.raises(ValueError, match="group_by must be 'auto' or 'role'"):
        tiny_config(group_by="team")
    with pytest.raises(ValueError, match="team_mode"):
        tiny_config(team_mode="both")
    with pytest.raises(ValueError, match="transformers backend"):
        LLMTrainer(tiny_config(generation_backend="vllm"))
