"""MAPPO (Yu et al. 2022, "The Surprising Effectiveness of PPO in Cooperative Multi-Agent Games") and IPPO.

MAPPO: one shared actor (the shared Trainer's population, mode "shared"; the agent's role is in
the observation's header, e.g. "You are generalist_0 in a team of 2", which the policy
embeds; group-env agents are exchangeable attempts and need no id) and a centralised critic
V(s, a) on ``env.state()`` plus the agent's one-hot (:class:`StateCritic`). IPPO: the same, with
decentralised critics: V(o_a) from the policy's own value head on the agent's observation.

Per iteration, on the shared Trainer's batch (``tasks_per_iteration`` tasks x ``group_size``
episodes, the same data every method gets):

1. V_t = denormalize(critic(s_t, a)); GAE(gamma, lambda) with the registry's ``"gae"``
   estimator (gamma = 1, lambda = 0.95: ``AdvantageConfig``; episodes are at most a few rounds
   and the reward is terminal); targets G_t = A_t + V_t;
2. ValueNorm: update the running mean/std with G, train the critic on normalize(G);
3. advantages standardised over the batch (MAPPO's default);
4. ``ppo_epochs`` full-batch epochs (no mini-batch splitting): PPO clip 0.2 (no dual clip),
   entropy bonus 0.01, and the PPO2 clipped value loss (clip 0.2 in normalised units) for
   the critic (own Adam optimiser for MAPPO; summed into the actor's loss with weight
   ``value_coef`` for IPPO, whose critic is the actor's value head);
5. optional critic warm-up (verl's ``critic_warmup``, 0 by default): the first ``critic_warmup``
   iterations fit the critic only. From a supervised base the policy is competent and the critic
   knows nothing: MAPPO's first update moved the policy by an approximate KL of 0.137 on quick-v2
   (seed 0), and 0.017-0.070 after 3 warm-up iterations (seeds 0-2). It does not make the critic
   good (explained variance -0.13 to 0.34 after 6 such iterations) and it does not lift MAPPO's
   test success beyond the noise (README), so it stays off: each warm-up iteration is one fewer update.

Defaults (the method spec ``mappo`` / ``ippo`` in :mod:`searchgym.harness.method_specs`), with
why: 5 PPO epochs (the paper: 15 on easy MPE, 5 on hard maps, 10 as a general rule; 5 because
each batch is small (~500 steps) and a near-deterministic candidate policy overfits it with
more), clip 0.2 (the paper's recommendation: <= 0.2), learning rates = the shared Trainer's
``lr`` for actor and critic (the hash policy's tuned rate), value loss weight 1 (the paper's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from searchgym.agents.advantages import AdvantageConfig, AdvantageResult, compute_advantages
from searchgym.agents.calibration import standardize_advantages
from searchgym.agents.losses import policy_loss, value_loss
from searchgym.agents.trajectory import Trajectory

from .critics import CentralisedTrainer, StateCritic, ValueNorm


@dataclass
class MAPPOConfig:
    """MAPPO's own options (``TrainConfig.method``). PPO's clip, entropy bonus, value clip and
    epochs are the shared ``TrainConfig.loss`` / ``update_epochs``; the method spec sets them."""

    centralised: bool = True  # False: IPPO (the policy's value head on the agent's own observation)
    critic_lr: float | None = None  # None: the Trainer's lr
    critic_hidden: int = 64
    value_norm: bool = True
    standardize_advantages: bool = True
    critic_warmup: int = 0  # iterations whose update fits the critic only (see the module docstring)

    def __post_init__(self) -> None:
        if type(self.critic_warmup) is not int or self.critic_warmup < 0:
            raise ValueError(f"critic_warmup must be an int >= 0 (iterations that fit the critic only); "
                             f"got {self.critic_warmup!r}")
        if self.critic_warmup and not self.centralised:
            raise ValueError("critic_warmup needs MAPPO's centralised critic: IPPO's critic is the policy's value "
                             "head, which shares the policy's encoder, so fitting it moves the policy too")


def gae_with_values(groups: list[list[Trajectory]], values: list[np.ndarray],
                    config: AdvantageConfig) -> AdvantageResult:
    """GAE (registry estimator "gae") with each step's value replaced by ``values`` (one array per
    trajectory, in group order): how a critic other than the rollout's value head is plugged in."""
    it = iter(values)
    regrouped = []
    for group in groups:
        new_group = []
        for traj in group:
            v = np.asarray(next(it), dtype=np.float64)
            if v.shape != (len(traj),):
                raise ValueError(f"values for {traj.agent_id!r} have shape {v.shape}, expected ({len(traj)},)")
            steps = [replace(s, value=float(x)) for s, x in zip(traj.steps, v)]
            new_group.append(replace(traj, steps=steps))
        regrouped.append(new_group)
    return compute_advantages("gae", regrouped, config)


class MAPPOTrainer(CentralisedTrainer):
    """MAPPO (``centralised=True``) or IPPO on the shared Trainer; see the module docstring."""

    method_config_type = MAPPOConfig

    def __init__(self, config, out_dir=None, log=None, dev_tasks=None, strict_resume=False) -> None:
        self.mappo = MAPPOConfig(**config.method)
        self.method = "mappo" if self.mappo.centralised else "ippo"
        if not 0 < config.loss.eps_low <= 0.2 or not 0 < config.loss.eps_high <= 0.2:
            raise ValueError(f"MAPPO's PPO clip must be in (0, 0.2] (the paper's recommendation); got eps_low="
                             f"{config.loss.eps_low}, eps_high={config.loss.eps_high}")
        self.value_norm = ValueNorm(self.mappo.value_norm)
        super().__init__(config, out_dir=out_dir, log=log, dev_tasks=dev_tasks, strict_resume=strict_resume)

    def build_critic(self) -> None:
        if self.mappo.centralised:
            self.critic = StateCritic(self.state_dim, len(self.agents), self.mappo.critic_hidden).to(self.device)
            self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=self.mappo.critic_lr or self.config.lr)

    @property
    def record_state(self) -> bool:  # IPPO's critics read each agent's own observation only
        return self.mappo.centralised

    def normalised_values(self, trajectories: list[Trajectory], batch: dict[str, Any]) -> torch.Tensor:
        """The critic's predictions (normalised units) for every step, as seen when acting."""
        if not self.mappo.centralised:
            return torch.tensor(np.concatenate([t.values for t in trajectories]), device=self.device).float()
        with torch.no_grad():
            return self.critic(batch["states"], batch["agents"])

    def update(self, groups: list) -> dict[str, float]:
        cfg, loss_cfg = self.mappo, self.config.loss
        trajectories = [t for g in groups for t in g]
        batch = self.batch_tensors(trajectories)
        if cfg.centralised:
            batch["states"] = torch.as_tensor(np.concatenate([t.states for t in trajectories]), device=self.device)
        old_v = self.normalised_values(trajectories, batch)
        lengths = np.cumsum([len(t) for t in trajectories])[:-1]
        values = np.split(self.value_norm.denormalize(old_v.cpu().numpy().astype(np.float64)), lengths)
        result = gae_with_values(groups, values, self.config.advantage)
        returns = result.flat_returns()
        self.value_norm.update(returns)
        targets = torch.tensor(self.value_norm.normalize(returns), device=self.device).float()
        stats: dict[str, float] = {**result.stats, "value/target_mean": float(returns.mean()),
                                   "value/norm_mean": self.value_norm.stats.mean,
                                   "value/norm_std": float(np.sqrt(self.value_norm.stats.var))}
        agent_of = batch["agents"].tolist()
        warm = self.state.iteration < cfg.critic_warmup  # the critic only (MAPPOConfig refuses it for IPPO)
        if not warm:  # a warm-up iteration has no policy loss, so no advantages (nor their stats) to report
            adv = result.flat_advantages()
            if cfg.standardize_advantages:
                adv, s = standardize_advantages(adv)
                stats.update(s)
            adv_t = torch.tensor(adv, device=self.device).float()
        for _ in range(self.config.update_epochs):
            if not warm:
                new_logp, entropy, head_values, kl = self._evaluate_kl(batch["obs"], batch["actions"], agent_of)
                loss, loss_stats = policy_loss(new_logp, batch["old_logp"], adv_t, entropy, batch["seq"], loss_cfg,
                                               kl=kl)
                stats.update(loss_stats)
            if cfg.centralised:
                if not warm:
                    self.actor_step(loss)
                v_loss, v_stats = value_loss(self.critic(batch["states"], batch["agents"]), old_v, targets,
                                             batch["seq"], loss_cfg)
                self.critic_step(v_loss)
            else:
                v_loss, v_stats = value_loss(head_values, old_v, targets, batch["seq"], loss_cfg)
                self.actor_step(loss + loss_cfg.value_coef * v_loss)
            stats.update(v_stats)
        if warm:
            stats["mappo/critic_warmup"] = 1.0
        return stats

    def extra_state(self) -> dict[str, Any]:
        return {"value_norm": self.value_norm.state_dict()}

    def load_extra_state(self, state: dict[str, Any]) -> None:
        if "value_norm" in state:
            self.value_norm.load_state_dict(state["value_norm"])
