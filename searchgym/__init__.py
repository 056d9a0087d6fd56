"""searchgym: seeded fictional search worlds for training and comparing LLM search agents with RL.

>>> import searchgym
>>> env = searchgym.make("SearchQA-v0")            # Gymnasium, text tool calls
>>> env = searchgym.make("SearchQA-Candidates-v0")  # Gymnasium, candidate actions
>>> team = searchgym.make("TeamSearch-v0")          # PettingZoo ParallelEnv
>>> records = searchgym.tasks("searchqa-text-v2", "dev")  # task ids, chat prompts, tool schemas, answers
>>> env = searchgym.make_task_env("searchqa-text-v2", "dev", records[0].task_id)  # every reset plays it

The task API (``tasks``, ``make_task_env``, ``to_hf_dataset``, ``TaskRecord``) is imported on first
use, so ``import searchgym`` stays light.
"""

from __future__ import annotations

from typing import Any

from searchgym.registry import EnvSpec, make, make_aec, make_parallel, register, registered, spec

__version__ = "0.1.0"

_TASK_API = ("TaskRecord", "make_task_env", "tasks", "to_hf_dataset")

__all__ = ["EnvSpec", "TaskRecord", "__version__", "make", "make_aec", "make_parallel", "make_task_env", "register",
           "registered", "spec", "tasks", "to_hf_dataset"]


def __getattr__(name: str) -> Any:
    if name in _TASK_API:
        from searchgym import task_api

        return getattr(task_api, name)
    raise AttributeError(f"module 'searchgym' has no attribute {name!r}")
