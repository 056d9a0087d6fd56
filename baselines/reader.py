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

from searchgym.baselines.reader_observation import Candidate, Reading, plain_name, read, sentence_facts
from searchgym.baselines.reader_plan import Plan, parse_question

LOOKUP_TOOLS = ("knowledge_base", "web_search")
_CLARIFIED = re.compile(r"^I mean (.+)\.$")
_KB_NOTE_HEAD = re.compile(r"^(?P<s>.+) \((?:\w+)\): (?P<p>[a-z ]+): ")


@dataclass(frozen=True)
class Need:
    """The reader's next need: ``what`` is "lookup" (``name``), "clock", "clarify", "calculate"
    (``expression``, whose result is ``value``) or "answer" (``value``)."""

    what: str
    name: str = ""
    expression: str = ""
    value: str = ""


def _norm(text: str) -> str:
    return " ".join(text.replace(",", "").split()).lower()


def _number(text: str | None) -> float | None:
    try:
        return float(str(text).replace(",", "")) if text is not None else None
    except ValueError:
        return None


def _figure(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


class ReaderPolicy:
    """Observation dict -> candidate index; deterministic and stateless.

    ``lookup_order``: the tools tried for a missing fact, in order. ``rotate_in_team``: a team
    member named ``<role>_<i>`` starts with the ``i``-th path (a comparison's second option) and
    rotates the look-up order by ``i``, so teammates who read the same question do not repeat
    each other.
    """

    def __init__(self, lookup_order: Sequence[str] = LOOKUP_TOOLS, rotate_in_team: bool = True) -> None:
        unknown = [t for t in lookup_order if t not in LOOKUP_TOOLS]
        if unknown or not lookup_order:
            raise ValueError(f"lookup_order {tuple(lookup_order)!r} is not accepted: give one or more of "
                             f"{', '.join(LOOKUP_TOOLS)}")
        self.lookup_order = tuple(lookup_order)
        self.rotate_in_team = rotate_in_team

    # ------------------------------------------------------------------------ the decision
    def choose(self, observation: Mapping) -> int:
        """The index of the candidate to take (an index of ``observation["candidates"]``)."""
        reading = read(observation)
        if not reading.candidates:
            raise ValueError("the observation lists no admissible candidate (is it a candidate-mode observation "
                             "with 'candidates' and 'action_mask'?)")
        return self.decide(reading).index

    def decide(self, reading: Reading) -> Candidate:
        names = tuple(c.arg() for c in reading.candidates if c.provenance.startswith("name from the question"))
        plan = parse_question(reading.question, names)
        rank = self._rank(reading)
        need = self._need(plan, reading, rank) if plan is not None else None
        chosen = self._act(need, plan, reading, rank) if need is not None else None
        return chosen or self._fallback(reading)

    def _rank(self, reading: Reading) -> int:
        match = re.search(r"_(\d+)$", reading.me)
        return int(match[1]) if (match and self.rotate_in_team) else 0

    # ------------------------------------------------------------------------ what is missing
    def _need(self, plan: Plan, reading: Reading, rank: int) -> Need:
        facts = reading.facts
        start_alias = self._clarified(reading)
        ends: list[str | None] = []
        missing: list[str] = []
        for path in plan.paths:
            entity = start_alias.get(path.start, path.start)
            for relation in path.relations:
                value = facts.get((entity, relation))
                if value is None:
                    missing.append(entity)
                    entity = None
                    break
                entity = value
            ends.append(entity)
        values = [facts.get((e, plan.target)) if e is not None else None for e in ends]
        for end, value in zip(ends, values):
            if end is not None and value is None:
                missing.append(end)
        if plan.kind == "list":
            return Need("answer_list", name=plan.paths[0].start)
        if missing:
            if reading.ambiguous and not self._asked(reading):
                return Need("clarify")
            order = missing[rank % len(missing):] + missing[:rank % len(missing)]
            return Need("lookup", name=order[0])
        if plan.kind == "value":
            return Need("answer", value=values[0])
        if plan.kind == "compare":
            numbers = [_number(v) for v in values]
            if None in numbers:
                return Need("lookup", name=ends[numbers.index(None)])
            pick = min if plan.smaller_wins else max
            return Need("answer", value=ends[numbers.index(pick(numbers))])
        numbers = [_number(v) for v in values]
        if plan.kind == "years_since":
            if reading.clock is None:
                return Need("clock")
            year = numbers[0]
            return Need("calculate", expression=f"{reading.clock} - {_figure(year)}", value=_figure(reading.clock - year))
        a, b = numbers[0], numbers[1]
        if plan.kind == "sum":
            return Need("calculate", expression=f"{_figure(a)} + {_figure(b)}", value=_figure(a + b))
        hi, lo = max(a, b), min(a, b)
        return Need("calculate", expression=f"{_figure(hi)} - {_figure(lo)}", value=_figure(hi - lo))

    @staticmethod
    def _clarified(reading: Reading) -> dict[str, str]:
        """plain name -> the display name a clarification gave ("I mean Mara Quell (painter).")."""
        out = {}
        for action, result in reading.steps:
            match = _CLARIFIED.match(result.strip()) if action.startswith("ask_for_clarification(") else None
            if match:
                out[plain_name(match[1])] = match[1]
        return out

    @staticmethod
    def _asked(reading: Reading) -> bool:
        return any(action.startswith("ask_for_clarification(") for action, _ in reading.steps)

    # ------------------------------------------------------------------------ need -> candidate
    def _act(self, need: Need, plan: Plan, reading: Reading, rank: int) -> Candidate | None:
        by_kind: dict[str, list[Candidate]] = {}
        for c in reading.candidates:
            by_kind.setdefault(c.kind, []).append(c)
        if not reading.can_answer:
            post = self._post(plan, reading, by_kind)
            if post is not None:
                return post
        if need.what == "answer":
            return self._answer(by_kind, need.value)
        if need.what == "answer_list":
            lists = [c for c in by_kind.get("answer", []) if c.provenance.startswith("every ")
                     and re.search(rf" {re.escape(need.name)} seen \(\d+\)$", c.provenance)]
            if lists:
                return max(lists, key=lambda c: (c.text.count(";"), c.text))
            return self._lookup(by_kind, reading, need.name, rank, prefer=("web_search", "knowledge_base"))
        if need.what == "clarify":
            return _first(by_kind.get("ask_for_clarification", []))
        if need.what == "clock":
            return _first(by_kind.get("current_time", []))
        if need.what == "calculate":
            done = [c for c in by_kind.get("answer", []) if c.provenance.startswith("calculator")
                    and _norm(c.text) == _norm(need.value)]
            if done:
                return self._answer(by_kind, need.value, done)
            wanted = _norm(need.expression)
            calls = [c for c in by_kind.get("calculator", []) if _norm(c.arg()) == wanted]
            return _first(calls)
        return self._lookup(by_kind, reading, need.name, rank)

    def _answer(self, by_kind: dict[str, list[Candidate]], value: str, pool: list[Candidate] | None = None):
        wanted = _norm(value)
        options = [c for c in (pool or by_kind.get("answer", [])) if _norm(c.text) == wanted]
        if not options:  # the answer's name without its descriptor ("Mara Quell (painter)")
            options = [c for c in by_kind.get("answer", []) if _norm(plain_name(c.text)) == _norm(plain_name(value))]
        return min(options, key=lambda c: (c.provenance, c.index)) if options else None

    def _lookup(self, by_kind, reading: Reading, name: str, rank: int, prefer: Sequence[str] | None = None):
        """A look-up of ``name``: the first tool of the order not yet called on it (a repeat when all were)."""
        order = tuple(prefer or self.lookup_order)
        order = order[rank % len(order):] + order[:rank % len(order)]
        tried = {action for action, _ in reading.steps}
        keys = {name, plain_name(name)}
        options = []
        for position, tool in enumerate(order):
            for c in by_kind.get(tool, []):
                if c.arg() in keys or plain_name(c.arg()) in keys:
                    call = f'{tool}({c.args[0][0]}="{c.arg()}")'
                    options.append((call in tried, position, c.arg() != name, c.index, c))
        return min(options, key=lambda o: o[:4])[-1] if options else None

    def _post(self, plan: Plan, reading: Reading, by_kind) -> Candidate | None:
        """A post of a line that states a fact on the plan's paths that the board lacks."""
        relevant = {plan.target, *(r for p in plan.paths for r in p.relations)}
        for c in sorted(by_kind.get("post", []), key=lambda c: (c.text, c.index)):
            if "=" in c.text or "current year" in c.text:
                return c  # a calculation or the clock: only the analyst has those
            kb = _KB_NOTE_HEAD.match(c.text)
            stated = {kb["p"].replace(" ", "_")} if kb else {p for _, p, _ in sentence_facts(c.text)}
            if stated & relevant:
                return c
        return None

    @staticmethod
    def _fallback(reading: Reading) -> Candidate:
        """When the plan gives nothing to do: wait if allowed, else the first listed candidate."""
        waits = [c for c in reading.candidates if c.kind == "wait"]
        return waits[0] if waits else min(reading.candidates, key=lambda c: c.index)


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
