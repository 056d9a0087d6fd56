"""Reading a chat completion as env actions: its text, or its native tool calls, every one of them.

A reply may carry several ``tool_calls`` (parallel function calling). The env takes one action
per step, so the first call is the action of this step and the others wait in
:attr:`ChatReply.queued`; the agent plays them, in order, on the following steps without asking
the model again, and answers each with its own ``tool`` message. Calls past
``MAX_PARALLEL_CALLS`` are refused with a message the model sees (``refusal``); none is ever
dropped silently. Text replies that write several ``<tool_call>`` blocks are read the same way.

Nothing here raises on what a server sends: an unreadable body becomes an action string that
the env scores as malformed. The action is what the server sent, never cut (see
:data:`MAX_KEPT_CONTENT_CHARS`): the env itself refuses text over ``MAX_ACTION_CHARS`` outside
``<think>`` blocks, and a reply's size is bounded by the transport (``MAX_BODY_BYTES``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from searchgym.bounded_json import loads_shallow
from searchgym.chat_content import message_text
from searchgym.endpoint.chat_client import Reply
from searchgym.endpoint.scripted_identity import MAX_FINGERPRINT_CHARS

#: The most characters of a reply's content kept in the conversation (sent back to the server with every
#: later request, and the transcript's ``reply``). Why only there: this bound cut the action too, and it
#: counts ``<think>`` blocks, which the env's limit (``searchgym.actions.MAX_ACTION_CHARS``) does not, so
#: an answer after a long <think> was cut off (a reply the env reads became unreadable) and a reply the
#: env refuses as too long was cut under its limit and read.
MAX_KEPT_CONTENT_CHARS = 30_000
MAX_KEPT_CALL_CHARS = 8_000


def kept_text(text: str) -> str:
    """``text`` as a conversation or a transcript keeps it: its first :data:`MAX_KEPT_CONTENT_CHARS`
    characters. Why: the env is given the whole reply, but a server that writes megabytes each turn
    must not make every later request, and every transcript line, that large."""
    return text[:MAX_KEPT_CONTENT_CHARS]
MAX_PARALLEL_CALLS = 8
_TEXT_CALL = re.compile(r"<tool_call>.*?</tool_call>", re.DOTALL)


@dataclass
class QueuedCall:
    """A tool call of the reply that the env has not run yet: its action text and call id."""

    action: str
    call_id: str | None = None


@dataclass
class ChatReply(Reply):
    """A Reply whose further tool calls wait their turn (``queued``); ``refusal`` tells the model
    which calls were not run (too many in one reply); ``system_fingerprint`` is the reply's own (which
    server served it: the scripted endpoint names itself there), kept when it is text."""

    queued: list[QueuedCall] = field(default_factory=list)
    refusal: str = ""
    system_fingerprint: str | None = None


def content_text(value: Any) -> str:
    """A reply's content as the action: its text (:func:`message_text`), or, for content that is neither
    text nor parts, its JSON, which the env scores as malformed and the transcript shows as it came."""
    if value is None or isinstance(value, str | list):
        return message_text(value)
    return json.dumps(value)


def tool_call_text(call: Any) -> tuple[str, str | None]:
    """A native tool call as Hermes text (what ``parse_action`` reads) and its id."""
    if not isinstance(call, dict):
        return json.dumps(call) if call is not None else "", None
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    name, arguments = function.get("name"), function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = loads_shallow(arguments)
        except (ValueError, RecursionError):
            pass  # parse_action reports unreadable arguments to the agent
    try:
        payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        payload = repr(function)
    call_id = call.get("id") if isinstance(call.get("id"), str) else None
    return f"<tool_call>{payload}</tool_call>", call_id


def _refusal(n_refused: int) -> str:
    return (f"({n_refused} more tool call(s) in your last reply were not run: at most {MAX_PARALLEL_CALLS} "
            "calls per reply are run, in order; call them again if you still need them.)" if n_refused else "")


def _native_reply(content: str, calls: list) -> ChatReply:
    run, refused = calls[:MAX_PARALLEL_CALLS], len(calls) - MAX_PARALLEL_CALLS
    texts = [tool_call_text(c) for c in run]
    # Echo the calls back only when every one has an id and they are small: then each result
    # goes back as a tool message answering its id; otherwise results go as user messages.
    echo = all(cid is not None for _, cid in texts) and len(json.dumps(run, default=str)) <= MAX_KEPT_CALL_CHARS
    kept: dict[str, Any] = {"role": "assistant", "content": kept_text(content)}
    if echo:
        kept["tool_calls"] = run
    ids = [cid if echo else None for _, cid in texts]
    first = texts[0][0] + "\n" + content
    queued = [QueuedCall(text, cid) for (text, _), cid in zip(texts[1:], ids[1:])]
    return ChatReply(first, kept, ids[0], queued=queued, refusal=_refusal(max(refused, 0)))


def _text_reply(content: str) -> ChatReply:
    blocks = _TEXT_CALL.findall(content)
    message = {"role": "assistant", "content": kept_text(content)}
    if len(blocks) < 2:
        return ChatReply(content, message)
    queued = [QueuedCall(b) for b in blocks[1:MAX_PARALLEL_CALLS]]
    return ChatReply(content, message, queued=queued, refusal=_refusal(max(len(blocks) - MAX_PARALLEL_CALLS, 0)))


def reply_from_body(body: bytes) -> ChatReply:
    """Read a chat completion; whatever it is, the result is an action string (never raises)."""
    raw = body.decode("utf-8", errors="replace")
    try:
        data = loads_shallow(raw)
    except (ValueError, RecursionError):
        return ChatReply(raw[:MAX_KEPT_CONTENT_CHARS], {"role": "assistant", "content": raw[:2000]},
                         error="reply is not JSON")
    reply = _reply_from_data(data)
    served_by = data.get("system_fingerprint") if isinstance(data, dict) else None
    if reply.error is None and isinstance(served_by, str):
        reply.system_fingerprint = served_by[:MAX_FINGERPRINT_CHARS]
    return reply


def _reply_from_data(data: Any) -> ChatReply:
    """The reply a parsed body holds (:func:`reply_from_body`)."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ChatReply("", {"role": "assistant", "content": ""}, error="reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        text = choices[0].get("text")
        if isinstance(text, str):  # a completions-style choice: its text is the reply (played as before)
            return _text_reply(text)
        return ChatReply("", {"role": "assistant", "content": ""}, error="choice has no message")
    content = content_text(message.get("content"))
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        return _native_reply(content, calls)
    return _text_reply(content)


__all__ = ["MAX_KEPT_CONTENT_CHARS", "MAX_PARALLEL_CALLS", "ChatReply", "QueuedCall", "content_text", "kept_text",
           "message_text", "reply_from_body", "tool_call_text"]
