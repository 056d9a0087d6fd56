"""Small causal LMs trained from scratch on a CPU: their shapes, and how one becomes a model folder.

Why: the LLM trainer (``searchgym train --policy llm``) loads a model from a folder or a hub id.
A from-scratch model saved as a Hugging Face folder (``config.json``, safetensors weights, the
shipped byte-level BPE chat tokenizer with its template) goes through exactly the path a
downloaded Qwen takes: ``load_model(folder)``, the same chat format, the same tool-call syntax.

The shapes are Qwen2 (RoPE, RMSNorm, SwiGLU, grouped-query attention), tied embeddings, the
tokenizer's vocabulary (about 6,000 ids), heads of width 32 or 64.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

#: name -> (layers, width). The recipe measures several and keeps one (see docs/llm.md).
TINY_SHAPES: dict[str, tuple[int, int]] = {
    "l2-w128": (2, 128),
    "l2-w192": (2, 192),
    "l4-w128": (4, 128),
    "l4-w192": (4, 192),
    "l4-w256": (4, 256),
    "l6-w256": (6, 256),
    "l6-w384": (6, 384),
}
HEAD_WIDTH = 32
MAX_POSITIONS = 4096


def tiny_config(shape: str, tokenizer: Any) -> Any:
    """A Qwen2 config of a named shape whose vocabulary is the tokenizer's."""
    from transformers import Qwen2Config

    if shape not in TINY_SHAPES:
        raise ValueError(f"unknown tiny LM shape {shape!r}; accepted: {', '.join(TINY_SHAPES)}")
    layers, width = TINY_SHAPES[shape]
    heads = width // HEAD_WIDTH
    return Qwen2Config(vocab_size=len(tokenizer), hidden_size=width, num_hidden_layers=layers,
                       num_attention_heads=heads, num_key_value_heads=max(1, heads // 2),
                       intermediate_size=3 * width, max_position_embeddings=MAX_POSITIONS, tie_word_embeddings=True,
                       rope_theta=10_000.0, pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                       bos_token_id=tokenizer.eos_token_id)


def new_tiny_model(shape: str, tokenizer: Any, seed: int = 0) -> Any:
    """A randomly initialised model of ``shape`` (same seed, same weights; the global RNG untouched)."""
    from transformers import Qwen2ForCausalLM

    config = tiny_config(shape, tokenizer)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        model = Qwen2ForCausalLM(config)
    return model.float()


def parameter_count(model: torch.nn.Module) -> int:
    """Distinct parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())


def save_model_folder(model: Any, tokenizer: Any, folder: str | Path) -> Path:
    """A folder ``load_model`` (and ``from_pretrained``, and vLLM) reads: config, weights, tokenizer."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
