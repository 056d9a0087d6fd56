"""The public task API: a split's tasks as chat-ready records, and an env that plays one task.

Frameworks (TRL, verifiers, OpenEnv, verl ...) want a dataset of prompts and a way to score a
rollout on one given task. :func:`tasks` gives, for a suite or an env id, one :class:`TaskRecord`
per task of a split: its id and question, the chat prompt (``messages``: the system text and the
env's own first observation in its chat form), the function schemas the model may call
(``tools``: the agent's tools, ``answer``, and a team's ``post_note``/``wait``) and the gold
``answers``. Answers are given on train and dev only: the test split's answers stay hidden (a
test record has ``answers=None``), so a dataset built from this API cannot leak them.
:func:`make_task_env` gives the suite's env with every ``reset`` on one task; :func:`to_hf_dataset`
the records as a Hugging Face ``datasets.Dataset`` (the optional ``hf`` extra).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym
from pettingzoo.utils.wrappers import BaseParallelWrapper

from searchgym.envs.tasks import reset_options
from searchgym.registry import base_env, make, registered
from searchgym.suites import RETIRED_SUITES, SUITES, Suite, make_env
from searchgym.suites import tasks as suite_tasks
from searchgym.tools.team_actions import chat_tools
from searchgym.world.model import Task
from searchgym.world.world import SPLITS

__all__ = ["ANSWER_SPLITS", "MEMBER_SYSTEM_PROMPT", "SYSTEM_PROMPT", "TaskRecord", "make_task_env", "tasks", "to_hf_dataset"]

#: The splits whose gold answers the API gives (never the test split).
ANSWER_SPLITS = ("train", "dev")
SYSTEM_PROMPT = ("You are a search agent. Answer the user's question by calling the tools you are given, "
                 "one call per turn, and finish by calling answer (or writing <answer>...</answer>).")
#: The default system message of a team member that cannot answer (before, it was told to finish by
#: calling answer, a tool it is not given: following it cost the invalid-action penalty).
MEMBER_SYSTEM_PROMPT = ("You are a search agent in a team. Work on the user's question by calling the tools you are "
                        "given, one call per turn; share what you find with post_note (or <post>...</post>) for the "
                        "teammate who answers, and wait when you have nothing to add.")


@dataclass
class TaskRecord:
    """One task as a framework reads it. ``agents`` (multi-agent envs only) holds each agent's own
    ``messages`` and ``tools``; ``messages``/``tools`` are then those of the first agent that may answer."""

    task_id: str
    question: str
    family: str
    split: str
    messages: list[dict[str, str]]
    tools: list[dict[str, Any]]
    answers: list[str] | None
    agents: dict[str, dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; accepted: {', '.join(SPLITS)}")


def task_source(suite_or_env_id: str | Suite, split: str) -> tuple[Any, list[Task]]:
    """(the env on ``split``, its tasks in order) for a suite (its frozen tasks) or an env id (all)."""
    _check_split(split)
    if not isinstance(suite_or_env_id, Suite | str):
        raise TypeError(f"give a suite id, a Suite or an env id, got {type(suite_or_env_id).__name__}")
    if isinstance(suite_or_env_id, Suite) or suite_or_env_id in SUITES:
        suite = suite_or_env_id if isinstance(suite_or_env_id, Suite) else SUITES[suite_or_env_id]
        return make_env(suite, split), suite_tasks(suite, split)
    if suite_or_env_id in RETIRED_SUITES:
        raise ValueError(RETIRED_SUITES[suite_or_env_id])
    env_ids = sorted(s.id for s in registered())
    if suite_or_env_id.removeprefix("searchgym/") in env_ids:
        env = make(suite_or_env_id, split=split)
        return env, list(base_env(env).tasks.tasks(split))
    raise ValueError(f"unknown suite or env id {suite_or_env_id!r}; suites: {', '.join(SUITES)}; "
                     f"env ids: {', '.join(env_ids)}")


def _sessions(env: Any) -> tuple[dict[str, Any], bool]:
    """The env's sessions by agent after a reset, and whether they are a team (posts and waits)."""
    base = base_env(env)
    if hasattr(base, "session"):
        return {"agent_0": base.session}, False
    return dict(base.sessions), hasattr(base, "blackboard")


def _chat(session: Any, team: bool, system_prompt: str) -> dict[str, Any]:
    prompt = session.prompt(team_actions=team, chat=True)
    if system_prompt == SYSTEM_PROMPT and not session.can_answer:  # the default, for a member who cannot answer
        system_prompt = MEMBER_SYSTEM_PROMPT
    messages = ([{"role": "system", "content": system_prompt}] if system_prompt else [])
    return {"messages": [*messages, {"role": "user", "content": prompt}],
            "tools": chat_tools(session.allowed, team_actions=team, answer=session.can_answer)}


def tasks(suite_or_env_id: str | Suite, split: str = "train", system_prompt: str = SYSTEM_PROMPT) -> list[TaskRecord]:
    """The tasks of ``split`` as :class:`TaskRecord` s, in the suite's fixed order.

    ``suite_or_env_id``: a suite id (``"searchqa-text-v2"``: its frozen tasks) or an env id
    (``"SearchQA-v0"``: every task of the split in the env's default world). ``answers`` is None
    on the test split. The chat prompt is the env's (``SearchSession.prompt(chat=True)``, meant
    for a template that renders ``tools``) after ``system_prompt`` (``""``: no system message; by default a team
    member that cannot answer gets :data:`MEMBER_SYSTEM_PROMPT`). ``messages`` and ``tools`` are for the text-mode suites and envs; a candidate-mode env takes
    the index of a listed action instead (its records still give ids, questions and answers).
    """
    if system_prompt is not None and not isinstance(system_prompt, str):  # was sent as the content: 5
        raise TypeError(f"system_prompt must be a string ('' or None: no system message), "
                        f"got {type(system_prompt).__name__} {system_prompt!r:.40}")
    env, chosen = task_source(suite_or_env_id, split)
    records = []
    try:
        for task in chosen:
            env.reset(seed=0, options={"task_id": task.id})
            sessions, team = _sessions(env)
            chats = {agent: _chat(s, team, system_prompt) for agent, s in sessions.items()}
            lead = next((a for a, s in sessions.items() if s.can_answer), next(iter(sessions)))
            records.append(TaskRecord(
                task.id, task.question, task.family, task.split, chats[lead]["messages"], chats[lead]["tools"],
                list(task.answers) if split in ANSWER_SPLITS else None,
                None if hasattr(base_env(env), "session") else chats))
    finally:
        env.close()
    return records


class _FixedTask(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A Gymnasium env whose every reset plays one task. It records its ``task_id`` (as Gymnasium's
    own wrappers do) so ``gymnasium.make(env.spec)`` remakes it; before, that and ``check_env(env)``
    failed: "_FixedTask wrapper does not inherit from `gymnasium.utils.RecordConstructorArgs`"."""

    def __init__(self, env: gym.Env, task_id: str) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, task_id=task_id)
        gym.Wrapper.__init__(self, env)
        self.task_id = task_id

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        return self.env.reset(seed=seed, options=_fixed_options(options, self.task_id))


def _fixed_options(options: dict[str, Any] | None, task_id: str) -> dict[str, Any]:
    """The options of a reset on ``task_id``. Why ``reset_options`` first: a list or a string gave
    "cannot convert dictionary update sequence" instead of the env's error naming what is accepted."""
    options = dict(reset_options(options) or {})
    if options.get("task_id", task_id) != task_id or "split" in options:
        raise ValueError(f"this env always plays task {task_id!r}; reset options may not choose another "
                         f"task or split (got {options})")
    return {**options, "task_id": task_id}


class _FixedTaskParallel(BaseParallelWrapper):
    """A PettingZoo ParallelEnv whose every reset plays one task. A module-level class holding its
    ``task_id``: the class used to be defined inside a function, so the env could not be pickled
    ("Can't pickle local object"), and a multiprocessing or Ray worker could not receive it."""

    def __init__(self, env: Any, task_id: str) -> None:
        super().__init__(env)
        self.task_id = task_id

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        return self.env.reset(seed=seed, options=_fixed_options(options, self.task_id))


def make_task_env(suite_or_env_id: str | Suite, split: str, task_id: str) -> Any:
    """The env of ``suite_or_env_id`` on ``split`` whose every ``reset`` plays task ``task_id``
    (a Gymnasium env, or a PettingZoo ParallelEnv for multi-agent ids). The task must be one
    that :func:`tasks` lists for that split."""
    env, chosen = task_source(suite_or_env_id, split)
    ids = [t.id for t in chosen]
    if task_id not in ids:
        env.close()
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        raise ValueError(f"task {task_id!r} is not in the {split} split of {suite_or_env_id!r} "
                         f"({len(ids)} tasks: {shown}); list them with searchgym.tasks(...)")
    if isinstance(env, gym.Env):
        return _FixedTask(env, task_id)
    return _FixedTaskParallel(env, task_id)


HF_INSTALL = "pip install 'searchgym[hf]'  (or: pip install datasets)"


def to_hf_dataset(suite_or_env_id: str | Suite, split: str = "train", system_prompt: str = SYSTEM_PROMPT) -> Any:
    """The records of :func:`tasks` as a ``datasets.Dataset``, one row per task.

    Columns: ``task_id``, ``question``, ``family``, ``split``, ``prompt`` (the chat messages, the
    conversational format TRL reads), ``tools`` (the function schemas as JSON text: their
    shapes differ per tool, which Arrow columns cannot hold; ``json.loads`` it) and ``answers``
    (None on test); multi-agent envs add ``agents`` (JSON text of each agent's messages and tools).
    """
    try:
        import datasets
    except ImportError as exc:
        raise ImportError(f"to_hf_dataset needs the Hugging Face `datasets` package: {HF_INSTALL}") from exc
    rows = []
    for record in tasks(suite_or_env_id, split, system_prompt):
        row = {"task_id": record.task_id, "question": record.question, "family": record.family,
               "split": record.split, "prompt": record.messages, "tools": json.dumps(record.tools),
               "answers": record.answers}
        if record.agents is not None:
            row["agents"] = json.dumps(record.agents)
        rows.append(row)
    return datasets.Dataset.from_list(rows)
