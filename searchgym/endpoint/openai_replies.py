"""Chat completions in the OpenAI response format: whole (``chat.completion``) or streamed
(``chat.completion.chunk`` server-sent events ending in ``data: [DONE]``).

A server that stands in for a model must answer what clients check: the official ``openai``
client's types require ``id``, ``created``, ``model`` and ``object`` (verifiers refused every
reply without them), and streaming clients read deltas. ``usage`` counts are whitespace-separated
words of the request's message texts and of the reply, not model tokens: the scripted server
has no tokenizer, and a client only needs the fields to be there and to add up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from searchgym.endpoint.scripted_identity import FINGERPRINT_PREFIX

#: The ``system_fingerprint`` of a reply built without one (the scripted endpoint names its behaviour:
#: :func:`searchgym.endpoint.scripted_identity.fingerprint`).
SYSTEM_FINGERPRINT = FINGERPRINT_PREFIX


def _words(value: Any) -> int:
    """Whitespace-separated words of a message's content (text, or a list of text parts)."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, list):
        return sum(_words(part.get("text") if isinstance(part, dict) else part) for part in value)
    return 0


def usage(messages: Sequence[Any], message: Mapping[str, Any]) -> dict[str, int]:
    """``usage`` of a reply: words in (the request's messages) and out (content and call arguments)."""
    prompt = sum(_words(m.get("content")) for m in messages if isinstance(m, dict))
    completion = _words(message.get("content")) + sum(
        _words(call["function"]["name"]) + _words(call["function"]["arguments"]) for call in message.get("tool_calls") or ())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def finish_reason(message: Mapping[str, Any]) -> str:
    return "tool_calls" if message.get("tool_calls") else "stop"


def completion(reply_id: str, model: str, message: Mapping[str, Any], messages: Sequence[Any],
               created: int | None = None, fingerprint: str = SYSTEM_FINGERPRINT) -> dict[str, Any]:
    """A whole ``chat.completion`` with one choice holding ``message``."""
    return {"id": reply_id, "object": "chat.completion", "created": int(time.time()) if created is None else created,
            "model": model, "system_fingerprint": fingerprint,
            "choices": [{"index": 0, "message": dict(message), "logprobs": None, "finish_reason": finish_reason(message)}],
            "usage": usage(messages, message)}


def chunks(reply_id: str, model: str, message: Mapping[str, Any], messages: Sequence[Any],
           include_usage: bool = False, created: int | None = None,
           fingerprint: str = SYSTEM_FINGERPRINT) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` s of the same reply: the role, the content, each tool call
    (its id, name and arguments in one delta, with its ``index``), the finish reason, and with
    ``include_usage`` (``stream_options``) a last chunk with ``usage`` and no choices."""
    created = int(time.time()) if created is None else created

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        out = {"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": model,
               "system_fingerprint": fingerprint,
               "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return out | ({"usage": None} if include_usage else {})

    out = [chunk({"role": "assistant", "content": ""})]
    if message.get("content"):
        out.append(chunk({"content": message["content"]}))
    for index, call in enumerate(message.get("tool_calls") or ()):
        out.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                          "function": dict(call["function"])}]}))
    out.append(chunk({}, finish_reason(message)))
    if include_usage:
        out.append({"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": model,
                    "system_fingerprint": fingerprint, "choices": [], "usage": usage(messages, message)})
    return out


def sse(events: Iterable[Mapping[str, Any]]) -> bytes:
    """Server-sent events: one ``data: {json}`` per chunk, then ``data: [DONE]``."""
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode("utf-8")
