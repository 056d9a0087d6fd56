"""Multi-agent env speed: team rounds and group steps against a CartPole step, on the same tasks.

Run: ``.venv/bin/python benchmarks/bench_team.py`` (small world, candidate mode, random agents;
under a minute). Every env plays the same fixed list of (task, seed) episodes, first with cold
caches (every cache emptied, a new env), then warm (the same episodes again). Each row prints
CPU time (``time.process_time``) beside wall time and the ratio to a Gymnasium CartPole step
timed in the same process; goal: a generalists team round costs at most 70 CartPole steps. The
per-agent ratio divides a team's (or group's) CPU time per agent-step by the single-agent
``SearchEnv``'s CPU time per step on the same episodes and cache state, so it shows what the
blackboard and the shared round cost per agent. Time spent choosing actions (random agents
reading the mask) is included; env construction is not.

    python benchmarks/bench_team.py [--episodes N] [--mode text] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

TEAM_GOAL = 70.0


def _single_runner(env, episodes):
    from timing import single_agent_runner

    from searchgym.baselines import RandomAgent

    return single_agent_runner(env, lambda: RandomAgent(seed=0), episodes)


def _parallel_runner(env, episodes, counts: dict):
    """Plays the episodes; returns rounds, and stores agent-steps in ``counts``."""
    from searchgym.baselines.team_random import TeamRandom

    def run() -> int:
        team, rounds, agent_steps = TeamRandom(seed=0), 0, 0
        for task_id, seed in episodes:
            env.reset(seed=seed, options={"task_id": task_id})
            while env.agents:
                agent_steps += len(env.agents)
                env.step(team.act(env))
                rounds += 1
        counts["agent_steps"] = agent_steps
        return rounds

    return run


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="small", help="world size (default small)")
    parser.add_argument("--episodes", type=int, default=200, help="episodes per row (default 200)")
    parser.add_argument("--mode", default="candidates", choices=["candidates", "text"])
    parser.add_argument("--tree", default=None, help="measure another checkout of searchgym (see source_tree.py)")
    args = parser.parse_args(argv)
    if args.tree:
        from source_tree import use_tree

        use_tree(args.tree)
    from timing import Timing, cartpole, cold_and_warm, ratio_line

    from searchgym.envs.group import GroupSearchEnv
    from searchgym.envs.search import SearchEnv
    from searchgym.envs.team import TeamSearchEnv

    common = {"action_mode": args.mode, "world_size": args.size}
    probe = SearchEnv(**common)
    tasks = probe.tasks.tasks("train")
    episodes = [(tasks[e % len(tasks)].id, e) for e in range(args.episodes)]
    yardstick = cartpole()
    print(f"world {args.size}, {args.mode} mode, random agents, {args.episodes} episodes on the same tasks per row; "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"{'CartPole-v1 step (gym.make, same process)':<44}{yardstick.per_cpu_s:>9.0f} step/s cpu "
          f"{yardstick.per_wall_s:>9.0f} step/s wall {yardstick.cpu_us:>8.1f} us cpu/step")
    single_env = SearchEnv(**common)
    single = dict(zip(("cold", "warm"), cold_and_warm(single_env.tools, _single_runner(single_env, episodes))))
    for state, timing in single.items():
        print(ratio_line(f"SearchEnv, 1 agent ({state} caches)", timing, yardstick, "step"))
    makers = [("TeamSearchEnv roles (3)", lambda: TeamSearchEnv(roles="roles", **common), None),
              ("TeamSearchEnv generalists (3)", lambda: TeamSearchEnv(roles="generalists", **common), TEAM_GOAL),
              ("GroupSearchEnv (K=4)", lambda: GroupSearchEnv(group_size=4, **common), None)]
    for label, make, goal in makers:
        env = make()
        counts: dict = {}
        runner = _parallel_runner(env, episodes, counts)
        for state, timing in zip(("cold", "warm"), cold_and_warm(env.tools, runner)):
            per_agent = Timing(counts["agent_steps"], timing.cpu_s, timing.wall_s)
            print(ratio_line(f"{label} ({state} caches)", timing, yardstick, "round", goal if state == "warm" else None))
            print(f"{'':<44}{per_agent.per_cpu_s:>9.0f} agent-steps/s cpu; per-agent cost "
                  f"{per_agent.cpu_us / single[state].cpu_us:.2f}x a SearchEnv step (same episodes, {state})")


if __name__ == "__main__":
    main()
