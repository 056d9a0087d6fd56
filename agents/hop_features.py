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

import re
from collections.abc import Sequence

import numpy as np

from .encoders import BoundedCache

ARGUMENT = re.compile(r'^(\w+)\((?:\w+=)?"(.*)"\)$')
STEP = re.compile(r"^Step \d+: (.*)$")
MEMBER = re.compile(r"^You are \S+?_(\d+)\b")
LOOKUPS = ("knowledge_base", "web_search")
PROVENANCE = "  <- "


def split_candidate(candidate: str) -> tuple[str, str, str]:
    """(kind, argument, provenance) of a candidate line; argument "" when the action has none."""
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
            member = MEMBER.match(line)
            if member:
                self.rank = int(member[1]) % 2
            if line.startswith("Question:"):
                self.question = line[len("Question:"):]
                continue
            step = STEP.match(line)
            if step:
                kind, arg, _ = split_candidate(step[1])
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

    def observation_features(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        key = (text, tuple(candidates))
        found = self._cache.get(key)
        if found is None:
            found = self._compute(Transcript(text), candidates)
            self._cache.put(key, found)
        return found

    def _compute(self, seen: Transcript, candidates: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(candidates), self.n_features), dtype=np.float64)
        parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
        question = seen.question
        positions = sorted({question.find(arg) for _, arg, _ in parts if arg and arg in question})
        subjects: dict[str, int] = {}
        for _, _, provenance in parts:
            for subject in _subjects(provenance):
                subjects[subject] = subjects.get(subject, 0) + 1
        looked: dict[str, set[str]] = {}
        for tool, arg in seen.steps:
            if tool in LOOKUPS:
                looked.setdefault(arg, set()).add(tool)
        looked_values = set()  # figures stated by listed facts about names looked up so far
        for kind, arg, provenance in parts:
            if kind == "answer" and provenance.split(" | ", 1)[0].strip() in looked:
                looked_values.update(_operands(arg))
        for j, (kind, arg, provenance) in enumerate(parts):
            if not candidates[j]:
                continue
            row = out[j]
            if arg and arg in question:
                first = question.find(arg) == positions[0]
                row[0], row[1] = float(first), float(not first)
            row[2] = float(seen.rank)
            tools = looked.get(arg, set()) if arg else set()
            row[3] = min(1.0, sum(1 for t, a in seen.steps if a == arg and t in LOOKUPS) / 2) if arg else 0.0
            row[4] = float(kind in LOOKUPS and bool(tools) and kind not in tools)
            if arg:
                row[5] = float(arg in seen.results)
                row[6] = float(arg in seen.latest)
                row[7] = float(arg in seen.notes)
                row[8] = float(subjects.get(arg, 0) > (1 if arg in _subjects(provenance) else 0))
            if kind == "answer":
                subject = provenance.split(" | ", 1)[0].strip()
                row[9] = float(bool(subject) and subject in looked)
            row[10] = min(1.0, len(seen.steps) / 8)
            if kind == "calculator":
                numbers = _operands(arg)
                row[11] = float(len(numbers) == 2 and numbers[0] >= numbers[1])
                if numbers:
                    row[12] = sum(n in looked_values for n in numbers) / len(numbers)
        return out


def _subjects(provenance: str) -> set[str]:
    """The names a provenance states a fact about: "X | relation | ..." and "... | relation of X"."""
    found = set()
    if " | " in provenance:
        head = provenance.split(" | ", 1)[0].strip()
        if head and not head.startswith(("name from", "every ", "share ", "the world", "ask ", "let ")):
            found.add(head)
    tail = provenance.rsplit(" | ", 1)[-1]
    if " of " in tail:
        found.add(tail.rsplit(" of ", 1)[-1].strip())
    return found


def _operands(text: str) -> list[float]:
    """The figures in a text ("18,300 - 5470" -> [18300.0, 5470.0])."""
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]
