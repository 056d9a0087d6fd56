"""Actions and their text formats: what an agent does, written the way an LLM writes it.

An :class:`Action` is a tool call, an answer, a team note (``post``) or ``wait``. In text mode
an LLM writes actions in one of two formats (``tool_format``):

- ``"hermes"`` (the Qwen/Hermes convention)::

      <tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp"}}</tool_call>
      <answer>Mara Quell</answer>

- ``"tags"`` (the Search-R1 convention)::

      <search>Vexa Corp</search>  <lookup>Mara Quell</lookup>  <calculate>12 + 30</calculate>
      <time/>  <clarify>which Mara Quell?</clarify>  <answer>Mara Quell</answer>

A framework that dispatches structured calls (``{"name", "arguments"}``, an OpenAI
``tool_call``) hands them to :func:`parse_tool_call`, which gives the same actions and errors.

:func:`parse_action` never raises on agent text: what it cannot read comes back as a
:class:`ParseError` (a value) that says what was wrong and shows the accepted forms, so the env
can return it as an observation. :func:`format_action` is its inverse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from searchgym.shown import kind_of
from searchgym.tools.tool_registry import TOOL_REGISTRY, TagView, derived, tag_tools, tool_spec

__all__ = [
    "MAX_ACTION_CHARS",
    "TAG_TOOLS",
    "TOOL_FORMATS",
    "accepted_forms",
    "format_action",
    "format_tool_result",
    "parse_action",
    "parse_tool_call",
    "unwrap_tool_result",
]

TOOL_FORMATS = ("hermes", "tags")
#: Longer actions (after removing <think> blocks) are refused unread; the text action space of
#: every env is ``Text(MAX_ACTION_CHARS)``, so the space's ``contains`` says what ``step`` reads.
MAX_ACTION_CHARS = 20_000

#: tags format: tag -> (tool, its one argument), read from the tool registry on every use
TAG_TOOLS: Mapping[str, tuple[str, str | None]] = TagView()


def _tool_tags() -> dict[str, tuple[str, str | None]]:
    """tool -> (tag, its one argument)."""
    return derived("tool_tags", lambda: {tool: (tag, arg) for tag, (tool, arg) in tag_tools().items()})


def _example_argument(name: str) -> str | None:
    """The argument a hermes example shows: the tag's, else the first required one, else "..."."""
    tags = _tool_tags()
    if name in tags:
        return tags[name][1]
    if name not in TOOL_REGISTRY:
        return "..."
    required = tool_spec(name).tool_class.parameters.get("required", [])
    return required[0] if required else None


from searchgym.action_types import (  # noqa: E402
    Action,
    ParseError,
    _literal,
    answer_length_problem,
    has_visible_text,
)
from searchgym.lenient_json import load_object as _load_object  # noqa: E402
from searchgym.tool_calls import _NAME_KEYS, resolve_tool as _resolve_tool  # noqa: E402
from searchgym.tool_calls import action_from_call as _action_from_call  # noqa: E402
from searchgym.tool_calls import call_as_dict as _call_as_dict  # noqa: E402
from searchgym.tool_calls import contains_itself as _contains_itself  # noqa: E402
from searchgym.tool_calls import json_chars_over as _json_chars_over  # noqa: E402


# ------------------------------------------------------------------------------ accepted forms
def _check_format(tool_format: str) -> None:
    if tool_format not in TOOL_FORMATS:
        raise ValueError(f"unknown tool_format {tool_format!r}; accepted: {', '.join(TOOL_FORMATS)}")


def accepted_forms(tool_format: str, tool_names: Sequence[str], allow_team_actions: bool = False,
                   answer: bool = True) -> str:
    """The action forms an agent may write, one per line (shown in prompts and parse errors);
    ``answer=False`` for a team role that cannot submit the answer (its prompt listed ``<answer>``)."""
    _check_format(tool_format)
    lines = [f"Accepted actions ({tool_format} format), one per turn:"]
    if tool_format == "hermes":
        for name in tool_names:
            tag_arg = _example_argument(name)
            example = {} if tag_arg is None else {tag_arg: "..."}
            lines.append(f'  <tool_call>{{"name": "{name}", "arguments": {_literal(example)}}}</tool_call>')
    else:
        tags = _tool_tags()
        missing = [n for n in tool_names if n not in tags]
        for tag, (tool, arg) in tag_tools().items():
            if tool in tool_names:
                form = f"<{tag}/>" if arg is None else f"<{tag}>{tool_spec(tool).tag.hint}</{tag}>"
                lines.append(f"  {form}   ({tool})")
        if missing:
            lines.append(f"  (no tag exists for: {', '.join(missing)})")
    if answer:
        lines.append("  <answer>your final answer</answer>")
    if allow_team_actions:
        lines += ["  <post>a note for your team</post>", "  <wait/>"]
    return "\n".join(lines)


def _error(problem: str, tool_format: str, tool_names: Sequence[str], team: bool, answer: bool = True) -> ParseError:
    return ParseError(
        f"Could not read your action: {problem}.\n{accepted_forms(tool_format, tool_names, team, answer)}"
    )


# ------------------------------------------------------------------------------ preprocessing
_THINK = re.compile(r"<\s{0,3}(/?)\s{0,3}think\s{0,3}>", re.IGNORECASE)
_SPECIAL_TOKEN = re.compile(r"<\|[^|<>\n]{0,40}\|>")
_NEXT_TAG_OR_BLANK_LINE = re.compile(r"<[A-Za-z/|!]|\n[ \t\r]{0,20}\n")
_HERMES_OPENER = re.compile(r"<\s{0,3}(tool_call|answer|post|wait)\s{0,3}(/?)\s{0,3}>", re.IGNORECASE)


def _opener(tool_format: str) -> re.Pattern[str]:
    """The opening tags of a format: hermes's fixed ones; the tags format's registered tool tags."""
    if tool_format == "hermes":
        return _HERMES_OPENER
    return derived("opener", lambda: re.compile(
        rf"<\s{{0,3}}({'|'.join([*tag_tools(), 'answer', 'post', 'wait'])})\s{{0,3}}(/?)\s{{0,3}}>", re.IGNORECASE))


_CLOSERS: dict[str, re.Pattern[str]] = {}


def _strip_think(text: str) -> tuple[str, bool]:
    """Remove ``<think>...</think>`` blocks; a stray ``</think>`` drops everything before it (the
    chat template opened the block); an unclosed ``<think>`` drops the rest. Linear time."""
    kept: list[str] = []
    pos, open_at = 0, None
    for m in _THINK.finditer(text):
        if m.group(1) != "/":
            if open_at is None:
                kept.append(text[pos : m.start()])
                open_at = m.start()
        else:
            if open_at is None:
                kept = []
            open_at, pos = None, m.end()
    if open_at is None:
        kept.append(text[pos:])
    return "".join(kept), open_at is not None


def _closer(tag: str) -> re.Pattern[str]:
    if tag not in _CLOSERS:
        _CLOSERS[tag] = re.compile(rf"<\s{{0,3}}/\s{{0,3}}{tag}\s{{0,3}}>", re.IGNORECASE)
    return _CLOSERS[tag]


def _tag_content(text: str, tag: str, start: int) -> str:
    """Text up to ``</tag>``; without one, up to the next tag or blank line (a missing close)."""
    close = _closer(tag).search(text, start)
    if close is not None:
        return text[start : close.start()].strip()
    rest = text[start:].lstrip()
    cut = _NEXT_TAG_OR_BLANK_LINE.search(rest)
    return (rest[: cut.start()] if cut else rest).strip()


# --------------------------------------------------------------------------------- parsing
def _read_tool_call(rest: str, tool_names: Sequence[str], team: bool, shown: Sequence[str]) -> Action | str:
    """The JSON after ``<tool_call>``: scanned to its balanced end first (so a closing tag inside a
    string is harmless), then, if that fails, only up to ``</tool_call>``."""
    close = _closer("tool_call").search(rest)
    problem = "<tool_call> holds no JSON object"
    for body in [rest] if close is None else [rest, rest[: close.start()]]:
        obj, problem = _load_object(body)
        if obj is not None:
            return _action_from_call(obj, tool_names, team, shown)
    return f"could not read the JSON inside <tool_call> ({problem})"


def _parse_text(text: str, tool_format: str, tool_names: Sequence[str], team: bool,
                shown: Sequence[str]) -> Action | str:
    """The first action tag of the format in ``text`` (disallowed team tags are skipped); ``shown``: the
    tools an error names."""
    skipped_team = False
    for m in _opener(tool_format).finditer(text):
        tag, self_closing = m.group(1).lower(), m.group(2) == "/"
        if tag in ("post", "wait") and not team:
            skipped_team = True
            continue
        if tag == "wait":
            return Action.wait()
        if tag == "tool_call":
            return _read_tool_call(text[m.end() :], tool_names, team, shown)
        tags = tag_tools()
        no_argument = tag in tags and tags[tag][1] is None  # <time> reads nothing after it
        content = "" if self_closing or no_argument else _tag_content(text, tag, m.end())
        if tag in ("answer", "post"):
            if not has_visible_text(content):
                return (f"the <{tag}> is empty (whitespace and control characters do not count); "
                        f"write visible text, e.g. <{tag}>Mara Quell</{tag}>")
            if tag == "post":
                return Action.post(content)
            return answer_length_problem(content) or Action.answer(content)
        tool_name, arg = tags[tag]
        tool = _resolve_tool(tool_name, tool_names)
        if tool is None:
            return f"<{tag}> calls {tool_name}, which is not available here; accepted tools: " + (
                ", ".join(shown) or "(none)"
            )
        return Action.call(tool) if arg is None else Action.call(tool, **{arg: content})
    if tool_format == "hermes":
        obj, _ = _load_object(text)  # no tags: a bare (or fenced) JSON tool call
        if isinstance(obj, dict) and any(k in obj for k in (*_NAME_KEYS, "function")):
            return _action_from_call(obj, tool_names, team, shown)
    if skipped_team:
        return "<post> and <wait/> are team actions, not available here; no other action was found"
    if tool_format == "hermes":
        return "no <tool_call> or <answer> found"
    if "tool_call" in text.lower():
        return "this environment uses the tags format, not <tool_call> JSON"
    return "no action tag found"


def parse_action(
    text: str, tool_format: str, tool_names: Sequence[str], allow_team_actions: bool = False,
    shown_tools: Sequence[str] | None = None, shown_answer: bool = True,
) -> Action | ParseError:
    """Read one action from an agent's text; never raises on any ``text``.

    ``<think>...</think>`` blocks and special tokens (``<|im_end|>``) are ignored; the first
    action in the text wins. Text longer than ``MAX_ACTION_CHARS`` (after removing think blocks)
    is refused unread; an answer longer than ``MAX_ANSWER_CHARS`` (the leaderboard's limit) is
    refused too. An unknown ``tool_format`` is a configuration error (ValueError). ``shown_tools``:
    the tools whose forms an error lists (default ``tool_names``; a team role reads every tool's
    call, so another role's is refused, not unreadable, but is told only its own); ``shown_answer``:
    whether the error lists ``<answer>`` (not to a role that cannot submit it; it is still read).
    """
    _check_format(tool_format)
    tool_names = [str(t) for t in tool_names]
    shown = tool_names if shown_tools is None else [str(t) for t in shown_tools]
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return _error(
            f"an action must be a string, got {type(text).__name__}",
            tool_format,
            shown,
            allow_team_actions,
            shown_answer,
        )
    text, unclosed_think = _strip_think(text)
    if len(text) > MAX_ACTION_CHARS:
        return _error(
            f"the action is {len(text)} characters long (at most {MAX_ACTION_CHARS} outside <think>)",
            tool_format,
            shown,
            allow_team_actions,
            shown_answer,
        )
    text = _SPECIAL_TOKEN.sub("", text)
    result = _parse_text(text, tool_format, tool_names, allow_team_actions, shown)
    if isinstance(result, Action):
        return result
    if unclosed_think and not text.strip():
        result = "the <think> block is never closed, so no action follows it"
    return _error(result, tool_format, shown, allow_team_actions, shown_answer)


def parse_tool_call(
    call: Any, tool_format: str, tool_names: Sequence[str], allow_team_actions: bool = False,
    shown_tools: Sequence[str] | None = None, shown_answer: bool = True,
) -> Action | ParseError:
    """Read a structured tool call, as frameworks dispatch it; never raises on any ``call``.

    Accepted: a dict ``{"name": ..., "arguments": {...}}`` (``arguments`` a dict or a JSON
    string, as OpenAI sends them; also ``{"type": "function", "function": {...}}``), or an object
    with ``.function.name`` and ``.function.arguments`` (OpenAI's ``ChatCompletionMessageToolCall``).
    ``answer`` (``{"answer": ...}``), and for a team ``post_note`` and ``wait``, are calls too. It
    gives the :class:`Action` that the text form of the same call gives, and a bad call the same
    :class:`ParseError` (``tool_format`` only picks the accepted forms that error shows). A call over
    ``MAX_ACTION_CHARS`` characters as JSON is refused unread, as its text would be.
    """
    _check_format(tool_format)
    tool_names = [str(t) for t in tool_names]
    shown = tool_names if shown_tools is None else [str(t) for t in shown_tools]
    obj = _call_as_dict(call)
    if obj is None:
        problem = (f"a structured action must be a dict {{\"name\": ..., \"arguments\": {{...}}}} or an "
                   f"OpenAI tool call, got {kind_of(call)}")
        return _error(problem, tool_format, shown, allow_team_actions, shown_answer)
    if _json_chars_over(obj, MAX_ACTION_CHARS):  # as its text would be (before: run, and the tool refused it)
        problem = f"the call is over {MAX_ACTION_CHARS} characters long as JSON (at most {MAX_ACTION_CHARS})"
        if _contains_itself(obj):  # endless as JSON: a tiny call was said to be over the limit
            problem = "the call holds a dict or list that contains itself, which JSON cannot write"
        return _error(problem, tool_format, shown, allow_team_actions, shown_answer)
    result = _action_from_call(obj, tool_names, allow_team_actions, shown)
    if isinstance(result, Action):
        return result
    return _error(result, tool_format, shown, allow_team_actions, shown_answer)


# ------------------------------------------------------------------------------ formatting
def _tool_call_text(name: str, arguments: dict[str, Any], shown: str) -> str:
    try:
        payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{shown} has an argument that is not JSON: {exc}") from exc
    return f"<tool_call>\n{payload}\n</tool_call>"


def _candidate_texts(action: Action, tool_format: str) -> list[str]:
    """Ways to write ``action``, preferred first."""
    if action.kind == "wait":
        return ["<wait/>"]
    if action.kind in ("answer", "post"):
        tagged = f"<{action.kind}>{action.text}</{action.kind}>"
        if tool_format == "tags":
            return [tagged]
        key, name = ("answer", "answer") if action.kind == "answer" else ("note", "post_note")
        return [tagged, _tool_call_text(name, {key: action.text}, action.render())]  # JSON escapes anything
    if tool_format == "hermes":
        return [_tool_call_text(str(action.tool), action.args, action.render())]
    tag, arg = _tool_tags().get(str(action.tool), (None, None))
    expected = set() if arg is None else {arg}
    if (
        tag is None
        or set(action.args) != expected
        or not all(isinstance(v, str) for v in action.args.values())
    ):
        return []
    return [f"<{tag}/>" if arg is None else f"<{tag}>{action.args[arg]}</{tag}>"]


def format_action(action: Action, tool_format: str) -> str:
    """The text that :func:`parse_action` reads back as exactly ``action``.

    Answers and notes are written as ``<answer>``/``<post>`` tags; in hermes, a text that the tag
    form cannot carry (it contains ``</answer>``, say) falls back to the JSON tool-call form.
    Every output is checked by parsing it back; an action that no text of the format expresses
    raises ValueError: the tags format has only the tools registered with a tag, each with its one
    string argument (without surrounding spaces or the tag itself inside).
    """
    _check_format(tool_format)
    tools = [action.tool] if action.tool else []
    for text in _candidate_texts(action, tool_format):
        if parse_action(text, tool_format, tools, allow_team_actions=True) == action:
            return text
    forms = ", ".join(f"{t}({a or ''})" for t, (_, a) in _tool_tags().items())
    hint = f"; it expresses only {forms} and answers/notes" if tool_format == "tags" else ""
    raise ValueError(f"{action.render()} cannot be written in the {tool_format} format{hint}")


def format_tool_result(name: str, result_text: str, tool_format: str) -> str:
    """Wrap a tool's output the way the format expects (``name`` is kept for formats that label
    results; neither current format does): hermes ``<tool_response>``, tags ``<information>``."""
    _check_format(tool_format)
    if tool_format == "hermes":
        return f"<tool_response>\n{result_text}\n</tool_response>"
    return f"<information>\n{result_text}\n</information>"


_WRAPPED_RESULT = re.compile(r"\A\s*<(tool_response|information)>\n?(.*?)\n?</\1>", re.DOTALL)


def unwrap_tool_result(text: str) -> str:
    """An observation for a chat ``tool`` message: the result without the wrapper that
    :func:`format_tool_result` put around it (the chat template adds its own); whatever follows
    the wrapper (a team's new notes) is kept. Text without a wrapper comes back unchanged."""
    match = _WRAPPED_RESULT.match(text)
    return text if match is None else match.group(2) + text[match.end():]
