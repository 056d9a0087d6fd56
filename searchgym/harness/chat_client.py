"""The transport to an OpenAI-compatible chat endpoint: one POST per request, retries, timeouts.

Standard library only (``urllib``). An HTTP error that may pass (connection refused or reset,
timeout, 408, 409, 429, 5xx, an ``{"error": ...}`` body) is retried up to ``retries`` times with
exponential backoff, never past the caller's deadline; nothing here raises on what a server
sends. What a 200 body means is the agent's business (``read_reply``), not the transport's.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BODY_BYTES = 4 << 20  # a reply larger than this is cut (the env refuses long actions anyway)


@dataclass(frozen=True)
class EndpointConfig:
    model: str
    base_url: str
    api_key: str | None = None
    timeout: float = 60.0  # wall-clock seconds per task (every request of the episode shares it)
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubles each time
    max_backoff: float = 8.0
    temperature: float = 0.0
    max_tokens: int = 512
    native_tools: bool = False  # send the tool schemas as OpenAI `tools` (needs server support)

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model:
            raise ValueError("the OpenAI agent needs a model name (--model NAME)")
        if not isinstance(self.base_url, str) or not re.match(r"^https?://", self.base_url):
            raise ValueError(f"base_url must start with http:// or https://, got {self.base_url!r} "
                             "(for example http://127.0.0.1:8000/v1)")
        if not self.timeout > 0 or self.retries < 0 or self.max_tokens < 1:
            raise ValueError(f"need timeout > 0, retries >= 0, max_tokens >= 1; got {self.timeout}, "
                             f"{self.retries}, {self.max_tokens}")

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass
class Reply:
    """What one chat request came to: the action text for the env, and what happened."""

    action: str
    message: dict[str, Any] = field(default_factory=dict)  # the assistant message to keep in the chat
    tool_call_id: str | None = None
    error: str | None = None
    attempts: int = 0


class ChatClient:
    """POSTs chat requests with retries and backoff, never past a deadline; never raises."""

    def __init__(self, config: EndpointConfig, read_reply: Callable[[bytes], Reply]) -> None:
        self.config = config
        self.read_reply = read_reply  # turns a 200 body into the agent's Reply (the agent's side)

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, deadline: float) -> Reply:
        cfg = self.config
        payload: dict[str, Any] = {"model": cfg.model, "messages": list(messages), "temperature": cfg.temperature,
                                   "max_tokens": cfg.max_tokens}
        if tools:
            payload["tools"] = list(tools)
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        error = "the per-task timeout passed before any request"
        for attempt in range(cfg.retries + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Reply("", error=f"timeout ({error})", attempts=attempt)
            try:
                request = urllib.request.Request(cfg.url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=remaining) as response:
                    body = response.read(MAX_BODY_BYTES)
                if not _is_error_object(body):
                    reply = self.read_reply(body)
                    reply.attempts = attempt + 1
                    return reply
                error = "the server answered with an error object"
            except urllib.error.HTTPError as exc:
                error = f"HTTP {exc.code}"
                if exc.code not in RETRYABLE_STATUS:
                    return Reply(f"(the endpoint refused the request: HTTP {exc.code})", error=error,
                                 attempts=attempt + 1)
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError, ValueError) as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
            pause = min(cfg.backoff * 2**attempt, cfg.max_backoff, max(deadline - time.monotonic(), 0.0))
            if attempt < cfg.retries and pause > 0:
                time.sleep(pause)
        return Reply("", error=f"gave up after {cfg.retries + 1} attempts ({error})", attempts=cfg.retries + 1)


def _is_error_object(body: bytes) -> bool:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "error" in data and "choices" not in data


__all__ = ["ChatClient", "EndpointConfig", "MAX_BODY_BYTES", "RETRYABLE_STATUS", "Reply"]
