"""Hashed n-gram encoder: lower-cased word unigrams + bigrams hashed into D buckets, averaged.

Fast and dependency-free, for CPU tests and small runs. The hash is zlib.crc32 (stable across
processes and machines), never Python's salted `hash()`, so a checkpoint means the same thing
everywhere. Token ids are cached per text: in RL the same observations and candidates recur.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from itertools import pairwise

import torch
from torch import Tensor, nn

from .encoders import BoundedCache, TextEncoder

WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, underscore), the unit of every hashed feature."""
    return WORD.findall(text.lower())


NAME_TOKEN = re.compile(r"\b[A-Z][\w-]*")
KEPT_CAPITALISED = frozenset(
    "who what which when where why how in the a an is was did does do of and or by".split()
)


def generic_words(text: str) -> list[str]:
    """Lower-cased words without proper names (capitalised tokens other than question words);
    numbers become ``<num>``.

    Why: search worlds are made of invented names; hashing them lets an MLP memorise the train
    split's entities instead of learning how questions map to relations. The exact overlap of
    names between question and candidate still reaches the policy through LexicalOverlap.
    """
    stripped = NAME_TOKEN.sub(lambda m: m.group(0) if m.group(0).lower() in KEPT_CAPITALISED else " ", text)
    return ["<num>" if w.isdigit() else w for w in words(stripped)]


def hashed_ngrams(text: str, n_buckets: int, drop_names: bool = False) -> list[int]:
    """Bucket ids of the text's lower-cased word unigrams and adjacent-word bigrams."""
    words_ = generic_words(text) if drop_names else words(text)
    grams = [f"u:{w}" for w in words_] + [f"b:{a} {b}" for a, b in pairwise(words_)]
    return [zlib.crc32(g.encode("utf-8")) % n_buckets for g in grams]


class HashEncoder(TextEncoder):
    """EmbeddingBag(mean) over hashed unigrams + bigrams; an empty text embeds to zeros.

    ``drop_names=True`` (default) hashes only generic words (see :func:`generic_words`); a text of
    names only embeds to zeros like an empty one."""

    def __init__(
        self,
        dim: int = 64,
        n_buckets: int = 2**14,
        cache_size: int = 200_000,
        device: str | torch.device = "cpu",
        drop_names: bool = True,
    ) -> None:
        super().__init__()
        if dim <= 0 or n_buckets <= 0:
            raise ValueError(
                f"HashEncoder needs dim > 0 and n_buckets > 0; got dim={dim}, n_buckets={n_buckets}"
            )
        self.dim = dim
        self.n_buckets = n_buckets
        self.drop_names = drop_names
        self.bag = nn.EmbeddingBag(n_buckets, dim, mode="mean")
        self._ids = BoundedCache(cache_size)
        self.to(device)

    def token_ids(self, text: str) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = hashed_ngrams(text, self.n_buckets, self.drop_names)
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
