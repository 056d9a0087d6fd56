"""HopFeatures: where a candidate's name stands in the search so far, computed once per observation.

Why: ``LexicalOverlap`` compares words; a multi-hop search also needs to know *which* name to look
up next and *with which tool*, and a bag of words cannot say that. "Which of the question's two
names comes first", "this name was already looked up in the knowledge base, so the web is the
next try", "this name was revealed by the latest result", "facts about this name are already on
the list" are all visible in the observation but not in its words. The features carry no
knowledge of where a fact is stored or of the gold chain; they read the transcript as an agent
sees it (docs/OBSERVATIONS.md), once per observation, for every candidate.

Per candidate (0 for padding):
[its name is the question's first name, a later one of the question's names,
 the member's rank in its team (``<role>_<i>``: i mod 2),
 the times its name was looked up already (either tool, /2, at most 1),
 its name was looked up with another tool only,
 its name occurs in a result seen so far, in the latest result, in the blackboard's notes,
 another candidate states a fact about its name (its provenance names it as the subject),
 for an answer: its fact's subject was looked up,
 the steps taken so far / 8,
 for a calculation: its operands in descending order, and the share of its operands that are the
 values of listed facts about names looked up so far]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from searchgym.observation_format import MEMBER_HEADER, MEMBER_PREFIX, QUESTION_PREFIX, STEP_LINE

from .encoders import BoundedCache
from .feature_rows import feature_array, real_count

ARGUMENT = re.compile(r'^(\w+)\((?:\w+=)?"(.*)"\)$')
MEMBER_NUMBER = re.compile(r"_(\d+)$")  # generalist_1 -> 1
LOOKUPS = ("knowledge_base", "web_search")
PROVENANCE = "  <- "


@functools.lru_cache(maxsize=65_536)
def split_candidate(candidate: str) -> tuple[str, str, str]:
    """(kind, argument, provenance) of a candidate line; argument "" when the action has none.
    Memoised: the same candidates come back step after step and episode after episode."""
    action, _, provenance = candidate.partition(PROVENANCE)
    action = action.strip()
    match = ARGUMENT.match(action)
    if match:
        return match[1], match[2], provenance
    return action.split("(", 1)[0], "", provenance


class Transcript:
    """What the features need from one observation's text, parsed once."""

    def __init__(self, text: str) -> None:
        lines = text.splitlines()
        self.question, self.rank = "", 0
        self.steps: list[tuple[str, str]] = []  # (tool, argument) per step
        bodies: list[list[str]] = []
        notes: list[str] = []
        for line in lines:
            member = MEMBER_HEADER.match(line) if line.startswith(MEMBER_PREFIX) else None
            number = MEMBER_NUMBER.search(member[1]) if member else None
            if number:
                self.rank = int(number[1]) % 2
            if line.startswith(QUESTION_PREFIX):
                self.question = line[len(QUESTION_PREFIX):]
                continue
            step = STEP_LINE.match(line) if line.startswith("Step ") else None
            if step:
                kind, arg, _ = split_candidate(step[2])
                self.steps.append((kind, arg))
                bodies.append([])
            elif line.startswith("[round "):
                notes.append(line)
            elif bodies:
                bodies[-1].append(line)
        self.results = "\n".join(line for body in bodies for line in body)
        self.latest = "\n".join(bodies[-1]) if bodies else ""
        self.notes = "\n".join(notes)


class HopFeatures:
    """Per-candidate features of one observation (see the module docstring); memoised."""

    n_features = 13

    def __init__(self, cache_size: int = 8192) -> None:
        self._cache = BoundedCache(cache_size)
        self._about = BoundedCache(cache_size)

    def facts_about(self, candidates: Sequence[str]) -> np.ndarray:
        """[N, N] bool: ``[j, k]`` when candidate k (k != j) states, in its provenance, a fact about
        candidate j's name ("X | founded year | ...", "... | made by of X"); padding rows and
        columns are False. Memoised per candidate list. How much each fact counts is the policy's
        to learn (``policy.pool_facts`` weighs them by the question).

        Why: whether to look a name up again depends on what is already known about it, and that
        is written in *other* candidates' provenance; a policy that scores each candidate alone
        cannot read it. Mixing their embeddings with this matrix lets it learn which facts count.
        """
        key = tuple(candidates)
        found = self._about.get(key)
        if found is None:
            parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
            stating: dict[str, list[int]] = {}  # name -> the candidates stating a fact about it
            for k, (_, _, provenance) in enumerate(parts):
                for subject in _subjects(provenance) if provenance else ():
                    stating.setdefault(subject, []).append(k)
            found = np.zeros((len(candidates), len(candidates)), dtype=bool)
            for j, (_, arg, _) in enumerate(parts):
                if arg and arg in stating:
                    found[j, stating[arg]] = True
                    found[j, j] = False
            self._about.put(key, found)
        return found

    def observation_features(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        return self._cache.get_or_make((text, tuple(candidates)), lambda: self._compute(Transcript(text), candidates))

    def _compute(self, seen: Transcript, candidates: Sequence[str]) -> np.ndarray:
        """The features of every candidate; what several candidates share (a name's look-ups, its
        place in the question and in the results, the provenance subjects) is worked out once."""
        parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
        question = seen.question
        found_at = {arg: question.find(arg) for arg in {arg for _, arg, _ in parts if arg}}
        first_at = min((at for at in found_at.values() if at >= 0), default=-1)
        own_subjects = {provenance: _subjects(provenance) for provenance in {p for _, _, p in parts}}
        subjects: dict[str, int] = {}
        for _, _, provenance in parts:
            for subject in own_subjects[provenance]:
                subjects[subject] = subjects.get(subject, 0) + 1
        looked: dict[str, set[str]] = {}
        lookups: dict[str, int] = {}
        for tool, arg in seen.steps:
            if tool in LOOKUPS:
                looked.setdefault(arg, set()).add(tool)
                lookups[arg] = lookups.get(arg, 0) + 1
        looked_values = set()  # figures stated by listed facts about names looked up so far
        for kind, arg, provenance in parts:
            if kind == "answer" and _head(provenance) in looked:
                looked_values.update(_operands(arg))
        named: dict[str, tuple[float, float, float, float]] = {}  # arg -> (its look-ups, in results, latest, notes)
        progress = min(1.0, len(seen.steps) / 8)
        rank = float(seen.rank)
        padding = [0.0] * self.n_features
        rows = []
        for candidate, (kind, arg, provenance) in zip(candidates[:real_count(candidates)], parts):
            if not candidate:
                rows.append(padding)
                continue
            row = [0.0, 0.0, rank, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, progress, 0.0, 0.0]
            if arg:
                if found_at[arg] >= 0:
                    first = found_at[arg] == first_at
                    row[0], row[1] = float(first), float(not first)
                tools = looked.get(arg)
                row[4] = float(kind in LOOKUPS and bool(tools) and kind not in tools)
                if arg not in named:
                    named[arg] = (min(1.0, lookups.get(arg, 0) / 2), float(arg in seen.results),
                                  float(arg in seen.latest), float(arg in seen.notes))
                row[3], row[5], row[6], row[7] = named[arg]
                row[8] = float(subjects.get(arg, 0) > (1 if arg in own_subjects[provenance] else 0))
            if kind == "answer":
                subject = _head(provenance)
                row[9] = float(bool(subject) and subject in looked)
            elif kind == "calculator":
                numbers = _operands(arg)
                row[11] = float(len(numbers) == 2 and numbers[0] >= numbers[1])
                if numbers:
                    row[12] = sum(n in looked_values for n in numbers) / len(numbers)
            rows.append(row)
        return feature_array(rows, len(candidates), self.n_features)


@functools.lru_cache(maxsize=65_536)
def _subjects(provenance: str) -> frozenset[str]:
    """The names a provenance states a fact about: "X | relation | ..." and "... | relation of X".
    Memoised: the same provenances come back list after list."""
    found = set()
    if " | " in provenance:
        head = provenance.split(" | ", 1)[0].strip()
        if head and not head.startswith(("name from", "every ", "share ", "the world", "ask ", "let ")):
            found.add(head)
    tail = provenance.rsplit(" | ", 1)[-1]
    if " of " in tail:
        found.add(tail.rsplit(" of ", 1)[-1].strip())
    return frozenset(found)


@functools.lru_cache(maxsize=65_536)
def _operands(text: str) -> tuple[float, ...]:
    """The figures in a text ("18,300 - 5470" -> (18300.0, 5470.0)). Memoised, like the other
    per-candidate readings: answers and calculations come back list after list."""
    return tuple(float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text))


@functools.lru_cache(maxsize=65_536)
def _head(provenance: str) -> str:
    """A provenance's first field, stripped: an answer's subject ("X | relation | ..." -> "X")."""
    return provenance.split(" | ", 1)[0].strip()
