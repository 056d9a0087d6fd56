"""Centralised critics (MAPPO, COMA) and the Trainer subclass they share.

- :class:`ValueNorm`: the MAPPO paper's running value normalisation (PopArt without the output
  rescaling): value targets are normalised with running mean/std, predictions denormalised.
- :class:`StateCritic`: V(s, a) = MLP(LayerNorm([state, one_hot(agent)])) on ``env.state()``;
  the one-hot lets one network give each agent its own value (group env: own rewards).
- :class:`CandidateQCritic`: COMA's Q(s, u_-a, a, .): one Q per candidate of agent a.
- :class:`CentralisedTrainer`: the shared :class:`~searchgym.agents.train.Trainer` with
  rollouts that record ``state()`` and the other agents' actions, a critic and its optimiser
  in the checkpoint. Subclasses implement ``update`` (and build their critic).

The critics never train the actor: COMA's critic reads text embeddings of the actor's encoder
computed without gradient (backbone-agnostic: no second copy of an LM for the critic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from searchgym.agents.calibration import RunningMeanStd
from searchgym.agents.policy import CandidatePolicy, LexicalOverlap
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.trajectory import Trajectory
from torch import Tensor, nn


class ValueNorm:
    """Running mean/std of value targets (MAPPO's ValueNorm; Welford counts, not an EMA).

    ``update`` with every batch of targets *before* normalising them; the critic is trained on
    ``normalize(G)`` and read through ``denormalize(V)``. Off (``enabled=False``) it is the identity.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.stats = RunningMeanStd()

    def update(self, targets: np.ndarray) -> None:
        if self.enabled:
            self.stats.update(np.asarray(targets, dtype=np.float64))

    def normalize(self, x: np.ndarray) -> np.ndarray:
        return self.stats.normalize(x) if self.enabled else np.asarray(x, dtype=np.float64)

    def denormalize(self, x: np.ndarray) -> np.ndarray:
        return self.stats.denormalize(x) if self.enabled else np.asarray(x, dtype=np.float64)

    def state_dict(self) -> dict[str, float]:
        return {"mean": self.stats.mean, "var": self.stats.var, "count": self.stats.count}

    def load_state_dict(self, state: dict[str, float]) -> None:
        self.stats.mean, self.stats.var, self.stats.count = state["mean"], state["var"], state["count"]


def _layer(inp: int, out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    layer = nn.Linear(inp, out)
    nn.init.orthogonal_(layer.weight, std)  # MAPPO / CleanRL initialisation
    nn.init.zeros_(layer.bias)
    return layer


def one_hot(indices: Tensor, n: int) -> Tensor:
    return torch.nn.functional.one_hot(indices.long(), n).float()


class StateCritic(nn.Module):
    """V(s, a): MLP over LayerNorm([state, one_hot(a)]) (MAPPO: feature normalisation, ReLU, 2 layers)."""

    def __init__(self, state_dim: int, n_agents: int, hidden: int = 64) -> None:
        super().__init__()
        self.n_agents = n_agents
        inp = state_dim + n_agents
        self.net = nn.Sequential(nn.LayerNorm(inp), _layer(inp, hidden), nn.ReLU(), _layer(hidden, hidden), nn.ReLU(),
                                 _layer(hidden, 1, std=1.0))

    def forward(self, states: Tensor, agents: Tensor) -> Tensor:
        return self.net(torch.cat([states, one_hot(agents, self.n_agents)], dim=-1)).squeeze(-1)


@dataclass
class CriticInputs:
    """What COMA's critic reads for a batch of B steps (all tensors, no gradient to the actor).

    states [B, S]; agents [B] (index); e_obs [B, D] (the agent's observation embedding);
    e_others [B, D] (mean embedding of the candidate texts the other live agents chose that
    round, zeros when alone); e_cand [B, N, D]; overlap [B, N, F] (LexicalOverlap, or [B, N, 0]);
    mask [B, N] bool (admissible candidates).
    """

    states: Tensor
    agents: Tensor
    e_obs: Tensor
    e_others: Tensor
    e_cand: Tensor
    overlap: Tensor
    mask: Tensor


class CandidateQCritic(nn.Module):
    """COMA's critic: Q(s, u_-a, a, .)_j = MLP([h, e_j, e_obs * e_j, overlap_j]), one Q per candidate j.

    h = MLP(LayerNorm([state, one_hot(a), e_obs, e_others])): the joint context; u_-a enters as
    the mean embedding of the others' chosen candidate texts. Candidates are scored like the
    actor scores them (texts, not indices: candidate lists are shuffled per agent).
    """

    def __init__(self, state_dim: int, n_agents: int, embed_dim: int, n_overlap: int, hidden: int = 128) -> None:
        super().__init__()
        self.n_agents = n_agents
        inp = state_dim + n_agents + 2 * embed_dim
        self.context = nn.Sequential(nn.LayerNorm(inp), _layer(inp, hidden), nn.ReLU(), _layer(hidden, hidden), nn.ReLU())
        self.q_head = nn.Sequential(_layer(hidden + 2 * embed_dim + n_overlap, hidden), nn.ReLU(),
                                    _layer(hidden, 1, std=0.1))

    def forward(self, x: CriticInputs) -> Tensor:
        """Q [B, N] for every candidate (masked ones too: callers must ignore them)."""
        h = self.context(torch.cat([x.states, one_hot(x.agents, self.n_agents), x.e_obs, x.e_others], dim=-1))
        n = x.e_cand.shape[1]
        h_n = h.unsqueeze(1).expand(-1, n, -1)
        e_o = x.e_obs.unsqueeze(1).expand_as(x.e_cand)
        return self.q_head(torch.cat([h_n, x.e_cand, e_o * x.e_cand, x.overlap], dim=-1)).squeeze(-1)


@torch.no_grad()
def critic_inputs(policy: CandidatePolicy, trajectories: list[Trajectory], agent_index: Callable[[str], int]
                  ) -> CriticInputs:
    """Embed a batch's steps for the COMA critic with the actor's encoder (no gradient)."""
    steps = [s for t in trajectories for s in t.steps]
    obs = [s.obs for s in steps]
    e_obs, e_cand, mask, overlap = policy.embed(obs)
    if overlap is None:
        overlap = e_cand.new_zeros(*e_cand.shape[:2], 0)
    others = [list((s.other_actions or {}).values()) for s in steps]
    texts = list(dict.fromkeys(t for row in others for t in row))
    e_others = e_obs.new_zeros(e_obs.shape)
    if texts:
        emb = policy.encoder(texts).to(e_obs.device).float()
        where = {t: i for i, t in enumerate(texts)}
        for row, chosen in enumerate(others):
            if chosen:
                e_others[row] = emb[[where[t] for t in chosen]].mean(0)
    states = torch.as_tensor(np.concatenate([t.states for t in trajectories]), device=e_obs.device)
    agents = torch.tensor([agent_index(t.agent_id) for t in trajectories for _ in t.steps], device=e_obs.device)
    return CriticInputs(states, agents, e_obs.float(), e_others, e_cand.float(), overlap.float(), mask)


OVERLAP_FEATURES = LexicalOverlap.n_features
CRITIC_SEED_OFFSET = 7_919  # the critic's init seed is the run's seed + this (the actor's is the seed)


class CentralisedTrainer(Trainer):
    """The shared Trainer plus a critic: state-recording rollouts and a checkpointed critic.

    Subclasses set ``self.critic`` / ``self.critic_optimizer`` in ``build_critic`` and write
    ``update``; ``extra_state`` / ``load_extra_state`` add anything else to the checkpoint.
    """

    record_state = True

    method = "centralised"

    @staticmethod
    def check_env_id(env_id: str, method: str) -> None:
        """ValueError unless ``env_id`` is a multi-agent env: a critic on ``env.state()`` needs a group or
        team env. The trainer calls it, and ``harness.preflight`` before a comparison starts."""
        from searchgym.registry import spec as env_spec

        if env_spec(env_id).kind != "parallel":
            raise ValueError(f"{method} needs a multi-agent suite with a global state() (GroupSearchEnv or "
                             f"TeamSearchEnv); {env_id!r} is a single-agent env. Use grpo, dr_grpo or cw_grpo there.")

    def __init__(self, config: TrainConfig, out_dir: str | Path | None = None,
                 log: Callable[[dict], None] | None = None, dev_tasks: list[str] | None = None,
                 strict_resume: bool = False) -> None:
        self.check_env_id(config.env_id, self.method)
        super().__init__(config, out_dir=None, log=log, dev_tasks=dev_tasks,  # checkpoint: once the critic exists
                         strict_resume=strict_resume)
        self.agents = list(self.env.possible_agents)
        self.state_dim = int(self.env.state_space.shape[0])
        self.critic: nn.Module | None = None
        self.critic_optimizer: torch.optim.Optimizer | None = None
        with torch.random.fork_rng(devices=[]):  # the critic's initial weights follow the run's seed only
            torch.manual_seed(config.seed + CRITIC_SEED_OFFSET)
            self.build_critic()
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.resume()

    def build_critic(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def agent_index(self, agent_id: str) -> int:
        return self.agents.index(agent_id)

    def batch_tensors(self, trajectories: list[Trajectory]) -> dict[str, Any]:
        """Flat per-step tensors of a batch: obs list, actions, old log-probs, agent indices, seq ids."""
        dev = self.device
        return {
            "obs": [s.obs for t in trajectories for s in t.steps],
            "actions": torch.tensor(np.concatenate([t.actions for t in trajectories]), device=dev),
            "old_logp": torch.tensor(np.concatenate([t.log_probs for t in trajectories]), device=dev).float(),
            "agents": torch.tensor([self.agent_index(t.agent_id) for t in trajectories for _ in t.steps], device=dev),
            "seq": torch.tensor(np.concatenate([np.full(len(t), i) for i, t in enumerate(trajectories)]), device=dev),
        }

    def critic_step(self, loss: Tensor) -> None:
        assert self.critic is not None and self.critic_optimizer is not None
        self.critic_optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.critic.parameters(), self.config.max_grad_norm)
        self.critic_optimizer.step()

    # --------------------------------------------------------------------------- checkpoints
    def extra_state(self) -> dict[str, Any]:
        return {}

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restore what ``extra_state`` saved."""

    def state_dict(self) -> dict[str, Any]:
        blob = super().state_dict()
        if self.critic is not None:
            blob["critic"] = self.critic.state_dict()
        if self.critic_optimizer is not None:
            blob["critic_optimizer"] = self.critic_optimizer.state_dict()
        blob["extra"] = self.extra_state()
        return blob

    def load_state_dict(self, blob: dict[str, Any]) -> None:
        super().load_state_dict(blob)
        if self.critic is not None and "critic" in blob:
            self.critic.load_state_dict(blob["critic"])
        if self.critic_optimizer is not None and "critic_optimizer" in blob:
            self.critic_optimizer.load_state_dict(blob["critic_optimizer"])
        self.load_extra_state(blob.get("extra", {}))
