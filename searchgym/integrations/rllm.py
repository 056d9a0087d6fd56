"""searchgym as an rLLM environment: a ``BaseEnv`` built per task by ``from_dict``.

rLLM's engine builds one env per dataset row with ``EnvClass.from_dict({**row, **env_args})``,
calls ``reset() -> (observation, info)`` and ``step(action) -> (observation, reward, done,
info)`` (four values). :class:`SearchgymRllmEnv` plays one task of a searchgym text suite;
:func:`rllm_rows` gives the rows (suite, split, task id, question: never the answers) to
register with rLLM's ``DatasetRegistry``. ``step`` takes what rLLM's ``ToolAgent`` sends, a list
of OpenAI-style tool calls (its ``finish`` call's ``response`` is read as the model's text, so
``<answer>...</answer>`` in it answers), or the model's text, or one call; the observation is
``{"tool_outputs": {call id: result}}`` for calls (each result without the env's
``<tool_response>`` wrapper: the ToolAgent makes it a ``tool`` message, which the chat template
wraps; an empty list or None is the env's format error as ``call_0``'s output), the env's
observation text for text. The reward is the
sum of searchgym's step rewards over the calls of that step.

rLLM is not on the package registry this project installs from (it is installed from its git
repository), so this module works with or without it: with ``rllm`` installed the env subclasses
its ``BaseEnv``; without it, :class:`RllmBaseEnvStandIn`, a minimal copy of the interface the
adapter relies on, so the adapter can be used and tested alone. ``RLLM_INSTALLED`` says which.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

import searchgym
from searchgym.actions import unwrap_tool_result
from searchgym.integrations.text_tasks import check_seed, row_seed, text_task_records

__all__ = ["RLLM_INSTALLED", "RllmBaseEnvStandIn", "SearchgymRllmEnv", "rllm_rows"]

#: The keys ``from_dict`` needs in a row.
ROW_KEYS = ("suite", "split", "task_id")


class RllmBaseEnvStandIn(ABC):
    """The interface of rLLM's ``rllm.environments.base.base_env.BaseEnv`` this adapter uses,
    for when rLLM is not installed: an ``idx``, ``reset``, a four-value ``step``, ``close``, a
    static ``from_dict`` factory and ``is_multithread_safe``."""

    @property
    def idx(self) -> Any:
        return getattr(self, "_idx", None)

    @idx.setter
    def idx(self, value: Any) -> None:
        self._idx = value

    @abstractmethod
    def reset(self) -> tuple[Any, dict]: ...

    @abstractmethod
    def step(self, action: Any) -> tuple[Any, float, bool, dict]: ...

    def close(self) -> None:
        return None

    @staticmethod
    @abstractmethod
    def from_dict(info: dict) -> RllmBaseEnvStandIn: ...

    @staticmethod
    def is_multithread_safe() -> bool:
        return True


try:
    from rllm.environments.base.base_env import BaseEnv as _Base

    RLLM_INSTALLED = True
except ImportError:
    _Base = RllmBaseEnvStandIn
    RLLM_INSTALLED = False


def _finish_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
    if isinstance(arguments, dict):
        return str(arguments.get("response", ""))
    return str(arguments)


def _field(call: Any, key: str) -> Any:
    """``key`` of a tool call (or its ``function``) given as a dict or as an OpenAI object."""
    return call.get(key) if isinstance(call, dict) else getattr(call, key, None)


class SearchgymRllmEnv(_Base):
    """One task of a single-agent searchgym text suite as an rLLM env."""

    def __init__(self, suite: str, split: str, task_id: str, seed: int = 0) -> None:
        seed = check_seed(seed, "the rLLM row's", optional=False)  # before: -1 failed only at reset, in Gymnasium
        self.suite, self.split, self.task_id, self.seed = suite, split, task_id, seed
        self._env = searchgym.make_task_env(suite, split, task_id)
        mode = getattr(getattr(self._env.unwrapped, "config", None), "action_mode", None)
        if hasattr(self._env, "possible_agents") or mode != "text":
            self._env.close()
            raise ValueError(f"suite {suite!r} is multi-agent or candidate-mode; the rLLM env plays single-agent "
                             f"text suites, e.g. searchqa-text-v2")
        self.done = False

    @staticmethod
    def from_dict(info: dict) -> SearchgymRllmEnv:
        """The env for one dataset row (:func:`rllm_rows` gives them; extra keys are ignored)."""
        if not isinstance(info, dict):
            raise ValueError(f"a searchgym row is a dict with {', '.join(ROW_KEYS)} (rllm_rows gives them), "
                             f"got {type(info).__name__}")
        missing = [key for key in ROW_KEYS if key not in info]
        if missing:
            raise ValueError(f"a searchgym row needs {', '.join(ROW_KEYS)} (rllm_rows gives them); missing: "
                             f"{', '.join(missing)}")
        seed = row_seed(info.get("seed", 0), "the rLLM row's")
        return SearchgymRllmEnv(info["suite"], info["split"], info["task_id"], seed)

    def reset(self) -> tuple[dict[str, str], dict[str, Any]]:
        text, info = self._env.reset(seed=self.seed)
        self.done = False
        return {"question": text}, info

    def _step_one(self, action: Any) -> tuple[str, float, dict[str, Any]]:
        text, reward, terminated, truncated, info = self._env.step(action)
        self.done = bool(terminated or truncated)
        return text, float(reward), info

    def step(self, action: Any) -> tuple[Any, float, bool, dict[str, Any]]:
        if self.done:
            raise RuntimeError("the episode is over (the agent answered or ran out of steps): reset() first")
        # a dict with neither "function" (OpenAI's call) nor "name" (the env's own) is no call: the env says so
        # (before: {"name", "arguments"} went this way too and came back as text, not as tool_outputs)
        if isinstance(action, str) or (isinstance(action, dict) and "function" not in action and "name" not in action):
            text, reward, info = self._step_one(action)
            return text, reward, self.done, info
        # a list of calls; else one call (a dict or an OpenAI object) or anything else, which the env
        # answers with its format error (before: ``list(action)`` raised on 5 and iterated an object)
        calls = list(action) if isinstance(action, (list, tuple)) else [] if action is None else [action]
        if not calls:  # no call at all: the env's format error, as the output of a call_0, as for any other list
            text, reward, info = self._step_one("")  # (before: a plain string, which the ToolAgent reads as a user turn)
            return {"tool_outputs": {"call_0": unwrap_tool_result(text)}}, reward, self.done, info
        outputs: dict[str, str] = {}
        total, info = 0.0, {}
        for index, call in enumerate(calls):
            function = _field(call, "function")
            move = _finish_text(_field(function, "arguments")) if _field(function, "name") == "finish" else call
            text, reward, info = self._step_one(move)
            key = str(_field(call, "id") or f"call_{index}")
            while key in outputs:  # an id met before in this reply (a repeat, or one spelled like a
                key = f"{key}_{index}"  # renamed repeat): keep every output (before: the first was lost)
            outputs[key] = unwrap_tool_result(text)  # before: the env's wrapper, then the template's
            total += reward
            if self.done:
                break
        return {"tool_outputs": outputs}, total, self.done, info

    def close(self) -> None:
        self._env.close()

    @staticmethod
    def is_multithread_safe() -> bool:
        """Each env owns its episode; the world's indexes are shared read-only (a test steps envs on threads)."""
        return True


def rllm_rows(suite: str, split: str, seed: int = 0) -> list[dict[str, Any]]:
    """One row per task for rLLM's ``DatasetRegistry.register_dataset(name, rows, split)``:
    ``suite``, ``split``, ``task_id``, ``seed``, ``question`` and ``data_source``; no answers (the
    reward comes from the env)."""
    check_seed(seed, "rllm_rows'", optional=False)
    rows = []
    for record in text_task_records(suite, split, "the rLLM env"):
        rows.append({"suite": suite, "split": split, "task_id": record.task_id, "seed": seed,
                     "question": record.question, "data_source": f"searchgym/{suite}"})
    return rows
