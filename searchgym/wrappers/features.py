"""Hashed numeric features of a candidate-mode observation: the fixed-size vector MLP policies need.

Standard RL libraries (Stable-Baselines3, CleanRL) take one flat ``Box``; a candidate-mode
observation is text. :class:`FeatureLayout` turns ``{"text", "candidates", "action_mask"}``
into a float32 vector in ``[0, 1]`` with this layout (sizes are the constructor's arguments):

======================  ==================  ===============================================
block                   size                entries
======================  ==================  ===============================================
question                ``question_dim``    1 where a hashed word of the question falls
transcript              ``transcript_dim``  1 where a hashed word of the rounds so far falls
progress                2                   rounds so far / ``max_steps``; admissible / N
candidate ``i`` (x N)   ``candidate_width`` see :data:`CANDIDATE_FIELDS`, then
                                            ``candidate_dim`` hashed words of its text
======================  ==================  ===============================================

Slots are in a canonical order (:func:`slot_order`: answers first, then by kind, type match,
question coverage), not the env's shuffled one, so that a slot means a similar action from step
to step; :meth:`Encoded.env_action` maps a slot back to the env's index.

Words are lower-cased, crudely stemmed ``[a-z0-9]+`` runs; a word goes to bucket ``crc32(word) % dim`` (stable
across processes, unlike Python's salted ``hash``). An empty (masked) candidate slot is all 0.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from searchgym.envs.config import BOUNDS, check_int
from searchgym.envs.spaces import discrete_index
from searchgym.observation_format import QUESTION_PREFIX, STEP_LINE, question_line
from searchgym.tools.tool_registry import TOOL_NAMES

#: The most hashed buckets one block (question, transcript, one candidate) may have.
MAX_FEATURE_DIM = 4096
_WORD = re.compile(r"[a-z0-9]+")
#: Tool (or answer) a candidate invokes, by the name its text starts with: the tools registered at
#: import (a copy: the feature layout is fixed once a policy is trained on it).
CANDIDATE_KINDS = ("answer", *TOOL_NAMES)
#: The named entries at the start of each candidate block (then ``candidate_dim`` hashed words).
CANDIDATE_FIELDS = ("admissible", *(f"kind_{k}" for k in CANDIDATE_KINDS), "taken_before",
                    "covers_question", "in_question", "in_latest_round", "type_match")
#: What a question's opening words ask for, and the words that mark a candidate of that type.
_EXPECTS = ((("how many", "how much", "how old", "what year", "in which year", "when"), (" a number", "calculator(")),
            (("who ",), (" a person",)), (("which companies", "which films", "which products", "list "), ("every ",)))
#: Words too common to tell candidates apart.
_STOP = frozenset("a an the of in is was by to and or for from with as at on what which who how many".split())


@lru_cache(maxsize=65536)
def _bucket(word: str, dim: int) -> int:
    return zlib.crc32(word.encode()) % dim


def _stem(word: str) -> str:
    """A crude suffix cut so that "found" meets "founded" and "pages" meets "page"."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    """Lower-cased, stemmed word set of ``text`` without stop words."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def expected_markers(question: str) -> tuple[str, ...]:
    """Markers of the candidates whose type fits what the question asks (a number, a person, a list)."""
    q = question.lower().strip()
    return next((markers for openings, markers in _EXPECTS if any(o in q for o in openings)), ())


def _hashed(tokens: set[str], dim: int, out: np.ndarray) -> None:
    for w in tokens:
        out[_bucket(w, dim)] = 1.0


@dataclass(frozen=True)
class FeatureLayout:
    """Sizes of each block; :meth:`encode` fills one vector of :attr:`size` entries."""

    max_candidates: int
    max_steps: int
    question_dim: int = 32
    transcript_dim: int = 64
    candidate_dim: int = 16

    def __post_init__(self) -> None:
        for name in ("max_candidates", "max_steps"):
            check_int(name, getattr(self, name), 1, BOUNDS[name][1])
        for name in ("question_dim", "transcript_dim", "candidate_dim"):
            check_int(name, getattr(self, name), 1, MAX_FEATURE_DIM)

    @property
    def candidate_width(self) -> int:
        return len(CANDIDATE_FIELDS) + self.candidate_dim

    @property
    def header_size(self) -> int:
        return self.question_dim + self.transcript_dim + 2

    @property
    def size(self) -> int:
        return self.header_size + self.max_candidates * self.candidate_width

    def candidate_offset(self, index: int) -> int:
        """Where candidate ``index``'s block starts in the vector."""
        if not 0 <= index < self.max_candidates:
            raise IndexError(f"candidate index {index} is out of range 0..{self.max_candidates - 1}")
        return self.header_size + index * self.candidate_width

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def encode(self, observation: Mapping, canonical: bool = True) -> Encoded:
        """The feature vector of one candidate-mode observation (see the module docstring) and the
        env index of each slot (``canonical``: admissible candidates by :func:`slot_order`)."""
        text: str = observation["text"]
        candidates: Sequence[str] = observation["candidates"]
        mask = np.asarray(observation["action_mask"])
        if len(candidates) != self.max_candidates or mask.shape != (self.max_candidates,):
            raise ValueError(f"expected {self.max_candidates} candidates and a mask of that length, got "
                             f"{len(candidates)} and shape {mask.shape}")
        out = self.zeros()
        asked = question_line(text)
        question = words(asked)
        rounds = text.replace(f"{QUESTION_PREFIX}{asked}", "", 1)
        _hashed(question, self.question_dim, out[: self.question_dim])
        t0 = self.question_dim
        _hashed(words(rounds), self.transcript_dim, out[t0: t0 + self.transcript_dim])
        steps = [int(step[1]) for line in text.splitlines() if (step := STEP_LINE.match(line))]
        p0 = t0 + self.transcript_dim
        out[p0] = min(max(steps, default=0) / self.max_steps, 1.0)
        out[p0 + 1] = float(mask.sum()) / self.max_candidates
        context = _Context(question, words(rounds[rounds.rfind("\nStep ") + 1:] if "\nStep " in rounds else rounds),
                           {line.split(": ", 1)[1].strip() for line in rounds.splitlines() if STEP_LINE.match(line)},
                           expected_markers(asked))
        admissible = [i for i in range(self.max_candidates) if mask[i] and candidates[i]]
        blocks = {i: self._candidate_block(candidates[i], context) for i in admissible}
        order = slot_order(blocks, candidates) if canonical else admissible
        width = self.candidate_width
        for slot, index in enumerate(order):
            out[self.header_size + slot * width: self.header_size + (slot + 1) * width] = blocks[index]
        return Encoded(out, tuple(order))

    def _candidate_block(self, candidate: str, context: _Context) -> np.ndarray:
        block = np.zeros(self.candidate_width, dtype=np.float32)
        action, _, _ = candidate.partition("  <- ")
        n_kinds = len(CANDIDATE_KINDS)
        block[0] = 1.0
        kind = action.split("(", 1)[0]
        if kind in CANDIDATE_KINDS:
            block[1 + CANDIDATE_KINDS.index(kind)] = 1.0
        block[1 + n_kinds] = float(action.strip() in context.taken)
        mine = words(candidate)
        shared = len(mine & context.question)
        block[2 + n_kinds] = shared / len(context.question) if context.question else 0.0
        block[3 + n_kinds] = shared / len(mine) if mine else 0.0
        block[4 + n_kinds] = len(mine & context.latest) / len(mine) if mine else 0.0
        block[5 + n_kinds] = float(any(m in candidate for m in context.markers))
        _hashed(mine, self.candidate_dim, block[len(CANDIDATE_FIELDS):])
        return block


@dataclass(frozen=True)
class _Context:
    """What every candidate of one observation is compared with."""

    question: set[str]
    latest: set[str]
    taken: set[str]
    markers: tuple[str, ...]


@dataclass(frozen=True)
class Encoded:
    """A feature vector and, for each filled slot, the env's index of the candidate in it."""

    vector: np.ndarray
    order: tuple[int, ...]

    def mask(self, slots: int) -> np.ndarray:
        """Slots ``0 .. len(order) - 1`` are admissible (bool, ``slots`` long)."""
        return np.arange(slots) < len(self.order)

    def env_action(self, slot: object, env_mask: np.ndarray) -> object:
        """The env's index for a slot; a masked slot becomes a masked env index (the env then says
        so), and anything that is not an in-range int goes to the env unchanged (it says why)."""
        index = discrete_index(slot)  # a 0-d integer array is a slot too, not an env index
        if index is None:
            return slot
        if 0 <= index < len(self.order):
            return self.order[index]
        if 0 <= index < len(env_mask):
            if not env_mask[index]:  # the same index is masked in the env: its error names the agent's slot
                return index
            masked = np.flatnonzero(np.asarray(env_mask) == 0)
            return int(masked[0]) if masked.size else index
        return slot


def slot_order(blocks: Mapping[int, np.ndarray], candidates: Sequence[str]) -> list[int]:
    """Admissible candidates grouped by kind (answers first), then by type match, question
    coverage and overlap with the latest round (highest first), then by text: slot ``i`` means a
    similar action from step to step, which a flat MLP needs (the env shuffles its list)."""
    n_kinds = len(CANDIDATE_KINDS)

    def key(i: int) -> tuple:
        b = blocks[i]
        kinds = b[1: 1 + n_kinds]
        kind = int(np.argmax(kinds)) if kinds.any() else n_kinds
        return kind, -b[5 + n_kinds], -b[2 + n_kinds], -b[4 + n_kinds], candidates[i]

    return sorted(blocks, key=key)
