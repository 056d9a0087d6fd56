"""OperandSources: where a calculation's operands come from, read from the listed answer facts.

Why: "the combined revenue of A and B" needs A's revenue plus B's. A calculation candidate only
says "5210 + 4050  <- sum of revenue"; whether 4050 is B's revenue or A's revenue in 2025 is
written in *other* candidates, the answer facts ("A | revenue in 2025 | a number | ..."). The
`hash` base's most frequent aggregate error was adding two figures of the same company. These
features read, for each calculation, the facts whose value is one of its operands; they know the
schema's way of writing a dated figure ("<relation> in <year>"), not where a fact is stored.

Per candidate (0 for padding and for every candidate that is not a calculation):
[the share of its operands that are the value of a listed fact about a name of the question,
 its operands are values of facts about two or more different names of the question,
 the share of its operands that are values of dated facts only ("revenue in 2025")]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from .feature_rows import MemoisedRows, feature_array, real_count
from .hop_features import _operands, split_candidate
from .lexical_overlap import question_of

DATED = re.compile(r"\bin \d{4}$")


@functools.lru_cache(maxsize=65_536)
def _fact(provenance: str) -> tuple[str, bool]:
    """(subject, dated) of an answer's fact "X | relation | ..."; ("", False) when it states none."""
    fields = provenance.split(" | ")
    if len(fields) < 3:
        return "", False
    return fields[0].strip(), bool(DATED.search(fields[1].strip()))


class OperandSources(MemoisedRows):
    """Per-candidate features of one observation (see the module docstring); memoised."""

    n_features = 3

    def _compute(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        question = question_of(text)  # the "Question:" line alone, not a parse of the transcript
        question = "" if question is text else question
        parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
        sources: dict[float, list[tuple[str, bool]]] = {}  # a figure -> (subject, dated) of the facts stating it
        for kind, arg, provenance in parts:
            if kind == "answer":
                subject, dated = _fact(provenance)
                if subject:
                    for value in _operands(arg):
                        sources.setdefault(value, []).append((subject, dated))
        rows: list[list[float]] = []
        for kind, arg, _ in parts[:real_count(candidates)]:
            row = [0.0, 0.0, 0.0]
            numbers = _operands(arg) if kind == "calculator" else ()
            if numbers:
                asked = [{s for s, _ in sources.get(n, ()) if s in question} for n in numbers]
                row[0] = sum(bool(names) for names in asked) / len(numbers)
                row[1] = float(all(asked) and len(set().union(*asked)) >= 2
                               and any(a != b for a in asked[0] for b in asked[-1]))
                row[2] = sum(bool(sources.get(n)) and all(d for _, d in sources[n]) for n in numbers) / len(numbers)
            rows.append(row)
        return feature_array(rows, len(candidates), self.n_features)
