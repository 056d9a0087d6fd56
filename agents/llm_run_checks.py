"""An LLM run's settings that depend on its env or on this machine, checked before any run folder.

Why: ``group_by='role'`` on an env without a team and ``generation_backend='vllm'`` with a
``random:`` preset or without vLLM installed failed in :class:`~searchgym.agents.llm_train.LLMTrainer`,
and guided decoding on a team env in its first rollout, after ``train --policy llm`` had written its
run folder (the corrected command was then refused as "a different run"). The trainer and the rollout
check the same again (a Python caller may skip the command).
"""

from __future__ import annotations

from typing import Any

from searchgym.registry import spec as env_spec

from .llm_policy import vllm_available


def check_grouping(config: Any, kind: str, declared_group_by: str | None) -> None:
    """``group_by`` other than "auto" needs a team: an env of ``kind`` "parallel" whose agents are
    not each an episode of their own (GroupSearchEnv declares ``metadata["group_by"] == "episode"``)."""
    if config.group_by != "auto" and (kind == "single" or declared_group_by == "episode"):
        raise ValueError(f"group_by={config.group_by!r} ({config.method}) compares each agent of a team with "
                         f"itself across a task's episodes; {config.env_id} has no team (use a team env, e.g. "
                         "TeamSearch-v0, or group_by='auto')")


def check_generation_backend(config: Any) -> None:
    """vLLM loads the weights itself, from a folder or hub id, and must be installed."""
    if config.generation_backend != "vllm":
        return
    if config.model.startswith("random:"):
        raise ValueError("vLLM loads a model from a path or hub id; random:<preset> models need the transformers "
                         "backend (generation_backend 'transformers' or 'kv')")
    if not vllm_available():
        raise ValueError("generation_backend='vllm' needs vLLM: pip install 'searchgym[vllm]' (or use "
                         "generation_backend 'transformers' or 'kv')")


def check_guided_env(config: Any, kind: str) -> None:
    """Guided decoding writes a single agent's tool calls and answers (``llm_reply_grammar``), not a
    team's ``<post>`` and ``<wait/>``: the rollout refuses it on a team or group env at its first episode."""
    if config.rollout.guided and kind != "single":
        raise ValueError(f"guided decoding writes a single agent's tool calls and answers, not a team's <post> and "
                         f"<wait/>; {config.env_id} is a multi-agent env: leave guided false there")


def check_llm_run(config: Any) -> None:
    """These checks, from the env's registration (its class's declared ``metadata``): nothing is built."""
    registered = env_spec(config.env_id)
    target = registered.load()
    metadata = getattr(target, "metadata", None) if isinstance(target, type) else None
    declared = metadata.get("group_by") if isinstance(metadata, dict) else None
    check_grouping(config, registered.kind, declared)
    check_generation_backend(config)
    check_guided_env(config, registered.kind)
