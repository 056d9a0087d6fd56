"""Hashed n-gram encoder: lower-cased word unigrams + bigrams hashed into D buckets, averaged.

Fast and dependency-free, for CPU tests and small runs. The hash is zlib.crc32 (stable across
processes and machines), never Python's salted `hash()`, so a checkpoint means the same thing
everywhere. Token ids are cached per text: in RL the same observations and candidates recur.
A new text is hashed line by line (:class:`LineHasher`): a transcript is mostly lines seen in
earlier observations, so only its new lines and the bigrams across line breaks cost a hash.
"""

from __future__ import annotations

import functools
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
#: ``NAME_TOKEN`` unless the whole token, lower-cased, is a kept word: those words are ASCII
#: letters, and no other character lower-cases to an ASCII letter they hold (the Kelvin sign
#: gives "k"), so an ASCII case-insensitive match says the same; no callback per token
NAME_TOKEN_DROPPED = re.compile(
    r"\b(?=[A-Z])(?!(?ai:" + "|".join(sorted(KEPT_CAPITALISED, key=len, reverse=True)) + r")(?![\w-]))[A-Z][\w-]*")


def generic_words(text: str) -> list[str]:
    """Lower-cased words without proper names (capitalised tokens other than question words);
    numbers become ``<num>``.

    Why: search worlds are made of invented names; hashing them lets an MLP memorise the train
    split's entities instead of learning how questions map to relations. The exact overlap of
    names between question and candidate still reaches the policy through LexicalOverlap.
    """
    return ["<num>" if w.isdigit() else w for w in words(NAME_TOKEN_DROPPED.sub(" ", text))]


@functools.lru_cache(maxsize=1 << 16)
def generic_word_tuple(text: str) -> tuple[str, ...]:
    """``generic_words(text)`` as a tuple, memoised: the encoder hashes each candidate line and
    LexicalOverlap then reads the same line's stems, so the second reading is a look-up."""
    return tuple(generic_words(text))


def hashed_ngrams(text: str, n_buckets: int, drop_names: bool = False) -> list[int]:
    """Bucket ids of the text's lower-cased word unigrams and adjacent-word bigrams."""
    words_ = generic_words(text) if drop_names else words(text)
    grams = [f"u:{w}" for w in words_] + [f"b:{a} {b}" for a, b in pairwise(words_)]
    return [zlib.crc32(g.encode("utf-8")) % n_buckets for g in grams]


class LineHasher:
    """``hashed_ngrams(text, n_buckets, drop_names)``, the same ids in the same order, from
    memoised lines: no word or name spans a line break (``\\w``, ``[A-Z][\\w-]*`` and the
    lower-casing stop at ``\\n``), so a text's words are its lines' words in order; its
    unigrams are its lines' unigrams, and its bigrams its lines' bigrams with one bigram joining
    each line that has words to the previous such line."""

    def __init__(self, n_buckets: int, drop_names: bool, cache_size: int = 200_000) -> None:
        self.n_buckets, self.drop_names = n_buckets, drop_names
        self._lines = BoundedCache(cache_size)  # line -> (unigram ids, bigram ids, first word, last word)
        self._joins = BoundedCache(cache_size)  # (word, next word) -> the bigram's id (in a line or joining two)
        self._words = BoundedCache(cache_size)  # word -> its unigram's id

    def _line(self, line: str) -> tuple[tuple[int, ...], tuple[int, ...], str, str] | tuple[()]:
        words_ = generic_word_tuple(line) if self.drop_names else words(line)
        if not words_:
            return ()
        n, known, joins = self.n_buckets, self._words, self._joins
        unigrams = []  # a new line is mostly words (and word pairs) seen on other lines: hashed once each
        for w in words_:
            found = known.get(w)
            if found is None:
                found = zlib.crc32(f"u:{w}".encode()) % n
                known.put(w, found)
            unigrams.append(found)
        bigrams = []
        for pair in pairwise(words_):
            found = joins.get(pair)
            if found is None:
                found = zlib.crc32(f"b:{pair[0]} {pair[1]}".encode()) % n
                joins.put(pair, found)
            bigrams.append(found)
        return tuple(unigrams), tuple(bigrams), words_[0], words_[-1]

    def ids(self, text: str) -> list[int]:
        unigrams: list[int] = []
        bigrams: list[int] = []
        last = None
        lines, joins = self._lines, self._joins
        for line in text.split("\n"):
            found = lines.get(line)
            if found is None:
                found = self._line(line)
                lines.put(line, found)
            if not found:
                continue
            if last is not None:
                join = joins.get((last, found[2]))
                if join is None:
                    join = zlib.crc32(f"b:{last} {found[2]}".encode()) % self.n_buckets
                    joins.put((last, found[2]), join)
                bigrams.append(join)
            unigrams.extend(found[0])
            bigrams.extend(found[1])
            last = found[3]
        return unigrams + bigrams


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
        self._hasher = LineHasher(n_buckets, drop_names, cache_size)
        self.to(device)

    def token_ids(self, text: str) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = self._hasher.ids(text)
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
