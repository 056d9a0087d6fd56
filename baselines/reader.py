"""The reader: a non-learning agent that answers from what an agent sees, as a careful person would.

Why it exists: it shows what the candidate envs allow a policy that only reads (the question's
wording, the transcript, the blackboard and the candidates' provenance) and knows the world's
schema, but not where a fact is stored or the gold chain. It is the anchor between ``random`` and
the privileged ``oracle`` in every table, and a clean, deterministic demonstrator to imitate:
:meth:`ReaderPolicy.choose` maps one observation dict to one candidate index, nothing else.

How it decides: :func:`~searchgym.baselines.reader_plan.parse_question` reads the question into
paths to follow and a fact to read at the end; the facts seen so far
(:mod:`searchgym.baselines.reader_observation`) settle how far each path goes; the next need is a
look-up of the first entity whose fact is missing (``knowledge_base`` first, then ``web_search``
when the fact did not appear), the clock, a calculation, or the answer. A team member that
cannot answer posts the facts the plan needs; one that cannot call the tool a need asks for
waits (its teammates' notes arrive on the blackboard).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from searchgym.baselines.reader_observation import (
    Candidate,
    Reading,
    operands,
    plain_name,
    read,
    sentence_facts,
)
from searchgym.baselines.reader_plan import Plan, parse_question

from searchgym.world.schema import ATTRIBUTES, RELATIONS

LOOKUP_TOOLS = ("knowledge_base", "web_search")
RELATION_SUBJECT = {r.name: (r.subject_type,) for r in RELATIONS}
ATTRIBUTE_SUBJECTS: dict[str, tuple[str, ...]] = {}
for _attribute in ATTRIBUTES:
    ATTRIBUTE_SUBJECTS[_attribute.name] = (*ATTRIBUTE_SUBJECTS.get(_attribute.name, ()), _attribute.entity_type)
_KB_NOTE_HEAD = re.compile(r"^(?P<s>.+) \((?:\w+)\): (?P<p>[a-z ]+): ")


@dataclass(frozen=True)
class Need:
    """The reader's next need: ``what`` is "lookup" (``name``), "clock", "clarify", "calculate"
    (``expression``, whose result is ``value``), "answer" (``value``) or "answer_list" (the
    subjects of a relation to ``name``). A look-up's ``via`` is the entity whose result named
    ``name``: looking it up again lists ``name`` again when the candidates have dropped it. ``relevant``: the (subject, predicate) facts the plan
    uses so far, which a member who cannot answer posts."""

    what: str
    name: str = ""
    expression: str = ""
    value: str = ""
    via: str = ""  # for a look-up: the entity whose result named ``name`` (to see the name again)
    relevant: frozenset[tuple[str, str]] = frozenset()


def _norm(text: str) -> str:
    return " ".join(text.replace(",", "").split()).lower()


def _number(text: str | None) -> float | None:
    try:
        return float(str(text).replace(",", "")) if text is not None else None
    except ValueError:
        return None


def _figure(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _call_line(candidate: Candidate) -> str:
    """The action line a candidate writes in the transcript (``knowledge_base(entity="X")``)."""
    return f'{candidate.kind}({candidate.args[0][0]}="{candidate.arg()}")' if candidate.args else f"{candidate.kind}()"


class ReaderPolicy:
    """Observation dict -> candidate index; deterministic and stateless.

    ``lookup_order``: the tools tried for a missing fact, in order. ``rotate_in_team``: a team
    member named ``<role>_<i>`` starts with the ``i``-th missing entity (a comparison's second
    option) and rotates the look-up order by ``i``, so teammates who read the same question do
    not repeat each other.
    """

    def __init__(self, lookup_order: Sequence[str] | str = LOOKUP_TOOLS, rotate_in_team: bool = True) -> None:
        if isinstance(lookup_order, str):  # "web_search,knowledge_base", as an option is typed
            lookup_order = tuple(t.strip() for t in lookup_order.split(","))
        if not isinstance(lookup_order, Sequence) or not lookup_order or \
                any(t not in LOOKUP_TOOLS for t in lookup_order):
            raise ValueError(f"lookup_order {lookup_order!r} is not accepted: give one or more of "
                             f"{', '.join(LOOKUP_TOOLS)}")
        if not isinstance(rotate_in_team, bool):  # "no" would otherwise read as true
            raise ValueError(f"rotate_in_team takes true or false, got {rotate_in_team!r}")
        self.lookup_order = tuple(lookup_order)
        self.rotate_in_team = rotate_in_team

    # ------------------------------------------------------------------------ the decision
    def choose(self, observation: Mapping) -> int:
        """The index of the candidate to take (an index of ``observation["candidates"]``)."""
        if not isinstance(observation, Mapping):  # a text observation failed on ``.get`` (AttributeError)
            raise TypeError(f"ReaderPolicy.choose takes a candidate-mode observation (a dict with 'text', "
                            f"'candidates' and 'action_mask'), got {type(observation).__name__}; for a text-mode "
                            "env use ReaderTextAgent (searchgym.baselines.reader_text)")
        reading = read(observation)
        if not reading.candidates:
            raise ValueError("the observation lists no admissible candidate (is it a candidate-mode observation "
                             "with 'candidates' and 'action_mask'?)")
        return self.decide(reading).index

    def decide(self, reading: Reading) -> Candidate:
        """The candidate to take, from a parsed observation."""
        names = tuple(c.arg() for c in reading.candidates if c.provenance.startswith("name from the question"))
        plan = parse_question(reading.question, names)
        rank = self.member_rank(reading)
        need = self.need(plan, reading, rank) if plan is not None else None
        chosen = self._act(need, plan, reading, rank) if need is not None else None
        return chosen or self._fallback(reading)

    def member_rank(self, reading: Reading) -> int:
        """The ``i`` of a team member named ``<role>_<i>`` (0 otherwise, or without rotation)."""
        match = re.search(r"_(\d+)$", reading.me)
        return int(match[1]) if (match and self.rotate_in_team) else 0

    # ------------------------------------------------------------------------ what is missing
    def need(self, plan: Plan, reading: Reading, rank: int = 0) -> Need:
        """What the plan needs next, given the facts of ``reading``."""
        facts = reading.facts
        if not reading.clarified and (reading.ambiguous or any(p.start in reading.namesakes for p in plan.paths)):
            return Need("clarify")  # the question's name is shared: which one is meant decides every fact
        ends: list[str | None] = []
        missing: list[str] = []
        relevant: set[tuple[str, str]] = set()
        parents: dict[str, str] = {}  # entity -> the entity whose fact named it
        for path in plan.paths:
            entity: str | None = reading.clarified.get(path.start, path.start)
            for relation in path.relations:
                relevant.add((entity, relation))
                value = facts.get((entity, relation))
                if value is None:
                    missing.append(entity)
                    entity = None
                    break
                parents.setdefault(value, entity)
                entity = value
            ends.append(entity)
            if entity is not None:
                relevant.add((entity, plan.target))
        relevant_set = frozenset(relevant)
        values = [facts.get((e, plan.target)) if e is not None else None for e in ends]
        missing += [end for end, value in zip(ends, values) if end is not None and value is None]
        if plan.kind == "list":
            return Need("answer_list", name=plan.paths[0].start, relevant=relevant_set)
        if missing:
            turn = rank % len(missing)
            name = (missing[turn:] + missing[:turn])[0]
            return Need("lookup", name=name, via=parents.get(name, ""), relevant=relevant_set)
        numbers = [_number(v) for v in values]
        if plan.kind == "value":
            return Need("answer", value=values[0], relevant=relevant_set)
        if None in numbers:  # a figure that is not a number: read it again elsewhere
            return Need("lookup", name=ends[numbers.index(None)], relevant=relevant_set)
        if plan.kind == "compare":
            pick = min if plan.smaller_wins else max
            return Need("answer", value=ends[numbers.index(pick(numbers))], relevant=relevant_set)
        if plan.kind == "years_since":
            year = numbers[0]
            clock = reading.clock
            if clock is None:  # a teammate's calculation "2035 - 1486" says the year too
                clock = next((key[1] for key in reading.calculations
                              if key[0] == "-" and len(key) == 3 and key[2] == year and 1000 < key[1] < 3000), None)
            if clock is None:
                return Need("clock", relevant=relevant_set)
            return Need("calculate", expression=f"{_figure(clock)} - {_figure(year)}", value=_figure(clock - year),
                        relevant=relevant_set)
        a, b = numbers[0], numbers[1]
        if plan.kind == "sum":
            return Need("calculate", expression=f"{_figure(a)} + {_figure(b)}", value=_figure(a + b),
                        relevant=relevant_set)
        hi, lo = max(a, b), min(a, b)
        return Need("calculate", expression=f"{_figure(hi)} - {_figure(lo)}", value=_figure(hi - lo),
                    relevant=relevant_set)

    # ------------------------------------------------------------------------ need -> candidate
    def _act(self, need: Need, plan: Plan, reading: Reading, rank: int) -> Candidate | None:
        by_kind: dict[str, list[Candidate]] = {}
        for c in reading.candidates:
            by_kind.setdefault(c.kind, []).append(c)
        if not reading.can_answer:  # a member who cannot answer shares what it found first
            post = self._post(need, plan, by_kind)
            if post is not None:
                return post
            if need.what == "answer" or (need.what == "answer_list" and "web_search" not in by_kind) or (
                    need.what == "calculate" and operands(need.expression) in reading.calculations):
                return None  # the answer is the answerer's to give
        # a need it cannot meet itself (another member's tool): share what the plan uses, else wait
        return self._meet(need, plan, reading, rank, by_kind) or self._post(need, plan, by_kind)

    def _meet(self, need: Need, plan: Plan, reading: Reading, rank: int, by_kind) -> Candidate | None:
        if need.what == "answer":
            return self._answer(by_kind, need.value)
        if need.what == "answer_list":
            return self._answer_list(need, plan, reading, rank, by_kind)
        if need.what == "clarify":
            return _first(by_kind.get("ask_for_clarification", []))
        if need.what == "clock":
            return _first(by_kind.get("current_time", []))
        if need.what == "calculate":
            found = reading.calculations.get(operands(need.expression))
            if found is not None:
                answer = self._answer(by_kind, found)
                if answer is not None:
                    return answer
            wanted = operands(need.expression)
            return _first([c for c in by_kind.get("calculator", []) if operands(c.arg()) == wanted])
        found = self._lookup(by_kind, reading, need.name, rank, fresh_only=True)
        if found is None and need.via:  # the name fell off the list: a look-up of what named it lists it again
            found = self._show_again(by_kind, reading, need)
        found = found or self._lookup(by_kind, reading, need.name, rank)
        if found is None and self._asks_first(plan, reading, by_kind):
            return _first(by_kind["ask_for_clarification"])
        return found

    def _answer_list(self, need: Need, plan: Plan, reading: Reading, rank: int, by_kind) -> Candidate | None:
        """The longest "every <relation> <name> seen" answer once it holds every subject read so far
        (a teammate's notes arrive one by one); until then a look-up not made yet, if any."""
        lists = [c for c in by_kind.get("answer", []) if c.provenance.startswith("every ")
                 and re.fullmatch(rf"every {re.escape(plan.target.replace('_', ' '))} {re.escape(need.name)} seen \(\d+\)",
                                  c.provenance)]
        best = max(lists, key=lambda c: (len(c.text.split("; ")), c.text)) if lists else None
        known = {plain_name(s) for (s, p), v in reading.facts.items() if p == plan.target and v == need.name}
        if best is not None and len({plain_name(x) for x in best.text.split("; ")}) >= len(known):
            return best
        lookup = self._lookup(by_kind, reading, need.name, rank, prefer=("web_search", "knowledge_base"),
                              fresh_only=best is not None)
        return lookup or best if reading.can_answer and any(t in by_kind for t in LOOKUP_TOOLS) else lookup

    @staticmethod
    def _show_again(by_kind, reading: Reading, need: Need) -> Candidate | None:
        """A look-up of ``need.via`` (whose fact named ``need.name``): one not made yet first, then
        one whose result named it."""
        results = {action: result for action, result in reading.steps}
        options = []
        for tool in LOOKUP_TOOLS:
            for c in by_kind.get(tool, []):
                if c.arg() == need.via:
                    line = _call_line(c)
                    options.append((line in results, need.name not in results.get(line, ""), c.index, c))
        return min(options, key=lambda o: o[:3])[-1] if options else None

    @staticmethod
    def _asks_first(plan: Plan, reading: Reading, by_kind) -> bool:
        """A member without look-up tools asks which person a one-hop question means (namesakes are
        people; its teammates cannot ask), once."""
        if not by_kind.get("ask_for_clarification") or any(t in by_kind for t in LOOKUP_TOOLS):
            return False
        if reading.clarified or any(a.startswith("ask_for_clarification(") for a, _ in reading.steps):
            return False
        subject_type = RELATION_SUBJECT.get(plan.target) or ATTRIBUTE_SUBJECTS.get(plan.target, ())
        return plan.kind == "value" and not plan.paths[0].relations and "person" in subject_type

    @staticmethod
    def _answer(by_kind: dict[str, list[Candidate]], value: str) -> Candidate | None:
        wanted = _norm(value)
        options = [c for c in by_kind.get("answer", []) if _norm(c.text) == wanted]
        if not options:  # the answer's name without its descriptor ("Mara Quell (painter)")
            options = [c for c in by_kind.get("answer", []) if _norm(plain_name(c.text)) == _norm(plain_name(value))]
        return min(options, key=lambda c: (c.provenance, c.index)) if options else None

    def _lookup(self, by_kind, reading: Reading, name: str, rank: int,
                prefer: Sequence[str] | None = None, fresh_only: bool = False) -> Candidate | None:
        """A look-up of ``name``: the first tool of the order not yet called on it (a repeat when all
        were, unless ``fresh_only``)."""
        order = tuple(prefer or self.lookup_order)
        order = order[rank % len(order):] + order[:rank % len(order)]
        tried = {action for action, _ in reading.steps}
        keys = {name, plain_name(name)}
        options = []
        for position, tool in enumerate(order):
            for c in by_kind.get(tool, []):
                if c.arg() in keys or plain_name(c.arg()) in keys:
                    options.append((_call_line(c) in tried, position, c.arg() != name, c.index, c))
        if fresh_only:
            options = [o for o in options if not o[0]]
        return min(options, key=lambda o: o[:4])[-1] if options else None

    @staticmethod
    def _post(need: Need, plan: Plan, by_kind) -> Candidate | None:
        """A post of a line the plan uses that the board lacks (post candidates are only such lines):
        a fact on the plan's paths, the clarification, the clock or a calculation the plan needs."""
        relevant = {(plain_name(s), p) for s, p in need.relevant} | set(need.relevant)
        computes = plan.kind in ("sum", "difference", "years_since")
        ranked = []
        for c in by_kind.get("post", []):
            text = c.text
            if text.startswith("I mean "):
                ranked.append((0, c.index, c))
            elif computes and (" = " in text or text.startswith("The current year is")):
                ranked.append((1, c.index, c))
            else:
                kb = _KB_NOTE_HEAD.match(text)
                stated = {(kb["s"], kb["p"].replace(" ", "_"), "")} if kb else set(sentence_facts(text))
                if any((s, p) in relevant or (plain_name(s), p) in relevant for s, p, _ in stated) or (
                        plan.kind == "list" and any(p == plan.target and v == plan.paths[0].start for _, p, v in stated)):
                    ranked.append((2, c.index, c))
        return min(ranked, key=lambda r: r[:2])[-1] if ranked else None

    @staticmethod
    def _fallback(reading: Reading) -> Candidate:
        """When the plan gives nothing to do: wait if allowed, else a look-up not made yet (names
        from the question first), else any tool call; an answer only when nothing else is listed."""
        waits = [c for c in reading.candidates if c.kind == "wait"]
        if waits:
            return waits[0]
        tried = {action for action, _ in reading.steps}
        calls = [c for c in reading.candidates if c.kind in LOOKUP_TOOLS]
        fresh = [c for c in calls if _call_line(c) not in tried]
        tools = [c for c in reading.candidates if c.kind not in ("answer", "post", "ask_for_clarification")]
        for pool in (fresh, tools):
            if pool:
                return min(pool, key=lambda c: (not c.provenance.startswith("name from the question"), c.index))
        return min(reading.candidates, key=lambda c: c.index)


def _first(options: list[Candidate]) -> Candidate | None:
    return min(options, key=lambda c: c.index) if options else None


# ---------------------------------------------------------------------------- actors
class ReaderActor:
    """The harness Actor: single-agent ``act(env, observation, info)`` and parallel
    ``act(env, observations, infos) -> {agent: index}``, one ``choose`` per live agent on that
    agent's own observation (no member reads another's)."""

    def __init__(self, policy: ReaderPolicy | None = None) -> None:
        self.policy = policy or ReaderPolicy()

    def reset(self) -> None:
        """Nothing to reset: the reader keeps no state between steps."""

    def act(self, env: Any, observation: Any, info: Any = None) -> Any:
        if isinstance(observation, Mapping) and "candidates" not in observation:
            return {agent: self.policy.choose(obs) for agent, obs in observation.items()}
        return self.policy.choose(observation)
