"""searchgym in verifiers (0.4, the ``verifiers.v1`` stack): ``load_environment(suite=..., split=...)``.

verifiers 0.4 builds an environment from a taskset (the tasks) and an ``Env`` (how one task
becomes one episode); each agent runs as a harness program that talks to the model through
verifiers' interception proxy. Here the taskset is the suite's split (each task's prompt is the
env's own first observation: the question, the tool list and the action format), and the
``Env`` plays searchgym host-side, as verifiers' own TextArena and OpenEnv environments do: each
reply of the model is one ``env.step`` (a ``<tool_call>`` or ``<answer>`` written as text), the
env's observation is the next user turn, and the episode ends when the env says so (an answer,
or its step limit). The reward is the suite's score of the answer (``searchgym_score``, what the
leaderboard scores: 1.0 for the oracle); the env's return (its step rewards summed) and success
are metrics. Only single-agent text suites fit (one model, one conversation).

verifiers resolves a taskset by a module name (``--env.taskset.id``); importing this module
registers it under :data:`TASKSET_ID`, so ``load_environment`` works from Python. verifiers 0.3
kept the classic ``MultiTurnEnv``/``ToolEnv`` stack beside ``v1``; 0.4 removed it, so only ``v1``
is provided.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from searchgym.extras import require
from searchgym.integrations.text_tasks import check_seed
from searchgym.registry import spec
from searchgym.shown import safe_repr
from searchgym.suites import get_suite, make_env
from searchgym.suites import tasks as suite_tasks
from searchgym.task_api import SYSTEM_PROMPT, make_task_env

vf = require("verifiers.v1", "searchgym.integrations.verifiers (verifiers >= 0.4, its v1 stack)")

__all__ = ["TASKSET_ID", "SearchGymEnv", "SearchGymTaskset", "evaluate", "load_environment"]

#: The id verifiers knows the taskset by (``--env.taskset.id``); its module name is this with "_".
TASKSET_ID = "searchgym-taskset"
SPLITS = ("train", "dev", "test")


class SearchGymTasksetConfig(vf.TasksetConfig):
    suite: str = "searchqa-text-v2"
    """A single-agent text suite (``searchgym suites``)."""
    split: str = "dev"
    """train, dev or test."""
    limit: int | None = None
    """Only the first ``limit`` tasks of the split (the suite's fixed order)."""
    seed: int = 0
    """The env's reset seed for every episode."""


class SearchGymData(vf.TaskData):
    info: dict
    """suite, split, task_id and seed: what the env replays the episode from."""


class SearchGymTask(vf.Task[SearchGymData, vf.State, vf.TaskConfig]):
    @property
    def key(self) -> str:
        return f"{self.data.info['suite']}/{self.data.info['split']}/{self.data.info['task_id']}"


class SearchGymEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig()
    """The one seat: the model under evaluation or training."""


def _check(suite_id: str, split: str, limit: object = None, seed: object = 0) -> None:
    # before: limit=-1 dropped the last task, limit=0 made an empty taskset, seed=-1 failed inside Gymnasium
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be None (every task) or an int >= 1, got {safe_repr(limit, 40)}")
    check_seed(seed, "the verifiers environment's", optional=False)
    suite = get_suite(suite_id)
    settings = {**spec(suite.env_id).kwargs, **suite.kwargs}
    if settings.get("action_mode", "text") != "text":
        raise ValueError(f"suite {suite_id!r} is not a text suite (its agents pick numbered candidates); "
                         "use a single-agent text suite such as searchqa-text-v2")
    if "TeamSearch" in suite.env_id or "GroupSearch" in suite.env_id:
        raise ValueError(f"suite {suite_id!r} is multi-agent; this environment plays one model per episode: "
                         "use a single-agent text suite such as searchqa-text-v2")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; accepted: {', '.join(SPLITS)}")


class SearchGymTaskset(vf.Taskset[SearchGymTask, SearchGymTasksetConfig]):
    """The suite's split: one task per searchgym task, its prompt the env's first observation."""

    def load(self) -> Iterator[SearchGymTask]:
        config = self.config
        _check(config.suite, config.split)
        env = make_env(get_suite(config.suite), config.split)
        try:
            for task in suite_tasks(get_suite(config.suite), config.split)[:config.limit]:
                observation, _ = env.reset(seed=config.seed, options={"task_id": task.id})
                yield SearchGymTask(SearchGymData(
                    id=task.id, name=task.id, prompt=observation, system_prompt=SYSTEM_PROMPT,
                    info={"suite": config.suite, "split": config.split, "task_id": task.id, "seed": config.seed}),
                    config.task)
        finally:
            env.close()


class SearchGymEnv(vf.Env[SearchGymEnvConfig]):
    """Plays one searchgym episode: each model reply is one env step, each observation a user turn."""

    async def run(self, task: SearchGymTask, agents: vf.Agents) -> None:
        info = task.data.info
        env = make_task_env(info["suite"], info["split"], info["task_id"])
        env.reset(seed=info["seed"])
        total, last = 0.0, {}
        try:
            async with agents.agent.interaction(task) as interaction:
                segment = await interaction.turn()
                while not segment.terminated:
                    observation, reward, terminated, truncated, last = env.step(segment.last_reply)
                    total += float(reward)
                    if terminated or truncated:
                        break
                    segment = await interaction.turn(observation)
        finally:
            env.close()
        trace = interaction.trace
        score = last.get("score", {}).get("score", 0.0) if last.get("answer") is not None else 0.0
        trace.record_reward("searchgym_score", float(score), 1.0)
        trace.record_metric("searchgym_return", total)
        trace.record_metric("searchgym_success", float(bool(last.get("success"))))
        trace.info["searchgym_answer"] = last.get("answer")


def load_environment(suite: str = "searchqa-text-v2", split: str = "dev", limit: int | None = None, seed: int = 0,
                     harness: str = "null", runtime: str = "subprocess", **env_config: Any) -> vf.Env:
    """The verifiers environment of a searchgym suite's split.

    ``harness`` (default ``null``: verifiers' plain chat program, no tools of its own) and
    ``runtime`` (default ``subprocess``: on this machine) choose how the agent runs;
    ``env_config`` is merged into the verifiers env config (``timeout``, ``retries``, ...)."""
    _check(suite, split, limit, seed)
    from verifiers.v1.utils.loaders import load_environment as vf_load_environment

    config = SearchGymEnvConfig.model_validate({
        **env_config,
        "taskset": {"id": TASKSET_ID, "suite": suite, "split": split, "limit": limit, "seed": seed},
        "agent": {"harness": {"id": harness}, "runtime": {"type": runtime}},
    })
    return vf_load_environment(config)


def evaluate(env: vf.Env, base_url: str, model: str, api_key_var: str = "OPENAI_API_KEY") -> list[vf.Episode]:
    """One episode per task of ``env``'s taskset, in process, as ``vf-eval`` runs them: the env's
    serving resources up, the model behind ``base_url`` (any OpenAI-compatible endpoint; its key
    read from the environment variable ``api_key_var``, "EMPTY" when unset). Each episode's
    trace holds ``rewards["searchgym_score"]`` and the ``searchgym_*`` metrics."""
    import asyncio

    client = vf.EvalClientConfig(base_url=base_url, api_key_var=api_key_var)
    context = vf.ModelContext(client=client, model=model, sampling=vf.SamplingConfig())

    async def run() -> list[vf.Episode]:
        async with env.serving():
            return [await env.run_episode(task, context) for task in env.taskset]

    return asyncio.run(run())


sys.modules.setdefault(TASKSET_ID.replace("-", "_"), sys.modules[__name__])  # how verifiers imports a taskset id
