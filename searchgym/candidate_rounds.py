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


@dataclass(slots=True)
class OlderRounds:
    """What the rounds before the latest give candidates, newest round first: their answers, the
    (predicate, value) -> subjects groups of list answers, the names (at most
    ``MAX_NAMES_PER_ROUND`` a round), the relation that pointed at each name, and the answers
    whose subject (the provenance's first part) is one of the ``question``'s names.

    Never mutated once built (``prepend`` makes a new one); not a frozen dataclass because one is
    built every step and a frozen one's ``__init__`` costs a ``object.__setattr__`` per field."""

    count: int = 0
    last: Round | None = None  # the newest of these rounds (to tell that the record is still the same)
    #: their answers, each once, newest round first: a dict, merged into a list without hashing again
    answers: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)  # each name once (as keys), newest round first
    roles: dict = field(default_factory=dict)
    question: frozenset = frozenset()
    about: list = field(default_factory=list)

    def prepend(self, rnd: Round, round_answers: tuple[list, list], round_roles: list,
                answer_keys: dict | None = None, answer_subjects: tuple[str, ...] | None = None) -> OlderRounds:
        """These rounds with ``rnd`` (one round newer than all of them) in front; as reading every
        round again newest first would: ``rnd``'s items first, then the others not yet present.

        Built from this value's own dicts, which are never mutated once built: what ``rnd`` adds
        nothing to is shared (a whole dict, or a group's list), and the rest is merged by dict
        copies that reuse the stored hashes. ``answer_keys`` (``dict.fromkeys`` of the round's
        answers) and ``answer_subjects`` (each answer's provenance up to its first " | ") may come
        memoised with the round: the same round is prepended in many episodes."""
        actions, members = round_answers
        groups = self.groups
        if members:
            fresh: dict[tuple[str, str], list[str]] = {}
            add_members(fresh, members)
            groups = dict(fresh)
            groups.update(self.groups)  # the round's keys keep their place (first), the older follow
            for key, subjects in fresh.items():
                known = self.groups.get(key)
                if known is not None:
                    subjects.extend(s for s in known if s not in subjects)
                    groups[key] = subjects
        names = self.names
        if rnd.names:
            names = dict.fromkeys(rnd.names[:MAX_NAMES_PER_ROUND])
            names.update(self.names)
        roles = self.roles
        if round_roles:
            roles = dict(self.roles)
            roles.update(reversed(round_roles))  # the round's first role of a value wins, over older ones
        about, answers = self.about, self.answers
        if actions:
            question = self.question
            if answer_subjects is None:
                answer_subjects = tuple(a.provenance.partition(" | ")[0] for a in actions)
            fresh = [a for a, subject in zip(actions, answer_subjects, strict=True) if subject in question]
            about = fresh + self.about if fresh else self.about  # the same list when the round adds none
            answers = dict(answer_keys) if answer_keys is not None else dict.fromkeys(actions)
            answers.update(self.answers)
        return OlderRounds(self.count + 1, rnd, answers, groups, names, roles, self.question, about)
