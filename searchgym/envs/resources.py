"""Shared, read-only resources of an env: one tool set (and one search index) per world.

A group, a team or a vector env asks for the same world and backend K times; the cache hands
back the same objects, so indexes are built once per (world, backend) in a process.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from searchgym.tools.base import Tool
from searchgym.tools.toolkit import build_tools
from searchgym.world.world import World

#: Search results show whole (short) entity pages so that every fact on a page can be read.
SNIPPET_SENTENCES = 12
SNIPPET_CHARS = 900


@lru_cache(maxsize=16)
def tools_for(world: World, backend: str = "bm25s") -> Mapping[str, Tool]:
    """The world-level tools of ``world`` (a world hashes by identity: shared worlds share tools)."""
    return MappingProxyType(build_tools(world, backend=backend, snippet_sentences=SNIPPET_SENTENCES,
                                        snippet_chars=SNIPPET_CHARS))
