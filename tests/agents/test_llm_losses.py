"""Token-level losses: hand-computed aggregations, clipping, k3 KL, micro-batch equivalence, and
the loss mask: tool-result tokens get exactly zero gradient."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from searchgym.agents.llm_losses import (
    LLMLossConfig,
    first_scored_position,
    k3_kl,
    make_token_batch,
    token_log_probs,
    token_policy_loss,
)
from searchgym.agents.llm_policy import LLMPolicy, load_model
from searchgym.agents.llm_rollout import RolloutConfig, collect_llm_single

import searchgym

# two sequences; seq 0 scores tokens 2, 3, 5 (A = 1), seq 1 scores token 2 (A = -2)
SEQS = [[5, 6, 7, 8, 9, 10], [5, 6, 7]]
MASKS = [[0, 0, 1, 1, 0, 1], [0, 0, 1]]
ADVS = [[0, 0, 1.0, 1.0, 0, 1.0], [0, 0, -2.0]]


def batch_with(old: float = 0.0, new: float = 0.0, seq_ids=(0, 1), rows=(0, 1)):
    b = make_token_batch([SEQS[r] for r in rows], [MASKS[r] for r in rows], [ADVS[r] for r in rows], seq_ids, 0)
    b.old_log_probs = torch.full(b.loss_mask.shape, old)
    return b, torch.full(b.loss_mask.shape, new, requires_grad=True)


@pytest.mark.parametrize(("aggregation", "norm", "expected"), [
    ("token-mean", None, (-1 - 1 - 1 + 2) / 4),  # every scored token weighs the same
    ("seq-mean-token-mean", None, (-3 / 3 + 2 / 1) / 2),  # every sequence weighs the same
    ("seq-mean-token-sum-norm", 4, (-3 / 4 + 2 / 4) / 2),  # token sums over a constant L = 4
    ("seq-mean-token-sum", None, (-3 + 2) / 2),  # token sums, every sequence weighs the same
])
def test_aggregations_by_hand_at_ratio_one(aggregation: str, norm: int | None, expected: float) -> None:
    batch, logp = batch_with()
    config = LLMLossConfig(aggregation=aggregation, norm_length=norm)
    loss, stats = token_policy_loss(logp, batch, config, batch.scored_tokens, batch.scored_sequences)
    assert loss.item() == pytest.approx(expected)
    assert stats["tokens/scored"] == 4.0


def test_asymmetric_clip_by_hand() -> None:
    batch, logp = batch_with(old=0.0, new=math.log(1.5))  # ratio 1.5 everywhere
    config = LLMLossConfig(aggregation="token-mean", eps_low=0.2, eps_high=0.28)
    loss, stats = token_policy_loss(logp, batch, config, 4, 2)
    # A = 1: -min(1.5, 1.28) = -1.28 (x3); A = -2: -min(-3, -2.56) = 3
    assert loss.item() == pytest.approx((3 * -1.28 + 3.0) / 4)
    assert stats["loss/clip_fraction"] == 1.0
    dual = LLMLossConfig(aggregation="token-mean", dual_clip=1.2)
    batch, logp = batch_with(old=0.0, new=math.log(2.0))  # A = -2: -min(-4, -2.56) = 4 > 1.2 * 2: capped 2.4
    loss, _ = token_policy_loss(logp, batch, dual, 4, 2)
    assert loss.item() == pytest.approx((3 * -1.28 + 2.4) / 4)


def test_k3_kl_by_hand_and_its_place_in_the_loss() -> None:
    logp = torch.tensor([0.0, math.log(0.5)])
    ref = torch.tensor([math.log(2.0), math.log(0.5)])
    assert k3_kl(logp, ref).tolist() == pytest.approx([2 - math.log(2) - 1, 0.0])
    batch, new = batch_with()
    batch.ref_log_probs = torch.full(batch.loss_mask.shape, math.log(2.0))
    base, _ = token_policy_loss(new, batch, LLMLossConfig(aggregation="token-mean"), 4, 2)
    with_kl, stats = token_policy_loss(new, batch, LLMLossConfig(aggregation="token-mean", kl_coef=0.1), 4, 2)
    assert with_kl.item() - base.item() == pytest.approx(0.1 * (1 - math.log(2)))
    assert stats["loss/kl_ref"] == pytest.approx(1 - math.log(2))
    batch.ref_log_probs = None
    with pytest.raises(ValueError, match="ref_log_probs"):
        token_policy_loss(new, batch, LLMLossConfig(kl_coef=0.1), 4, 2)


@pytest.mark.parametrize("aggregation", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm",
                                         "seq-mean-token-sum"])
def test_micro_batches_add_up_to_the_whole_batch(aggregation: str) -> None:
    config = LLMLossConfig(aggregation=aggregation, norm_length=6)
    whole, logp = batch_with(old=-0.1, new=-0.3)
    total, _ = token_policy_loss(logp, whole, config, whole.scored_tokens, whole.scored_sequences)
    parts = 0.0
    for row in (0, 1):
        part, logp_part = batch_with(old=-0.1, new=-0.3, seq_ids=(row,), rows=(row,))
        parts += token_policy_loss(logp_part, part, config, whole.scored_tokens, whole.scored_sequences)[0].item()
    assert parts == pytest.approx(total.item())


def test_batch_validation() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        make_token_batch([[1, 2]], [[0, 1, 1]], [[0, 0]], [0], 0)
    with pytest.raises(ValueError, match="first token"):
        make_token_batch([[1, 2]], [[1, 1]], [[0, 0]], [0], 0)
    batch, logp = batch_with()
    with pytest.raises(ValueError, match="norm_length"):
        token_policy_loss(logp, batch, LLMLossConfig(aggregation="seq-mean-token-sum-norm"), 4, 2)
    with pytest.raises(ValueError, match="aggregation"):
        LLMLossConfig(aggregation="sum")


def test_tool_result_tokens_get_exactly_zero_gradient() -> None:
    model, tokenizer = load_model("random:tiny", seed=1)
    policy = LLMPolicy(model, tokenizer)
    env = searchgym.make("SearchQA-v0", world_size="tiny", max_steps=3).unwrapped
    groups, _ = collect_llm_single([env], policy, [env.tasks.tasks("train")[0].id], 1, np.random.default_rng(0),
                                   RolloutConfig(max_new_tokens=6))
    conv = groups[0][0].conversation
    adv = [1.0 if t >= 0 else 0.0 for t in conv.turn_index]
    batch = make_token_batch([conv.token_ids], [conv.loss_mask], [adv], [0], tokenizer.pad_token_id)
    batch.old_log_probs = torch.zeros(batch.loss_mask.shape)
    captured = {}

    def keep_logits(module, inputs, output) -> None:
        output.retain_grad()
        captured["logits"] = output

    hook = model.lm_head.register_forward_hook(keep_logits)
    first = first_scored_position(batch.loss_mask)
    logp, _ = token_log_probs(model, batch.input_ids, batch.attention_mask, first)
    hook.remove()
    assert first == conv.prompt_length - 1  # the prompt's logits are not even computed
    loss, _ = token_policy_loss(logp, batch, LLMLossConfig(aggregation="token-mean"), batch.scored_tokens, 1)
    loss.backward()
    grad = captured["logits"].grad[0]  # [kept positions, vocab]; kept position p predicts token first + p + 1
    per_position = grad.abs().sum(-1)[:-1]
    targets = np.array(conv.loss_mask[first + 1:])
    tool_result = (targets == 0)
    assert tool_result.sum() > 20  # the env's replies (the tool messages) are in the stream
    assert torch.all(per_position[torch.as_tensor(tool_result)] == 0)  # exactly zero
    assert torch.all(per_position[torch.as_tensor(~tool_result)] > 0)  # every generated token learns
    # their embeddings still get gradient: generated tokens attend to them (conditioning, not a target)
    assert model.model.embed_tokens.weight.grad is not None
