"""Observation -> token arrays for the attention policy: segments, anonymised entities, exact matches.

An observation (docs/OBSERVATIONS.md) is cut into the question, the blackboard's notes, the
``Step k:`` action lines with their result text, and each candidate's action and provenance.
Every token is a lower-cased word with

- ``word``: a hashed bucket id (crc32, stable across processes) of the word, 0 for padding; names
  and numbers get one shared bucket each, since a fictional name seen in training means nothing
  at test time;
- ``entity``: the anonymised slot of a name or number (Hermann et al. 2015): the k-th distinct
  capitalised word (resp. number) of the observation is NAME_k (NUM_k) wherever it recurs, in
  the question, the facts and the candidates, so attention can match them; 0 for other words;
- ``segment``, ``position`` (in its line), ``recency`` (0 = the latest step's block);
- ``match``: exact-match channel, [the word occurs in the question, the word occurs in the facts].

Candidates also get ``taken`` (their action was already taken, on a ``Step k:`` line).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from searchgym.observation_format import MEMBER_HEADER, NOTE_LINE, QUESTION_PREFIX, STEP_LINE

from .encoder_hash import KEPT_CAPITALISED

TOKEN = re.compile(r"[A-Za-z]\w*|\d+|\|")
PROVENANCE = "  <- "

SEGMENTS = ("pad", "question", "note", "action", "result", "cand_action", "cand_provenance", "header")
SEG = {name: i for i, name in enumerate(SEGMENTS)}
N_NAME_SLOTS = 40
N_NUM_SLOTS = 24
N_ENTITY = 1 + N_NAME_SLOTS + N_NUM_SLOTS  # 0: not an entity; the last slot of each kind takes overflow
MAX_POSITION = 48
MAX_RECENCY = 8  # 0..7 = steps back; 8: a note
NAME_WORD, NUM_WORD = 1, 2  # reserved word buckets (0 = padding)


@dataclass(frozen=True)
class TokenLimits:
    """Token budgets: the question, the latest step blocks, the latest notes, each candidate."""

    question: int = 40
    steps: int = 112
    notes: int = 48
    candidate: int = 40


@dataclass
class Tokens:
    """Int arrays [L, 5] (word, entity, segment, position, recency) and float [L, 2] (match)."""

    ints: np.ndarray
    match: np.ndarray


@dataclass
class ObservationTokens:
    context: Tokens  # question + facts
    candidates: list[Tokens]  # one per candidate ("" gives an empty array)
    taken: np.ndarray  # [N] float: 1 if the candidate's action was already taken


def word_bucket(word: str, n_buckets: int) -> int:
    return 3 + zlib.crc32(word.encode("utf-8")) % (n_buckets - 3)


class Tokenizer:
    """Turns observations into :class:`ObservationTokens` (deterministic; no vocabulary file)."""

    def __init__(self, n_buckets: int = 4096, limits: TokenLimits | None = None) -> None:
        if n_buckets < 16:
            raise ValueError(f"n_buckets must be >= 16; got {n_buckets}")
        self.n_buckets = n_buckets
        self.limits = limits or TokenLimits()
        self._buckets: dict[str, int] = {}

    def bucket(self, word: str) -> int:
        found = self._buckets.get(word)
        if found is None:
            found = self._buckets[word] = word_bucket(word, self.n_buckets)
        return found

    def __call__(self, text: str, candidates: Sequence[str]) -> ObservationTokens:
        question, notes, steps, actions = parse_text(text)
        lim = self.limits
        slots: dict[tuple[int, str], int] = {}
        me = MEMBER_HEADER.match(text)
        q_words = set(w.lower() for w in TOKEN.findall(question))
        fact_words = set(w.lower() for _, line, _ in steps + notes for w in TOKEN.findall(line))
        rows: list[tuple] = []
        if me:  # a team member's own name (generalist_1): members split the work by it
            rows += self._line(me.group(1), SEG["header"], 0, slots)
        rows += self._line(question, SEG["question"], 0, slots)[: lim.question]
        step_rows = [r for seg, line, rec in steps for r in self._line(line, seg, rec, slots)]
        note_rows = [r for seg, line, rec in notes for r in self._line(line, seg, rec, slots)]
        rows += step_rows[-lim.steps:] + note_rows[-lim.notes:]
        context = self._pack(rows, q_words, fact_words)
        cand_tokens, taken = [], np.zeros(len(candidates), dtype=np.float32)
        for j, cand in enumerate(candidates):
            action, _, provenance = cand.partition(PROVENANCE)
            c_rows = self._line(action, SEG["cand_action"], 0, slots) if cand else []
            c_rows += self._line(provenance, SEG["cand_provenance"], 0, slots)
            cand_tokens.append(self._pack(c_rows[: lim.candidate], q_words, fact_words))
            taken[j] = float(bool(cand) and action.strip() in actions)
        return ObservationTokens(context, cand_tokens, taken)

    def _line(self, line: str, segment: int, recency: int, slots: dict) -> list[tuple]:
        out = []
        for pos, word in enumerate(TOKEN.findall(line)):
            kind = entity_kind(word)
            lower = word.lower()
            if kind:
                key = (kind, lower)
                if key not in slots:
                    count = sum(1 for k in slots if k[0] == kind)
                    cap = N_NAME_SLOTS if kind == NAME_WORD else N_NUM_SLOTS
                    slots[key] = min(count, cap - 1) + (1 if kind == NAME_WORD else 1 + N_NAME_SLOTS)
                ids = (kind, slots[key])
            else:
                ids = (self.bucket(lower), 0)
            out.append((*ids, segment, min(pos, MAX_POSITION - 1), recency, lower))
        return out

    @staticmethod
    def _pack(rows: list[tuple], q_words: set[str], fact_words: set[str]) -> Tokens:
        ints = np.array([r[:5] for r in rows], dtype=np.int64).reshape(len(rows), 5)
        match = np.array([(r[5] in q_words, r[5] in fact_words) for r in rows], dtype=np.float32)
        return Tokens(ints, match.reshape(len(rows), 2))


def entity_kind(word: str) -> int:
    """NUM_WORD for digits, NAME_WORD for a capitalised word that is not a question word, else 0."""
    if word.isdigit():
        return NUM_WORD
    if word[0].isupper() and word.lower() not in KEPT_CAPITALISED:
        return NAME_WORD
    return 0


def parse_text(text: str) -> tuple[str, list[tuple], list[tuple], set[str]]:
    """(question, notes [(segment, line, recency)], step lines [(segment, line, recency)], actions taken).

    Lines before the question (a team's role header) are left out here; the tokenizer keeps the
    member's own name from it. A note keeps its author, without "[round r]"."""
    lines = text.splitlines()
    question, start = "", 0
    for i, line in enumerate(lines):
        if line.startswith(QUESTION_PREFIX):
            question, start = line[len(QUESTION_PREFIX):].strip(), i + 1
            break
    notes: list[tuple] = []
    blocks: list[list[tuple]] = []
    actions: set[str] = set()
    for line in lines[start:]:
        step = STEP_LINE.match(line)
        if step:
            blocks.append([(SEG["action"], step.group(2))])
            actions.add(step.group(2).strip())
        elif blocks:
            if line.strip():
                blocks[-1].append((SEG["result"], line))
        else:
            note = NOTE_LINE.match(line)
            if note:
                notes.append((SEG["note"], f"{note.group(2)} {note.group(3)}", MAX_RECENCY))
    steps = [(seg, line, min(len(blocks) - 1 - b, MAX_RECENCY - 1))
             for b, block in enumerate(blocks) for seg, line in block]
    return question, notes, steps, actions
