"""Multi-agent env speed: team rounds per second and group steps per second.

Run: ``.venv/bin/python benchmarks/bench_team.py`` (small world, candidate mode, random
members; a few seconds). It prints rounds/s of ``TeamSearchEnv`` (roles and generalists
presets; one round = every member acts once), agent-steps/s of ``GroupSearchEnv`` (K = 4), and
for reference the single-agent ``SearchEnv`` steps/s with the same random policy, so the
per-agent overhead of the blackboard is visible as a ratio. Time spent choosing actions is
included (the random members read the action mask), env construction is not.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Sequence

from searchgym.baselines import RandomAgent
from searchgym.baselines.team_random import TeamRandom
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv


def bench_parallel(env, rounds: int, seed: int = 0) -> tuple[float, float, int]:
    """(rounds/s, agent-steps/s, episodes) over at least ``rounds`` rounds of a random team."""
    team = TeamRandom(seed=seed)
    done_rounds = agent_steps = episodes = 0
    start = time.perf_counter()
    while done_rounds < rounds:
        env.reset(seed=seed + episodes)
        episodes += 1
        while env.agents:
            agent_steps += len(env.agents)
            env.step(team.act(env))
            done_rounds += 1
    elapsed = time.perf_counter() - start
    return done_rounds / elapsed, agent_steps / elapsed, episodes


def bench_single(env: SearchEnv, steps: int, seed: int = 0) -> float:
    agent = RandomAgent(seed=seed)
    done_steps = episodes = 0
    start = time.perf_counter()
    while done_steps < steps:
        env.reset(seed=seed + episodes)
        episodes += 1
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(agent.act(env.session))
            done_steps += 1
            done = terminated or truncated
    return done_steps / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="small", help="world size (default small)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per measurement (default 2000)")
    parser.add_argument("--mode", default="candidates", choices=["candidates", "text"])
    args = parser.parse_args(argv)
    common = {"action_mode": args.mode, "world_size": args.size}
    print(f"world {args.size}, {args.mode} mode, random members; machine: "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}")
    single = bench_single(SearchEnv(**common), args.rounds)
    print(f"{'SearchEnv (1 agent)':<34}{single:>10.0f} steps/s")
    for label, env in [("TeamSearchEnv roles (3 agents)", TeamSearchEnv(roles="roles", **common)),
                       ("TeamSearchEnv generalists (3)", TeamSearchEnv(roles="generalists", **common))]:
        rps, sps, episodes = bench_parallel(env, args.rounds)
        print(f"{label:<34}{rps:>10.0f} rounds/s {sps:>8.0f} agent-steps/s  ({episodes} episodes; "
              f"per-agent cost {single / sps:.2f}x a single-agent step)")
    rps, sps, episodes = bench_parallel(GroupSearchEnv(group_size=4, **common), args.rounds)
    print(f"{'GroupSearchEnv (K=4)':<34}{rps:>10.0f} rounds/s {sps:>8.0f} agent-steps/s  ({episodes} episodes; "
          f"per-agent cost {single / sps:.2f}x a single-agent step)")


if __name__ == "__main__":
    main()
