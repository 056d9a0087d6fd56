"""The trainer with the CPU settings of the tiny-LM recipe: the ``kv`` generation backend and
shared-prefix log-probs make the same rollouts and the same direction of update, and the
generation cache is dropped after every update (its keys/values belong to the old weights)."""

from __future__ import annotations

import pytest
import torch
from searchgym.agents.llm_losses import make_token_batch, token_log_probs
from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer

TINY_ENV = {"world_size": "tiny", "max_steps": 2}


def sequence_log_prob(trainer: LLMTrainer, episode) -> float:
    conv = episode.conversation
    batch = make_token_batch([conv.token_ids], [conv.loss_mask], [[0.0] * len(conv.token_ids)], [0], 0)
    with torch.no_grad():
        logp, _ = token_log_probs(trainer.members[0].model, batch.input_ids, batch.attention_mask)
    return float(logp[batch.loss_mask].sum())


def trainer(**overrides) -> LLMTrainer:
    config = {"env_kwargs": TINY_ENV, "group_size": 2, "tasks_per_iteration": 1, "budget": 8, "lr": 3e-3,
              "rollout": RolloutConfig(max_new_tokens=6, max_episode_tokens=2048), "eval_tasks": 0,
              "device": "cpu", "log_entropy": False, "method": "grpo", **overrides}
    return LLMTrainer(LLMTrainConfig(**config))


def test_kv_backend_and_shared_prefix_train_like_the_defaults() -> None:
    plain, fast = trainer(), trainer(generation_backend="kv", shared_prefix=True)
    assert fast.members[0].backend == "kv"
    groups = {}
    for name, t in (("plain", plain), ("fast", fast)):
        groups[name], _ = t.collect([t.train_tasks[0]], 2, greedy=True)
    assert [ep.conversation.token_ids for ep in groups["plain"][0]] == \
        [ep.conversation.token_ids for ep in groups["fast"][0]]
    assert fast.members[0]._kv._rows  # the rollout left rows in the cache
    for t in (plain, fast):
        g, _ = t.collect([t.train_tasks[1]], 2)  # sampled: the two episodes differ
        good, bad = g[0]
        assert good.conversation.token_ids != bad.conversation.token_ids
        good.steps[-1].reward += 1.0
        before = sequence_log_prob(t, good)
        stats = t.update(g)
        assert stats["tokens/scored"] > 0
        assert sequence_log_prob(t, good) > before  # the rewarded episode became likelier
    assert not fast.members[0]._kv._rows  # dropped after the update
    unchanged = [torch.equal(a, b) for a, b in zip(plain.members[0].model.parameters(),
                                                   fast.members[0].model.parameters())]
    assert not all(unchanged)  # the prefix's keys/values get no gradient: a different (cheaper) step


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="generation_backend must be one of"):
        LLMTrainConfig(generation_backend="fast")
