"""The "kv" generation backend: the same greedy turns as transformers ``generate``, a cache that
carries over turns (only new tokens are fed), seeded sampling, and the shared-prefix log-probs."""

from __future__ import annotations

import numpy as np
import pytest
import searchgym
import torch
from searchgym.agents.llm_kv_generate import KVGenerator
from searchgym.agents.llm_losses import first_scored_position, make_token_batch, token_log_probs
from searchgym.agents.llm_policy import LLMPolicy, SamplingConfig, load_model
from searchgym.agents.llm_rollout import RolloutConfig, collect_llm_single


@pytest.fixture(scope="module")
def tiny():
    return load_model("random:tiny")


def rollouts(model, tokenizer, backend: str, greedy: bool, seed: int = 0):
    envs = [searchgym.make("SearchQA-v0", world_size="tiny", action_mode="text").unwrapped for _ in range(4)]
    tasks = [t.id for t in envs[0].tasks.tasks("train")[:2]]
    policy = LLMPolicy(model, tokenizer, SamplingConfig(temperature=1.0), backend=backend)
    groups, _ = collect_llm_single(envs, policy, tasks, 2, np.random.default_rng(seed),
                                   RolloutConfig(max_turns=3, max_new_tokens=10), greedy=greedy)
    return [ep.conversation.token_ids for g in groups for ep in g]


def test_greedy_turns_match_transformers_generate(tiny) -> None:
    model, tokenizer = tiny
    assert rollouts(model, tokenizer, "kv", True) == rollouts(model, tokenizer, "transformers", True)


def test_sampling_repeats_with_the_seed_and_leaves_the_global_rng(tiny) -> None:
    model, tokenizer = tiny
    before = torch.random.get_rng_state()
    first = rollouts(model, tokenizer, "kv", False, seed=3)
    assert torch.equal(before, torch.random.get_rng_state())
    assert first == rollouts(model, tokenizer, "kv", False, seed=3)
    assert first != rollouts(model, tokenizer, "kv", False, seed=4)


def test_a_continued_prompt_feeds_only_its_new_tokens(tiny) -> None:
    model, tokenizer = tiny
    generator = KVGenerator(model, tokenizer, stop=())
    fed: list[int] = []
    forward = generator._forward
    generator._forward = lambda chunks: (fed.append(sum(len(c) for c in chunks)), forward(chunks))[1]
    prompts = [list(range(100, 160)), list(range(100, 150)) + [7, 8, 9]]
    news = generator.generate(prompts, [3, 3], seed=0, greedy=True)
    assert fed[:2] == [50, (60 - 50) + (53 - 50)]  # the 50 shared tokens once, then each row's rest
    fed.clear()
    more = [p + n + [11, 12] for p, n in zip(prompts, news)]
    again = generator.generate(more, [2, 2], seed=0, greedy=True)
    assert fed[0] == 2 * 3  # the last generated token and two new ones, per row
    fresh = KVGenerator(model, tokenizer, stop=()).generate(more, [2, 2], seed=0, greedy=True)
    assert again == fresh  # the cached continuation computes what a fresh pass does


def test_generation_stops_at_a_stop_string(tiny) -> None:
    model, tokenizer = tiny
    stop_id = tokenizer.convert_tokens_to_ids("</answer>")
    with torch.no_grad():
        bias = torch.zeros(model.config.vocab_size)
        bias[stop_id] = 100.0
    head = model.get_output_embeddings()
    original = head.forward
    head.forward = lambda x: original(x) + bias
    try:
        news = KVGenerator(model, tokenizer, stop=("</answer>",)).generate([[5, 6, 7]], [20], seed=0)
    finally:
        del head.forward
    assert news == [[stop_id]]


def test_shared_prefix_log_probs_equal_the_full_pass(tiny) -> None:
    model, tokenizer = tiny
    gen = torch.Generator().manual_seed(0)
    prefix = torch.randint(10, 5000, (40,), generator=gen).tolist()
    seqs = [prefix + torch.randint(10, 5000, (n,), generator=gen).tolist() for n in (20, 35, 27)]
    masks = [[0] * 45 + [1] * (len(s) - 45) for s in seqs]
    batch = make_token_batch(seqs, masks, [[1.0] * len(s) for s in seqs], [0, 1, 2], tokenizer.pad_token_id)
    first = first_scored_position(batch.loss_mask)
    full, _ = token_log_probs(model, batch.input_ids, batch.attention_mask, first)
    shared, _ = token_log_probs(model, batch.input_ids, batch.attention_mask, first, shared_prefix=True)
    assert torch.allclose(full[batch.loss_mask], shared[batch.loss_mask], atol=1e-5)


def test_unknown_backend_is_refused(tiny) -> None:
    with pytest.raises(ValueError, match="accepted: transformers, kv, vllm"):
        LLMPolicy(*tiny, backend="fast")
