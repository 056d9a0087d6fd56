"""Assemble the tools of a world, and share them: one search index per (seed, size, backend).

World-level tools (web_search, knowledge_base, calculator, current_time) are stateless apart
from the search cache, so every env, group member and team role can share one set;
``ask_for_clarification`` depends on the task and is made per episode (:func:`task_tools`).
Which tools exist, and how each is built, is the tool registry's
(:mod:`searchgym.tools.tool_registry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from searchgym.tools.base import Tool
from searchgym.tools.clarify import AskForClarification
from searchgym.tools.tool_registry import TOOL_NAMES, TOOL_REGISTRY, tool_spec, tool_specs
from searchgym.world.model import Task
from searchgym.world.world import World

__all__ = ["ENV_SNIPPET_CHARS", "ENV_SNIPPET_SENTENCES", "TOOL_NAMES", "build_tools", "clarifier", "shared_tools",
           "task_tools", "tool_names", "tool_schemas"]


def build_tools(world: World, backend: str = "bm25s", **search_kwargs: Any) -> dict[str, Tool]:
    """The world-level tools, keyed by name (``search_kwargs`` go to :class:`WebSearch`)."""
    options = {"backend": backend, **search_kwargs}
    return {spec.name: spec.make(world, options) for spec in tool_specs() if not spec.per_task}


def task_tools(task: Task | None) -> dict[str, Tool]:
    """The tools made for one task (``ask_for_clarification``'s simulated user), keyed by name."""
    return {spec.name: spec.make(task) for spec in tool_specs() if spec.per_task}


def clarifier(task: Task | None) -> AskForClarification:
    """The per-task simulated user behind ``ask_for_clarification``."""
    return AskForClarification(task)


def tool_names(names: object, owner: str = "tool_schemas", extra: Sequence[str] = ()) -> tuple[str, ...]:
    """``names`` (one tool name or a list of them) as a tuple of strings, or a TypeError naming what
    is accepted. Why: ``tool_schemas(5)`` was "'int' object is not iterable" and ``[["web_search"]]``
    "unhashable type: 'list'", from inside the check; ``None`` and bytes were no clearer."""
    if isinstance(names, str):
        return (names,)
    accepted = ", ".join([*TOOL_NAMES, *extra])
    if isinstance(names, Sequence | set | frozenset) and not isinstance(names, bytes | bytearray):
        wrong = [n for n in names if not isinstance(n, str)]
        if not wrong:
            return tuple(names)
        shown = f"a list holding {type(wrong[0]).__name__} {wrong[0]!r:.40}"
    else:
        shown = f"{type(names).__name__} {names!r:.40}"
    raise TypeError(f"{owner}: names must be a tool name or a list of tool names ({accepted}), got {shown}")


def tool_schemas(names: Sequence[str] = TOOL_NAMES) -> list[dict[str, Any]]:
    """OpenAI / Hermes function schemas of the named tools (default: all, canonical order)."""
    names = tool_names(names)
    unknown = [n for n in names if n not in TOOL_REGISTRY]
    if unknown:
        raise ValueError(f"unknown tool name(s) {unknown}; accepted: {', '.join(TOOL_NAMES)}")
    schemas = []
    for name in names:
        tool_class = tool_spec(name).tool_class
        schemas.append({"type": "function", "function": {
            "name": name, "description": tool_class.description, "parameters": tool_class.parameters}})
    return schemas


#: What envs show of a search hit: whole (short) entity pages, so every fact on a page is readable.
ENV_SNIPPET_SENTENCES = 12
ENV_SNIPPET_CHARS = 900


def shared_tools(world: World, backend: str = "bm25s") -> Mapping[str, Tool]:
    """The world-level tools every env of ``world`` shares, built once per (world, backend).

    A world hashes by identity, so envs built on ``shared_world(seed, size)`` share one search
    index however many group members, team roles or vector-env copies ask. Read-only (a mapping
    proxy); to add the per-task clarifier, build a new dict: ``{**shared_tools(w), "ask_for_clarification": ...}``.
    """
    return _shared_tools(world, backend, TOOL_REGISTRY.items())


@lru_cache(maxsize=16)
def _shared_tools(world: World, backend: str, registered: tuple) -> Mapping[str, Tool]:
    """``registered`` (the tool registry's entries) only keys the cache: other tools, another set."""
    return MappingProxyType(build_tools(world, backend=backend, snippet_sentences=ENV_SNIPPET_SENTENCES,
                                        snippet_chars=ENV_SNIPPET_CHARS))


shared_tools.cache_clear = _shared_tools.cache_clear  # type: ignore[attr-defined]  (forget every shared set)
