"""Trajectory records: what a rollout hands to the advantage estimators and losses.

One `Step` per decision of one agent; one `Trajectory` per agent per episode. In team envs
each agent gets its own trajectory (same `group_id`, different `agent_id`), so everything
computed per trajectory (contributions, round weights) is automatically per agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Keys of Step.signals the estimators read. "contribution" is the process judge's c_k = u_k * v_k
# (new gold evidence retrieved AND consistent with progress); the two factors are kept for logging.
CONTRIBUTION = "contribution"
NEW_GOLD = "new_gold"
CONSISTENT = "consistent"


@dataclass
class Step:
    """One decision: the observation seen, the candidate chosen and what the env returned.

    `log_prob` and `value` are the behaviour policy's numbers at acting time (PPO's "old" ones).
    `mask` is the action mask of `obs` (1 = admissible). `signals` holds the env's per-round
    process signals; `signals["contribution"]` in {0, 1} is what the round-contribution estimator uses.

    Centralised critics (MAPPO, COMA) also need `state` (the env's global `state()` when the agent
    acted, before the step) and `other_actions` (agent -> text of the candidate each *other* live
    agent chose in the same round; text, because candidate indices are per-agent shuffles). Both
    stay None unless the rollout was asked to record them (`collect_parallel(record_state=True)`).
    """

    obs: dict[str, Any]
    action: int
    log_prob: float
    value: float
    reward: float
    done: bool
    mask: np.ndarray
    signals: dict[str, float] = field(default_factory=dict)
    state: np.ndarray | None = None
    other_actions: dict[str, str] | None = None

    @property
    def contribution(self) -> float:
        """The judge's contribution c = u * v; falls back to new_gold * consistent, else 0."""
        if CONTRIBUTION in self.signals:
            return float(self.signals[CONTRIBUTION])
        if NEW_GOLD in self.signals and CONSISTENT in self.signals:
            return float(self.signals[NEW_GOLD]) * float(self.signals[CONSISTENT])
        return 0.0


@dataclass
class Trajectory:
    """All steps of one agent in one episode.

    `bootstrap_value` is V(s_T) for a trajectory cut by a budget (last step not done); GAE uses it
    as the value after the last step. For a finished episode (last step done) it is ignored.
    """

    steps: list[Step]
    agent_id: str = "agent_0"
    group_id: int | str = 0
    task_id: str = ""
    success: bool = False
    bootstrap_value: float = 0.0

    def __post_init__(self) -> None:
        if len(self.steps) == 0:
            raise ValueError(
                f"Trajectory(agent_id={self.agent_id!r}, task_id={self.task_id!r}) has no steps; "
                "a trajectory needs at least one Step."
            )

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def final_return(self) -> float:
        """R = sum of rewards (undiscounted): the group-relative estimators compare this."""
        return float(self.rewards.sum())

    @property
    def rewards(self) -> np.ndarray:
        return np.array([s.reward for s in self.steps], dtype=np.float64)

    @property
    def values(self) -> np.ndarray:
        return np.array([s.value for s in self.steps], dtype=np.float64)

    @property
    def contributions(self) -> np.ndarray:
        return np.array([s.contribution for s in self.steps], dtype=np.float64)

    @property
    def log_probs(self) -> np.ndarray:
        return np.array([s.log_prob for s in self.steps], dtype=np.float64)

    @property
    def actions(self) -> np.ndarray:
        return np.array([s.action for s in self.steps], dtype=np.int64)

    @property
    def dones(self) -> np.ndarray:
        return np.array([s.done for s in self.steps], dtype=bool)

    @property
    def observations(self) -> list[dict[str, Any]]:
        return [s.obs for s in self.steps]

    @property
    def states(self) -> np.ndarray:
        """[T, state_dim] global states (only for rollouts collected with record_state=True)."""
        if any(s.state is None for s in self.steps):
            raise ValueError(
                f"trajectory of {self.agent_id!r} has steps without a global state; collect it with "
                "collect_parallel(..., record_state=True) from an env that has state()"
            )
        return np.stack([np.asarray(s.state, dtype=np.float32) for s in self.steps])
