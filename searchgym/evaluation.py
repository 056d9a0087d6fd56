"""Running an agent over tasks and summarising what it did (success, F1, steps, tool calls).

A session agent has ``act(session) -> env action`` (the random and oracle baselines); the
envs hand it their live session. Results are plain dataclasses, ready for tables and JSONL.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from searchgym.envs.search import SearchEnv
from searchgym.envs.session import SearchSession


class SessionAgent(Protocol):
    name: str

    def act(self, session: SearchSession): ...


@dataclass(frozen=True)
class EpisodeResult:
    """One finished episode, as written to ``predictions.jsonl``."""

    task_id: str
    family: str
    answer: str | None
    success: bool
    f1: float
    score: float
    steps: int
    tool_calls: int
    reward: float


def run_episode(env: SearchEnv, agent: SessionAgent, task_id: str, seed: int = 0) -> EpisodeResult:
    """Play one episode of ``task_id`` with ``agent``; the env's own generator drives shuffling."""
    env.reset(seed=seed, options={"task_id": task_id})
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, _ = env.step(agent.act(env.session))
        total += reward
        done = terminated or truncated
    s = env.session
    return EpisodeResult(s.task.id, s.task.family, s.answer, bool(s.score and s.score.success),
                         s.score.f1 if s.score else 0.0, s.score.score if s.score else 0.0, s.steps,
                         s.tool_calls, total)


def summarise(results: Iterable[EpisodeResult]) -> dict[str, dict[str, float]]:
    """Mean success, F1, steps and tool calls per family, plus an ``all`` row."""
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for r in results:
        groups[r.family].append(r)
        groups["all"].append(r)
    table = {}
    for family, rs in sorted(groups.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        n = len(rs)
        table[family] = {
            "n": n,
            "success": sum(r.success for r in rs) / n,
            "f1": sum(r.f1 for r in rs) / n,
            "steps": sum(r.steps for r in rs) / n,
            "tool_calls": sum(r.tool_calls for r in rs) / n,
        }
    return table
