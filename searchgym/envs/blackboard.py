"""The team's blackboard: notes everyone sees, and what evidence each note carries.

A tool result is seen by its caller only; an agent shares it by posting a note. What a note
*carries* is decided from its text and what its author has seen, never from the author's
intent, so a free-text note in text mode and a chosen line in candidate mode are read alike:

- a world fact the author has seen (in its own results or in notes it read) is carried when the
  note names the fact's subject (plain or display name) and states its value (a name as whole
  words; a number within 1e-6);
- ``"clock"``: the author has asked the clock and the note states the current year;
- ``"clarification"``: the author has the user's clarification and the note repeats it, or a
  name it gives that the question does not;
- a calculation: the author ran the calculator and the note states the result.

Teammates *read* a note at the end of the round it was posted in: it becomes a round of their
:class:`~searchgym.candidates.Observed` record (its facts, names, calculator result and clock
year), so candidates for lookups, calculations and answers come from the blackboard exactly as
they come from a tool result; see ``TeamSearchEnv``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from searchgym.action_types import Action
from searchgym.candidates import Observed, Round
from searchgym.numbers import written_numbers
from searchgym.observation_format import note_line
from searchgym.scoring import find_numbers, normalize_answer
from searchgym.tools.base import ToolResult
from searchgym.world.model import Fact, Task
from searchgym.world.world import World

MAX_NOTE_CHARS = 500
MAX_POST_CANDIDATES = 12
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_RESULT_HEADER = re.compile(r"^\[\d+\]\s")


@dataclass(frozen=True)
class NoteEvidence:
    """What a note carries (see the module docstring)."""

    fact_ids: tuple[str, ...] = ()
    clock: bool = False
    clarification: bool = False
    calculation: Action | None = None
    calculator_value: str | None = None

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        """Fact ids plus the special ids ``clock`` and ``clarification`` when carried."""
        return self.fact_ids + (("clock",) if self.clock else ()) + (("clarification",) if self.clarification else ())


@dataclass(frozen=True)
class Note:
    """One note: who posted it in which round, its text, what it carries and the names it gives."""

    round: int
    author: str
    text: str
    evidence: NoteEvidence = field(default_factory=NoteEvidence)
    names: tuple[str, ...] = ()  # entity names the note mentions

    def line(self) -> str:
        return note_line(self.round, self.author, self.text)


@lru_cache(maxsize=1 << 16)
def padded(text: str) -> str:
    """`` normalised text `` (SQuAD normalisation with a space at each end): a whole-word
    ``needle in haystack`` test. Cached: names and result lines recur round after round."""
    return f" {normalize_answer(text)} "


@lru_cache(maxsize=1 << 14)
def _numbers(text: str) -> tuple[float, ...]:
    """The text's numbers scaled, then as written (``find_numbers`` both ways), read in one pass."""
    written = list(written_numbers(text))
    return tuple([abs(scaled) for _, scaled, _ in written] + [abs(literal) for literal, _, _ in written])


def _close(value: float, numbers: Sequence[float]) -> bool:
    """``value`` is within 1e-6 (relative; 1e-9 absolute) of one of ``numbers`` (finite): an equal
    one is found by ``in`` without a loop, and the tolerance depends on ``value`` alone."""
    if value in numbers:
        return True
    tolerance = max(1e-9, 1e-6 * abs(value))
    return any(abs(value - x) <= tolerance for x in numbers)


class NoteReader:
    """Decides what a note carries, for one world and task (cheap to build, per episode)."""

    def __init__(self, world: World, task: Task) -> None:
        self.world, self.task = world, task
        self._clarified_names = self._clarification_names()

    def _clarification_names(self) -> tuple[str, ...]:
        if not self.task.clarification:
            return ()
        question = padded(self.task.question)
        names = [s for s, _ in self.world.mentions.find(self.task.clarification)]
        return tuple(n for n in names if padded(n) not in question)

    def _states(self, fact: Fact, haystack: str, numbers: Sequence[float]) -> bool:
        entity = self.world.entities[fact.subject_id]
        if padded(entity.name) not in haystack and padded(entity.display_name) not in haystack:
            return False
        if isinstance(fact.value, str):
            return padded(fact.value) in haystack
        return _close(abs(float(fact.value)), numbers)

    def read(self, text: str, author_seen: Observed | Round) -> NoteEvidence:
        """What ``text`` carries, given everything its author has seen (or, given one Round,
        what it carries as a line of that round's result)."""
        rounds = [author_seen] if isinstance(author_seen, Round) else author_seen.rounds
        haystack, numbers = padded(text), _numbers(text)
        seen = dict.fromkeys(fid for rnd in rounds for fid in rnd.fact_ids)
        facts = tuple(fid for fid in seen if self._states(self.world.facts[fid], haystack, numbers))
        clock = any(r.clock_year for r in rounds) and _close(float(self.world.now.year), numbers)
        clarification = False
        if self.task.clarification and any(r.result is not None and "clarification" in r.result.evidence_ids
                                           for r in rounds):
            clarification = padded(self.task.clarification).strip() in haystack or any(
                padded(n) in haystack for n in self._clarified_names)
        calculation, value = None, None
        for rnd in reversed(rounds):
            if rnd.calculator_value is not None and rnd.action is not None and rnd.action.tool == "calculator":
                parsed = find_numbers(rnd.calculator_value)
                if parsed and _close(abs(parsed[0]), numbers):
                    calculation, value = rnd.action, rnd.calculator_value
                    break
        return NoteEvidence(facts, bool(clock), clarification, calculation, value)

    def read_lines(self, lines: Sequence[str], rnd: Round) -> list[NoteEvidence]:
        """``[self.read(line, rnd) for line in lines]``, with what the round offers (each fact's
        names and value, the clock, the clarification, the calculation) looked up once."""
        facts = []
        for fid in dict.fromkeys(rnd.fact_ids):
            fact = self.world.facts[fid]
            entity = self.world.entities[fact.subject_id]
            value = padded(fact.value) if isinstance(fact.value, str) else abs(float(fact.value))
            facts.append((fid, padded(entity.name), padded(entity.display_name), value))
        clock = bool(rnd.clock_year)
        clarified = bool(self.task.clarification and rnd.result is not None
                         and "clarification" in rnd.result.evidence_ids)
        calculated = None
        if rnd.calculator_value is not None and rnd.action is not None and rnd.action.tool == "calculator":
            parsed = find_numbers(rnd.calculator_value)
            calculated = abs(parsed[0]) if parsed else None
        year = float(self.world.now.year)
        # a line's numbers are read only when a number could be carried (most rounds state names)
        counted = clock or calculated is not None or any(not isinstance(f[3], str) for f in facts)
        read = []
        for line in lines:
            haystack, numbers = padded(line), (_numbers(line) if counted else ())
            stated = tuple([fid for fid, name, display, value in facts
                            if (name in haystack or display in haystack)
                            and (value in haystack if isinstance(value, str) else _close(value, numbers))])
            clarification = clarified and (padded(self.task.clarification).strip() in haystack or any(
                padded(n) in haystack for n in self._clarified_names))
            calc = calculated is not None and _close(calculated, numbers)
            read.append(NoteEvidence(stated, clock and _close(year, numbers), bool(clarification),
                                     rnd.action if calc else None, rnd.calculator_value if calc else None))
        return read

    def reading_round(self, note: Note) -> Round:
        """The round a teammate records when it reads ``note`` (its Observed input)."""
        ev = note.evidence
        action = ev.calculation if ev.calculation is not None else Action.call(f"blackboard note by {note.author}")
        result = ToolResult(f"{note.author} posted: {note.text}", evidence_ids=ev.evidence_ids)
        names = note.names or tuple(s for s, _ in self.world.mentions.find(note.text))
        return Round(action, result, ev.fact_ids, names, ev.calculator_value,
                     self.world.now.year if ev.clock else None)


def result_lines(rnd: Round) -> list[str]:
    """The lines (sentences) of one round's result, each readable on its own as a note.

    Search results are split into sentences (result headers dropped); a knowledge-base line
    ("- revenue: 1110") gets its entity in front; a calculation reads "expression = value".
    """
    if rnd.result is None or not rnd.result.ok or rnd.action is None:
        return []
    if rnd.calculator_value is not None:
        return [f"{rnd.action.args.get('expression', '')} = {rnd.calculator_value}"]
    lines: list[str] = []
    header = ""
    for raw in rnd.result.text.splitlines():
        line = raw.strip()
        if not line or _RESULT_HEADER.match(line):
            continue
        if line.startswith("- ") and header:
            lines.append(f"{header}: {line[2:]}")
            continue
        if rnd.action.tool == "knowledge_base" and not line.startswith("- "):
            header = line
            continue
        lines.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return list(dict.fromkeys(line[:MAX_NOTE_CHARS] for line in lines))


class Blackboard:
    """The notes of one episode, in posting order."""

    def __init__(self) -> None:
        self.notes: list[Note] = []
        self._carried: tuple[int, frozenset[str], frozenset[str]] = (0, frozenset(), frozenset())
        self._text: tuple[tuple | None, str] = (None, "")

    def post(self, note: Note) -> None:
        self.notes.append(note)

    def _carried_now(self) -> tuple[int, frozenset[str], frozenset[str]]:
        """(notes counted, evidence ids, calculator values), recomputed only after a new note."""
        if self._carried[0] != len(self.notes):
            self._carried = (len(self.notes), frozenset(e for n in self.notes for e in n.evidence.evidence_ids),
                             frozenset(n.evidence.calculator_value for n in self.notes
                                       if n.evidence.calculator_value is not None))
        return self._carried

    @property
    def evidence_ids(self) -> frozenset[str]:
        return self._carried_now()[1]

    @property
    def calculator_values(self) -> frozenset[str]:
        return self._carried_now()[2]

    def posted_in(self, round_number: int) -> list[Note]:
        return [n for n in self.notes if n.round == round_number]

    def text(self, max_chars: int, notes: Sequence[Note] | None = None, title: str = "Blackboard") -> str:
        """``Blackboard:`` and the most recent notes that fit in ``max_chars`` (the whole board's
        text is kept until the next note: every agent's observation shows it every round)."""
        if notes is None:
            key = (len(self.notes), max_chars, title)
            if self._text[0] != key:
                self._text = (key, self._render(max_chars, self.notes, title))
            return self._text[1]
        return self._render(max_chars, notes, title)

    def _render(self, max_chars: int, notes: Sequence[Note], title: str) -> str:
        if not notes:
            return f"{title}: (empty)" if notes is self.notes else ""
        lines, budget = [], max_chars - len(title) - 2
        for note in reversed(notes):
            line = note.line()
            if len(line) + 1 > budget:
                break
            lines.append(line)
            budget -= len(line) + 1
        hidden = len(notes) - len(lines)
        head = f"{title} ({hidden} older notes not shown):" if hidden else f"{title}:"
        return "\n".join([head, *reversed(lines)])
