"""How candidate actions are worded and which tool rules make them: a fact's answer with its
provenance, a list answer, a calculator call, and the allowed tools' candidate rules (from their
registrations). Pure functions of their arguments, so :mod:`searchgym.candidates` memoises them.
"""

from __future__ import annotations

from functools import lru_cache

from searchgym.action_types import Action
from searchgym.candidate_rounds import Round
from searchgym.tools.tool_registry import (
    TOOL_REGISTRY,
    CalculateFigures,
    FixedCall,
    LookupNames,
    derived,
    tool_specs,
)
from searchgym.world.corpus import format_value
from searchgym.world.model import Fact
from searchgym.world.world import World


#: tool -> (registry version, its calculation argument): asked for every round recorded.
_CALCULATION_ARGUMENTS: dict[str | None, tuple[int, str | None]] = {}


def calculation_argument(tool: str | None) -> str | None:
    """The argument that carries the calculation, for a tool whose candidate rule calculates
    (kept per tool until the registry changes)."""
    found = _CALCULATION_ARGUMENTS.get(tool)
    if found is not None and found[0] == TOOL_REGISTRY.version:
        return found[1]
    rule = TOOL_REGISTRY.get(tool).candidates if tool in TOOL_REGISTRY else None
    argument = rule.argument if isinstance(rule, CalculateFigures) else None
    if len(_CALCULATION_ARGUMENTS) > 1024:  # tool names are few; bound them all the same
        _CALCULATION_ARGUMENTS.clear()
    _CALCULATION_ARGUMENTS[tool] = (TOOL_REGISTRY.version, argument)
    return argument


#: allowed tools -> (registry version, their rules): ``tool_rules`` is asked several times per
#: candidate list, and ``derived`` costs a closure and a key tuple per call.
_RULES: dict[frozenset[str], tuple[int, tuple[tuple, tuple, tuple]]] = {}


def tool_rules(allowed: frozenset[str]) -> tuple[tuple, tuple, tuple]:
    """The candidate rules of the allowed tools, from their registrations: look-ups of a name
    ((tool, argument) by rank), calculations ((tool, argument)) and fixed calls ((tool, rule))."""
    found = _RULES.get(allowed)
    if found is not None and found[0] == TOOL_REGISTRY.version:
        return found[1]

    def build() -> tuple[tuple, tuple, tuple]:
        specs = [s for s in tool_specs() if s.name in allowed]
        lookups = sorted((s for s in specs if isinstance(s.candidates, LookupNames)), key=lambda s: s.candidates.rank)
        return (tuple((s.name, s.candidates.argument) for s in lookups),
                tuple((s.name, s.candidates.argument) for s in specs if isinstance(s.candidates, CalculateFigures)),
                tuple((s.name, s.candidates) for s in specs if isinstance(s.candidates, FixedCall)))
    rules = derived(("candidate rules", allowed), build)
    if len(_RULES) > 1024:  # tool sets are few (one per role); bound them all the same
        _RULES.clear()
    _RULES[allowed] = (TOOL_REGISTRY.version, rules)
    return rules


def fact_value(fact: Fact) -> str:
    return fact.value if isinstance(fact.value, str) else format_value(fact.value, is_year=True)


def fact_provenance(world: World, fact: Fact, tool: str) -> str:
    """Subject, predicate (and "in 2019" for an outdated figure), what kind of thing the value is
    (a person, a city, ..., a number), the sentence that states it on a page (for search
    results), and the tool that found it."""
    subject = world.entities[fact.subject_id].display_name
    dated = f" in {fact.as_of}" if not fact.current else ""
    kind = world.entities[fact.object_id].type if fact.object_id is not None else "number"
    sentence = world.sentence_of_fact.get(fact.id) if tool == "web_search" else None
    said = f' | "{sentence}"' if sentence else ""
    return f"{subject} | {fact.predicate.replace('_', ' ')}{dated} | a {kind}{said} | via {tool}"


@lru_cache(maxsize=1 << 16, typed=True)
def call_of(tool: str, argument: str, value: str) -> Action:
    """``Action.call(tool, **{argument: value})``, validated once: the same look-up or calculation
    is listed under many provenances (a name from the latest result, then an earlier one; a role
    per fact), and ``noted`` copies it for each without validating again."""
    return Action.call(tool, **{argument: value})


def noted(action: Action, provenance: str) -> Action:
    return action.with_provenance(provenance)


def name_lookups(name: str, note: str, lookups: tuple[tuple[str, str], ...]) -> tuple[Action, ...]:
    """One look-up of ``name`` per allowed tool with a :class:`LookupNames` rule, by rank."""
    return tuple(noted(call_of(tool, argument, name), note) for tool, argument in lookups)


def list_answer(predicate: str, obj: str, subjects: tuple[str, ...]) -> Action:
    return Action.answer("; ".join(subjects), f"every {predicate.replace('_', ' ')} {obj} seen ({len(subjects)})")


def calculator_call(tool: str, argument: str, expression: str, note: str) -> Action:
    return noted(call_of(tool, argument, expression), note)


def calculation_wording(spec: tuple) -> tuple[str, str]:
    """(expression, note) of a calculation: ("year", clock, v, what), ("sum", a, b, what) or
    ("difference", a, b, what)."""
    kind, a, b, what = spec
    if kind == "year":
        return f"{a} - {b}", f"current year minus {what}"
    if kind == "sum":
        return f"{a} + {b}", f"sum of {what}"
    return f"{max(a, b)} - {min(a, b)}", f"difference of {what}"


def tool_of(rnd: Round) -> str:
    return rnd.action.tool if rnd.action and rnd.action.tool else "unknown"
