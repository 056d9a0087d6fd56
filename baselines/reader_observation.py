"""What the reader reads: a candidate-mode observation dict -> question, header, steps, facts, candidates.

Why it parses text rather than asking the env: the reader must decide from what an agent sees
(the transcript, the blackboard, the candidates and their provenance) and nothing else. Facts are
read from knowledge-base lines, from web sentences through the schema's sentence templates (as a
reader of English would), from blackboard notes and from answer candidates' provenance. Outdated
figures ("In 2019, ...", "| price in 2019 |") are not facts of now and are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from searchgym.observation_format import MEMBER_TEAM, NOTE_LINE, QUESTION_PREFIX, STEP_LINE
from searchgym.world.schema import ATTRIBUTES, ENTITY_TYPES, RELATIONS

_ARROW = "  <- "
_CALL = re.compile(r"^(?P<name>\w+)\((?P<body>.*)\)$", re.DOTALL)
_ARGUMENT = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*")')
_MEMBER = re.compile(r"(\w+) \(([^()]*)\)")
_TYPES = "|".join(ENTITY_TYPES)
_KB_TITLE = re.compile(rf"^(?P<s>.+) \((?P<type>{_TYPES})\)$")
_KB_LINE = re.compile(r"^- (?P<p>[a-z ]+): (?P<v>.+?)(?: \(as of (?P<y>\d+)\))?$")
_KB_NOTE = re.compile(rf"^(?P<s>.+) \((?P<type>{_TYPES})\): (?P<p>[a-z ]+): (?P<v>.+?)(?: \(as of (?P<y>\d+)\))?$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLOCK = re.compile(r"The current year is (\d{4})\.")
_NUMBER = re.compile(r"^-?[\d,]+(?:\.\d+)?$")
_CALCULATION = re.compile(r"^(?P<e>[^=]+) = (?P<v>-?[\d.,]+)$")
_CLARIFIED = re.compile(r"^I mean (.+)\.$")


@dataclass(frozen=True)
class Candidate:
    """One admissible action as listed: ``kind`` (a tool name, "answer", "post" or "wait"),
    its arguments (``text`` for answer and post) and its provenance."""

    index: int
    kind: str
    args: tuple[tuple[str, str], ...]
    provenance: str

    @property
    def text(self) -> str:
        return dict(self.args).get("text", "")

    def arg(self) -> str:
        """The first argument's value ("" when there is none)."""
        return self.args[0][1] if self.args else ""


@dataclass
class Reading:
    """Everything the reader takes from one observation."""

    question: str = ""
    me: str = ""
    can_answer: bool = True
    teammates: tuple[str, ...] = ()
    tools: tuple[str, ...] | None = None  # a team member's own tools (None: no header, every tool)
    steps: list[tuple[str, str]] = field(default_factory=list)  # (action line, result text)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (author, text)
    candidates: list[Candidate] = field(default_factory=list)
    facts: dict[tuple[str, str], str] = field(default_factory=dict)  # (subject, predicate) -> value
    clock: int | None = None
    ambiguous: bool = False  # a result said several entities share a name
    #: names seen with a descriptor ("Mara Quell (painter)"): only namesakes carry one
    namesakes: set[str] = field(default_factory=set)
    #: calculations seen (own results, notes, answer candidates): operands -> value
    calculations: dict[tuple, str] = field(default_factory=dict)
    clarified: dict[str, str] = field(default_factory=dict)  # plain name -> the display name meant


def operands(expression: str) -> tuple:
    """A calculation as (operator, operands): "a + b" and "b + a" are the same sum."""
    match = re.match(r"^\s*(-?[\d.]+)\s*([-+])\s*(-?[\d.]+)\s*$", expression.replace(",", ""))
    if match is None:
        return (" ".join(expression.split()),)
    a, op, b = float(match[1]), match[2], float(match[3])
    return (op, tuple(sorted((a, b)))) if op == "+" else (op, a, b)


def parse_candidate(index: int, line: str) -> Candidate | None:
    parsed = _parse_candidate_line(line)
    return None if parsed is None else Candidate(index, *parsed)


@lru_cache(maxsize=1 << 16)
def _parse_candidate_line(line: str) -> tuple[str, tuple[tuple[str, str], ...], str] | None:
    """(kind, args, provenance) of a candidate line, memoised: the same candidates are listed
    step after step (a line whose argument is not JSON raises, as before, and is not kept)."""
    action, _, provenance = line.partition(_ARROW)
    match = _CALL.match(action.strip())
    if match is None:
        return None
    name, body = match["name"], match["body"]
    if name in ("answer", "post"):
        try:
            return name, (("text", str(json.loads(body))),), provenance
        except json.JSONDecodeError:
            return None
    args = tuple((k, str(json.loads(v))) for k, v in _ARGUMENT.findall(body))
    return name, args, provenance


@lru_cache(maxsize=1 << 16)
def plain_name(name: str) -> str:
    """"Mara Quell (film director)" -> "Mara Quell" (the name a question uses); memoised, as
    every fact read adds its subject under both names."""
    return re.sub(r" \([^()]*\)$", "", name.strip())


def _value(text: str) -> str:
    text = text.strip().rstrip(".")
    return text.replace(",", "") if _NUMBER.match(text) else text


@lru_cache(maxsize=1)
def _sentence_patterns() -> tuple[tuple[re.Pattern, tuple[str, ...], bool], ...]:
    """(regex, predicates, current) for every page sentence of the schema; dated ones first."""
    name = r"[A-Z0-9][^,;]*?"
    by_template: dict[tuple[str, bool], list[str]] = {}
    for r in RELATIONS:
        for t in (*r.sentences, *r.reverse_sentences):
            by_template.setdefault((t, True), []).append(r.name)
    for a in ATTRIBUTES:
        for t in a.dated_sentences:
            by_template.setdefault((t, False), []).append(a.name)
        for t in a.sentences:
            by_template.setdefault((t, True), []).append(a.name)
    out = []
    for (template, current), predicates in by_template.items():
        regex = re.escape(template)
        for slot, body in (("s", name), ("o", r"[^;]+?"), ("y", r"\d{4}")):
            regex = regex.replace(re.escape("{" + slot + "}"), f"(?P<{slot}>{body})")
        literal = len(re.sub(r"\{\w\}", "", template))
        out.append((literal, re.compile("^" + regex + "$"), tuple(dict.fromkeys(predicates)), current))
    # dated templates first ("In 2019, X ..." is not a current fact), then the most specific wording
    # ("X was born in the year 1962." before "X was born in Y.")
    out.sort(key=lambda item: (item[3], -item[0]))
    return tuple(item[1:] for item in out)


_NUMERIC = {a.name for a in ATTRIBUTES}


def sentence_facts(sentence: str) -> list[tuple[str, str, str]]:
    """(subject, predicate, value) stated by one page sentence; [] for dated or unknown ones."""
    return list(_sentence_facts(sentence))


@lru_cache(maxsize=1 << 16)
def _sentence_facts(sentence: str) -> tuple[tuple[str, str, str], ...]:
    """:func:`sentence_facts`, memoised: a page's sentences recur in every later observation of an
    episode and across episodes, and each costs a match against every sentence pattern."""
    for pattern, predicates, current in _sentence_patterns():
        match = pattern.match(sentence.strip())
        if match is None:
            continue
        if not current:
            return ()
        value = _value(match["o"])
        numeric = bool(_NUMBER.match(value))
        if not numeric and not value[:1].isupper():
            continue  # an entity's name starts with a capital ("the year 1962" is not a city)
        kept = [p for p in predicates if (p in _NUMERIC) == numeric]
        if kept:
            return tuple((match["s"], p, value) for p in kept)
    return ()


class _Facts:
    """(subject, predicate) -> value, kept under the display name and the plain name."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], str] = {}
        self.namesakes: set[str] = set()  # names seen with a descriptor: shared by several entities

    def add(self, subject: str, predicate: str, value: str) -> None:
        predicate = predicate.strip().replace(" ", "_")
        if plain_name(subject) != subject.strip():
            self.namesakes.add(plain_name(subject))
        for key in {subject.strip(), plain_name(subject)}:
            self.values[(key, predicate)] = value.strip()


def _read_result(facts: _Facts, action: str, result: str, reading: Reading) -> None:
    if action.startswith("knowledge_base("):
        subject = ""
        for line in result.splitlines():
            title, kb_line = _KB_TITLE.match(line.strip()), _KB_LINE.match(line.strip())
            if kb_line and subject:
                facts.add(subject, kb_line["p"], _value(kb_line["v"]))
            elif title:
                subject = title["s"]
        if re.match(r"^\d+ entities are named ", result):
            reading.ambiguous = True
    elif action.startswith("web_search("):
        for line in result.splitlines():
            if line.startswith("[") and "(https://" in line:
                continue
            for sentence in _SENTENCE_END.split(line):
                for fact in sentence_facts(sentence):
                    facts.add(*fact)
    elif action.startswith("calculator(") and _NUMBER.match(result.strip()):
        expression = parse_candidate(0, action)
        if expression is not None:
            reading.calculations[operands(expression.arg())] = _value(result)
    elif action.startswith("ask_for_clarification("):
        _read_clarification(reading, result.strip())
    clock = _CLOCK.search(result)
    if clock:
        reading.clock = int(clock[1])


def _read_clarification(reading: Reading, text: str) -> None:
    match = _CLARIFIED.match(text)
    if match:
        reading.clarified[plain_name(match[1])] = match[1]


def _read_note(facts: _Facts, text: str) -> None:
    kb = _KB_NOTE.match(text)
    if kb:
        facts.add(kb["s"], kb["p"], _value(kb["v"]))
        return
    for fact in sentence_facts(text):
        facts.add(*fact)


def _read_answer(facts: _Facts, candidate: Candidate) -> None:
    """An answer's provenance "S | predicate | a kind | ... | via tool" is a fact S predicate = text."""
    parts = candidate.provenance.split(" | ")
    if len(parts) >= 3 and parts[2].startswith("a ") and not re.search(r" in \d{4}$", parts[1]):
        facts.add(parts[0], parts[1], _value(candidate.text))


def read(observation: Mapping) -> Reading:
    """Parse a candidate-mode observation (``text``, ``candidates``, ``action_mask``)."""
    reading = Reading()
    mask = observation.get("action_mask")
    for index, line in enumerate(observation.get("candidates", ())):
        if line and (mask is None or bool(mask[index])):
            candidate = parse_candidate(index, line)
            if candidate is not None:
                reading.candidates.append(candidate)
    facts = _Facts()
    action, result_lines = None, []
    lines = str(observation.get("text", "")).split("\n")
    in_board = False
    for line in lines:
        header = MEMBER_TEAM.match(line)
        step = STEP_LINE.match(line)
        if header:
            reading.me = header[1]
            members = dict(_MEMBER.findall(header[2]))
            reading.can_answer = "submits the answer" in members.get(reading.me, "submits the answer")
            if reading.me in members:
                reading.tools = tuple(t.strip() for t in members[reading.me].split(";")[0].split(",") if t.strip())
            reading.teammates = tuple(m for m in members if m != reading.me)
        elif line.startswith(QUESTION_PREFIX) and not reading.question:
            reading.question = line[len(QUESTION_PREFIX):].strip()
        elif line.startswith("Blackboard"):
            in_board = True
        elif step:
            in_board = False
            if action is not None:
                reading.steps.append((action, "\n".join(result_lines)))
            action, result_lines = step[2], []
        elif in_board and NOTE_LINE.match(line):
            note = NOTE_LINE.match(line)
            reading.notes.append((note[2], note[3]))
        elif action is not None:
            result_lines.append(line)
    if action is not None:
        reading.steps.append((action, "\n".join(result_lines)))
    for author, text in reading.notes:
        _read_note(facts, text)
        calculation = _CALCULATION.match(text)
        if calculation:
            reading.calculations[operands(calculation["e"])] = _value(calculation["v"])
        _read_clarification(reading, text)
        clock = _CLOCK.search(text)
        reading.clock = int(clock[1]) if clock else reading.clock
    for action_line, result in reading.steps:
        _read_result(facts, action_line, result, reading)
    for candidate in reading.candidates:
        if candidate.kind == "answer":
            _read_answer(facts, candidate)
            if candidate.provenance.startswith("calculator: "):
                reading.calculations[operands(candidate.provenance[len("calculator: "):])] = _value(candidate.text)
    reading.facts, reading.namesakes = facts.values, facts.namesakes
    return reading
