"""ComparisonStanding: where an answer's name stands on the figure a comparison question asks about.

Why: "Which company has more employees: the company that makes X or the company that makes Y?"
is answered by a name (``answer("Chaetheix Systems")  <- X | made by | ...``), and which name wins
is written in *other* candidates, the figures' facts (``answer("5200")  <- Chaetheix Systems |
employees | a number``). A policy that scores each candidate by its own words and provenance
cannot compare two numbers, so the `hash` and `attn` bases picked between the two options at the
0.5 chance rate (quick-v2 comparisons: 0.485 over 5 seeds), and RL could not learn what the
features do not state. These features read the listed facts of the figure the question names
(the schema's comparison phrases: "has more employees" -> employees, "was founded earlier" ->
founded year, as a pretrained model knows the words) and say, for each answer, whether its
name's figure is the largest or the smallest known, and whether the question asks for the
smaller one ("earlier", as the schema's years are compared); that the answer is the largest
figure in one case and the smallest in the other is left to the policy to learn. Nothing here
knows where a fact is stored or the gold chain.

Per candidate (0 for padding):
[the number of options whose asked figure is known (0, 1, 2 or more) / 2, on every candidate,
 the question asks for the smaller figure ("earlier": a year), on every candidate,
 for an answer: its name's asked figure is known,
 for an answer: its name's figure is the largest of two or more known,
 for an answer: its name's figure is the smallest of two or more known]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from searchgym.baselines.reader_observation import plain_name, read

from searchgym.world.schema import ATTRIBUTES

from .encoders import BoundedCache
from .feature_rows import feature_array, real_count
from .hop_features import split_candidate
from .lexical_overlap import question_of

#: a comparison question's phrase -> the relation its figures' facts are listed under
#: ("was founded earlier" -> "founded year"), longest first so "was born earlier" is not read
#: as a shorter phrase it contains
ASKED: tuple[tuple[str, str, bool], ...] = tuple(sorted(
    {(a.comparison, a.name, a.is_year) for a in ATTRIBUTES if a.comparison},
    key=lambda entry: -len(entry[0])))


@functools.lru_cache(maxsize=4096)
def asked_figure(question: str) -> tuple[str, bool]:
    """(the relation a comparison question compares, whether the smaller figure wins):
    ("employees", False), ("founded_year", True); ("", False) when it compares none."""
    for phrase, relation, smaller_wins in ASKED:
        if phrase in question:
            return relation, smaller_wins
    return "", False


def asked_relation(question: str) -> str:
    """The relation a comparison question compares ("employees"), or "" when it compares none."""
    return asked_figure(question)[0]


def _figure(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


class ComparisonStanding:
    """Per-candidate features of one observation (see the module docstring); memoised."""

    n_features = 5

    def __init__(self, cache_size: int = 8192) -> None:
        self._cache = BoundedCache(cache_size)

    def observation_features(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        key = (text, tuple(candidates))
        found = self._cache.get(key)
        if found is None:
            question = question_of(text)
            found = self._compute(text, question, *asked_figure(question), candidates)
            self._cache.put(key, found)
        return found

    def _compute(self, text: str, question: str, relation: str, smaller_wins: bool,
                 candidates: Sequence[str]) -> np.ndarray:
        count = real_count(candidates)
        if not relation:
            return feature_array([[0.0] * self.n_features] * count, len(candidates), self.n_features)
        parts = [split_candidate(c) for c in candidates[:count]]
        facts = read({"text": text, "candidates": candidates}).facts
        # the options: the question's names, and the names a fact about one of them points to
        # ("the company that makes X": X | made by | C); their figures as the facts seen say
        options = {plain_name(s) for s, _ in facts if s in question}
        options |= {plain_name(v) for (s, _), v in facts.items() if plain_name(s) in options}
        figures: dict[str, float] = {}
        for (subject, predicate), text_value in facts.items():
            value = _figure(text_value) if predicate == relation and plain_name(subject) in options else None
            if value is not None:
                figures[plain_name(subject)] = value
        known = min(len(figures), 2) / 2
        top = max(figures.values(), default=None)
        bottom = min(figures.values(), default=None)
        rows = []
        for kind, arg, _ in parts:
            value = figures.get(plain_name(arg)) if kind == "answer" else None
            ranked = value is not None and len(figures) >= 2 and top != bottom
            rows.append([known, float(smaller_wins), float(value is not None), float(ranked and value == top),
                         float(ranked and value == bottom)])
        return feature_array(rows, len(candidates), self.n_features)
