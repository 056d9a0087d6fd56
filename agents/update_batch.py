"""The flat per-step batch that one update of the candidate trainer reads.

Every tensor has one row per step of every trajectory, in the order of
``AdvantageResult.trajectories`` (the groups, flattened); ``seq_ids`` names each row's
trajectory for the loss aggregation, ``agent_of`` its agent (which member policy scores it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from .advantages import AdvantageResult


@dataclass
class UpdateBatch:
    """Observations, actions and their behaviour log-probs, calibrated advantages, value targets
    and the values the head predicted when acting."""

    obs: list[dict]
    agent_of: list[int]
    actions: Tensor
    old_log_probs: Tensor
    advantages: Tensor
    seq_ids: Tensor
    returns: Tensor
    old_values: Tensor

    @classmethod
    def build(cls, result: AdvantageResult, agent_of: list[int], stored_values: np.ndarray,
              device: torch.device) -> UpdateBatch:
        """From a calibrated result; ``stored_values`` are the rollout's, before any denormalisation."""
        trajectories = result.trajectories
        return cls(
            obs=[s.obs for t in trajectories for s in t.steps],
            agent_of=agent_of,
            actions=torch.tensor(np.concatenate([t.actions for t in trajectories]), device=device),
            old_log_probs=torch.tensor(np.concatenate([t.log_probs for t in trajectories]), device=device).float(),
            advantages=torch.tensor(result.flat_advantages(), device=device).float(),
            seq_ids=torch.tensor(result.seq_ids(), device=device),
            returns=torch.tensor(result.flat_returns(), device=device).float(),
            old_values=torch.tensor(stored_values, device=device).float(),
        )

    def __len__(self) -> int:
        return len(self.obs)

    def select(self, rows: list[int]) -> UpdateBatch:
        """The rows ``rows`` (a minibatch, or the steps of one member's agents)."""
        idx = torch.tensor(rows, device=self.actions.device)
        return UpdateBatch([self.obs[i] for i in rows], [self.agent_of[i] for i in rows], self.actions[idx],
                           self.old_log_probs[idx], self.advantages[idx], self.seq_ids[idx], self.returns[idx],
                           self.old_values[idx])
