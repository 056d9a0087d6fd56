"""searchgym as an OpenEnv environment server, with its typed Action, Observation, State and client.

OpenEnv (``pip install 'searchgym[openenv]'``, the ``openenv-core`` package) serves an
``Environment`` over HTTP and WebSocket: ``POST /reset``, ``POST /step``, ``GET /state``,
``GET /schema``, ``GET /health`` and the ``/ws`` session its ``EnvClient`` talks to. Each
WebSocket session gets its own :class:`SearchgymEnvironment`, so concurrent rollouts do not share
state. An action is one tool call, ``SearchgymAction(name=..., arguments={...})`` (``answer``
is a tool: ``name="answer", arguments={"answer": "..."}``); it goes to the text-mode env's
``step`` as the structured call that :func:`searchgym.actions.parse_tool_call` reads, so a bad
call is the env's own format error (an observation saying what is accepted), never a crash.
The observation's ``reward`` is the env's step reward, so an episode's rewards sum to the env's.

    python -m searchgym.integrations.openenv --suite searchqa-text-v2 --split dev --port 8000

The split is ``train`` unless given (a training server's rewards must not come from the test split,
the leaderboard's; TRL refuses it, GEM defaults to train too). A ``reset`` plays ``task_id`` if
given, else the task drawn by ``seed`` from the split's tasks, else the next task in the split's
order. Only single-agent text suites are served. Over plain HTTP, ``GET /state`` is OpenEnv's: a
fresh env's state, typed as OpenEnv's base ``State`` (``episode_id``, ``step_count``); the
episode's :class:`SearchgymState` comes over the ``/ws`` session (``EnvClient.state()``).
"""

from __future__ import annotations

import argparse
import json
import socket
from typing import Any

import numpy as np

from searchgym.extras import require

require("openenv", "searchgym.integrations.openenv")  # the one-line install hint, not a traceback, without OpenEnv
from fastapi import HTTPException  # noqa: E402
from openenv.core.client_types import StepResult  # noqa: E402
from openenv.core.env_client import EnvClient  # noqa: E402
from openenv.core.env_server.http_server import create_app  # noqa: E402
from openenv.core.env_server.interfaces import Environment  # noqa: E402
from openenv.core.env_server.types import (  # noqa: E402  # noqa: E402
    Action,
    EnvironmentMetadata,
    Observation,
    State,
    WSErrorCode,
    WSErrorResponse,
)
from pydantic import Field  # noqa: E402

import searchgym
from searchgym.endpoint import check_port
from searchgym.envs.config import check_episode_seed
from searchgym.integrations.text_tasks import text_task_records

__all__ = ["SearchgymAction", "SearchgymClient", "SearchgymEnvironment", "SearchgymObservation", "SearchgymState",
           "create_searchgym_app", "main"]

#: The info keys an observation carries (plain JSON values; the env's info holds more).
INFO_KEYS = ("task_id", "family", "step", "success", "answer", "format_error", "invalid", "reward_components")


class SearchgymAction(Action):
    """One tool call: a tool of the task (``tools`` of the reset observation) or ``answer``."""

    name: str = Field(..., description="the tool to call, e.g. web_search, knowledge_base, calculator or answer")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments by name")


class SearchgymObservation(Observation):
    """What the env shows: its text observation, the task, its tool schemas, and a JSON-safe info."""

    text: str = Field(default="", description="the env's observation: the question at reset, then each result")
    task_id: str = Field(default="", description="the task this episode plays")
    question: str = Field(default="", description="the task's question")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI function schemas of the tools")
    info: dict[str, Any] = Field(default_factory=dict, description="step, success, answer, reward_components ...")


class SearchgymState(State):
    """The episode's place: suite, split, task, reward so far and whether it has ended."""

    suite: str = ""
    split: str = ""
    task_id: str = ""
    total_reward: float = 0.0
    done: bool = False


class EpisodeRequestError(HTTPException, ValueError):
    """A reset or step the env cannot serve: HTTP 4xx with the message over HTTP, the message over
    the WebSocket session, a ValueError in Python."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(status_code=status_code, detail=message)


def _json_info(info: dict[str, Any]) -> dict[str, Any]:
    picked = {key: info[key] for key in INFO_KEYS if key in info}
    for key, value in picked.items():
        if isinstance(value, np.generic):
            picked[key] = value.item()
    return picked


class SearchgymEnvironment(Environment[SearchgymAction, SearchgymObservation, SearchgymState]):
    """A searchgym text suite's split as an OpenEnv ``Environment`` (one instance per session)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, suite: str = "searchqa-text-v2", split: str = "train") -> None:
        super().__init__()
        self.suite, self.split = suite, split
        self.records = {r.task_id: r for r in text_task_records(suite, split, "the OpenEnv server")}
        self._order = list(self.records)
        self._next = 0
        self._env: Any = None
        self._state = SearchgymState(suite=suite, split=split)

    def _pick(self, seed: int | None, task_id: str | None) -> str:
        """Why the type checks: over the /ws session OpenEnv passes reset's data unvalidated, so a
        seed of -1, "abc" or 1.5 failed in NumPy ("expected non-negative integer", no field named)
        and a list task_id as "unhashable type: 'list'"; now each is a 422 naming the field. A seed is
        checked as the core env checks its own (any non-negative int; before: at most 2**63-1)."""
        if seed is not None:
            try:
                seed = check_episode_seed(seed)
            except ValueError as exc:
                raise EpisodeRequestError(422, str(exc)) from None
        if task_id is not None and not isinstance(task_id, str):
            raise EpisodeRequestError(422, f"task_id must be a string (a task id, searchgym.tasks) or null, "
                                           f"got {type(task_id).__name__}")
        if task_id is not None:
            if task_id not in self.records:
                raise EpisodeRequestError(422, f"task {task_id!r} is not in the {self.split} split of {self.suite!r}; "
                                 f"accepted: one of its {len(self._order)} task ids (searchgym.tasks)")
            return task_id
        if seed is not None:
            return self._order[int(np.random.default_rng(seed).integers(len(self._order)))]
        chosen = self._order[self._next % len(self._order)]
        self._next += 1
        return chosen

    def reset(self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None,
              **kwargs: Any) -> SearchgymObservation:
        chosen = self._pick(seed, task_id)
        if self._env is not None:
            self._env.close()
        self._env = searchgym.make_task_env(self.suite, self.split, chosen)
        text, info = self._env.reset(seed=seed)
        self._state = SearchgymState(episode_id=episode_id or f"{chosen}:{seed}", step_count=0, suite=self.suite,
                                     split=self.split, task_id=chosen)
        record = self.records[chosen]
        return SearchgymObservation(text=text, task_id=chosen, question=record.question, tools=record.tools,
                                    info=_json_info(info), done=False, reward=0.0)

    def step(self, action: SearchgymAction, timeout_s: float | None = None, **kwargs: Any) -> SearchgymObservation:
        if self._env is None or self._state.done:
            raise EpisodeRequestError(409, "no episode is running: call reset first (an episode ends when the agent "
                                           "answers or runs out of steps; over plain HTTP every request gets a "
                                           "fresh env, as OpenEnv serves it: play episodes over the /ws session "
                                           "that OpenEnv's EnvClient opens)")
        text, reward, terminated, truncated, info = self._env.step({"name": action.name, "arguments": action.arguments})
        state = self._state
        state.step_count += 1
        state.total_reward += float(reward)
        state.done = bool(terminated or truncated)
        record = self.records[state.task_id]
        return SearchgymObservation(text=text, task_id=state.task_id, question=record.question, tools=record.tools,
                                    info=_json_info(info), done=state.done, reward=float(reward))

    @property
    def state(self) -> SearchgymState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="searchgym", version=searchgym.__version__,
                                   description=f"searchgym suite {self.suite} ({self.split} split): answer questions "
                                               f"about a fictional world by calling search tools")

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None


#: What a /ws message must be (OpenEnv's protocol), as the error replies say it.
WS_ACCEPTED = ('each message is a text frame holding a JSON object {"type": "reset" | "step" | "state" | "close", '
               '"data": {...}}')
_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean",
               type(None): "null"}


def ws_message_problem(message: dict[str, Any]) -> str | None:
    """Why a received /ws frame would end OpenEnv's session loop (None: hand it on).

    OpenEnv reads ``message["type"]`` of whatever JSON arrives, outside its per-message error
    handling, so JSON that is not an object (``[1,2]``, ``"x"``, ``3``), a binary frame, and JSON its
    ``json.loads`` raises on other than as invalid (nested past the recursion limit, an integer
    past Python's 4,300 digits) closed the session. Invalid JSON it answers itself."""
    if message.get("type") != "websocket.receive":
        return None
    text = message.get("text")
    if text is None:
        return f"a binary frame is not accepted; {WS_ACCEPTED}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    except (ValueError, RecursionError) as exc:
        return f"the message cannot be read ({str(exc)[:100]}); {WS_ACCEPTED}"
    if isinstance(value, dict):
        return None
    return f"the message is {_JSON_KINDS.get(type(value), 'not an object')}, not a JSON object; {WS_ACCEPTED}"


class WsObjectMessagesOnly:
    """ASGI middleware: answers a /ws frame that :func:`ws_message_problem` refuses with OpenEnv's
    error reply and reads the next one, so the session keeps serving, as after any other bad message.

    It also lets the close OpenEnv's session handler sends after the client has gone fail quietly:
    that close raised ``ClientDisconnected`` past the handler (it catches only ``RuntimeError``), and
    the server printed a 60-line "Exception in ASGI application" traceback for a session that ended
    normally (about one in three sessions of the documented example)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket" or scope.get("path") != "/ws":
            await self.app(scope, receive, send)
            return
        gone = False

        async def receive_readable() -> dict[str, Any]:
            nonlocal gone
            while True:
                message = await receive()
                gone = gone or message.get("type") == "websocket.disconnect"
                problem = ws_message_problem(message)
                if problem is None:
                    return message
                reply = WSErrorResponse(data={"message": problem, "code": WSErrorCode.VALIDATION_ERROR})
                await send({"type": "websocket.send", "text": reply.model_dump_json()})

        async def send_while_connected(message: dict[str, Any]) -> None:
            if message.get("type") != "websocket.close":
                await send(message)
            elif not gone:  # else nobody is left to close it for
                try:
                    await send(message)
                except OSError:  # the client closed first (uvicorn's ClientDisconnected): the session is over
                    pass

        await self.app(scope, receive_readable, send_while_connected)


def create_searchgym_app(suite: str = "searchqa-text-v2", split: str = "train", max_concurrent_envs: int = 8) -> Any:
    """The OpenEnv FastAPI app serving ``suite``'s ``split``; builds the world once, before serving. Why
    train by default: with ``test`` a training server rewarded on the leaderboard's split unless told not to."""
    if type(max_concurrent_envs) is not int or max_concurrent_envs < 1:  # else pydantic's validation dump
        raise ValueError(f"max_concurrent_envs must be an integer >= 1 (sessions served at once); "
                         f"got {max_concurrent_envs!r}")
    SearchgymEnvironment(suite, split).close()  # fails fast on a bad suite or split, and warms the world
    app = create_app(lambda: SearchgymEnvironment(suite, split), SearchgymAction, SearchgymObservation,
                     env_name="searchgym", max_concurrent_envs=max_concurrent_envs)
    app.add_middleware(WsObjectMessagesOnly)
    return app


class SearchgymClient(EnvClient[SearchgymAction, SearchgymObservation, SearchgymState]):
    """OpenEnv's WebSocket client, typed for searchgym (``with SearchgymClient(base_url=url).sync() as env``)."""

    def _step_payload(self, action: SearchgymAction) -> dict[str, Any]:
        return {"name": action.name, "arguments": action.arguments}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SearchgymObservation]:
        observation = SearchgymObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                                           done=payload.get("done", False))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> SearchgymState:
        return SearchgymState(**payload)


def _unbindable(host: str, port: int) -> str:
    """Why the server could not listen on (host, port), in one line; empty when it can (a probe bind,
    with uvicorn's SO_REUSEADDR, closed at once)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:  # socket.gaierror too: a name that does not resolve
        why = exc.strerror or str(exc)
        return (f"cannot listen on --host {host} --port {port} ({why}); give an address of this machine "
                "(127.0.0.1, 0.0.0.0) and a free port")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m searchgym.integrations.openenv",
                                     description="Serve a searchgym text suite as an OpenEnv environment.")
    parser.add_argument("--suite", default="searchqa-text-v2", help="a single-agent text suite (default: %(default)s)")
    parser.add_argument("--split", default="train", choices=("train", "dev", "test"),
                        help="the split whose tasks are served (default: %(default)s; test is the leaderboard's "
                             "split: serve it to evaluate, never to train)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="(default: %(default)s)")
    parser.add_argument("--max-concurrent-envs", type=int, default=8,
                        help="WebSocket sessions served at once, each with its own env (default: %(default)s)")
    args = parser.parse_args(argv)
    # before: --port 70000 built the world, then uvicorn's "OverflowError: bind(): port must be 0-65535"
    # traceback; --max-concurrent-envs 0 a pydantic ValidationError traceback
    try:
        check_port(args.port, "--port")
    except ValueError as exc:
        parser.error(str(exc))
    if args.max_concurrent_envs < 1:
        parser.error(f"--max-concurrent-envs must be an int >= 1, got {args.max_concurrent_envs}")
    problem = _unbindable(args.host, args.port)
    if problem:  # before: after building the world, uvicorn's log lines ending in exit code 3
        parser.error(problem)
    import uvicorn

    try:
        app = create_searchgym_app(args.suite, args.split, args.max_concurrent_envs)
    except ValueError as exc:
        parser.error(str(exc))
    uvicorn.run(app, host=args.host, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
