"""The team actions (post a note, wait) as function schemas, for chats with native tool calling.

A team member writes ``<post>note</post>`` or ``<wait/>`` in text; a model behind an OpenAI
``tools`` list or ``apply_chat_template(tools=...)`` calls functions instead, so the team
actions are offered there as ``post_note`` and ``wait`` (what :func:`searchgym.actions.parse_action`
reads back as the same actions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchgym.tools.toolkit import TOOL_NAMES, tool_schemas

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


def chat_tools(names: Sequence[str] = TOOL_NAMES, team_actions: bool = False) -> list[dict[str, Any]]:
    """The function schemas a chat sends: the named tools, then ``post_note`` and ``wait`` for a team."""
    return tool_schemas(names) + ([dict(s) for s in TEAM_ACTION_SCHEMAS] if team_actions else [])
