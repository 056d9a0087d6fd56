"""Process-supervised advantage estimators: MT-PPO, GiGPO and an IGPO-style information gain.

Each is registered beside the outcome estimators of :mod:`.advantages` and reads only what a
rollout stored: rewards, values, the judge's per-round signals (``Step.signals``), the
observations and the chosen candidates.

- ``"mt_ppo"`` (multi-turn PPO with process rewards, the CW-GRPO paper's process baseline):
  GAE(gamma, lambda) on shaped rewards r'_t = r_t + RETRIEVAL * u_t - INCONSISTENT * (1 - v_t)
  - SEARCH * search_t, with u_t the judge's "new gold evidence", v_t its "consistent with
  progress" and search_t 1 when the round called web_search or knowledge_base. Weights
  RETRIEVAL = 0.2 (a round that finds new gold evidence), INCONSISTENT = 0.05 (the format and
  consistency term: a repeated, ungrounded or failed action), SEARCH = 0.01 (a search costs a
  little, so retrieval is not farmed). Needs a value head.
- ``"gigpo"`` (Group-in-Group Policy Optimization, arXiv 2505.10978): A = A^E + omega * A^S.
  A^E is GRPO's episode advantage (R_i - mean R) / (std R + eps). A^S groups the steps of the
  group's trajectories by identical state (the observation text: an *anchor state*); within an
  anchor group of two or more steps, A^S_t = (G_t - mean G) / (std G + eps) with the discounted
  return G_t = sum_k gamma_step^k r_{t+k}; a state seen once gets A^S = 0. omega = 1,
  gamma_step = 0.95 (the paper's), std over the anchor group (ddof=0).
- ``"info_gain"`` (after IGPO, arXiv 2510.14967): the turn reward of round t is the increase in
  the probability the policy puts on a correct answer: IG_t = p_{t+1} - p_t, where p_t is the
  policy's probability mass on the admissible candidates that answer the task correctly in
  observation t (``Step.signals["gold_mass"]``, written by the trainer before the update:
  training-time supervision, like the judge; nothing an agent sees changes). The last round's
  reward is the outcome R. The group's per-round rewards (every round of every trajectory) are
  standardised, and A_t is the undiscounted sum of the standardised rewards from t on.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from .advantages import (
    AdvantageConfig,
    EstimatorOutput,
    _broadcast,
    gae,
    grpo_group_advantages,
    register_estimator,
    reward_to_go,
)
from .trajectory import Trajectory

RETRIEVAL = 0.2
INCONSISTENT = 0.05
SEARCH = 0.01
SEARCH_TOOLS = ("web_search(", "knowledge_base(")
GIGPO_OMEGA = 1.0
GIGPO_GAMMA = 0.95
GOLD_MASS = "gold_mass"


def chosen_text(step) -> str:
    return str(step.obs["candidates"][step.action]) if "candidates" in step.obs else ""


def process_rewards(traj: Trajectory) -> np.ndarray:
    """MT-PPO's shaped per-round rewards (see the module docstring)."""
    shaped = traj.rewards.copy()
    for t, step in enumerate(traj.steps):
        signals = step.signals
        shaped[t] += RETRIEVAL * float(signals.get("new_gold", 0.0))
        shaped[t] -= INCONSISTENT * (1.0 - float(signals.get("consistent", 1.0)))
        shaped[t] -= SEARCH * float(chosen_text(step).startswith(SEARCH_TOOLS))
    return shaped


@register_estimator("mt_ppo", needs_values=True)
def mt_ppo_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """GAE on the judge-shaped rewards; value targets = advantages + values."""
    advs, rets, bonus = [], [], []
    for traj in group:
        shaped = process_rewards(traj)
        adv = gae(shaped, traj.values, traj.dones, traj.bootstrap_value, config.gamma, config.gae_lambda)
        advs.append(adv)
        rets.append(adv + traj.values)
        bonus.append(float((shaped - traj.rewards).sum()))
    return EstimatorOutput(advs, rets, {"process_reward": bonus})


def anchor_step_advantages(group: list[Trajectory], gamma: float, eps: float) -> list[np.ndarray]:
    """GiGPO's A^S for every step of the group (0 for states that occur once)."""
    returns = [reward_to_go(t.rewards, gamma) for t in group]
    anchors: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i, traj in enumerate(group):
        for t, step in enumerate(traj.steps):
            anchors[str(step.obs.get("text", ""))].append((i, t))
    out = [np.zeros(len(t), dtype=np.float64) for t in group]
    for members in anchors.values():
        if len(members) < 2:
            continue
        values = np.array([returns[i][t] for i, t in members])
        if float(np.ptp(values)) <= 1e-12:
            continue
        normed = (values - values.mean()) / (values.std() + eps)
        for (i, t), a in zip(members, normed):
            out[i][t] = float(a)
    return out


@register_estimator("gigpo")
def gigpo_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """A = A^E (GRPO, broadcast) + omega * A^S (anchor-state step advantage)."""
    episode = _broadcast(grpo_group_advantages(np.array([t.final_return for t in group]), config.eps), group)
    step = anchor_step_advantages(group, GIGPO_GAMMA, config.eps)
    anchored = [float(np.mean(np.abs(s) > 0)) for s in step]
    return EstimatorOutput([e + GIGPO_OMEGA * s for e, s in zip(episode, step)],
                           [reward_to_go(t.rewards, config.gamma) for t in group], {"anchored_steps": anchored})


def information_gain_rewards(traj: Trajectory) -> np.ndarray:
    """IG_t = p_{t+1} - p_t for every round but the last, whose reward is the outcome R."""
    mass = np.array([float(s.signals.get(GOLD_MASS, 0.0)) for s in traj.steps])
    rewards = np.zeros(len(traj), dtype=np.float64)
    rewards[:-1] = mass[1:] - mass[:-1]
    rewards[-1] = traj.final_return
    return rewards


@register_estimator("info_gain")
def info_gain_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """Standardised turn rewards of the group, summed from each round to the end."""
    turn = [information_gain_rewards(t) for t in group]
    flat = np.concatenate(turn)
    if flat.size < 2 or float(np.ptp(flat)) <= 1e-12:
        normed = [np.zeros_like(r) for r in turn]
    else:
        normed = [(r - flat.mean()) / (flat.std() + config.eps) for r in turn]
    advs = [reward_to_go(n, 1.0) for n in normed]
    gain = [float(r[:-1].sum()) if len(r) > 1 else 0.0 for r in turn]
    return EstimatorOutput(advs, [reward_to_go(t.rewards, config.gamma) for t in group], {"information_gain": gain})
