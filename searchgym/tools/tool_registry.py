"""One registration per tool: everything the rest of searchgym needs to know about it.

A tool's file defines its :class:`~searchgym.tools.base.Tool` and calls :func:`register_tool`
with a :class:`ToolSpec`: how to build it, its tag in the tags format, how candidate mode
offers it, how the process judge grounds a call of it, the evidence it reveals that is not a
world fact, and which roles of the team preset get it. The tool order (:data:`TOOL_NAMES`),
the tags format (``searchgym.actions``), the toolkit, the candidate generator, the judge and
the team roles all read this registry; none keeps a list of tools of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any

from searchgym.named_registry import NamedRegistry
from searchgym.shown import safe_repr
from searchgym.tools.base import Tool

GROUNDINGS = ("words", "numbers", "always")
#: The members of the team's "roles" preset, in its order: what ``ToolSpec.roles`` may name. The one
#: list of them: ``searchgym.envs.roles.PRESET_MEMBERS`` adds who submits the answer (tools sit below envs).
PRESET_ROLES = ("lead", "searcher", "analyst")
#: Tags that the action formats use for something else.
RESERVED_TAGS = ("answer", "post", "wait", "tool_call", "think", "information", "tool_response")


@dataclass(frozen=True)
class TagForm:
    """The tool in the tags format: ``<tag>hint</tag>``, or ``<tag/>`` for a tool without argument."""

    tag: str
    argument: str | None = None
    hint: str = ""


# ------------------------------------------------------------------------- candidate rules
@dataclass(frozen=True)
class LookupNames:
    """Candidate mode offers ``{argument: name}`` for every entity name seen (in the question,
    the latest result, earlier results); ``rank`` orders one name's look-ups (lowest first)."""

    argument: str
    rank: int = 0


@dataclass(frozen=True)
class CalculateFigures:
    """Candidate mode offers sums and differences of like figures seen, and "current year
    minus" a year once the clock was read, as ``{argument: expression}``; the result text of
    a call is then an answer candidate."""

    argument: str


@dataclass(frozen=True)
class FixedCall:
    """Candidate mode offers one call every step; an argument's template may use ``{name}``
    (the first entity name of the question, or "the question")."""

    arguments: tuple[tuple[str, str], ...] = ()
    note: str = ""


CandidateRule = LookupNames | CalculateFigures | FixedCall
_RULES = (LookupNames, CalculateFigures, FixedCall)


@dataclass(frozen=True)
class ToolSpec:
    """A tool's registration.

    ``build(world, options)`` makes a world-level tool (``options``: the search backend and
    settings, which only web_search reads); with ``per_task=True`` it is ``build(task)``, made
    for every episode. ``grounding`` is how the judge decides a call is grounded in what was
    seen: ``"words"`` (its string arguments share a content word with it), ``"numbers"`` (every
    number of ``grounding_argument`` was observed) or ``"always"``. ``evidence_ids`` are the
    evidence ids the tool reveals that are not world facts (the clock's ``"clock"``). ``order``
    places it in :data:`TOOL_NAMES` (prompts list tools in that order).
    """

    name: str
    tool_class: type[Tool]
    build: Callable[..., Tool]
    per_task: bool = False
    tag: TagForm | None = None
    candidates: CandidateRule | None = None
    grounding: str = "words"
    grounding_argument: str | None = None
    evidence_ids: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    order: int = 100

    def __post_init__(self) -> None:
        _check_field_types(self)
        if not (isinstance(self.tool_class, type) and issubclass(self.tool_class, Tool)):
            raise TypeError(f"tool {self.name!r}: tool_class must be a Tool subclass, got {self.tool_class!r}")
        if self.tool_class.name != self.name:
            raise ValueError(f"tool {self.name!r}: its class {self.tool_class.__name__} is named "
                             f"{self.tool_class.name!r}; the two names must be the same")
        if self.grounding not in GROUNDINGS:
            raise ValueError(f"tool {self.name!r}: grounding must be one of {', '.join(GROUNDINGS)}, "
                             f"got {self.grounding!r}")
        if (self.grounding == "numbers") != (self.grounding_argument is not None):
            raise ValueError(f"tool {self.name!r}: grounding_argument is needed by, and only by, grounding='numbers'")
        arguments = set(self.tool_class.parameters.get("properties", {}))
        used = {self.grounding_argument, self.tag.argument if self.tag else None,
                getattr(self.candidates, "argument", None),
                *(k for k, _ in getattr(self.candidates, "arguments", ()))} - {None}
        if used - arguments:
            raise ValueError(f"tool {self.name!r}: {sorted(used - arguments)} are not arguments of "
                             f"{self.tool_class.__name__}; its arguments: {', '.join(sorted(arguments)) or '(none)'}")
        tag = self.tag.tag if self.tag is not None else "ok"
        if not (isinstance(tag, str) and tag.isidentifier() and tag == tag.lower()) or tag in RESERVED_TAGS:
            raise ValueError(f"tool {self.name!r}: the tag must be a lower-case Python identifier other than "
                             f"{', '.join(RESERVED_TAGS)}, got {self.tag.tag!r}")

    def make(self, *where: Any) -> Tool:
        """``build(world, options)`` (or ``build(task)``), refused unless it made a ``tool_class``. Why here,
        when the tool is built, not at registration: ``build`` needs a world or a task, which registration
        has not got (and a user's build may be costly: a search index); the env otherwise failed on its
        first prompt with "'NoneType' object has no attribute 'schema'"."""
        tool = self.build(*where)
        if not isinstance(tool, self.tool_class):
            call = "build(task)" if self.per_task else "build(world, options)"
            raise TypeError(f"tool {self.name!r}: {call} returned {safe_repr(tool, 80)}; it must return a "
                            f"{self.tool_class.__name__} (the spec's tool_class)")
        return tool


def _is_strings(value: object) -> bool:
    return isinstance(value, tuple | list) and all(isinstance(item, str) for item in value)


def _is_pairs(value: object) -> bool:
    return isinstance(value, tuple | list) and all(
        isinstance(pair, tuple | list) and len(pair) == 2 and _is_strings(pair) for pair in value)


def _check_field_types(spec: ToolSpec) -> None:
    """Each field's type, before any is used: a wrong one failed later, far from the registration
    (``tag="count"``: "'str' object has no attribute 'argument'"; ``order="60"``: every later
    registration), or was taken (``roles=("analist",)`` broke every team env)."""
    if not isinstance(spec.name, str):
        raise TypeError(f"a tool's name must be a str, got {spec.name!r}")
    who = f"tool {spec.name!r}"
    if not callable(spec.build):
        raise TypeError(f"{who}: build must be callable (build(world, options), or build(task) with per_task=True), "
                        f"got {spec.build!r}")
    if not isinstance(spec.per_task, bool):
        raise TypeError(f"{who}: per_task must be True or False, got {spec.per_task!r}")
    tag = spec.tag
    if tag is not None and not isinstance(tag, TagForm):
        raise TypeError(f"{who}: tag must be None or a TagForm(tag, argument, hint), got {tag!r}")
    if tag is not None and not (isinstance(tag.tag, str) and isinstance(tag.argument, str | None)
                                and isinstance(tag.hint, str)):
        raise TypeError(f"{who}: a TagForm takes a str tag, a str argument (or None) and a str hint, got {tag!r}")
    rule = spec.candidates
    if rule is not None and not isinstance(rule, _RULES):
        raise TypeError(f"{who}: candidates must be None, LookupNames, CalculateFigures or FixedCall, got {rule!r}")
    if isinstance(rule, LookupNames | CalculateFigures) and not isinstance(rule.argument, str):
        raise TypeError(f"{who}: the argument of {type(rule).__name__} must be a str, got {rule.argument!r}")
    if isinstance(rule, LookupNames) and (isinstance(rule.rank, bool) or not isinstance(rule.rank, int)):
        raise TypeError(f"{who}: the rank of LookupNames must be an int, got {rule.rank!r}")
    if isinstance(rule, FixedCall) and not (_is_pairs(rule.arguments) and isinstance(rule.note, str)):
        raise TypeError(f"{who}: FixedCall takes arguments as (name, template) pairs of str and a str note, "
                        f"got {rule!r}")
    if not isinstance(spec.grounding_argument, str | None):
        raise TypeError(f"{who}: grounding_argument must be None or an argument name, got {spec.grounding_argument!r}")
    for field_name in ("evidence_ids", "roles"):
        value = getattr(spec, field_name)
        if not _is_strings(value):
            raise TypeError(f"{who}: {field_name} must be a tuple of str (e.g. ('analyst',)), got {value!r}")
        object.__setattr__(spec, field_name, tuple(value))  # a list is taken as its tuple
    unknown = [role for role in spec.roles if role not in PRESET_ROLES]
    if unknown:
        raise ValueError(f"{who}: unknown role(s) {unknown}; the roles preset has {', '.join(PRESET_ROLES)}")
    order = spec.order
    if isinstance(order, bool) or not isinstance(order, int | float):
        raise TypeError(f"{who}: order must be a number (int or float), got {order!r}")
    if not math.isfinite(order):
        raise ValueError(f"{who}: order must be a finite number, got {order!r}")


TOOL_REGISTRY: NamedRegistry[ToolSpec] = NamedRegistry("tool", sort_key=lambda spec: spec.order)
#: Every tool name, in the canonical order (a live view of :data:`TOOL_REGISTRY`).
TOOL_NAMES = TOOL_REGISTRY.names
#: searchgym's own registration of each of its tools: the first one of its name with a class of
#: searchgym's (made by the tool's module when ``searchgym.tools`` is imported).
_BUILT_IN_SPECS: dict[str, ToolSpec] = {}


def register_tool(spec: ToolSpec, replace: bool = False) -> ToolSpec:
    """Add a tool (in the file that defines it); a taken name or tag is an error unless ``replace``."""
    if not isinstance(spec, ToolSpec):
        raise TypeError(f"register_tool takes a ToolSpec, got {type(spec).__name__}")
    if spec.tag is not None:
        owner = tag_tools().get(spec.tag.tag)
        if owner is not None and owner[0] != spec.name:
            raise ValueError(f"tool {spec.name!r}: the tag <{spec.tag.tag}> belongs to {owner[0]!r} already")
    TOOL_REGISTRY.add(spec.name, spec, replace=replace)
    if spec.tool_class.__module__.startswith("searchgym.tools."):
        _BUILT_IN_SPECS.setdefault(spec.name, spec)
    return spec


def changed_from_built_in(spec: ToolSpec) -> dict[str, Any]:
    """The fields (name -> value) in which ``spec``, a registration with searchgym's own class, differs from
    searchgym's own registration of it; empty for another class (its own name says what it is). Why: a
    built-in tool re-registered with other ``roles`` or ``order`` changed what the envs play unrecorded."""
    own = _BUILT_IN_SPECS.get(spec.name)
    if own is None or spec.tool_class is not own.tool_class:
        return {}
    return {f.name: getattr(spec, f.name) for f in fields(ToolSpec)
            if not _same(getattr(spec, f.name), getattr(own, f.name))}


def _same(value: object, built_in: object) -> bool:
    """A field's value as searchgym's own (``build`` the same callable, the others equal)."""
    return value is built_in if callable(built_in) else value == built_in


def tool_spec(name: str) -> ToolSpec:
    """The registration of ``name`` (a ValueError naming the registered tools when unknown)."""
    return TOOL_REGISTRY.get(name)


def tool_specs() -> tuple[ToolSpec, ...]:
    """Every registration, in the canonical order."""
    return TOOL_REGISTRY.values()


def scoped_tools() -> AbstractContextManager[NamedRegistry[ToolSpec]]:
    """A ``with`` block whose registrations are undone when it ends (tests, experiments)."""
    return TOOL_REGISTRY.scoped()


# ------------------------------------------------------------------- what derives from it
_DERIVED: dict[Hashable, Any] = {}
_DERIVED_VERSION = [-1]


def derived(key: Hashable, build: Callable[[], Any]) -> Any:
    """``build()``, kept until the registry changes (the parser asks on every action)."""
    if _DERIVED_VERSION[0] != TOOL_REGISTRY.version:
        _DERIVED.clear()
        _DERIVED_VERSION[0] = TOOL_REGISTRY.version
    if key not in _DERIVED:
        _DERIVED[key] = build()
    return _DERIVED[key]


def tag_tools() -> dict[str, tuple[str, str | None]]:
    """tag -> (tool, its one argument or None), in tool order."""
    return derived("tags", lambda: {s.tag.tag: (s.name, s.tag.argument) for s in tool_specs() if s.tag})


def special_evidence() -> frozenset[str]:
    """Evidence ids that tools reveal and that are not world facts ("clock", "clarification")."""
    return derived("evidence", lambda: frozenset(e for s in tool_specs() for e in s.evidence_ids))


class TagView(Mapping[str, tuple[str, str | None]]):
    """:func:`tag_tools`, read afresh on every use (``searchgym.actions.TAG_TOOLS``)."""

    def __getitem__(self, tag: str) -> tuple[str, str | None]:
        return tag_tools()[tag]

    def __iter__(self) -> Iterator[str]:
        return iter(tag_tools())

    def __len__(self) -> int:
        return len(tag_tools())

    def __repr__(self) -> str:
        return repr(tag_tools())
