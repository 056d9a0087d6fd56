"""The oracle: an upper bound that follows the gold evidence chain through the tools.

It knows *which* facts are needed and where they are (the task's evidence chain and operation),
never the answer: it looks each fact up with the tools as an agent would, reads the values from
what the tools returned, asks the clock and the calculator, and answers with what it computed.
It acts in text mode (writing tool calls) and in candidate mode (choosing the candidate that
matches its intent); if no candidate matches, that is a bug in the candidate generator, and the
oracle says so instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from searchgym.action_types import Action
from searchgym.actions import format_action
from searchgym.envs.session import SearchSession
from searchgym.scoring import normalize_answer, parse_number, split_list
from searchgym.tools.calculator import Calculator
from searchgym.world.corpus import format_value

_CALC = Calculator()


class OracleMiss(RuntimeError):
    """The action the oracle needs is not among the candidates (a candidate-generator bug)."""


@dataclass
class OracleAgent:
    """Stateless between episodes: everything it needs is in the session it is handed."""

    name: str = "oracle"

    def reset(self) -> None:
        """Nothing to reset: the oracle re-reads the session at every step."""

    # --------------------------------------------------------------------------- planning
    def intents(self, session: SearchSession) -> list[Action]:
        """What to do next, best first (later entries are fallbacks for candidate mode)."""
        task, rounds = session.task, session.observed.rounds
        seen = {fid for r in rounds for fid in r.fact_ids}
        tried = {r.action for r in rounds if r.action is not None}
        if any(h.fact_id == "clarification" for h in task.evidence) and not any(
            r.result is not None and "clarification" in r.result.evidence_ids for r in rounds
        ):
            return [Action.call("ask_for_clarification", question="Which one do you mean?")]
        previous = None
        for hop in task.evidence:
            if hop.fact_id in ("clock", "clarification"):
                continue
            if hop.fact_id in seen:
                previous = hop
                continue
            focus = [Action.call("web_search", query=n) for n in session.observed.question_names]
            if task.operation == "set" and not any(a in tried for a in focus):
                return focus  # a list is discovered from the page of what it is about
            options = []
            if "kb" in hop.sources:
                options.append(Action.call("knowledge_base", entity=hop.entity))
            options.append(Action.call("web_search", query=hop.entity))
            if previous is not None:  # the page of the previous hop names this hop's entity
                options += [Action.call("knowledge_base", entity=previous.entity),
                            Action.call("web_search", query=previous.entity)]
            options += focus
            return [a for a in options if a not in tried] + [a for a in options if a in tried]
        return self._finish(session) + self._refreshers(session)

    @staticmethod
    def _refreshers(session: SearchSession) -> list[Action]:
        """Look a hop's entity up again so that a fact seen long ago is on screen (and among the
        candidates) once more: what a reader does when the page scrolled away."""
        hops = [h for h in session.task.evidence if h.fact_id not in ("clock", "clarification")]
        recent = {r.action for r in session.observed.rounds[-len(hops):]}
        actions = []
        for hop in reversed(hops):
            if "kb" in hop.sources:
                actions.append(Action.call("knowledge_base", entity=hop.entity))
            actions.append(Action.call("web_search", query=hop.entity))
        return [a for a in actions if a not in recent] + [a for a in actions if a in recent]

    def _finish(self, session: SearchSession) -> list[Action]:
        task, world = session.task, session.world
        facts = [world.facts[h.fact_id] for h in task.evidence if h.fact_id in world.facts]
        op = task.operation
        if op == "value":
            return [Action.answer(self._display(facts[-1].value))]
        if op == "set":
            return [Action.answer("; ".join(world.entities[f.subject_id].display_name for f in facts))]
        if op in ("argmax", "argmin"):
            rel_a, attr_a, rel_b, attr_b = facts
            a_wins = (attr_a.value > attr_b.value) == (op == "argmax")
            return [Action.answer(str((rel_a if a_wins else rel_b).value))]
        if op == "years_since":
            clock = next((r.clock_year for r in session.observed.rounds if r.clock_year), None)
            if clock is None:
                return [Action.call("current_time")]
            expression = f"{clock} - {facts[-1].value}"
        elif op == "sum":
            expression = f"{facts[0].value} + {facts[1].value}"
        elif op == "difference":
            expression = f"{facts[0].value} - {facts[1].value}"
        else:
            raise ValueError(f"the oracle does not know operation {op!r}")
        result = next((r.calculator_value for r in session.observed.rounds
                       if r.calculator_value is not None and _same_value(r.action, expression)), None)
        if result is None:
            return [Action.call("calculator", expression=expression)]
        return [Action.answer(result)]

    @staticmethod
    def _display(value) -> str:
        return value if isinstance(value, str) else format_value(value, is_year=True)

    # ----------------------------------------------------------------------------- acting
    def choose(self, session: SearchSession) -> Action:
        return self.intents(session)[0]

    def choose_action(self, session: SearchSession):
        """The env action: a formatted string in text mode, a candidate index in candidate mode."""
        intents = self.intents(session)
        if session.config.action_mode == "text":
            return format_action(intents[0], session.config.tool_format)
        for intent in intents:
            for index, candidate in enumerate(session.candidates):
                if matches(intent, candidate):
                    return int(index)
        shown = "; ".join(c.render() for c in session.candidates)
        raise OracleMiss(f"task {session.task.id}: no candidate for {intents[0].render()}; candidates: {shown}")


def _same_value(action: Action | None, expression: str) -> bool:
    if action is None or action.tool != "calculator":
        return False
    return _CALC(expression=action.args.get("expression", "")).text == _CALC(expression=expression).text


def matches(intent: Action, candidate: Action) -> bool:
    """Does ``candidate`` do what ``intent`` means? (clarification wording and calculator
    operand order do not matter; answers compare normalised, lists as sets)."""
    if intent.kind != candidate.kind:
        return False
    if intent.kind == "answer":
        if ";" in intent.text:
            return {normalize_answer(x) for x in split_list(intent.text)} == \
                {normalize_answer(x) for x in split_list(candidate.text)}
        a, b = parse_number(intent.text), parse_number(candidate.text)
        if a is not None and b is not None and normalize_answer(intent.text).replace(" ", "").isdigit():
            return np.isclose(a, b)
        return normalize_answer(intent.text) == normalize_answer(candidate.text)
    if intent.tool != candidate.tool:
        return False
    if intent.tool in ("ask_for_clarification", "current_time"):
        return True
    if intent.tool == "calculator":
        return _same_value(candidate, intent.args["expression"])
    return intent == candidate
