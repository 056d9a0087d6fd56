"""searchgym as GEM environments: a ``gem.Env`` whose ``step`` takes the model's text.

GEM (``pip install 'searchgym[gem]'``, the ``gem-llm`` package) trains LLM agents on envs with
``reset(seed) -> (observation, info)`` and ``step(action: str) -> (observation, reward,
terminated, truncated, info)``. :class:`SearchgymGemEnv` is a text suite's split: the first
observation is the env's own prompt (the question, the tool list and the accepted formats,
for a model without a chat template's ``tools``), and ``step`` hands the model's text
(``<tool_call>{...}</tool_call>`` or ``<answer>...</answer>``; a structured call also works) to
the text-mode env, so rewards, format errors and the end of an episode are searchgym's own.
Importing this module registers ``searchgym:<suite>`` for each single-agent text suite, so
``gem.make("searchgym:searchqa-text-v2", split="train")`` works.

A reset plays the env's ``task_id`` if it was given one, else the task drawn by ``seed`` from the
split, else the next task in the split's order. Unlike GEM's own envs it never seeds the global
``random``/``numpy`` state (a seed goes to searchgym's env and a private generator only).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from searchgym.extras import require

require("gem", "searchgym.integrations.gem")  # the one-line install hint, not a traceback, without GEM
from gem.core import Env as GemEnv  # noqa: E402
from gem.envs.registration import ENV_REGISTRY, register  # noqa: E402

import searchgym
from searchgym.envs.config import check_episode_seed
from searchgym.integrations.text_tasks import check_seed, text_task_records
from searchgym.registry import refuse_unknown
from searchgym.text_suites import TEXT_SUITES

__all__ = ["ENV_PREFIX", "SearchgymGemEnv", "register_gem_envs"]

ENV_PREFIX = "searchgym:"
#: The keywords ``gem.make("searchgym:<suite>", ...)`` and ``spawn`` take.
ACCEPTED = ("suite", "split", "task_id", "seed")


class SearchgymGemEnv(GemEnv):
    """One split of a single-agent searchgym text suite as a multi-turn GEM env."""

    def __init__(self, suite: str = "searchqa-text-v2", split: str = "train", task_id: str | None = None,
                 seed: int = 0, **unknown: Any) -> None:
        # before: Python's "__init__() got an unexpected keyword argument", through gem.make, naming none accepted
        refuse_unknown(f"GEM env {ENV_PREFIX}{suite}", unknown, list(ACCEPTED))
        super().__init__()
        seed = check_seed(seed, "the GEM env's", optional=False)
        if task_id is not None and not isinstance(task_id, str):  # before: a list was "unhashable type: 'list'"
            raise ValueError(f"task_id must be a task id (str, searchgym.tasks) or None, got {type(task_id).__name__}")
        records = text_task_records(suite, split, "the GEM env")
        self.suite, self.split, self.fixed_task = suite, split, task_id
        self.records = {r.task_id: r for r in records}
        if task_id is not None and task_id not in self.records:
            raise ValueError(f"task {task_id!r} is not in the {split} split of {suite!r}; accepted: one of its "
                             f"{len(records)} task ids (searchgym.tasks)")
        self._order = list(self.records)
        self._next = 0
        self._rng = np.random.default_rng(seed)
        self._config = {"suite": suite, "split": split, "task_id": task_id, "seed": seed}
        self._env: Any = None
        self.task_id: str | None = None

    def _pick(self, seed: int | None) -> str:
        if self.fixed_task is not None:
            return self.fixed_task
        if seed is not None:
            return self._order[int(np.random.default_rng(seed).integers(len(self._order)))]
        chosen = self._order[self._next % len(self._order)]
        self._next += 1
        return chosen

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        if seed is not None:  # as the core env checks it: any non-negative int (before: up to 2**63-1)
            seed = check_episode_seed(seed)
        self.task_id = self._pick(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self._env is not None:
            self._env.close()
        self._env = searchgym.make_task_env(self.suite, self.split, self.task_id)
        return self._env.reset(seed=seed)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._env is None:
            raise RuntimeError("call reset() before step()")
        observation, reward, terminated, truncated, info = self._env.step(action)
        return observation, float(reward), bool(terminated), bool(truncated), info

    @property
    def question(self) -> str | None:
        """The current task's question; None before a reset, never an error: GEM's ``EnvWrapper``
        reads every public attribute when it wraps an env (before: wrapping a fresh env raised)."""
        return None if self.task_id is None else self.records[self.task_id].question

    def sample_random_action(self) -> str:
        """A well-formed action at random: search the question, or answer "unknown" (after a reset)."""
        question = self.question
        if question is None:  # before: half the draws answered "unknown" with no task played
            raise RuntimeError("call reset() first: no task is being played")
        if self._rng.random() < 0.5:
            call = {"name": "web_search", "arguments": {"query": question}}
            return f"<tool_call>{json.dumps(call)}</tool_call>"
        return "<answer>unknown</answer>"

    def spawn(self, same_state: bool = False, **kwargs: Any) -> SearchgymGemEnv:
        """A fresh env with the same configuration (``kwargs`` override it); ``same_state`` is refused:
        an episode is replayed by resetting the spawned env on the same ``task_id`` and seed."""
        if same_state:
            raise NotImplementedError("SearchgymGemEnv.spawn(same_state=True) is not supported; spawn with "
                                      "task_id=env.task_id and reset with the same seed instead")
        return SearchgymGemEnv(**{**self._config, **kwargs})

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None


def register_gem_envs() -> list[str]:
    """Register ``searchgym:<suite>`` in GEM for each single-agent text suite (again: no-op); the ids."""
    ids = []
    for suite, (env_id, _, _) in TEXT_SUITES.items():
        if env_id != "SearchQA-v0":
            continue  # team and group suites are multi-agent
        gem_id = ENV_PREFIX + suite
        if gem_id not in ENV_REGISTRY:
            register(gem_id, "searchgym.integrations.gem:SearchgymGemEnv", suite=suite)
        ids.append(gem_id)
    return ids


register_gem_envs()
