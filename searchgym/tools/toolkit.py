"""Assemble the tools of a world, and share them: one search index per (seed, size, backend).

World-level tools (web_search, knowledge_base, calculator, current_time) are stateless apart
from the search cache, so every env, group member and team role can share one set;
``ask_for_clarification`` depends on the task and is made per episode with :func:`clarifier`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from searchgym.tools.base import Tool
from searchgym.tools.calculator import Calculator
from searchgym.tools.clarify import AskForClarification
from searchgym.tools.clock import CurrentTime
from searchgym.tools.knowledge_base import KnowledgeBase
from searchgym.tools.web_search import WebSearch
from searchgym.world.model import Task
from searchgym.world.world import World

#: Every tool name, in the canonical order (prompts and schemas list tools in this order).
TOOL_NAMES = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")

TOOL_CLASSES: dict[str, type[Tool]] = {
    "web_search": WebSearch,
    "knowledge_base": KnowledgeBase,
    "calculator": Calculator,
    "current_time": CurrentTime,
    "ask_for_clarification": AskForClarification,
}


def build_tools(world: World, backend: str = "bm25s", **search_kwargs: Any) -> dict[str, Tool]:
    """The world-level tools, keyed by name (``search_kwargs`` go to :class:`WebSearch`)."""
    return {
        "web_search": WebSearch(world.pages, backend=backend, **search_kwargs),
        "knowledge_base": KnowledgeBase(world),
        "calculator": Calculator(),
        "current_time": CurrentTime(world.now),
    }


def clarifier(task: Task | None) -> AskForClarification:
    """The per-task simulated user behind ``ask_for_clarification``."""
    return AskForClarification(task)


def tool_schemas(names: Sequence[str] = TOOL_NAMES) -> list[dict[str, Any]]:
    """OpenAI / Hermes function schemas of the named tools (default: all, canonical order)."""
    if isinstance(names, str):
        names = (names,)
    unknown = [n for n in names if n not in TOOL_CLASSES]
    if unknown:
        raise ValueError(f"unknown tool name(s) {unknown}; accepted: {', '.join(TOOL_NAMES)}")
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOL_CLASSES[name].description,
                "parameters": TOOL_CLASSES[name].parameters,
            },
        }
        for name in names
    ]


#: What envs show of a search hit: whole (short) entity pages, so every fact on a page is readable.
ENV_SNIPPET_SENTENCES = 12
ENV_SNIPPET_CHARS = 900


@lru_cache(maxsize=16)
def shared_tools(world: World, backend: str = "bm25s") -> Mapping[str, Tool]:
    """The world-level tools every env of ``world`` shares, built once per (world, backend).

    A world hashes by identity, so envs built on ``shared_world(seed, size)`` share one search
    index however many group members, team roles or vector-env copies ask. Read-only (a mapping
    proxy); to add the per-task clarifier, build a new dict: ``{**shared_tools(w), "ask_for_clarification": ...}``.
    """
    return MappingProxyType(build_tools(world, backend=backend, snippet_sentences=ENV_SNIPPET_SENTENCES,
                                        snippet_chars=ENV_SNIPPET_CHARS))
