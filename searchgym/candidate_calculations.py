"""The calculation tier of the candidate list: sums and differences of like quantities an agent
has seen, and years since (with the clock), worded as calls of a calculating tool.

Why a file of its own: it is the one tier ranked by the figures of every round seen (not only the
latest), with a memo of its own; :class:`searchgym.candidates.CandidateGenerator` mixes it in.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING

from searchgym.action_types import Action
from searchgym.candidate_actions import calculation_wording, calculator_call
from searchgym.candidate_rounds import Round
from searchgym.world.model import Fact

if TYPE_CHECKING:
    from searchgym.candidates import Observed

MAX_NUMBERS_PER_QUANTITY = 4
MAX_CALCULATIONS = 8


class CalculationTier:
    """Calculation candidates; a mixin of the candidate generator, which provides ``world``,
    ``_memoised(key, build, *args)`` and ``_derived(round)``."""

    def _round_numbers(self, rnd: Round) -> list[Fact]:
        derived = self._derived(rnd)
        found = derived.get("numbers")
        if found is None:
            facts = (self.world.facts[fid] for fid in rnd.fact_ids)
            found = derived["numbers"] = [f for f in facts if f.object_id is None and isinstance(f.value, (int, float))]
        return found

    def _round_figures(self, rnd: Round) -> list[tuple[str, int, Fact]]:
        """(subject's display name, 1 if outdated else 0, fact) of each of the round's figures."""
        derived = self._derived(rnd)
        found = derived.get("figure_rows")
        if found is None:
            entities = self.world.entities
            found = derived["figure_rows"] = [(entities[f.subject_id].display_name, int(not f.current), f)
                                              for f in self._round_numbers(rnd)]
        return found

    def _calculation(self, tool: str, argument: str, expression: str, note: str) -> Action:
        return self._memoised(("calc", tool, argument, expression, note),
                              calculator_call, tool, argument, expression, note)

    def _calculations(self, observed: Observed, tool: str, argument: str) -> dict[Action, None]:
        """The first ``MAX_CALCULATIONS`` sums and differences of like quantities seen (same
        predicate), and years since (clock), as a tier (a dict, in rank order).

        Figures of the entities the question names come first, then the most recent ones, and
        current figures before outdated ones.
        """
        clock, figures = self._figures(observed)
        # Ages only order the figures, so the list depends on the sequence of rounds with figures
        # (their facts), the clock and the question's names: memoised across steps and episodes,
        # and the last tier kept on the record while none of these changed (no key to hash).
        kept = observed.derived.get(("calculations", tool, argument))
        if kept is not None and kept[0] is figures and kept[1] == clock and kept[2] is observed.question_names:
            return kept[3]
        key = ("calculations", tool, argument, clock, observed.question_names, figures)
        tier = self._memoised(key, self._rank_calculations, observed, clock, tool, argument)
        observed.derived[("calculations", tool, argument)] = (figures, clock, observed.question_names, tier)
        return tier

    def _figures(self, observed: Observed) -> tuple[int | None, tuple]:
        """(the latest clock year seen, the fact ids of every round with figures, in order), kept
        on the record and extended by the rounds added since the last step."""
        rounds = observed.rounds
        seen, last, clock, figures = observed.derived.get("figures", (0, None, None, ()))
        if seen > len(rounds) or (seen and rounds[seen - 1] is not last):  # not the record it was built from
            seen, clock, figures = 0, None, ()
        if seen < len(rounds):
            for rnd in rounds[seen:]:  # oldest first: the last clock year seen wins
                if rnd.clock_year:
                    clock = rnd.clock_year
                if self._round_numbers(rnd):
                    figures += (rnd.fact_ids,)
            observed.derived["figures"] = (len(rounds), rounds[-1], clock, figures)
        return clock, figures

    def _question_figures(self, rnd: Round, question_names: tuple[str, ...]) -> tuple[list[Fact], list[Fact]]:
        """The round's figures of entities the question names, then the others, each current
        before outdated (in the round's order otherwise); kept with the round for its last question."""
        derived = self._derived(rnd)
        found = derived.get("question_figures")
        if found is None or found[0] != question_names:
            named, named_old, other, other_old = [], [], [], []
            for display, outdated, fact in self._round_figures(rnd):
                if display in question_names:
                    (named_old if outdated else named).append(fact)
                else:
                    (other_old if outdated else other).append(fact)
            found = derived["question_figures"] = (question_names, named + named_old, other + other_old)
        return found[1], found[2]

    def _rank_calculations(self, observed: Observed, clock: int | None, tool: str,
                           argument: str) -> dict[Action, None]:
        # ordered by (not named in the question, age, not current): the figures of the named
        # entities first, newest round first, current before outdated within a round; then the rest
        named: list[Fact] = []
        other: list[Fact] = []
        for rnd in reversed(observed.rounds):
            first, rest = self._question_figures(rnd, observed.question_names)
            if first:
                named += first
            if rest:
                other += rest
        named += other
        # per quantity, its first distinct figures in that order (the world's figures are finite
        # numbers, so ``in`` tests what ``!=`` against each would)
        by_quantity: dict[str, list[tuple[int, int | float]]] = {}
        distinct: dict[str, list[int | float]] = {}
        for rank, fact in enumerate(named):
            value, values = fact.value, distinct.get(fact.predicate)
            if values is None:
                distinct[fact.predicate], by_quantity[fact.predicate] = [value], [(rank, value)]
            elif len(values) < MAX_NUMBERS_PER_QUANTITY and value not in values:
                values.append(value)
                by_quantity[fact.predicate].append((rank, value))
        # (rank, spec) in listing order; after the stable sort by rank only the first few are worded
        scored: list[tuple[int, tuple]] = []
        for predicate, values in by_quantity.items():
            what = predicate.replace("_", " ")
            if predicate.endswith("year"):  # years pair with the clock; their sums answer nothing
                if clock is not None:
                    scored += [(rank, ("year", clock, v, what)) for rank, v in values]
                continue
            for i, (_, a) in enumerate(values):
                for rank, b in values[i + 1:]:  # a pair ranks as its later figure (ranks increase)
                    scored.append((rank, ("sum", a, b, what)))
                    scored.append((rank, ("difference", a, b, what)))
        kept = sorted(scored, key=itemgetter(0))[:MAX_CALCULATIONS]
        return dict.fromkeys(self._calculation(tool, argument, *calculation_wording(spec)) for _, spec in kept)
