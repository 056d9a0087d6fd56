"""Lenient JSON for agent-written tool calls: the first ``{...}`` in a text, repaired (trailing
commas, unterminated strings and brackets), parsed as JSON (raw control characters inside strings
allowed), else as a Python literal (literals only, never code) on bounded, shallow text."""

from __future__ import annotations

import ast
import json
import warnings
from typing import Any

#: JSON with raw control characters allowed inside strings, built once: ``json.loads(..., strict=False)``
#: builds a decoder on every call (2-3 us of a text step).
LENIENT_DECODER = json.JSONDecoder(strict=False)

MAX_OBJECT_CHARS = 20_000
#: Brackets a tool call may nest, counted over the whole object (the call's own ``{"arguments": {``
#: are two). Deeper text is refused before it is decoded: decoders and every walk after them
#: then stay shallow, so reading any text costs time linear in its length.
MAX_JSON_DEPTH = 34


def _extract_object(s: str) -> tuple[str, int] | None:
    """The first ``{...}`` in ``s`` (string-aware, both quote kinds), trailing commas removed,
    unterminated strings and brackets closed; with its nesting depth. Linear time."""
    start = s.find("{")
    if start < 0:
        return None
    out: list[str] = []
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    depth = 0
    for i in range(start, len(s)):
        ch = s[i]
        if quote is not None:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
            depth = max(depth, len(stack))
        elif ch in "}]":
            j = len(out) - 1
            while j >= 0 and out[j].isspace():
                j -= 1
            if j >= 0 and out[j] == ",":
                del out[j]
            if stack:
                stack.pop()
            out.append(ch)
            if not stack:
                return "".join(out), depth
            continue
        out.append(ch)
    if quote is not None:
        out.append(quote)
    out.extend(reversed(stack))
    return "".join(out), depth


def load_object(s: str) -> tuple[Any, str]:
    """Parse lenient JSON: JSON first (raw control characters allowed in strings), then Python
    literals (single quotes, True/None) by ``ast.literal_eval`` (literals only, never code) on
    bounded, shallow text. Returns (value, "") or (None, what was wrong)."""
    found = _extract_object(s)
    if found is None:
        return None, "no JSON object found"
    candidate, depth = found
    if depth > MAX_JSON_DEPTH:
        return None, f"the JSON nests {depth} brackets deep; at most {MAX_JSON_DEPTH} are accepted"
    try:
        # strict=False: a raw newline, tab or other control character inside a string is read as
        # itself, as LLMs write them (a raw newline was an "Invalid control character" error, while a
        # raw tab passed through the literal fallback); the env judges the text it gets as before
        return LENIENT_DECODER.decode(candidate), ""
    except (ValueError, RecursionError) as exc:
        error = str(exc)
    if len(candidate) <= MAX_OBJECT_CHARS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.literal_eval(candidate), ""
        except Exception:  # literal_eval raises many kinds on garbage; all mean "not a literal"
            pass
    return None, error
