"""Hot-path benchmark: SearchEnv steps against a CartPole step, then search and team rounds.

Every row is measured side by side in one process and printed with CPU time
(``time.process_time``) beside wall time, its cache state, and its ratio to a Gymnasium CartPole
step timed in the same run. The env is a SearchEnv on the main suite's world (``--suite``,
default quick-v2: its world seed, size and train families), playing recurring train tasks three
ways (see timing.py): cold (every cache emptied), warm (the same episodes replayed: the best
case) and new seeds (the same tasks, seeds not played before: what training sees). Goals: a
candidate step costs at most 10 CartPole steps warm and 15 with new seeds. Resets count.

    python benchmarks/bench_env.py [--suite ID] [--episodes N] [--env-only] [--quick] [--tree OTHER_CHECKOUT]
                                   [--frozen-heap]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

GOALS = {"warm": 10.0, "new seeds": 15.0}
#: Episodes per env row without --episodes (the team rows then play bench_team's default).
ENV_EPISODES = 300


def episodes_runner(env, agent_name: str, episodes: list):
    """A function that plays the given (task, seed) episodes and returns the steps taken."""
    from timing import single_agent_runner

    from searchgym.baselines import OracleAgent, RandomAgent

    make = (lambda: RandomAgent(seed=0)) if agent_name == "random" else OracleAgent
    return single_agent_runner(env, make, episodes)


def suite_env(suite_id: str, mode: str):
    """A SearchEnv on the suite's world and train families."""
    from searchgym.envs.search import SearchEnv
    from searchgym.suites import get_suite

    suite = get_suite(suite_id)
    families = suite.families_for("train")
    return SearchEnv(action_mode=mode, world_seed=suite.world_seed, world_size=suite.world_size, split="train",
                     families=list(families) if families is not None else None, difficulty=suite.difficulty)


def env_rows(episodes: int, suite_id: str = "quick-v2", modes: tuple[str, ...] = ("candidates", "text"),
             frozen_heap: bool = False) -> None:
    from source_tree import tree_note
    from timing import cartpole, ratio_line, recurring_episodes, three_states, yardstick_line

    yardstick = cartpole()
    print(f"== SearchEnv steps (the {suite_id} world, {episodes} episodes on {min(episodes, 40)} recurring train "
          "tasks per row; "
          f"resets included{'; heap frozen as the trainer runs' if frozen_heap else ''}{tree_note()}) ==")
    print(yardstick_line(yardstick))
    for mode in modes:
        for agent in ("random", "oracle"):
            env = suite_env(suite_id, mode)
            played = recurring_episodes([t.id for t in env.tasks.tasks("train")], episodes)
            play = lambda eps, env=env, agent=agent: episodes_runner(env, agent, eps)
            rows = three_states(env.tools, play, played, frozen_heap)
            for state, timing in rows.items():
                goal = GOALS.get(state) if (mode, agent) == ("candidates", "random") else None
                print(ratio_line(f"{mode} {agent} ({state})", timing, yardstick, "step", goal))


def main(argv: list[str] | None = None) -> None:
    from suite_arg import checkout, count, describe

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--quick", action="store_true", help="smaller corpus for the search part")
    parser.add_argument("--episodes", type=count, default=None,
                        help=f"episodes per row, the env rows' and the team rows' (default {ENV_EPISODES} per env row, "
                        "bench_team's 200 per team row)")
    parser.add_argument("--suite", default="quick-v2",
                        help="the suite whose world the env rows use (default quick-v2); without --env-only a "
                        "multi-agent suite, whose env the team rows time")
    parser.add_argument("--env-only", action="store_true", help="only the SearchEnv rows")
    parser.add_argument("--tree", type=checkout, default=None,
                        help="measure another checkout of searchgym (see source_tree.py)")
    parser.add_argument("--frozen-heap", action="store_true",
                        help="time the env rows and the team rows under the trainer's garbage-collector "
                        "settings (timing.under_trainer_gc)")
    args = parser.parse_args(argv)
    if args.tree:
        from source_tree import use_tree

        use_tree(args.tree)
    from suite_arg import check_suite_arg

    check_suite_arg(parser, args.suite, None if args.env_only else "multi-agent")  # before the rows, not after
    env_rows(ENV_EPISODES if args.episodes is None else args.episodes, args.suite, frozen_heap=args.frozen_heap)
    if args.env_only:
        return

    print("\n== web_search: bm25s vs rank_bm25 on the same corpus and queries ==")
    import bench_search

    bench_search.main(["--size", "large", "--dense-pages", "0"] if args.quick else [])

    import bench_team

    print("\n== TeamSearchEnv rounds and GroupSearchEnv steps ==")
    # with --tree, the other checkout is already the one imported; --frozen-heap: every row, as documented
    # --episodes too (before: the team rows played bench_team's 200 whatever it said)
    bench_team.main(["--suite", args.suite, *(["--frozen-heap"] if args.frozen_heap else []),
                     *(["--episodes", str(args.episodes)] if args.episodes is not None else [])])


if __name__ == "__main__":
    main()
