"""Any OpenAI-compatible chat endpoint as a searchgym agent (vLLM, llama.cpp, hosted APIs).

``POST {base_url}/chat/completions`` with the conversation, through
:class:`searchgym.endpoint.chat_client.ChatClient` (the transport: retries, timeouts). The env's observation
is the user message (then, after each action, the env's reply: a ``tool`` message answering a native tool
call, a ``user`` message otherwise). The model's reply becomes the env action: its text, or its native
``tool_calls`` written as Hermes ``<tool_call>`` text (see :mod:`searchgym.endpoint.chat_replies`: several
calls in one reply are played in order, one per env step, each answered by its own tool message; calls past
the limit are refused with a message the model sees). With ``native_tools=True`` the request carries the
tool schemas (``answer`` for an agent that may answer, a team's ``post_note`` and ``wait`` included), the
first message is the chat form of the prompt (``SearchSession.prompt(chat=True)``: no tool list) and tool
results go back raw (``unwrap_tool_result``). Candidate-mode suites list the admissible actions, numbered,
and the reply is matched to one (by the action it writes, or by its number). Every turn records whether the
env could read it (``parsed``); :func:`reply_report` sums that up and warns when most replies were
unreadable (``searchgym evaluate`` puts it in ``result.json["endpoint"]``). When most requests got no usable
reply, :meth:`OpenAIActor.unfinished_reason` says so and the harness run ends without scores or DONE (see
:mod:`searchgym.endpoint.reply_checks`).

Robustness (see chat_client): a 200 that is no chat completion is a failed request; odd content goes to the
env, which scores it as a malformed action; nothing here raises on what a server sends. Each task has a
wall-clock ``timeout``, after which the agent writes an unparseable action until the step limit.

Concurrency: :func:`evaluate_openai` plays tasks on a thread pool, each on its own env. The harness plays
tasks one by one, so the harness actor (:func:`provider`, for ``searchgym evaluate --agent openai``) first
plays a whole split on the pool, recording every (observation, action), then replays the recorded actions as
the harness steps its env (identical seeds, so identical observations); should an observation differ, it
continues live from there. Transcripts: ``transcripts.jsonl`` (one line per agent and episode: task, split,
turns with the observation, the raw reply, the action, attempts, seconds, error and its kind: ``error_kind``,
one of ``chat_client.FAILURE_KINDS``, and the reply's ``system_fingerprint`` when it had one: the scripted
endpoint names itself there, :mod:`searchgym.endpoint.scripted_identity`).
"""

from __future__ import annotations

import json
import os
import threading
import time
import weakref
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from searchgym.action_types import ParseError
from searchgym.actions import parse_action
from searchgym.endpoint.chat_client import ChatClient, EndpointConfig, Reachability, Reply
from searchgym.endpoint.chat_episode import ChatEpisode, choose_candidate
from searchgym.endpoint.chat_replies import kept_text, reply_from_body
from searchgym.endpoint.chat_request import check_system_prompt
from searchgym.endpoint.reply_checks import UNPARSEABLE_WARNING_SHARE, reply_report, unanswered
from searchgym.envs.play_rules import play_rules
from searchgym.fileio import atomic_write_json, atomic_write_jsonl
from searchgym.harness.evaluate import (
    Prediction,
    answer_rule,
    as_rows,
    episode_seed,
    play_parallel,
    play_single,
    score_prediction,
)
from searchgym.harness.written_text import written_strings
from searchgym.suites import Suite, env_kind, get_suite, make_env, tasks
from searchgym.tools import chat_tools
from searchgym.tools.toolkit import TOOL_NAMES

SYSTEM_PROMPT = ("You are a search agent answering a question with tools. Each reply is exactly one action, "
                 "written in the format the user message shows; finish with <answer>...</answer>.")
API_KEY_ENV = ("SEARCHGYM_OPENAI_API_KEY", "OPENAI_API_KEY")


class OpenAIActor:
    """A harness Actor (single-agent or parallel suites, text or candidate mode) backed by an endpoint.

    ``replay``: {(task_id, agent): [(observation, action), ...]} recorded by a pool run; matching
    observations are answered from it without a request.
    """

    def __init__(self, config: EndpointConfig, system_prompt: str = SYSTEM_PROMPT, split: str = "",
                 replay: Mapping[tuple[str, str], list[tuple[str, Any]]] | None = None, transcripts: list | None = None,
                 prefetch: Any = None, reachability: Reachability | None = None) -> None:
        self.config, self.system_prompt = config, system_prompt
        self.client = ChatClient(config, reply_from_body, reachability)  # a pool's actors share one reachability
        self.replay = dict(replay or {})
        self.transcripts = transcripts if transcripts is not None else []
        self.prefetch = prefetch  # called with the task when the harness reaches a new task
        self.open: dict[str, Any] = {"task_id": "", "split": split, "episodes": {}}  # mutated in place
        self.records: dict[str, list] = {}
        self.deadline = 0.0
        self._lock = threading.Lock()

    @property
    def task_id(self) -> str:
        return self.open["task_id"]

    def reset(self) -> None:
        self.flush()
        self.records, self.deadline = {}, time.monotonic() + self.config.timeout

    def flush(self) -> None:
        """Move the open episode's live conversations into the transcripts."""
        flush_open(self.open, self.transcripts, self.config.model)

    def unfinished_reason(self) -> str | None:
        """Asked by the harness before it writes scores and DONE: why this run measured the server
        rather than the model (most requests got no reply), or None. The transcripts are written first."""
        self.flush()
        if self.prefetch is not None:
            write_transcripts(self.prefetch.path, self.transcripts)
        return unanswered(self.transcripts, self.config.url)

    def result_record(self) -> dict[str, Any]:
        """What result.json keeps (the harness asks once the splits are played, before DONE): the reply
        report, whose ``scripted`` names the scripted endpoint's behaviours when it played the run. Why
        here: the harness settles config.json's ``privileged`` from it (written before any reply came)."""
        self.flush()
        return {"endpoint": reply_report(self.transcripts)}

    def recording(self) -> dict[tuple[str, str], list]:
        """{(task_id, agent): [(observation fingerprint, action), ...]} of the current task."""
        return {(self.task_id, agent): list(record) for agent, record in self.records.items()}

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        base = env.unwrapped
        if self.deadline == 0.0:
            self.reset()
        if base.task.id != self.task_id:
            self.open["task_id"], self.open["split"] = base.task.id, base.task.split
            if self.prefetch is not None:
                self.prefetch(base.task)
                self.deadline = time.monotonic() + self.config.timeout
        if play_rules(base).answer_rule == "single":
            return self._act_agent(base.session, "agent_0", observation)
        live, team = list(observation), play_rules(base).team_actions
        with ThreadPoolExecutor(max_workers=max(len(live), 1)) as pool:
            actions = pool.map(lambda a: self._act_agent(base.sessions[a], a, observation[a], team), live)
        return dict(zip(live, actions))

    def _new_episode(self, session: Any, text: str, team: bool, candidate_mode: bool) -> ChatEpisode:
        """With native tools: the tools (and a team's post_note and wait) as functions, and the
        chat form of the first observation (no tool list; the rest of the text, a blackboard, kept)."""
        if not self.config.native_tools:
            return ChatEpisode(self.client, self.deadline, None, self.system_prompt)
        tools = chat_tools(session.allowed, team_actions=team and not candidate_mode,
                           answer=session.can_answer and not candidate_mode)
        chat_prompt = None
        if not candidate_mode:
            plain = session.prompt(team_actions=team)
            chat_prompt = session.prompt(team_actions=team, chat=True) + (text[len(plain):] if text.startswith(plain) else "")
        return ChatEpisode(self.client, self.deadline, tools, self.system_prompt, chat_prompt)

    def _act_agent(self, session: Any, agent: str, observation: Any, team: bool = False) -> Any:
        text = observation["text"] if isinstance(observation, dict) else str(observation)
        candidate_mode = isinstance(observation, dict) and "action_mask" in observation
        key = (self.task_id, agent)
        with self._lock:
            recorded = self.replay.get(key)
            done = self.records.setdefault(agent, [])
        if recorded is not None and len(done) < len(recorded) and recorded[len(done)][0] == _fingerprint(observation):
            done.append(recorded[len(done)])
            return recorded[len(done) - 1][1]
        if recorded is not None:
            with self._lock:
                self.replay.pop(key, None)  # diverged: live from here, the chat rebuilt from the record
        episodes = self.open["episodes"]
        episode = episodes.get(agent)
        if episode is None:
            episode = episodes[agent] = self._new_episode(session, text, team, candidate_mode)
            for seen, action in done:  # the replayed prefix, so the model sees its own earlier turns
                episode.messages += [{"role": "user", "content": seen},
                                     {"role": "assistant", "content": kept_text(str(action))}]
        if candidate_mode:
            shown = [f"{i}: {c}" for i, (c, ok) in enumerate(zip(observation["candidates"], observation["action_mask"])) if ok]
            reply = episode.reply_to(text + "\n\nCandidate actions:\n" + "\n".join(shown) +
                                "\nReply with the number of the action you choose (or write that action).")
            action: Any = choose_candidate(reply, list(session.candidates))
            episode.turns[-1]["action"] = action
            episode.turns[-1]["parsed"] = action != -1
        else:
            action = episode.reply_to(text)
            parsed = parse_action(action, session.config.tool_format, TOOL_NAMES, allow_team_actions=team)
            episode.turns[-1]["parsed"] = not isinstance(parsed, ParseError)
        done.append((_fingerprint(observation), action))
        return action


def flush_open(open_episode: dict[str, Any], transcripts: list, model: str) -> None:
    for agent, episode in open_episode["episodes"].items():
        if episode.unplayed():  # the episode ended before every call of the last reply had run
            episode.turns.append({"unplayed_calls": episode.unplayed(), "why": "the episode ended first"})
        if episode.turns:
            transcripts.append({"task_id": open_episode["task_id"], "split": open_episode["split"], "agent": agent,
                                "model": model, "source": "live", "turns": episode.turns})
    open_episode["episodes"].clear()


def _fingerprint(observation: Any) -> str:
    if isinstance(observation, dict):
        return json.dumps({k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in observation.items()},
                          sort_keys=True, default=str)
    return str(observation)


# ------------------------------------------------------------------------------ pool runs
class _LockedEnv:
    """Delegates to an env, serialising reset/step across threads (HTTP waits stay concurrent)."""

    lock = threading.Lock()

    def __init__(self, env: Any) -> None:
        self._env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return self._env.reset(*args, **kwargs)

    def step(self, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return self._env.step(*args, **kwargs)


def _play_one(suite: Suite, split: str, index: int, task: Any, seed: int, config: EndpointConfig,
              system_prompt: str, reachability: Reachability | None = None) -> tuple[Prediction, OpenAIActor]:
    actor = OpenAIActor(config, system_prompt, split, reachability=reachability)
    env = _LockedEnv(make_env(suite, split))
    rule = answer_rule(suite)
    try:
        if rule == "single":
            answer, steps, calls = play_single(env, actor, task.id, episode_seed(seed, index))
        else:
            answer, steps, calls = play_parallel(env, actor, task.id, episode_seed(seed, index), rule)
    finally:
        actor.flush()
        env.close()
    return score_prediction(task, answer, steps, calls), actor


def run_pool(suite: Suite, split: str, config: EndpointConfig, concurrency: int = 4, seed: int = 0,
             limit: int | None = None, system_prompt: str = SYSTEM_PROMPT,
             reachability: Reachability | None = None) -> tuple[list[Prediction], list[OpenAIActor]]:
    """Every task of the split on a thread pool (each on its own env, all sharing ``reachability``), in order."""
    if int(concurrency) < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency!r}")
    chosen = tasks(suite, split)[:limit] if limit else tasks(suite, split)
    reachability = reachability or Reachability()
    with ThreadPoolExecutor(max_workers=int(concurrency)) as pool:
        results = list(pool.map(lambda it: _play_one(suite, split, it[0], it[1], seed, config, system_prompt,
                                                     reachability), enumerate(chosen)))
    return [p for p, _ in results], [a for _, a in results]


def evaluate_openai(suite: Suite | str, model: str, base_url: str, api_key: str | None = None, concurrency: int = 4,
                    retries: int = 3, timeout: float = 60.0, out_dir: str | Path | None = None, split: str = "test",
                    seed: int = 0, limit: int | None = None, **endpoint: Any) -> list[Prediction]:
    """Score an endpoint on a suite's split; with ``out_dir``, write predictions.jsonl and transcripts.jsonl."""
    suite = get_suite(suite)
    config = EndpointConfig(model, base_url, _api_key(api_key), timeout, retries, **endpoint)
    predictions, actors = run_pool(suite, split, config, concurrency, seed, limit)
    if out_dir is not None:
        atomic_write_jsonl(Path(out_dir) / "predictions.jsonl", as_rows(predictions))
        write_transcripts(Path(out_dir) / "transcripts.jsonl", [t for a in actors for t in a.transcripts])
        atomic_write_json(Path(out_dir) / "endpoint.json", reply_report([t for a in actors for t in a.transcripts]))
    return predictions


def _api_key(api_key: str | None) -> str | None:
    return api_key or next((os.environ[k] for k in API_KEY_ENV if os.environ.get(k)), None)


class _Prefetcher:
    """Plays a split on the pool the first time the harness reaches one of its tasks."""

    def __init__(self, suite: Suite, seed: int, config: EndpointConfig, concurrency: int, system_prompt: str,
                 transcripts: list, path: Path | None, limit: int | None = None) -> None:
        self.suite, self.seed, self.config, self.concurrency, self.limit = suite, seed, config, concurrency, limit
        self.system_prompt, self.transcripts, self.path = system_prompt, transcripts, path
        self.done: set[str] = set()
        self.actor: OpenAIActor | None = None
        self.reachability = Reachability()  # the dev split's pool knows what the test split's found

    def __call__(self, task: Any) -> None:
        split = task.split
        if split in self.done or self.actor is None:
            return
        self.done.add(split)
        _, actors = run_pool(self.suite, split, self.config, self.concurrency, self.seed, self.limit,
                             self.system_prompt, self.reachability)
        for pool_actor in actors:
            self.transcripts.extend({**t, "source": "pool"} for t in pool_actor.transcripts)
            self.actor.replay.update(pool_actor.recording())
        write_transcripts(self.path, self.transcripts)


def write_transcripts(path: Path | None, rows: list) -> None:
    """Every string as predictions.jsonl writes an answer (``written_strings``; ``read_transcripts`` reads it
    back exactly). Why: a server's lone surrogate was written as the JSON escape ``\\ud800``, so pyarrow and
    jq refused the whole file, and an answer read differently there than in predictions.jsonl."""
    if path is not None:
        atomic_write_jsonl(path, [written_strings(row) for row in rows])


def provider(ctx: Any, model: str, base_url: str, api_key: str | None = None, concurrency: int = 4, retries: int = 3,
             timeout: float = 60.0, system_prompt: str = SYSTEM_PROMPT, **endpoint: Any) -> OpenAIActor:
    """``searchgym evaluate --agent openai``: an OpenAIActor that plays each split on a pool of
    ``concurrency`` threads, then replays; transcripts go to ``ctx.run_dir/transcripts.jsonl``.
    The API key comes from ``api_key`` or the environment (SEARCHGYM_OPENAI_API_KEY, OPENAI_API_KEY),
    so it is never written to the run's config.json."""
    config = EndpointConfig(model, base_url, _api_key(api_key), timeout, retries, **endpoint)  # it checks them
    check_system_prompt(system_prompt)
    path = Path(ctx.run_dir) / "transcripts.jsonl"
    transcripts: list = []
    write_transcripts(path, transcripts)
    prefetch = _Prefetcher(ctx.suite, ctx.seed, config, int(concurrency), system_prompt, transcripts, path,
                           getattr(ctx, "eval_limit", None))
    actor = OpenAIActor(config, system_prompt, transcripts=transcripts, prefetch=prefetch, reachability=prefetch.reachability)
    prefetch.actor = actor
    actor.end_run = weakref.finalize(actor, _final_write, actor.open, transcripts, path, model)
    return actor


def _check_options(options: dict) -> None:
    """What ``searchgym evaluate`` checks before any folder: the system prompt (a number went out as one)."""
    check_system_prompt(options.get("system_prompt", SYSTEM_PROMPT))


provider.check_options = _check_options  # type: ignore[attr-defined]


def _final_write(open_episode: dict, transcripts: list, path: Path, model: str) -> None:
    """When the run's evaluation ends (the harness calls the actor's ``end_run``), or else when the
    actor is dropped: keep the live conversations still open, write the file. Once: before, only at
    garbage collection, which could come long after the run (a later run in the same process), and
    rewrote a transcripts file someone had since cut, replaced, or redone."""
    flush_open(open_episode, transcripts, model)
    write_transcripts(path, transcripts)


__all__ = [
    "UNPARSEABLE_WARNING_SHARE",
    "ChatClient",
    "EndpointConfig",
    "OpenAIActor",
    "Reply",
    "choose_candidate",
    "env_kind",
    "evaluate_openai",
    "provider",
    "reply_from_body",
    "reply_report",
    "run_pool",
    "unanswered",
]
