"""Any Hugging Face (causal) LM as a text encoder: the last hidden state at the last non-pad token.

This is the seed's design (score candidates from the LM's last hidden state). For a causal LM
the last real token has attended to the whole text, and right padding leaves it unchanged, so a
text embeds the same alone or in a padded batch. Build from a path (`model_name_or_path`, local
files only) or from a `transformers` config (random weights, for tests). On CUDA the backbone
runs in bf16 by default; the projection is always float32. With `freeze=True` (default) the
backbone gets no gradient, runs under no_grad and its embeddings are cached per text.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from collections.abc import Sequence
from typing import Any, ClassVar

import torch
from torch import Tensor, nn

from .encoders import BoundedCache, TextEncoder
from .pretrained import from_pretrained, resolve_dtype, transformers_bars_off

AUTO_CLASSES = ("model", "causal_lm")


def last_token_pool(hidden: Tensor, attention_mask: Tensor) -> Tensor:
    """hidden [B, L, H] -> [B, H] at each row's last position whose attention mask is 1."""
    positions = torch.arange(attention_mask.shape[1], device=attention_mask.device)
    last = (attention_mask.long() * (positions + 1)).argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]


#: The dtype names the command line can give (JSON carries no torch dtype), as the LLM trainer's ``dtype``.
DTYPE_NAMES = ("auto", "float32", "bfloat16", "float16")


def _is_dtype(value: Any) -> bool:
    return isinstance(value, torch.dtype) or value in DTYPE_NAMES


def _is_transformers_config(value: Any) -> bool:
    from transformers import PretrainedConfig

    return isinstance(value, PretrainedConfig)


def _is_tokenizer(value: Any) -> bool:
    from transformers import PreTrainedTokenizerBase

    return isinstance(value, PreTrainedTokenizerBase)


def _hidden_size(config: Any) -> int:
    size = getattr(config, "hidden_size", None)
    if size is None and hasattr(config, "get_text_config"):
        size = getattr(config.get_text_config(), "hidden_size", None)
    if size is None:
        raise ValueError(f"cannot find hidden_size in config of type {type(config).__name__}")
    return int(size)


class HFEncoder(TextEncoder):
    """Backbone LM -> last non-pad hidden state -> trainable Linear(hidden, dim)."""

    #: What the kwargs that only Python can pass take (policy_kwarg_types reads it; their annotations
    #: are no plain type). Before: ``dtype=5`` or ``tokenizer=3`` failed inside torch or transformers.
    accepted_kwarg_types: ClassVar[dict[str, tuple[Any, str]]] = {
        "dtype": (_is_dtype, f"a torch.dtype such as torch.bfloat16, or its name: {', '.join(DTYPE_NAMES)}"),
        "config": (_is_transformers_config, "a transformers PretrainedConfig (from Python; from the command line "
                                            "give model_name_or_path)"),
        "tokenizer": (_is_tokenizer, "a transformers tokenizer (from Python; from the command line give "
                                     "tokenizer_path)"),
    }

    def __init__(
        self,
        model_name_or_path: str | None = None,
        config: Any = None,
        tokenizer: Any = None,
        tokenizer_path: str | None = None,
        dim: int = 128,
        freeze: bool = True,
        auto_class: str = "model",
        max_length: int = 512,
        batch_size: int = 16,
        dtype: torch.dtype | str | None = None,
        cache_size: int = 100_000,
        device: str | torch.device = "cpu",
    ) -> None:
        super().__init__()
        from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer

        if (model_name_or_path is None) == (config is None):
            raise ValueError("HFEncoder needs exactly one of model_name_or_path= (local files) or config=")
        if auto_class not in AUTO_CLASSES:
            raise ValueError(f"unknown auto_class {auto_class!r}; accepted: {list(AUTO_CLASSES)}")
        device = torch.device(device)
        dtype = resolve_dtype(dtype, device)  # None or "auto": bfloat16 on CUDA, float32 on CPU
        auto = AutoModel if auto_class == "model" else AutoModelForCausalLM
        if config is not None:
            backbone = auto.from_config(config)
        else:  # quietly: a policy's encoder loads once per run, and its bars broke into the run's own progress line
            with transformers_bars_off():
                backbone = from_pretrained(auto, model_name_or_path, local_files_only=True)
        self.backbone = backbone.to(device=device, dtype=dtype)
        self.auto_class = auto_class
        if tokenizer is None:
            source = tokenizer_path or model_name_or_path
            if source is None:
                raise ValueError("HFEncoder built from a config needs tokenizer= or tokenizer_path=")
            tokenizer = from_pretrained(AutoTokenizer, source, local_files_only=True)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
        tokenizer.padding_side = "right"
        self.tokenizer = tokenizer
        vocab = self.backbone.get_input_embeddings().num_embeddings
        if len(tokenizer) > vocab:
            raise ValueError(
                f"tokenizer has {len(tokenizer)} tokens but the model's embedding has only {vocab}"
            )
        self.freeze = freeze
        if freeze:
            self.backbone.eval()
            for p in self.backbone.parameters():
                p.requires_grad_(False)
        self.dim = dim
        self.max_length = max_length
        self.batch_size = batch_size
        self.proj = nn.Linear(_hidden_size(self.backbone.config), dim).to(device)  # init on CPU RNG
        self._cache = BoundedCache(cache_size)

    def train(self, mode: bool = True) -> HFEncoder:
        super().train(mode)
        if self.freeze:
            self.backbone.eval()  # a frozen backbone never uses dropout
        return self

    def _embed_chunk(self, texts: list[str]) -> Tensor:
        device = self.proj.weight.device
        batch = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        )
        input_ids = batch["input_ids"].to(device)
        mask = batch["attention_mask"].to(device)
        out = self.backbone(
            input_ids=input_ids, attention_mask=mask, output_hidden_states=self.auto_class != "model"
        )
        hidden = out.last_hidden_state if self.auto_class == "model" else out.hidden_states[-1]
        return last_token_pool(hidden, mask).float()

    def embed_backbone(self, texts: Sequence[str]) -> Tensor:
        """Backbone embeddings [len(texts), hidden]; cached and gradient-free when frozen."""
        unique = list(dict.fromkeys(texts))
        if not self.freeze:
            chunks = [
                self._embed_chunk(unique[i : i + self.batch_size])
                for i in range(0, len(unique), self.batch_size)
            ]
            table = dict(zip(unique, torch.cat(chunks)))
            return torch.stack([table[t] for t in texts])
        found = {t: self._cache[t] for t in unique if t in self._cache}
        missing = [t for t in unique if t not in found]
        with torch.no_grad():
            for i in range(0, len(missing), self.batch_size):
                chunk = missing[i : i + self.batch_size]
                for text, e in zip(chunk, self._embed_chunk(chunk)):
                    found[text] = e
                    self._cache.put(text, e)
        return torch.stack([found[t] for t in texts])

    def forward(self, texts: Sequence[str]) -> Tensor:
        return self.proj(self.embed_backbone(texts).to(self.proj.weight.device))

    def _apply(self, fn: Any, recurse: bool = True) -> HFEncoder:
        self._cache.clear()  # cached embeddings live on the old device
        return super()._apply(fn, recurse)
