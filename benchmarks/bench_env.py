"""Hot-path benchmark: SearchEnv steps against a CartPole step, then search and team rounds.

Every row is measured side by side in one process and printed with CPU time
(``time.process_time``) beside wall time, its cache state (cold: every cache emptied and a new
env; warm: the same episodes replayed right after), and its ratio to a Gymnasium CartPole step
timed in the same run. Goal: a candidate step costs at most 15 CartPole steps. Resets count.

    python benchmarks/bench_env.py [--quick] [--episodes N] [--env-only] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CANDIDATE_GOAL = 15.0


def episodes_runner(env, agent_name: str, episodes: int):
    """A function that plays ``episodes`` fixed (task, seed) episodes and returns the steps taken."""
    from timing import single_agent_runner

    from searchgym.baselines import OracleAgent, RandomAgent

    tasks = env.tasks.tasks("train")
    make = (lambda: RandomAgent(seed=0)) if agent_name == "random" else OracleAgent
    return single_agent_runner(env, make, [(tasks[e % len(tasks)].id, e) for e in range(episodes)])


def env_rows(episodes: int, size: str = "small") -> None:
    from timing import cartpole, cold_and_warm, ratio_line

    from searchgym.envs.search import SearchEnv

    yardstick = cartpole()
    print(f"== SearchEnv steps (world {size}, {episodes} episodes per row; resets included) ==")
    print(f"{'CartPole-v1 step (gym.make, same process)':<44}{yardstick.per_cpu_s:>9.0f} step/s cpu "
          f"{yardstick.per_wall_s:>9.0f} step/s wall {yardstick.cpu_us:>8.1f} us cpu/step")
    for mode in ("candidates", "text"):
        for agent in ("random", "oracle"):
            env = SearchEnv(action_mode=mode, world_size=size, split="train")
            cold, warm = cold_and_warm(env.tools, episodes_runner(env, agent, episodes))
            goal = CANDIDATE_GOAL if mode == "candidates" else None
            print(ratio_line(f"{mode} {agent} (cold caches)", cold, yardstick, "step"))
            print(ratio_line(f"{mode} {agent} (warm caches)", warm, yardstick, "step", goal))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpus for the search part")
    parser.add_argument("--episodes", type=int, default=300, help="episodes per env row (default 300)")
    parser.add_argument("--env-only", action="store_true", help="only the SearchEnv rows")
    parser.add_argument("--tree", default=None, help="measure another checkout of searchgym (see source_tree.py)")
    args = parser.parse_args()
    if args.tree:
        from source_tree import use_tree

        use_tree(args.tree)
    env_rows(args.episodes)
    if args.env_only:
        return

    print("\n== web_search: bm25s vs rank_bm25 on the same corpus and queries ==")
    import bench_search

    bench_search.main(["--size", "large", "--dense-pages", "0"] if args.quick else [])

    import bench_team

    print("\n== TeamSearchEnv rounds and GroupSearchEnv steps ==")
    bench_team.main([])  # with --tree, the other checkout is already the one imported


if __name__ == "__main__":
    main()
