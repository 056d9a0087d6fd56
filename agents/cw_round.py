"""CW-GRPO's round-contribution estimator ("cw_round", arXiv 2604.14267), and where it departs
from the paper.

The rule: A_i is the GRPO advantage and c_k = u_k v_k the judge's contribution of round k (new
gold evidence and consistent). If A_i >= 0, the J shared rounds get A_i * J * w_k with
w = softmax(round_gamma * c) over them (round_gamma = inf: c / sum c), so they share J A_i and
the trajectory's total stays GRPO's; every other round keeps A_i. A failure (A_i < 0) keeps A_i
on every round.

Kept from the paper (its abstract and Figure 1, its released code and run script): c_k = u_k v_k (ours computed
exactly from the gold evidence by ``searchgym.judge``, theirs by an LLM judge); only successes
are redistributed (the paper judges only trajectories whose answer is right, a failure keeps
A_i on every round); the final round keeps A_i; the shared rounds share their count times A_i.
Differences we keep on purpose: round_gamma = 1 by default (the released run script sets
gamma = 100, which its code treats as infinity); at gamma = inf with every c = 0 the weights are
uniform (``cw_zero_sum="uniform"``; the paper's code gives those rounds 0, ``"zero"``).

Fixed here, ``cw_rounds="evidence"`` (the default): in the paper every round before the answer
is a search, and any search can earn u_k = 1. Here a calculator, post or wait round never reveals
evidence, so its c_k is always 0, and sharing over every non-final round (``cw_rounds="all"``,
the rule before) gave the steps a success needs less than A_i, or 0 at the paper's gamma, while
every failure still charged them the full A_i < 0: on balance they were pushed down. Now only the
rounds whose kind can reveal gold evidence (``round_kinds.EVIDENCE_KINDS``: the lookups, the
clock, the clarification) share; calculator, post and wait rounds keep A_i, as under GRPO.

Measured with ``benchmarks/cw_weights.py --tasks 40 --group 8 --p 0.6 --seed 0`` (quick-v1
train tasks, each member following the oracle team with probability 0.6, else uniform: 640
trajectories, success 0.47). Mean A_t / A_i over the rounds of successful trajectories, then
the mean advantage of the kind over all its rounds (GRPO / all, gamma 1 / the paper, gamma inf /
evidence, gamma 1)::

    kind            c=1    all   paper  evidence   mean A_t: GRPO   all   paper  evidence
    web_search      0.73   1.37  2.11   1.08                 0.03   0.22   0.60   0.07
    knowledge_base  0.58   1.27  1.75   1.01                -0.01   0.09   0.29  -0.00
    current_time    0.58   1.25  1.57   1.00                 0.02   0.12   0.24   0.01
    calculator      0      0.64  0      1.00                 0.33   0.12  -0.26   0.33
    post            0      0.66  0      1.00                 0.02  -0.11  -0.38   0.02
    wait            0      0.85  0      1.00                 0.02  -0.05  -0.35   0.02
    clarification   0      0.74  0      0.66                -0.03  -0.13  -0.39  -0.17
    final round     -      1     1      1

The clock is not among the rounds near 0: the judge counts its "clock" evidence as gold in
temporal tasks (c = 1 in 58% of its rounds in successes). The answer is the final round, always
A_i. The rounds near 0 are the calculator, posts and waits. Trajectories whose advantages differ
from GRPO's: 0.25 (all), 0.36 (paper), 0.16 (evidence).
"""

from __future__ import annotations

import numpy as np

from .advantages import (AdvantageConfig, EstimatorOutput, grpo_group_advantages, register_estimator,
                         reward_to_go, round_weights)
from .round_kinds import EVIDENCE_KINDS, UNKNOWN, round_kind
from .trajectory import Trajectory


def shared_rounds(traj: Trajectory, which: str) -> np.ndarray:
    """Indices of the non-final rounds that share the advantage: all of them (``"all"``), or
    those whose kind can reveal gold evidence (``"evidence"``; a round of unknown kind counts as
    one, so trajectories without candidate texts, such as the LLM trainer's, get the paper's rule)."""
    non_final = np.arange(len(traj) - 1)
    if which == "all":
        return non_final
    kinds = [round_kind(traj.steps[k]) for k in non_final]
    return np.array([k for k, kind in zip(non_final, kinds) if kind in EVIDENCE_KINDS or kind == UNKNOWN],
                    dtype=np.int64)


@register_estimator("cw_round")
def cw_round_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """CW-GRPO, round contribution: see the module docstring. J = 0 shared rounds: A_i."""
    group_adv = grpo_group_advantages(np.array([t.final_return for t in group]), config.eps)
    advs: list[np.ndarray] = []
    max_weights: list[float] = []
    differs: list[float] = []  # 1.0 where this trajectory's advantages are not GRPO's
    differs_positive: list[float] = []  # the same, over the trajectories with A_i > 0 only
    for a_i, traj in zip(group_adv, group):
        adv = np.full(len(traj), float(a_i), dtype=np.float64)
        shared = shared_rounds(traj, config.cw_rounds) if a_i >= 0 else np.zeros(0, dtype=np.int64)
        if shared.size:
            w = round_weights(traj.contributions[shared], config.round_gamma, config.cw_zero_sum)
            adv[shared] = a_i * shared.size * w
            max_weights.append(float(w.max()))
        differs.append(float(np.abs(adv - a_i).max() > 1e-9))
        if a_i > 0:
            differs_positive.append(differs[-1])
        advs.append(adv)
    diagnostics = {"differs_from_grpo": differs, "differs_among_positive": differs_positive}
    if max_weights:
        diagnostics["round_weight_max"] = max_weights
    return EstimatorOutput(advs, [reward_to_go(t.rewards, config.gamma) for t in group], diagnostics)
