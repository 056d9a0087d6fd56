"""What a scripted endpoint writes from a conversation: an action as an OpenAI ``tool_calls`` reply,
and the reader baseline's next action (it reads the conversation's observations again). Why a module of
its own: :mod:`searchgym.endpoint.scripted_endpoint` is the server; these read and write messages."""

from __future__ import annotations

import json
from typing import Any

from searchgym.action_types import Action
from searchgym.actions import parse_action
from searchgym.endpoint.chat_replies import message_text
from searchgym.tools.toolkit import TOOL_NAMES


def as_native(action: str, n: int, answer_tool: bool = False) -> dict[str, Any]:
    """The action as an OpenAI ``tool_calls`` reply; an answer only when the request offered the
    ``answer`` tool (else it stays ``<answer>`` text, as a model without that tool writes it)."""
    parsed = parse_action(action, "hermes", TOOL_NAMES, allow_team_actions=True)
    call = None
    if isinstance(parsed, Action) and parsed.kind == "answer" and answer_tool:
        call = {"name": "answer", "arguments": json.dumps({"answer": parsed.text})}
    elif isinstance(parsed, Action) and parsed.kind == "tool":
        call = {"name": parsed.tool, "arguments": json.dumps(parsed.args)}
    elif isinstance(parsed, Action) and parsed.kind == "post":
        call = {"name": "post_note", "arguments": json.dumps({"note": parsed.text})}
    elif isinstance(parsed, Action) and parsed.kind == "wait":
        call = {"name": "wait", "arguments": "{}"}
    if call is None:
        return {"role": "assistant", "content": action}
    return {"role": "assistant", "content": None, "tool_calls": [{"id": f"call_{n}", "type": "function", "function": call}]}


def reader_observations(messages: list[dict]) -> list[str]:
    """What an agent saw, in order: the first user message (the prompt), then for each assistant
    turn that has an answer, the tool results and user messages after it (joined)."""
    first = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    if first is None:
        return []
    observations, pending = [message_text(messages[first].get("content"))], None
    for message in messages[first + 1:]:
        if message.get("role") == "assistant":
            if pending is not None:
                observations.append("\n".join(pending))
            pending = []
        elif pending is not None and message.get("role") in ("tool", "user"):
            pending.append(message_text(message.get("content")))
    if pending:
        observations.append("\n".join(pending))
    return observations


def reader_action(messages: list[dict]) -> str:
    """The reader's next action for a conversation: a fresh :class:`ReaderTextAgent` reads each
    observation in turn (it is deterministic, so its earlier turns are the ones it wrote)."""
    from searchgym.baselines.reader_text import ReaderTextAgent

    agent, action = ReaderTextAgent(), "<answer>unknown</answer>"
    for observation in reader_observations(messages):
        action = agent.act(None, observation)
    return action


def offers_answer(request: dict) -> bool:
    tools = request.get("tools")
    return isinstance(tools, list) and any(
        isinstance(t, dict) and isinstance(t.get("function"), dict) and t["function"].get("name") == "answer"
        for t in tools)
