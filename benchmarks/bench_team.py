"""Multi-agent env speed: team rounds and group steps against a CartPole step, on the same tasks.

Run: ``.venv/bin/python benchmarks/bench_team.py`` (the main suite's world, candidate mode,
random agents; a few minutes). Rows: the suite's own env (``--suite``, default quick-v2: two
generalists, 8 rounds), the same env's episodes spread over ``--envs`` copies (64, as a trainer
runs them), a team of 3 generalists, the 3 roles, and a group of K=4, each playing
recurring train tasks three ways (see timing.py): cold (every cache emptied, a new env), warm
(the same episodes again: the best case) and new seeds (the same tasks, seeds not played before:
what training sees). Each row prints CPU time (``time.process_time``) beside wall time and the
ratio to a Gymnasium CartPole step timed in the same process. Goals: the suite's team round costs
at most 40 CartPole steps with new seeds; a 3-generalist round at most 50 warm. The per-agent
ratio divides a team's (or group's) CPU time per agent-step by the single-agent ``SearchEnv``'s
CPU time per step on the same episodes and state, so it shows what the blackboard and the shared
round cost per agent. Time spent choosing actions (random agents reading the mask) is included;
env construction is not.

    python benchmarks/bench_team.py [--suite ID] [--episodes N] [--envs N] [--mode text] [--tree OTHER_CHECKOUT]
                                    [--frozen-heap]

``--frozen-heap`` times every row under the trainer's garbage-collector settings (see
``timing.under_trainer_gc``): the cost as training sees it.

``--memory N`` times nothing: it plays N episodes of the suite's env with new seeds (200 tasks
in turn) and prints the memory that searchgym's modules hold afterwards (``tracemalloc``, by
source file: the per-world memos of candidates, posts, mentions and the judge's readings).
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SUITE_GOAL = ("new seeds", 40.0)
GENERALISTS_GOAL = ("warm", 50.0)
FROZEN_NOTE = "; heap frozen as the trainer runs"


def _single_runner(env, episodes):
    from timing import single_agent_runner

    from searchgym.baselines import RandomAgent

    return single_agent_runner(env, lambda: RandomAgent(seed=0), episodes)


def _parallel_runner(env, episodes, counts: dict):
    """Plays the episodes (the k-th on ``env[k % len(env)]`` when given a list of envs, as a
    trainer spreads episodes over its envs); returns rounds, and appends the agent-steps to
    ``counts["runs"]``."""
    from searchgym.baselines.team_random import TeamRandom

    envs = env if isinstance(env, list) else [env]

    def run() -> int:
        team, rounds, agent_steps = TeamRandom(seed=0), 0, 0
        for k, (task_id, seed) in enumerate(episodes):
            env = envs[k % len(envs)]
            env.reset(seed=seed, options={"task_id": task_id})
            while env.agents:
                agent_steps += len(env.agents)
                env.step(team.choose_actions(env))
                rounds += 1
        counts.setdefault("runs", []).append(agent_steps)
        return rounds

    return run


def memo_memory(suite_id: str, episodes: int) -> None:
    """Play ``episodes`` new-seed episodes of the suite env; print what searchgym's files hold."""
    import gc
    import tracemalloc

    tracemalloc.start()
    from searchgym.baselines.team_random import TeamRandom
    from searchgym.suites import get_suite, make_env

    env = make_env(get_suite(suite_id), "train", action_mode="candidates")
    env = getattr(env, "unwrapped", env)
    tasks = [t.id for t in env.tasks.tasks("train")][:200]
    before, team = tracemalloc.take_snapshot(), TeamRandom(seed=0)
    for e in range(episodes):
        env.reset(seed=10_000 + e, options={"task_id": tasks[e % len(tasks)]})
        while env.agents:
            env.step(team.choose_actions(env))
    gc.collect()
    grown = tracemalloc.take_snapshot().compare_to(before, "filename")
    print(f"memory held after {episodes} new-seed episodes of {suite_id} (tracemalloc, MiB by file):")
    for stat in [s for s in grown if "searchgym" in s.traceback[0].filename][:10]:
        name = stat.traceback[0].filename
        print(f"{stat.size_diff / 2**20:8.1f} MiB  {name[name.rfind('searchgym'):]}")


def main(argv: Sequence[str] | None = None) -> None:
    from suite_arg import checkout, count, describe, natural

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2",
                        help="multi-agent suite whose env and world are measured (default quick-v2)")
    parser.add_argument("--episodes", type=count, default=200, help="episodes per row (default 200)")
    parser.add_argument("--mode", default="candidates", choices=["candidates", "text"],
                        help="the envs' action mode (default candidates)")
    parser.add_argument("--envs", type=count, default=64, help="envs the 'in turn' row spreads episodes over (default 64, "
                        "as a trainer's)")
    parser.add_argument("--tree", type=checkout, default=None,
                        help="measure another checkout of searchgym (see source_tree.py)")
    parser.add_argument("--frozen-heap", action="store_true",
                        help="time every row under the trainer's garbage-collector settings "
                        "(timing.under_trainer_gc)")
    parser.add_argument("--memory", type=natural, default=0, metavar="N",
                        help="instead of timing: the memory searchgym holds after N new-seed episodes")
    args = parser.parse_args(argv)
    if args.tree:
        from source_tree import use_tree

        use_tree(args.tree)
    from suite_arg import check_suite_arg

    check_suite_arg(parser, args.suite, "multi-agent")  # its env's rounds are what the rows time
    if args.memory:
        memo_memory(args.suite, args.memory)
        return
    from source_tree import tree_note  # with --tree (here or bench_env's): which checkout is measured
    from timing import Timing, cartpole, ratio_line, recurring_episodes, three_states, yardstick_line

    from searchgym.envs.group import GroupSearchEnv
    from searchgym.envs.search import SearchEnv
    from searchgym.envs.team import TeamSearchEnv
    from searchgym.suites import get_suite, make_env

    suite = get_suite(args.suite)
    families = suite.families_for("train")
    world = {"world_seed": suite.world_seed, "world_size": suite.world_size, "split": "train",
             "families": list(families) if families is not None else None, "difficulty": suite.difficulty}
    common = {"action_mode": args.mode, **world}
    probe = SearchEnv(**common)
    episodes = recurring_episodes([t.id for t in probe.tasks.tasks("train")], args.episodes)
    yardstick = cartpole()
    print(f"the {suite.id} world ({suite.world_size}), {args.mode} mode, random agents, {args.episodes} episodes on "
          f"{min(args.episodes, 40)} recurring train tasks per row; {platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}{FROZEN_NOTE if args.frozen_heap else ''}{tree_note()}")
    print(yardstick_line(yardstick))
    single_env = SearchEnv(**common)
    single = three_states(single_env.tools, lambda eps: _single_runner(single_env, eps), episodes,
                          args.frozen_heap)
    for state, timing in single.items():
        print(ratio_line(f"SearchEnv, 1 agent ({state})", timing, yardstick, "step"))
    suite_env = lambda: getattr(make_env(suite, "train", action_mode=args.mode), "unwrapped", None) \
        or make_env(suite, "train", action_mode=args.mode)  # noqa: E731
    makers = [(f"{suite.id}: {suite.env_id.split('-Candidates')[0]}", suite_env, SUITE_GOAL),
              (f"{suite.id}: {args.envs} envs in turn", lambda: [suite_env() for _ in range(args.envs)], None),
              ("TeamSearchEnv generalists (3)", lambda: TeamSearchEnv(roles="generalists", team_size=3, **common),
               GENERALISTS_GOAL),
              ("TeamSearchEnv roles (3)", lambda: TeamSearchEnv(roles="roles", **common), None),
              ("GroupSearchEnv (K=4)", lambda: GroupSearchEnv(group_size=4, **common), None)]
    for label, make, goal in makers:
        env = make()
        counts: dict = {}
        tools = env[0].tools if isinstance(env, list) else env.tools
        play = lambda eps, env=env, counts=counts: _parallel_runner(env, eps, counts)
        rows = three_states(tools, play, episodes, args.frozen_heap)
        for (state, timing), agent_steps in zip(rows.items(), counts["runs"], strict=True):
            per_agent = Timing(agent_steps, timing.cpu_s, timing.wall_s)
            print(ratio_line(f"{label} ({state})", timing, yardstick, "round",
                             goal[1] if goal and goal[0] == state else None))
            print(f"{'':<44}{per_agent.per_cpu_s:>9.0f} agent-steps/s cpu; per-agent cost "
                  f"{per_agent.cpu_us / single[state].cpu_us:.2f}x a SearchEnv step (same episodes, {state})")


if __name__ == "__main__":
    main()
