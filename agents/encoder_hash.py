"""Hashed n-gram encoder: lower-cased word unigrams + bigrams hashed into D buckets, averaged.

Fast and dependency-free, for CPU tests and small runs. The hash is zlib.crc32 (stable across
processes and machines), never Python's salted `hash()`, so a checkpoint means the same thing
everywhere. Token ids are cached per text: in RL the same observations and candidates recur.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from .encoders import BoundedCache, TextEncoder

WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, underscore), the unit of every hashed feature."""
    return WORD.findall(text.lower())


def hashed_ngrams(text: str, n_buckets: int) -> list[int]:
    """Bucket ids of the text's lower-cased word unigrams and adjacent-word bigrams."""
    words_ = words(text)
    grams = [f"u:{w}" for w in words_] + [f"b:{a} {b}" for a, b in zip(words_, words_[1:])]
    return [zlib.crc32(g.encode("utf-8")) % n_buckets for g in grams]


class HashEncoder(TextEncoder):
    """EmbeddingBag(mean) over hashed unigrams + bigrams; an empty text embeds to zeros."""

    def __init__(
        self,
        dim: int = 64,
        n_buckets: int = 2**14,
        cache_size: int = 200_000,
        device: str | torch.device = "cpu",
    ) -> None:
        super().__init__()
        if dim <= 0 or n_buckets <= 0:
            raise ValueError(f"HashEncoder needs dim > 0 and n_buckets > 0; got dim={dim}, n_buckets={n_buckets}")
        self.dim = dim
        self.n_buckets = n_buckets
        self.bag = nn.EmbeddingBag(n_buckets, dim, mode="mean")
        self._ids = BoundedCache(cache_size)
        self.to(device)

    def token_ids(self, text: str) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = hashed_ngrams(text, self.n_buckets)
            self._ids.put(text, ids)
        return ids

    def forward(self, texts: Sequence[str]) -> Tensor:
        flat: list[int] = []
        offsets: list[int] = []
        for text in texts:
            offsets.append(len(flat))
            flat.extend(self.token_ids(text))
        device = self.bag.weight.device
        ids = torch.tensor(flat, dtype=torch.long, device=device)
        return self.bag(ids, torch.tensor(offsets, dtype=torch.long, device=device))
