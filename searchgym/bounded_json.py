"""JSON from outside (a model server's reply, a leaderboard submission) decoded only when it nests
shallowly.

``json.loads`` recurses once per bracket. Text nested a thousand deep makes it raise
``RecursionError`` with the stack at Python's limit, and a garbage collection that happens to run
there calls finalizers (weakref callbacks) that fail too; those failures are "unraisable" and
surface later, elsewhere. Counting the brackets first, in a linear scan that never recurses,
refuses such text before any decoder sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Deep enough for any chat completion or submission (they nest under 12), far below the stack.
MAX_DEPTH = 64

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str, stop_above: int | None = None) -> int:
    """How deep ``text``'s brackets nest outside string literals (stops counting past ``stop_above``)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_above is not None and deepest > stop_above:
                    break
        else:
            depth -= 1
    return deepest


def loads_shallow(text: str | bytes, max_depth: int = MAX_DEPTH, **kwargs: Any) -> Any:
    """``json.loads(text, **kwargs)``, refusing text that nests deeper than ``max_depth`` with a
    ``ValueError`` that says how deep it went and what is accepted."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    opening = text.count("[") + text.count("{")  # an upper bound of the depth: most text needs no scan
    depth = json_depth(text, stop_above=max_depth) if opening > max_depth else opening
    if depth > max_depth:
        raise ValueError(f"the JSON nests more than {max_depth} brackets deep; at most {max_depth} are accepted")
    return json.loads(text, **kwargs)


__all__ = ["MAX_DEPTH", "json_depth", "loads_shallow"]
