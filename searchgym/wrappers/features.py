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

Words are lower-cased ``[a-z0-9]+`` runs; a word goes to bucket ``crc32(word) % dim`` (stable
across processes, unlike Python's salted ``hash``). An empty (masked) candidate slot is all 0.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")
_STEP = re.compile(r"^Step (\d+): ", re.MULTILINE)
#: Tool (or answer) a candidate invokes, by the name its text starts with.
CANDIDATE_KINDS = ("answer", "web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")
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
        for name in ("max_candidates", "max_steps", "question_dim", "transcript_dim", "candidate_dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")

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

    def encode(self, observation: Mapping) -> np.ndarray:
        """The feature vector of one candidate-mode observation (see the module docstring)."""
        text: str = observation["text"]
        candidates: Sequence[str] = observation["candidates"]
        mask = np.asarray(observation["action_mask"])
        if len(candidates) != self.max_candidates or mask.shape != (self.max_candidates,):
            raise ValueError(f"expected {self.max_candidates} candidates and a mask of that length, got "
                             f"{len(candidates)} and shape {mask.shape}")
        out = self.zeros()
        question_line = _question_of(text)
        question = words(question_line)
        rounds = text.replace(f"Question:{question_line}", "", 1)
        _hashed(question, self.question_dim, out[: self.question_dim])
        t0 = self.question_dim
        _hashed(words(rounds), self.transcript_dim, out[t0: t0 + self.transcript_dim])
        steps = [int(s) for s in _STEP.findall(text)]
        p0 = t0 + self.transcript_dim
        out[p0] = min(max(steps, default=0) / self.max_steps, 1.0)
        out[p0 + 1] = float(mask.sum()) / self.max_candidates
        markers = expected_markers(question_line)
        latest = words(rounds[rounds.rfind("\nStep ") + 1:] if "\nStep " in rounds else rounds)
        taken = {line.split(": ", 1)[1].strip() for line in rounds.splitlines() if _STEP.match(line)}
        width, n_fields = self.candidate_width, len(CANDIDATE_FIELDS)
        for i, candidate in enumerate(candidates):
            if not mask[i] or not candidate:
                continue
            block = out[self.header_size + i * width: self.header_size + (i + 1) * width]
            action, _, provenance = candidate.partition("  <- ")
            block[0] = 1.0
            kind = action.split("(", 1)[0]
            if kind in CANDIDATE_KINDS:
                block[1 + CANDIDATE_KINDS.index(kind)] = 1.0
            block[1 + len(CANDIDATE_KINDS)] = float(action.strip() in taken)
            mine = words(candidate)
            shared = len(mine & question)
            block[2 + len(CANDIDATE_KINDS)] = shared / len(question) if question else 0.0
            block[3 + len(CANDIDATE_KINDS)] = shared / len(mine) if mine else 0.0
            block[4 + len(CANDIDATE_KINDS)] = len(mine & latest) / len(mine) if mine else 0.0
            block[5 + len(CANDIDATE_KINDS)] = float(any(m in candidate for m in markers))
            _hashed(mine, self.candidate_dim, block[n_fields:])
        return out


def _question_of(text: str) -> str:
    """The question line of a transcript that starts with a header (team roles, blackboard)."""
    for line in text.splitlines():
        if line.startswith("Question:"):
            return line.removeprefix("Question:")
    return ""
