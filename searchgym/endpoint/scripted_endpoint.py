"""A scripted OpenAI-compatible chat server on 127.0.0.1: a stand-in model for tests and benchmarks.

``ScriptedEndpoint(suite, behaviour)`` serves ``POST /v1/chat/completions`` (and ``GET /v1/models``)
on a loopback port; ``searchgym serve --suite S --behaviour oracle --port P`` starts one. Replies
follow the OpenAI response format (:mod:`searchgym.endpoint.openai_replies`: ``id``, ``object``,
``created``, ``model``, ``usage``, ``system_fingerprint``; ``"stream": true`` gets server-sent
``chat.completion.chunk`` events ending in ``data: [DONE]``). The ``model`` echoes the request's; the
``system_fingerprint`` is ``searchgym-scripted-<behaviour>``, which a run it served records
(:mod:`searchgym.endpoint.scripted_identity`).
Its ``"oracle"`` behaviour replays the oracle's text-mode actions: they are recorded once per
task (the oracle on the suite's own env, with the evaluation's seeds) and looked up by the
question in the conversation's first user message, the role its header names (``You are lead
in a team``), and the number of assistant turns so far. With ``native=True`` tool calls (and a
team's ``post_note``/``wait``, and the answer when the request offers the ``answer`` tool) come
back as OpenAI ``tool_calls``. An agent that follows it on
a text suite must score what the oracle scores (1.0). ``"random"`` replays the random baseline
the same way (a lower bound to test a pipeline against).

The other behaviours are what a bad model or server does: ``"prose"`` (replies that are no
action: "I choose 1"), ``"hostile"`` (bodies that are not chat completions, huge or nested JSON,
tool calls with odd names and types), ``"stall"`` (the oracle, after ``stall`` seconds). Nothing
here reaches past the loopback interface.
"""

from __future__ import annotations

import json
import logging
import math
import re
import socket
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from searchgym.endpoint import check_port, openai_replies
from searchgym.endpoint.chat_replies import message_text
from searchgym.endpoint.chat_request import wrong_optional_field
from searchgym.endpoint.request_deadline import deadline_rfile
from searchgym.endpoint.scripted_replies import (  # noqa: F401 (reader_observations is re-exported)
    as_native,
    offers_answer,
    reader_action,
    reader_observations,
)
from searchgym.endpoint.scripted_identity import BEHAVIOURS, SCRIPTED, fingerprint
from searchgym.envs.play_rules import play_rules
from searchgym.harness.evaluate import answer_rule, episode_seed, play_parallel, play_single
from searchgym.observation_format import MEMBER_PREFIX, question_text
from searchgym.suites import Suite, get_suite, make_env, tasks
from searchgym.world.world import SPLITS

DEFAULT_MODEL = "searchgym-scripted"
_log = logging.getLogger(__name__)
_ROLE = re.compile(rf"^{MEMBER_PREFIX}(\S+) in a team", re.MULTILINE)
_QUESTION_START = question_text("")
HOSTILE_BODIES: tuple[bytes, ...] = (
    b"<html><body>502 Bad Gateway</body></html>",
    b'{"choices": []}',
    b"{not json",
    b'{"choices": [{"message": null}]}',
    b"[" * 50_000 + b"]" * 50_000,
    json.dumps({"choices": [{"message": {"content": None, "tool_calls": [
        {"id": 7, "function": {"name": "__import__('os').system", "arguments": "{\"cmd\": \"rm -rf /\""}}]}}]}).encode(),
    json.dumps({"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "c", "function": {"name": "calculator", "arguments": {"expression": "9**9**9**9**9"}}}] * 20}}]}).encode(),
    json.dumps({"choices": [{"message": {"content": "<tool_call>" + "{" * 5000}}]}).encode(),
    json.dumps({"choices": [{"message": {"content": ["x", 3, {"text": 5}]}}]}).encode(),
    json.dumps({"choices": [{"message": {"content": "A" * 50_000}}]}).encode(),
)
_BAD_REQUEST = b'{"error": {"message": "the body must be a chat request: a JSON object with a list of messages"}}'
#: the largest request body read (bytes); a longer one gets 413 unread, so a client cannot make it hold more
MAX_BODY = 64 << 20
#: seconds a request (its line, headers and body) may take to arrive, in all: a client that sends half
#: a body and waits gets 408, one that drips its headers is disconnected, instead of holding its
#: thread (and the socket) for ever; the default of ScriptedEndpoint's ``read_timeout``
READ_TIMEOUT = 30.0


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()


class _Server(ThreadingHTTPServer):
    """Why a long listen queue: the stdlib's 5 reset connections (ECONNRESET) when a client opened
    more at once (128 concurrent requests: 5 to 40 failed), as an RL framework's rollouts do."""

    request_queue_size = socket.SOMAXCONN
    daemon_threads = True


class _Recorder:
    """Wraps the oracle actor and keeps every action it writes, per agent."""

    def __init__(self, actor: Any) -> None:
        self.actor, self.actions = actor, {}

    def reset(self) -> None:
        self.actions = {}
        if hasattr(self.actor, "reset"):
            self.actor.reset()

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        out = self.actor.act(env, observation, info)
        for agent, action in (out.items() if isinstance(out, dict) else [("agent_0", out)]):
            self.actions.setdefault(agent, []).append(action)
        return out


def record_oracle(suite: Suite, splits: Sequence[str] = ("test", "dev"), seed: int = 0, kind: str = "oracle",
                  limit: int | None = None) -> dict[tuple[str, str], list]:
    """{(question, role or ""): [action text, ...]} of the text-mode oracle (or another baseline,
    ``kind="random"``) on every task of ``splits`` (the first ``limit`` of each, if given)."""
    from searchgym.baselines.harness_actors import baseline_actor

    recorder, script = _Recorder(baseline_actor(kind, suite, seed)), {}
    rule = answer_rule(suite)
    for split in splits:
        env = make_env(suite, split)
        for index, task in enumerate(tasks(suite, split)[:limit]):
            recorder.reset()
            if rule == "single":
                play_single(env, recorder, task.id, episode_seed(seed, index))
            else:
                play_parallel(env, recorder, task.id, episode_seed(seed, index), rule)
            team = play_rules(env).team_actions
            for agent, actions in recorder.actions.items():
                key = (task.question, agent if team else "")
                if not isinstance(actions[0], str):
                    raise TypeError(f"suite {suite.id!r} is not in text mode: the {kind} chose candidate indices")
                script.setdefault(key, actions)  # group members play identical oracles
        env.close()
    return script


#: What the endpoint serves: the body of a 404 (another path) and of a 405 (another method).
ROUTES = "POST /v1/chat/completions or GET /v1/models"
MAX_UNSCRIPTED = 10_000  # unscripted questions logged (and kept) at most: a client cannot grow them for ever
#: The longest stall, a day (1e308 was taken, and every reply was an HTTP 500: time.sleep's OverflowError).
MAX_STALL = 86400.0


def check_stall(stall: object, name: str = "stall") -> None:
    """A stall in seconds: a number in 0..MAX_STALL (-1 was taken, and then every reply failed in time.sleep)."""
    if isinstance(stall, bool) or not isinstance(stall, int | float) or not 0 <= stall <= MAX_STALL:
        raise ValueError(f"{name} must be a number of seconds in 0..{MAX_STALL:g} (how long each reply waits), got {stall!r}")


class ScriptedEndpoint:
    """The server (a context manager): ``base_url``, ``requests`` (how many were served), and
    ``kept`` (the request bodies, with ``keep_requests=True``)."""

    def __init__(self, suite: Suite | str, behaviour: str = "oracle", native: bool = False, stall: float = 0.0,
                 seed: int = 0, splits: Sequence[str] = ("test", "dev"), keep_requests: bool = False,
                 port: int = 0, limit: int | None = None, read_timeout: float | None = None) -> None:
        read_timeout = READ_TIMEOUT if read_timeout is None else read_timeout
        if isinstance(read_timeout, bool) or not isinstance(read_timeout, (int, float)) or \
                not 0 < read_timeout < math.inf:
            raise ValueError(f"read_timeout must be a number of seconds > 0 (how long a request may take to "
                             f"arrive), got {read_timeout!r}")
        self.read_timeout = float(read_timeout)
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {behaviour!r}; accepted: {', '.join(BEHAVIOURS)}")
        check_port(port)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be None or a positive int (tasks per split), got {limit!r}")
        check_stall(stall)
        if isinstance(splits, str):  # before: splits="dev" was read letter by letter: "unknown split 'd'"
            splits = (splits,)
        if not isinstance(splits, Sequence) or not all(split in SPLITS for split in splits):  # (): knows no task
            raise ValueError(f"splits must be a sequence of split names, each one of "
                             f"{', '.join(SPLITS)} (e.g. ('dev',)), got {splits!r:.60}")
        self.suite, self.behaviour, self.native, self.stall = get_suite(suite), behaviour, native, float(stall)
        self.port = port
        kind = SCRIPTED.get(behaviour)
        self.script = record_oracle(self.suite, splits, seed, kind, limit) if kind else {}
        self._scope = ", ".join(splits) + (f", the first {limit} of each" if limit else "")
        self.unscripted: dict[tuple[str, str], None] = {}  # (question, role) asked for but not scripted, in order
        self.requests = 0
        self.kept: list[dict] | None = [] if keep_requests else None  # the request bodies, when kept
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # --------------------------------------------------------------------------- replies
    def next_action(self, messages: list[dict]) -> str:
        # message_text: OpenAI's list-of-parts content (or a number) was an AttributeError on .rfind, and no reply
        first = next((message_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        at = first.rfind(_QUESTION_START)
        question = first[at + len(_QUESTION_START):].split("\n", 1)[0].strip() if at >= 0 else ""
        role = _ROLE.search(first)
        key = (question, role.group(1) if role else "")
        actions = self.script.get(key, [])
        if not actions:
            self._unscripted(question[:300], key[1])
        turn = sum(m.get("role") == "assistant" for m in messages)
        return actions[turn] if turn < len(actions) else "<answer>unknown</answer>"

    def _unscripted(self, question: str, role: str) -> None:
        """One warning (``searchgym serve``: on stderr) the first time a question has no script. Why: a task
        outside --splits/--limit was answered "unknown" silently (0.600 for `evaluate --limit 5`)."""
        with self._lock:
            new = (question, role) not in self.unscripted and len(self.unscripted) < MAX_UNSCRIPTED
            if new:
                self.unscripted[question, role] = None
        if new:
            shown = f"question {question[:120]!r}" if question else "a chat with no question in its first user message"
            _log.warning("no %s reply for %s%s (not among the scripted tasks: %s); replying <answer>unknown</answer>",
                         self.behaviour, shown, f" as {role}" if role else "", self._scope)

    def respond(self, body: bytes) -> tuple[int, bytes, str]:
        """(status, body, content type) of one request."""
        with self._lock:
            n = self.requests
            self.requests += 1
            if self.kept is not None:
                try:
                    self.kept.append(json.loads(body))
                except (ValueError, RecursionError):
                    self.kept.append({"unreadable": body[:200].decode("utf-8", "replace")})
        if self.behaviour == "hostile":
            return 200, HOSTILE_BODIES[n % len(HOSTILE_BODIES)], "application/json"
        try:
            request = json.loads(body)
            messages = request["messages"]
            if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
                raise TypeError("messages")
        except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: "[[[[..." nested deeper than json reads
            return 400, _BAD_REQUEST, "application/json"
        wrong = wrong_optional_field(request)
        if wrong:  # before: {"stream": "yes"} or {"tools": "x"} got a 200 as if the field were absent
            return 400, _error(wrong), "application/json"
        if self.behaviour == "prose":
            message: dict[str, Any] = {"role": "assistant", "content": f"I choose {n % 3}. Let me think about it."}
        else:
            if self.behaviour == "stall":
                time.sleep(self.stall)
            action = reader_action(messages) if self.behaviour == "reader" else self.next_action(messages)
            message = as_native(action, n, offers_answer(request)) if self.native else \
                {"role": "assistant", "content": action}
        model = request.get("model") if isinstance(request.get("model"), str) else DEFAULT_MODEL
        reply_id, served_by = f"chatcmpl-{n}", fingerprint(self.behaviour)  # it answers any model name: this says who
        if request.get("stream") is True:
            options = request.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            return 200, openai_replies.sse(openai_replies.chunks(reply_id, model, message, messages, include_usage,
                                                                 fingerprint=served_by)), "text/event-stream"
        return 200, json.dumps(openai_replies.completion(reply_id, model, message, messages,
                                                         fingerprint=served_by)).encode(), "application/json"

    def models(self) -> bytes:
        """``GET /v1/models``: one model, this endpoint."""
        return json.dumps({"object": "list", "data": [{"id": DEFAULT_MODEL, "object": "model", "created": 0,
                                                       "owned_by": "searchgym"}]}).encode()

    # ---------------------------------------------------------------------------- server
    def __enter__(self) -> Self:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            timeout = endpoint.read_timeout  # a write's bound; reads share one deadline per request

            def setup(self) -> None:
                super().setup()
                self.rfile.close()
                self.rfile = deadline_rfile(self.connection, endpoint.read_timeout)

            def handle_one_request(self) -> None:
                """Each request has read_timeout seconds to arrive in full (a socket timeout bounds one read
                only, so headers sent a byte every few seconds held the thread for ever); past it the
                stdlib closes the connection."""
                self.rfile.raw.start()
                super().handle_one_request()

            def do_POST(self) -> None:
                """A Content-Length that is no integer (was a ValueError and no reply), negative (was a read
                to end of stream, unbounded) or over MAX_BODY gets a 4xx unread, and a body that stops
                arriving 408 after READ_TIMEOUT; any other failure is a JSON 500, never a dropped connection.
                A path other than .../chat/completions is a 404 (any path was answered as a chat)."""
                if not self.path.partition("?")[0].rstrip("/").endswith("/chat/completions"):
                    self.close_connection = True  # its body is not read
                    self._send(404, _error(ROUTES), "application/json")
                    return
                if self.headers.get("Transfer-Encoding") is not None and self.headers.get("Content-Length") is None:
                    self.close_connection = True  # before: the chunked body was left unread and got a 400
                    self._send(411, _error("send the body with a Content-Length header; a chunked "
                                           "Transfer-Encoding is not accepted"), "application/json")
                    return
                raw = (self.headers.get("Content-Length") or "0").strip()
                if not (raw.isascii() and raw.isdigit()):  # "²" is a digit to str.isdigit, not to int
                    self.close_connection = True
                    self._send(400, _error(f"Content-Length must be a whole number of bytes, got {raw[:40]!r}"),
                               "application/json")
                    return
                if int(raw) > MAX_BODY:
                    self.close_connection = True
                    self._send(413, _error(f"the body is {int(raw)} bytes; accepted: at most {MAX_BODY}"),
                               "application/json")
                    return
                try:
                    body = self.rfile.read(int(raw))
                except TimeoutError:
                    self.close_connection = True
                    self._send(408, _error(f"the body did not arrive within {endpoint.read_timeout:g} seconds"),
                               "application/json")
                    return
                try:
                    reply = endpoint.respond(body)
                except Exception as error:  # noqa: BLE001 - a reply, not a traceback and a dropped connection
                    reply = 500, _error(f"the endpoint failed on this request ({type(error).__name__})"), \
                        "application/json"
                self._send(*reply)

            def do_GET(self) -> None:
                found = self.path.partition("?")[0].rstrip("/") in ("/models", "/v1/models")
                self._send(*((200, endpoint.models()) if found else (404, _error(ROUTES))), "application/json")

            def _not_allowed(self) -> None:
                """Any other method: 405 with JSON, as a wrong path gets 404 (before: the stdlib's HTML 501)."""
                self.close_connection = True  # a body it may have sent is not read
                self._send(405, _error(f"method not allowed: {ROUTES}"), "application/json", allow="GET, POST")

            do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_TRACE = do_CONNECT = _not_allowed

            def _send(self, status: int, payload: bytes, content_type: str, allow: str = "") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    if allow:
                        self.send_header("Allow", allow)
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped waiting (a stall past its timeout)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = _Server(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the endpoint is not running; use it as a context manager (with ScriptedEndpoint(...))")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"


__all__ = ["BEHAVIOURS", "HOSTILE_BODIES", "ScriptedEndpoint", "record_oracle"]
