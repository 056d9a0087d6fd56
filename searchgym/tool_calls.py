"""Decoded tool calls (``{"name": ..., "arguments": ...}``, JSON or a framework's object) to actions.

What a model writes inside ``<tool_call>`` and what a framework dispatches as a structured call
(an OpenAI ``tool_call``, a dict) are the same thing once decoded, so both go through
:func:`action_from_call`: the same names, the same argument rules, the same problems reported.
The text formats and their errors live in :mod:`searchgym.actions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from searchgym.action_types import Action, _literal, answer_length_problem, has_visible_text
from searchgym.lenient_json import LENIENT_DECODER
from searchgym.lenient_json import load_object as _load_object
from searchgym.shown import kind_of, safe_repr

__all__ = ["action_from_call", "call_as_dict", "json_chars_over", "name_key", "resolve_tool"]


_SEPARATORS = re.compile(r"[\s\-_]+")


def name_key(name: str) -> str:
    """``name`` as it is compared: lower case, each run of blanks, dashes and underscores one ``_``,
    none at the ends (``Post-Note``, ``post note`` and ``wait-`` are ``post_note`` and ``wait``).
    Short names, the few every call repeats, are memoised: each text step reads one."""
    return _short_name_key(name) if len(name) <= 64 else _SEPARATORS.sub("_", name.lower()).strip("_")


@lru_cache(maxsize=1024)
def _short_name_key(name: str) -> str:
    return _SEPARATORS.sub("_", name.lower()).strip("_")


def resolve_tool(name: str, tool_names: Sequence[str]) -> str | None:
    """``name`` as one of ``tool_names``, matched exactly, else by :func:`name_key`."""
    if name in tool_names:
        return name
    key = name_key(name)
    matches = [t for t in tool_names if name_key(t) == key]
    return matches[0] if len(matches) == 1 else None


def call_as_dict(call: Any) -> dict | None:
    """A structured call as a dict: a dict as it is; an object with ``.function.name`` and
    ``.function.arguments`` (OpenAI's ``ChatCompletionMessageToolCall``) or ``.name`` and
    ``.arguments`` as ``{"name", "arguments"}``; None for anything else."""
    if isinstance(call, dict):
        return call
    holder = getattr(call, "function", None)
    holder = call if holder is None or isinstance(holder, str) else holder
    if isinstance(holder, dict):
        return {"name": holder.get("name"), "arguments": holder.get("arguments")}
    name = getattr(holder, "name", None)
    if name is None or isinstance(call, str | bytes | bytearray | int | float):
        return None
    return {"name": name, "arguments": getattr(holder, "arguments", None)}


def json_chars_over(call: Any, limit: int) -> bool:
    """Whether ``call`` written as JSON takes more than ``limit`` characters. Why: a structured call
    reads as its text, and text over the action limit is a format error, while the same call as a dict
    was run (and its tool refused the argument). Walks iteratively and stops once over ``limit``, so any
    value (nested deeply, cyclic, or huge) costs time linear in its size, never a deep recursion."""
    total, pending = 0, [call]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, dict):
            total += 2 + 4 * len(item)  # braces; each entry's quotes, colon and comma
            pending.extend(str(k) for k in item)
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            total += 2 + len(item)  # brackets and commas
            pending.extend(item)
        elif isinstance(item, str):
            total += len(item) + 2
        elif hasattr(item, "tolist") and not isinstance(item, int | float):  # a NumPy array or scalar
            pending.append(item.tolist())
            total += 1  # so a tolist() that gives itself back still ends the walk
        else:
            try:
                total += len(_literal(item))
            except Exception:  # a repr that raises: reading a call never raises; Action.call judges the value
                total += 2
    return total > limit


def contains_itself(value: Any) -> bool:
    """Whether a dict or list inside ``value`` holds itself, at any depth (a value JSON cannot write; the
    same object twice side by side is no cycle). Iterative, each dict or list walked once: linear time."""
    entered: set[int] = set()
    finished: set[int] = set()
    pending: list[tuple[Any, bool]] = [(value, False)]
    while pending:
        item, leaving = pending.pop()
        if not isinstance(item, dict | list | tuple):
            continue
        key = id(item)
        if leaving:
            entered.discard(key)
            finished.add(key)
            continue
        if key in entered:
            return True
        if key in finished:
            continue
        entered.add(key)
        pending.append((item, True))
        pending.extend((child, False) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _as_text(value: Any) -> str:
    """An answer or note given as JSON: strings stripped, lists flattened (iteratively, so any
    nesting costs linear time), other values as JSON; the pieces with visible text (not only
    whitespace or control characters) joined by ", "."""
    pieces: list[str] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, list | tuple):
            pending.extend(reversed(item))
            continue
        text = item.strip() if isinstance(item, str) else "" if item is None else _literal(item)
        if has_visible_text(text):
            pieces.append(text)
    return ", ".join(pieces)


def _answer_action(args: dict[str, Any]) -> Action | str:
    """An answer call's Action: its ``answer`` argument, else its ``text``, else its only one; or what
    was wrong (before, every failure read "the answer call is empty", also for arguments it never read)."""
    named = next((k for k in ("answer", "text") if k in args), None)
    if named is None and len(args) > 1:
        shown = ", ".join(safe_repr(k, 40) for k in list(args)[:3]) + (", ..." if len(args) > 3 else "")
        return (f'the answer call has several arguments ({shown}) and none named "answer" or "text", so none '
                'is read as the answer; write {"answer": "..."}')
    key = named if named is not None else next(iter(args), None)
    value = None if key is None else args[key]
    text = _as_text(value)
    if text:
        return answer_length_problem(text) or Action.answer(text)
    if key is not None and value is None:
        first = ' (it is read before "text")' if key == "answer" and "text" in args else ""
        return f'the answer call\'s "{key}" is null{first}; write {{"answer": "..."}} with a string'
    return ('the answer call is empty (whitespace and control characters do not count); '
            'write {"answer": "..."} with visible text')


_NAME_KEYS = ("name", "tool", "tool_name")
_ARG_KEYS = ("arguments", "parameters", "args")
_NOT_ARGS = {*_NAME_KEYS, "function", "type", "id"}


def action_from_call(obj: Any, tool_names: Sequence[str], team: bool,
                     shown_tools: Sequence[str] | None = None) -> Action | str:
    """An Action from a decoded tool call, or a message saying what is wrong with it (naming the calls
    the agent may make: ``shown_tools``, default ``tool_names``, then answer, and a team's post_note and wait)."""
    if not isinstance(obj, dict):
        return f"a tool call must be a JSON object with a name and arguments, got {kind_of(obj)}"
    function = obj.get("function")
    if isinstance(function, dict) and not any(k in obj for k in _NAME_KEYS):
        obj = function  # OpenAI style {"function": {"name": ..., "arguments": ...}}
    name = next((obj[k] for k in _NAME_KEYS if k in obj), function if isinstance(function, str) else None)
    if name is not None and not isinstance(name, str):  # was 'has no "name"' for {"name": 5}
        return f'the "name" of a tool call must be a string, got {kind_of(name)}'
    if name is None or not name.strip():
        return 'the tool call has no "name"'
    name = name.strip()
    arg_key = next((k for k in _ARG_KEYS if k in obj), None)
    raw = obj[arg_key] if arg_key else {k: v for k, v in obj.items() if k not in _NOT_ARGS}
    for _ in range(3):  # arguments double- (or triple-) encoded as a JSON string
        if not isinstance(raw, str):
            break
        if not raw.strip() or raw.strip() == "null":  # "null" as None is: no arguments (was a format error)
            raw = {}
            break
        if raw.strip().startswith('"'):  # a JSON string literal holding the JSON: decode one level
            try:
                raw = LENIENT_DECODER.decode(raw.strip())  # raw control characters, as load_object
                continue
            except (ValueError, RecursionError):
                pass
        raw, problem = _load_object(raw)
        if raw is None:
            return f'could not read the "arguments" of {name} ({problem}); give them as a JSON object'
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        return f'the "arguments" of {name} must be a JSON object, got {kind_of(raw)}'
    args = {str(k): v for k, v in raw.items()}
    key = name_key(name)  # team actions and answer match as tools do (was: only their exact lower-case names)
    if key == "answer":
        return _answer_action(args)
    if team and key in ("post_note", "post"):
        note = _as_text(args.get("note", args.get("text")))
        return Action.post(note) if note else ('post_note needs {"note": "..."} with visible text '
                                               '(whitespace and control characters do not count)')
    if team and key == "wait":
        return Action.wait()
    if not team and key in ("post_note", "post", "wait"):  # before: "unknown tool 'wait'"
        return f"{name} is a team action, not available here"
    tool = resolve_tool(name, tool_names)
    if tool is None:
        calls = [*(tool_names if shown_tools is None else shown_tools), "answer", *(("post_note", "wait") if team else ())]
        return f"unknown tool {name!r}; accepted calls: {', '.join(calls)}"
    try:
        return Action.call(tool, **args)
    except ValueError as exc:  # an argument nested past MAX_ARGUMENT_DEPTH
        return f"the arguments of {tool} are refused: {exc}"
