"""ComparisonStanding: where an answer's name stands on the figure a comparison question asks about.

Why: "Which company has more employees: the company that makes X or the company that makes Y?"
is answered by a name (``answer("Chaetheix Systems")  <- X | made by | ...``), and which name wins
is written in *other* candidates, the figures' facts (``answer("5200")  <- Chaetheix Systems |
employees | a number``). A policy that scores each candidate by its own words and provenance
cannot compare two numbers, so the `hash` and `attn` bases picked between the two options at the
0.5 chance rate (quick-v2 comparisons: 0.485 over 5 seeds), and RL could not learn what the
features do not state. These features read the question as the reader does
(``baselines.reader_plan.parse_question``: the schema's comparison phrases, "has more employees"
-> employees, "was founded earlier" -> founded year, and the two options' descriptions, as a
pretrained model knows the words), follow each option's description through the facts seen so
far (the reader's parser: result sentences, knowledge-base entries, notes, answer provenances),
and say, for each answer, whether its name's figure is the largest or the smallest of the
options', and whether the question asks for the smaller one ("earlier", as the schema compares
years); that the answer is the largest figure in one case and the smallest in the other is left
to the policy to learn. Nothing here knows where a fact is stored or the gold chain.

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
from searchgym.baselines.reader_plan import Plan, parse_question

from .feature_rows import MemoisedRows, feature_array, real_count
from .hop_features import split_candidate
from .lexical_overlap import question_of

QUESTION_NAME = "name from the question"


@functools.lru_cache(maxsize=4096)
def comparison_plan(question: str, names: tuple[str, ...] = ()) -> Plan | None:
    """The question's plan when it is a comparison ("compare": its two paths, the figure compared
    and whether the smaller wins), else None. ``names``: the question's names as candidates list
    them, which settle a pair whose names contain " or "."""
    plan = parse_question(question, names) if question else None
    return plan if plan is not None and plan.kind == "compare" else None


def _figure(text: str | None) -> float | None:
    try:
        return float(text.replace(",", "")) if text is not None else None
    except ValueError:
        return None


def option_figure(figures: dict[str, float], name: str) -> float | None:
    """The figure of the option ``name`` names. Why not by plain name alone: two entities share one
    ("X (chemist)", "X (painter)"), and the option's namesake is no option. A name matches an option
    reached under the other form ("X" and "X (chemist)") only when one of the two is unqualified and
    the options it could be agree."""
    found = figures.get(name)
    if found is None:
        plain = plain_name(name)
        matches = {v for option, v in figures.items()
                   if plain_name(option) == plain and (option == plain or name == plain)}
        found = matches.pop() if len(matches) == 1 else None
    return found


class ComparisonStanding(MemoisedRows):
    """Per-candidate features of one observation (see the module docstring); memoised."""

    n_features = 5

    def _compute(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        count = real_count(candidates)
        parts = [split_candidate(c) for c in candidates[:count]]
        question = question_of(text)  # the "Question:" line alone, not a parse of the transcript
        names = tuple(arg for _, arg, provenance in parts if provenance.startswith(QUESTION_NAME))
        plan = comparison_plan("" if question is text else question, names)
        if plan is None:
            return feature_array([], len(candidates), self.n_features)
        # each option is the end of one path of the question, followed through the facts seen
        # ("the city where U is based": U, then U's campus city); an option not reached yet has
        # no figure, and no other entity's figure stands in for it
        reading = read({"text": text, "candidates": candidates})
        figures: dict[str, float] = {}
        for path in plan.paths:
            entity: str | None = reading.clarified.get(path.start, path.start)
            for relation in path.relations:
                entity = reading.facts.get((entity, relation))
                if entity is None:
                    break
            value = _figure(reading.facts.get((entity, plan.target))) if entity is not None else None
            if value is not None:
                figures[entity] = value
        known = min(len(figures), 2) / 2
        top, bottom = max(figures.values(), default=None), min(figures.values(), default=None)
        ranked = len(figures) >= 2 and top != bottom
        rows = []
        for kind, arg, _ in parts:
            value = option_figure(figures, arg) if kind == "answer" else None
            rows.append([known, float(plan.smaller_wins), float(value is not None),
                         float(ranked and value == top), float(ranked and value == bottom)])
        return feature_array(rows, len(candidates), self.n_features)
