"""What candidate generation keeps per round: a ``Round`` (what one round showed the agent) and
``OlderRounds`` (what the rounds before the latest contribute, extended one round at a time
instead of rebuilt every step; see :class:`searchgym.candidates.CandidateGenerator`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from searchgym.action_types import Action
from searchgym.tools.base import ToolResult

#: Names a round contributes to the look-up candidates at most.
MAX_NAMES_PER_ROUND = 8


@dataclass
class Round:
    """What one round showed the agent: the action, its result, the facts and names it revealed."""

    action: Action | None
    result: ToolResult | None
    fact_ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    calculator_value: str | None = None
    clock_year: int | None = None
    #: What candidate generation derives from this round, computed once (see ``CandidateGenerator``).
    derived: dict = field(default_factory=dict, repr=False, compare=False)


def add_members(groups: dict[tuple[str, str], list[str]], members) -> None:
    """Add (key, subject) pairs to ``groups``, each subject once per key, in order."""
    for key, subject in members:
        subjects = groups.setdefault(key, [])
        if subject not in subjects:
            subjects.append(subject)


@dataclass(frozen=True)
class OlderRounds:
    """What the rounds before the latest give candidates, newest round first: their answers, the
    (predicate, value) -> subjects groups of list answers, the names (at most
    ``MAX_NAMES_PER_ROUND`` a round), the relation that pointed at each name, and the answers
    whose subject (the provenance's first part) is one of the ``question``'s names."""

    count: int = 0
    last: Round | None = None  # the newest of these rounds (to tell that the record is still the same)
    answers: list = field(default_factory=list)
    groups: dict = field(default_factory=dict)
    names: list = field(default_factory=list)
    roles: dict = field(default_factory=dict)
    question: frozenset = frozenset()
    about: list = field(default_factory=list)

    def prepend(self, rnd: Round, round_answers: tuple[list, list], round_roles: list) -> OlderRounds:
        """These rounds with ``rnd`` (one round newer than all of them) in front; as reading every
        round again newest first would: ``rnd``'s items first, then the others not yet present."""
        actions, members = round_answers
        groups: dict[tuple[str, str], list[str]] = {}
        add_members(groups, members)
        add_members(groups, ((key, s) for key, subjects in self.groups.items() for s in subjects))
        names: list[str] = []
        names.extend(n for n in rnd.names[:MAX_NAMES_PER_ROUND] if n not in names)
        fresh = set(names)
        names.extend(n for n in self.names if n not in fresh)
        roles: dict[str, str] = {}
        for value, role in round_roles:
            roles.setdefault(value, role)
        for value, role in self.roles.items():
            roles.setdefault(value, role)
        about = [a for a in actions if a.provenance.partition(" | ")[0] in self.question] + self.about
        return OlderRounds(self.count + 1, rnd, actions + self.answers, groups, names, roles, self.question, about)
