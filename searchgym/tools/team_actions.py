"""The answer and the team actions (post a note, wait) as function schemas, for native tool calling.

A team member writes ``<post>note</post>`` or ``<wait/>`` in text; a model behind an OpenAI
``tools`` list or ``apply_chat_template(tools=...)`` calls functions instead, so the team
actions are offered there as ``post_note`` and ``wait`` (what :func:`searchgym.actions.parse_action`
reads back as the same actions). ``answer`` is offered the same way, so a framework that only
dispatches tool calls can end an episode (``{"name": "answer", "arguments": {"answer": "..."}}``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from searchgym.tools.toolkit import TOOL_NAMES, tool_names, tool_schemas

TEAM_ACTION_SCHEMAS: tuple[dict[str, Any], ...] = (
    {"type": "function", "function": {
        "name": "post_note",
        "description": "Post a note on the team's blackboard; every teammate reads it at the end of the round.",
        "parameters": {"type": "object", "properties": {"note": {"type": "string", "description": "the note"}},
                       "required": ["note"]}}},
    {"type": "function", "function": {
        "name": "wait",
        "description": "Do nothing this round and let teammates work.",
        "parameters": {"type": "object", "properties": {}}}},
)

ANSWER_SCHEMA: dict[str, Any] = {"type": "function", "function": {
    "name": "answer",
    "description": "Submit your final answer to the question; this ends the episode.",
    "parameters": {"type": "object", "properties": {"answer": {"type": "string", "description": "the final answer"}},
                   "required": ["answer"]}}}


def chat_tools(names: Sequence[str] = TOOL_NAMES, team_actions: bool = False,
               answer: bool = False) -> list[dict[str, Any]]:
    """The function schemas a chat sends: the named tools, then ``answer`` (with ``answer=True``,
    or when ``names`` holds it), then ``post_note`` and ``wait`` for a team."""
    names = tool_names(names, "chat_tools", extra=("answer",))
    for flag, value in (("team_actions", team_actions), ("answer", answer)):
        if not isinstance(value, bool | np.bool_):  # "no" was truthy: the schemas were added
            raise TypeError(f"chat_tools: {flag} must be True or False, got {type(value).__name__} {value!r:.40}")
    answer = bool(answer) or "answer" in names
    out = tool_schemas([n for n in names if n != "answer"])
    out += [copy.deepcopy(ANSWER_SCHEMA)] if answer else []
    return out + ([copy.deepcopy(s) for s in TEAM_ACTION_SCHEMAS] if team_actions else [])
