"""Greedy evaluation of an LLM policy on a text suite's split, batched across tasks.

Why: the harness plays one task at a time; a small model on a CPU is cheaper when many episodes
advance together (one generation batch per turn, the ``"kv"`` backend's cache across turns).
The tasks, env settings and success come from the suite and its env exactly as in the harness;
what is added is the share of replies the env could read as an action (no format error).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .llm_policy import LLMPolicy
from .llm_reply_count import ReplyCount
from .llm_rollout import RolloutConfig, collect_llm_single


@dataclass
class LLMEvaluation:
    split: str
    task_ids: list[str]
    successes: list[float]  # per task, 0/1
    replies: int
    unreadable: int
    generated_tokens: int
    seconds: float

    @property
    def success(self) -> float:
        return float(np.mean(self.successes)) if self.successes else 0.0

    @property
    def parse_rate(self) -> float:
        return 1.0 - self.unreadable / max(self.replies, 1)

    def summary(self) -> dict[str, Any]:
        return {"split": self.split, "tasks": len(self.task_ids), "success": self.success,
                "parse_rate": self.parse_rate, "replies": self.replies, "generated_tokens": self.generated_tokens,
                "generate_tokens_per_s": self.generated_tokens / max(self.seconds, 1e-9), "seconds": self.seconds}


def evaluate_llm(policy: LLMPolicy, suite: Any, split: str = "test", n_tasks: int | None = None,
                 config: RolloutConfig | None = None, batch: int = 50, seed: int = 0) -> LLMEvaluation:
    """One greedy episode per task of ``suite``'s ``split`` (the first ``n_tasks``), ``batch`` at a time."""
    from searchgym.suites import env_kind, make_env

    if env_kind(suite) != "single":
        raise ValueError(f"evaluate_llm plays single-agent text suites; {suite.id!r} runs {suite.env_id}")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    config = config or RolloutConfig()
    task_ids = [t.id for t in suite.tasks(split)][: n_tasks]
    envs = [make_env(suite, split).unwrapped for _ in range(min(batch, len(task_ids)))]
    if envs and envs[0].config.action_mode != "text":
        raise ValueError(f"suite {suite.id!r} is in {envs[0].config.action_mode!r} mode; an LLM needs a text suite")
    rng = np.random.default_rng(seed)
    successes, count, tokens = [], ReplyCount(), 0
    start = time.perf_counter()
    for j in range(0, len(task_ids), batch):
        chunk = task_ids[j:j + batch]
        groups, _ = collect_llm_single(envs, policy, chunk, 1, rng, config, greedy=True)
        for env, group in zip(envs, groups):
            episode = group[0]
            successes.append(float(episode.success))
            count.add_session(env.session)  # the harness's LLM actor counts its replies the same way
            tokens += episode.conversation.generated_tokens
    return LLMEvaluation(split, task_ids, successes, count.replies, count.unparsed, tokens,
                         time.perf_counter() - start)
