"""The transport to an OpenAI-compatible chat endpoint: one POST per request, retries, one deadline.

Standard library only (``http.client``). The caller's deadline bounds everything a request
does: connecting (the socket timeout is what is left), sending (``sendall`` under that timeout
is bounded as a whole), and reading: every read of the status line, headers and body sets the
socket timeout to what is left first, so a server that drips one byte at a time is cut off at
the deadline, not after a timeout per byte. Retries and their backoff stop at the deadline too.

An error that may pass (connection refused or reset, a timeout, 408, 409, 425, 429, 5xx, an
``{"error": ...}`` body, a malformed or truncated reply, a 2xx body that is no usable chat
completion) is retried up to ``retries`` times with exponential backoff; every such error ends as
a failed :class:`Reply` (empty action, no message, the error named): nothing here raises on what
a server sends or fails to send. What a 200 body says is the agent's business (``read_reply``);
a Reply it returns with an ``error`` is a body it could not use.
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import math
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from searchgym.bounded_json import loads_shallow

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
    stop: tuple[str, ...] | None = None  # OpenAI's `stop` sequences, sent only when given (a text or up to 4)

    def __post_init__(self) -> None:
        """Each field checked by type and range. Why: ``native_tools=False`` from the command line is the
        text "False", which switched native tools on; "abc", 1.5 or "hot" for a number reached the
        requests (every one a 400, blamed on the server) or a bare Python error; 1e400 made the timeout
        infinite (an OverflowError per request, "Infinity" in config.json); "http://[::1" was retried."""
        if not isinstance(self.model, str) or not self.model:
            raise ValueError("the OpenAI agent needs a model name (--model NAME)")
        wrong = _wrong_url(self.base_url)
        if wrong:
            raise ValueError(f"base_url (--base-url) must be an http:// or https:// URL with a host, no spaces and a "
                             f"port in 1..65535 if it names one (for example http://127.0.0.1:8000/v1); got "
                             f"{self.base_url!r:.200}: {wrong}")
        for name, kind, low, high in _BOUNDS:
            value = getattr(self, name)
            fits = isinstance(value, bool) if kind is bool else (
                isinstance(value, kind) and not isinstance(value, bool) and math.isfinite(value) and low <= value <= high)
            if not fits:
                shown = "true or false" if kind is bool else f"{'an integer' if kind is int else 'a number'} in {low}..{high}"
                raise ValueError(f"{name} must be {shown}, got {value!r:.40}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be above 0 seconds, got {self.timeout!r}")
        object.__setattr__(self, "stop", stop_sequences(self.stop))

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


#: (field, type, lowest, highest) of the endpoint settings (a float field takes an int too). Temperature
#: is OpenAI's range, 0..2: before, 0..100 let temperature=5 through to a 400 on every request of the run.
_BOUNDS = (("timeout", (int, float), 0, 86_400), ("retries", int, 0, 100), ("backoff", (int, float), 0, 3600),
           ("max_backoff", (int, float), 0, 3600), ("temperature", (int, float), 0, 2),
           ("max_tokens", int, 1, 1_000_000), ("native_tools", bool, 0, 1))


#: The most stop sequences OpenAI's chat completions take.
MAX_STOP_SEQUENCES = 4


def stop_sequences(stop: object) -> tuple[str, ...] | None:
    """``stop`` as the request's stop sequences: a non-empty text, or a list of at most
    :data:`MAX_STOP_SEQUENCES` (None or an empty list: none, and no ``stop`` field is sent); anything
    else is one error line. Why checked here: a server answers 400 to every request of the run."""
    if stop is None:
        return None
    sequences = [stop] if isinstance(stop, str) else stop
    if not isinstance(sequences, list | tuple) or len(sequences) > MAX_STOP_SEQUENCES or not all(
            isinstance(s, str) and s for s in sequences):
        raise ValueError(f"stop must be a non-empty text or a list of at most {MAX_STOP_SEQUENCES} non-empty texts "
                         f"(e.g. --agent-option 'stop=[\"END\"]'), got {stop!r:.80}")
    return tuple(sequences) or None


def _wrong_url(url: object) -> str | None:
    """What is wrong with a base URL, or None. Why: a port past 65535 passed, then failed every request
    ("Port out of range"); a trailing space went into every request line ("/v1 /chat/completions")."""
    if not isinstance(url, str):
        return "it is not text"
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return "it has a space or a control character (one at its start or end counts); remove it"
    if not re.match(r"^https?://", url):
        return "it does not start with http:// or https://"
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:  # "http://[::1" (an IPv6 address never closed), ":99999", ":abc"
        return "its port is not a number in 1..65535" if "Port" in str(exc) else f"it cannot be read ({exc})"
    if not host:
        return "it names no host"
    return "its port is not a number in 1..65535" if port == 0 else None


#: What a failed request came to (:attr:`Reply.error_kind`): the requests a run stopped sending, a reply too
#: long to read, a 2xx that is no chat completion, a 404 from a wrong path, another 4xx, and no reply at all
#: (a server down, slow, or erring). Why a field: the run's advice was told apart by its error's wording.
FAILURE_KINDS = ("not sent", "too long", "unusable", "path", "refused", "no reply")


@dataclass
class Reply:
    """What one chat request came to: the action text for the env, and what happened."""

    action: str
    message: dict[str, Any] = field(default_factory=dict)  # the assistant message to keep in the chat
    tool_call_id: str | None = None
    error: str | None = None
    attempts: int = 0
    error_kind: str | None = None  # one of FAILURE_KINDS when the request failed


class ReplyTooLong(ValueError):
    """A 2xx reply past MAX_BODY_BYTES: the server answered, with more than any action can be."""


#: A run whose server has never replied stops sending once the requests of this many tasks have all run
#: past the per-task timeout: the rest of the run gets failed replies at once ("not sent: ...").
STALLED_TASKS = 3
NOT_SENT = "not sent: "
TOO_LONG = "the reply is longer than"


class Reachability:
    """What the endpoint's requests found, shared by the clients of a run (one per task).

    ``unreachable``: the last request got no usable reply after every retry; until one does, each
    request gets one attempt. Why: against a server that is not there every request waited out its
    backoff (3.5 s with the defaults), 24 of them a task: an hour for a 300-task suite.
    ``answered``: the server has sent an HTTP response, ever. Until it has, a task whose requests ran
    past its deadline is counted (by its deadline); after :data:`STALLED_TASKS` of them no request is
    sent. Why: a server that accepts and never answers made every task wait its whole timeout (75
    minutes for a run at the defaults). A server that has answered once is never cut off."""

    def __init__(self) -> None:
        self.unreachable = False
        self.answered = False
        self.stalled: set[float] = set()
        self._lock = threading.Lock()

    def timed_out(self, deadline: float) -> None:
        """A request of the task with this deadline ran past it."""
        with self._lock:
            if not self.answered:
                self.stalled.add(deadline)

    def stopped(self, timeout: float) -> str | None:
        """Why no more requests are sent, or None."""
        if self.answered or len(self.stalled) < STALLED_TASKS:
            return None
        return (f"{NOT_SENT}the server has not replied to any request, and the requests of {STALLED_TASKS} tasks "
                f"all ran past the per-task timeout ({timeout:g} s)")


class ChatClient:
    """POSTs chat requests with retries and backoff, never past a deadline; never raises."""

    def __init__(self, config: EndpointConfig, read_reply: Callable[[bytes], Reply],
                 reachability: Reachability | None = None) -> None:
        self.config = config
        self.read_reply = read_reply  # turns a 200 body into the agent's Reply (the agent's side)
        self.reachability = reachability or Reachability()

    @property
    def unreachable(self) -> bool:
        return self.reachability.unreachable

    @unreachable.setter
    def unreachable(self, value: bool) -> None:
        self.reachability.unreachable = value

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, deadline: float) -> Reply:
        cfg = self.config
        payload: dict[str, Any] = {"model": cfg.model, "messages": list(messages), "temperature": cfg.temperature,
                                   "max_tokens": cfg.max_tokens}
        if cfg.stop:
            payload["stop"] = list(cfg.stop)
        if tools:
            payload["tools"] = list(tools)
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        stopped = self.reachability.stopped(cfg.timeout)
        if stopped:
            return Reply("", error=stopped, error_kind="not sent")
        error, kind = "the per-task timeout passed before any request", "no reply"  # the last attempt's
        retries = 0 if self.unreachable else cfg.retries
        for attempt in range(retries + 1):
            if deadline - time.monotonic() <= 0:
                self.reachability.timed_out(deadline)
                return Reply("", error=f"timeout ({error})", attempts=attempt, error_kind=kind)
            try:
                status, body = post(cfg.url, data, headers, deadline)
                self.reachability.answered = True
                if 200 <= status < 300 and not _is_error_object(body):
                    reply = self.read_reply(body)
                    if reply.error is None:
                        self.unreachable = False
                        reply.attempts = attempt + 1
                        return reply
                    # Before: handed to the env as the action, scored 0 and the run marked DONE
                    error = f"HTTP {status} but the body is no chat completion ({reply.error}): {_start(body)}"
                    kind = "unusable"
                else:
                    said = server_message(body)  # before: dropped ("HTTP 404" for "the model `m` does not exist")
                    error = (f"HTTP {status}" if status >= 300 else "the server answered with an error object") + (
                        f": {said}" if said else "")
                    kind = "no reply"
                    if status >= 300 and status not in RETRYABLE_STATUS:
                        return Reply(f"(the endpoint refused the request: {error})", error=error, attempts=attempt + 1,
                                     error_kind=_refusal_kind(status, error))
            except ReplyTooLong as exc:  # the server answered: no retry, and it is not unreachable
                self.reachability.answered = True
                return Reply("", error=str(exc), attempts=attempt + 1, error_kind="too long")
            except (http.client.HTTPException, OSError, ValueError) as exc:  # OSError covers timeouts
                error, kind = f"{type(exc).__name__}: {exc}"[:300], "no reply"
                if isinstance(exc, TimeoutError):  # post waits only the time left: the task's time is up
                    self.reachability.timed_out(deadline)
            except Exception as exc:  # noqa: BLE001 - whatever a server does ends as a failed reply
                error, kind = f"{type(exc).__name__}: {exc}"[:300], "no reply"
            pause = min(cfg.backoff * 2**attempt, cfg.max_backoff, max(deadline - time.monotonic(), 0.0))
            if attempt < retries and pause > 0:
                time.sleep(pause)
        self.unreachable = True
        return Reply("", error=f"gave up after {retries + 1} attempts ({error})", attempts=retries + 1, error_kind=kind)


def _refusal_kind(status: int, error: str) -> str:
    """The kind of a request answered with a status not retried: a 404 that names no model is a wrong path
    (not "the model `m` does not exist", which is the request's fault), another 4xx a refusal, else no reply."""
    if status == 404 and "model" not in error.lower():
        return "path"
    return "refused" if 400 <= status < 500 else "no reply"


class _DeadlineSocketReader(io.RawIOBase):
    """The socket's reader (``sock.makefile``'s raw stream, which keeps the socket open while the
    response needs it), each read given only the time left before the deadline."""

    def __init__(self, inner: Any, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self.inner, self.sock, self.deadline = inner, sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the per-task timeout passed while reading the reply")
        self.sock.settimeout(remaining)
        return self.inner.readinto(buffer)

    def close(self) -> None:
        self.inner.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    """An HTTPResponse whose every read (status line, headers, body) stops at the deadline."""

    def __init__(self, sock: socket.socket, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_DeadlineSocketReader(self.fp.detach(), sock, deadline))


def post(url: str, data: bytes, headers: dict[str, str], deadline: float) -> tuple[int, bytes]:
    """POST ``data``; the status and at most MAX_BODY_BYTES of the body, all before ``deadline``
    (TimeoutError past it; http.client and socket errors as they come)."""
    parts = urllib.parse.urlsplit(url)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("the per-task timeout passed before connecting")
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port, timeout=remaining, context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=remaining)
    conn.response_class = functools.partial(_DeadlineResponse, deadline=deadline)  # type: ignore[assignment]
    try:
        conn.connect()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the per-task timeout passed while connecting")
        conn.sock.settimeout(remaining)  # sendall: the whole request within what is left
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn.request("POST", path, body=data, headers=headers)
        response = conn.getresponse()
        if not 200 <= response.status < 300:  # the status decides; the start of the body says why
            return response.status, response.read(ERROR_BODY_BYTES)
        body = response.read(MAX_BODY_BYTES)
        if len(body) < MAX_BODY_BYTES and response.length:  # read(amt) returns a cut body without raising
            raise http.client.IncompleteRead(body, response.length)
        if len(body) == MAX_BODY_BYTES and response.read(1):  # before: cut, then "reply is not JSON"
            raise ReplyTooLong(f"{TOO_LONG} {MAX_BODY_BYTES >> 20} MiB, more than any action; it "
                               "was not read (a model that writes without end? lower max_tokens)")
        return response.status, body
    finally:
        conn.close()


#: How much of an error response's body is read for its message.
ERROR_BODY_BYTES = 4096


def server_message(body: bytes) -> str:
    """The message of an error body, on one line and at most 200 characters: OpenAI's ``{"error":
    {"message": ...}}``, ``{"error": "..."}``, a ``detail`` (FastAPI), or the start of a text body."""
    try:
        data = loads_shallow(body)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        error = data.get("error", data.get("detail"))
        text = error.get("message") if isinstance(error, dict) else error
        text = text if isinstance(text, str) else ""
    else:
        text = body.decode("utf-8", errors="replace") if body[:1] not in (b"{", b"[") else ""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())[:200]


def _start(body: bytes, limit: int = 60) -> str:
    """The start of a body as a quoted one-line excerpt ('{not json'), '…' when cut."""
    text = body[:limit].decode("utf-8", errors="replace")
    return repr(text) + ("…" if len(body) > limit else "") if body else "an empty body"


def _is_error_object(body: bytes) -> bool:
    try:
        data = loads_shallow(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "error" in data and "choices" not in data


__all__ = ["FAILURE_KINDS", "ChatClient", "EndpointConfig", "MAX_BODY_BYTES", "NOT_SENT", "RETRYABLE_STATUS",
           "STALLED_TASKS", "TOO_LONG", "Reachability", "Reply", "ReplyTooLong", "post"]
