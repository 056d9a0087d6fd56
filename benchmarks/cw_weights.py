"""Which rounds CW-GRPO reinforces: the weight each kind of round gets, on real groups.

Groups come from a mixture policy on a suite's train tasks (each member, each round: with
probability p the oracle team's action, else a uniform admissible one), so they have reward
variance without a trained base. Per kind of round (the tool of the round's action), over the
rounds of successful trajectories (A_i > 0), it prints the share with contribution c = 1 and the
mean weight A_t / A_i that each rule gives:

- ``all_g1``: every non-final round shares (K - 1) A_i by softmax(c) (round_gamma = 1,
  ``cw_rounds="all"``, this project's cw_round before the fix);
- ``paper_inf``: the paper's released configuration (gamma = 100, which its code treats as
  infinity: w = c / sum(c), all zeros when sum(c) = 0; final round A_i);
- ``evid_g1``: the fix (``cw_rounds="evidence"``): only the rounds that can reveal gold
  evidence (lookups, clock, clarification) share their count times A_i by softmax(c); the
  calculator, post, wait and final rounds keep A_i;

and the net push on a kind: the mean advantage over all its rounds, successes and failures
(``mean_grpo`` for GRPO; a kind whose mean falls below GRPO's is pushed down relative to it). It also prints the
zero-variance share and the fraction of trajectories whose advantages differ from GRPO's.

    .venv/bin/python benchmarks/cw_weights.py --tasks 40 --group 8 --p 0.6 --seed 0
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np
from script_extras import require_extras
from suite_arg import count, describe, natural, probability, suite_of

from searchgym.baselines.team_oracle import TeamOracle
from searchgym.suites import get_suite, make_env

if TYPE_CHECKING:
    from searchgym.agents.trajectory import Trajectory

#: Each rule's AdvantageConfig settings (searchgym.agents imports torch, which main checks first).
RULES = {"all_g1": {"round_gamma": 1.0, "cw_rounds": "all"},
         "paper_inf": {"round_gamma": math.inf, "cw_rounds": "all", "cw_zero_sum": "zero"},
         "evid_g1": {"round_gamma": 1.0, "cw_rounds": "evidence"}}


class TooManyTasks(ValueError):
    """``--tasks`` above the suite's train tasks (known once its env is built)."""


def play(env, oracle: TeamOracle, task_id: str, seed: int, p: float, rng: np.random.Generator) -> list[Trajectory]:
    """One episode of the mixture policy; one trajectory per member that acted."""
    from searchgym.agents.trajectory import Step, Trajectory

    observations, _ = env.reset(seed=seed, options={"task_id": task_id})
    oracle.reset()
    steps: dict[str, list[Step]] = defaultdict(list)
    success: dict[str, bool] = {}
    while env.agents:
        planned = oracle.choose_actions(env)
        actions = {}
        for agent in env.agents:
            mask = np.asarray(observations[agent]["action_mask"]).astype(bool)
            follow = agent in planned and rng.random() < p
            actions[agent] = int(planned[agent]) if follow else int(rng.choice(np.flatnonzero(mask)))
        acted = {a: observations[a] for a in actions}
        observations, rewards, terms, truncs, infos = env.step(actions)
        for agent, action in actions.items():
            signals = infos[agent].get("signals", {})
            done = bool(terms.get(agent) or truncs.get(agent))
            steps[agent].append(Step({"candidates": list(acted[agent]["candidates"])}, action, 0.0, 0.0,
                                     float(rewards.get(agent, 0.0)), done, np.ones(1),
                                     {"contribution": float(signals.get("contribution", 0.0))}))
            if done:
                success[agent] = bool(infos[agent].get("success", False))
    return [Trajectory(s, agent_id=a, task_id=task_id, success=success.get(a, False)) for a, s in steps.items()]


def collect(suite_id: str, n_tasks: int, group: int, p: float, seed: int) -> list[list[Trajectory]]:
    """Per task, ``group`` episodes; grouped per agent (each member compared with itself, the team
    env's default)."""
    env = make_env(get_suite(suite_id), "train")
    rng = np.random.default_rng(seed)
    train = [t.id for t in env.unwrapped.tasks.tasks("train")]
    if n_tasks > len(train):  # before: numpy's "Cannot take a larger sample than population" traceback
        raise TooManyTasks(f"argument --tasks: {n_tasks} is more than the {len(train)} train tasks of {suite_id}")
    groups = []
    for t, index in enumerate(rng.choice(len(train), size=n_tasks, replace=False)):
        per_agent: dict[str, list[Trajectory]] = defaultdict(list)
        for e in range(group):
            for traj in play(env, TeamOracle(), train[index], seed * 100_003 + t * group + e, p, rng):
                per_agent[traj.agent_id].append(traj)
        groups.extend(per_agent.values())
    return groups


def table(groups: list[list[Trajectory]]) -> list[dict]:
    """One row per kind of round: counts, contribution share, mean weight per rule, net weights."""
    from searchgym.agents.advantages import AdvantageConfig, compute_advantages, grpo_group_advantages
    from searchgym.agents.round_kinds import round_kind

    grpo = compute_advantages("grpo", groups)
    results = {name: compute_advantages("cw_round", groups, AdvantageConfig(**settings))
               for name, settings in RULES.items()}
    rows: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    group_adv = {}
    for g in groups:
        for traj, a in zip(g, grpo_group_advantages(np.array([t.final_return for t in g]), 1e-6)):
            group_adv[id(traj)] = a
    for i, traj in enumerate(grpo.trajectories):
        a_i = group_adv[id(traj)]
        for k, step in enumerate(traj.steps):
            kind = ("final:" if k == len(traj) - 1 else "") + round_kind(step)
            row = rows[kind]
            row["net_grpo"].append(grpo.advantages[i][k])
            for name, res in results.items():
                row[f"net_{name}"].append(res.advantages[i][k])
            if a_i > 0:
                row["c"].append(step.contribution)
                for name, res in results.items():
                    row[name].append(res.advantages[i][k] / a_i)
    out = []
    for kind, row in sorted(rows.items(), key=lambda kv: (kv[0].startswith("final:"), -len(kv[1]["net_grpo"]))):
        line = {"kind": kind, "rounds": len(row["net_grpo"]), "in_success": len(row["c"]),
                "c=1": float(np.mean(row["c"])) if row["c"] else float("nan"),
                "mean_grpo": float(np.mean(row["net_grpo"]))}
        for name in RULES:
            line[name] = float(np.mean(row[name])) if row[name] else float("nan")
        for name in RULES:
            line[f"mean_{name}"] = float(np.mean(row[f"net_{name}"]))
        out.append(line)
    return out, grpo.stats, {n: r.stats for n, r in results.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    # the mixture policy follows the team oracle and reads candidate masks: a team suite in candidate mode
    parser.add_argument("--suite", default="quick-v2", type=suite_of("team-candidates"),
                        help="a team suite in candidate mode (default quick-v2)")
    parser.add_argument("--tasks", type=count, default=40, help="train tasks drawn (default 40)")
    parser.add_argument("--group", type=count, default=8, help="episodes per task: the group size (default 8)")
    parser.add_argument("--p", type=probability, default=0.6,
                        help="probability of following the oracle (default %(default)s)")
    parser.add_argument("--seed", type=natural, default=0, help="seed of the draws and episodes (default 0)")
    args = parser.parse_args(argv)
    require_extras(__file__, ["torch"])
    try:
        groups = collect(args.suite, args.tasks, args.group, args.p, args.seed)
    except TooManyTasks as exc:
        parser.error(str(exc))
    rows, grpo_stats, stats = table(groups)
    trajs = [t for g in groups for t in g]
    print(f"{args.suite}: {args.tasks} tasks x {args.group} episodes, p={args.p}, seed={args.seed}: "
          f"{len(trajs)} trajectories, success {np.mean([t.success for t in trajs]):.3f}, zero-variance groups "
          f"{grpo_stats['groups/zero_variance_fraction']:.3f}")
    for name, s in stats.items():
        print(f"  {name}: trajectories whose advantages differ from GRPO's "
              f"{s.get('estimator/differs_from_grpo_mean', 0.0):.3f}")
    names = list(RULES)
    header = ["kind", "rounds", "in_success", "c=1", *names, "mean_grpo", *(f"mean_{n}" for n in names)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        cells = [r["kind"], str(r["rounds"]), str(r["in_success"])] + [f"{r[h]:.2f}" for h in header[3:]]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
