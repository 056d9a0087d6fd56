"""``searchgym demo``: the random and the oracle agent on one split of a world (``--split``, test by
default), per task family.

A first look at a world without training anything: the two agents bound every table from below
and above, and the gap between them is what learning methods have to close.
"""

from __future__ import annotations

import argparse

from tqdm import tqdm

from searchgym.baselines import OracleAgent, RandomAgent
from searchgym.commands import check_seed, check_world_seed, check_world_size
from searchgym.envs.search import SearchEnv
from searchgym.harness.evaluate import play_session_agent, summarise_predictions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--world-seed", type=int, default=0, help="which fictional world")
    parser.add_argument("--world-size", default="small", help="tiny, small, medium, large, xl or an int")
    parser.add_argument("--mode", choices=["candidates", "text"], default="candidates", help="the env's action mode")
    parser.add_argument("--split", choices=["train", "dev", "test"], default="test", help="which tasks to play")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random agent and the episodes")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def format_table(rows: dict[str, dict[str, dict[str, float]]]) -> str:
    """A plain-text table: one line per (agent, family)."""
    lines = [f"{'agent':<8} {'family':<11} {'n':>4} {'success':>8} {'F1':>6} {'steps':>6} {'tools':>6}"]
    for agent, table in rows.items():
        for family, m in table.items():
            lines.append(f"{agent:<8} {family:<11} {m['n']:>4} {m['success']:>8.3f} {m['f1']:>6.3f} "
                         f"{m['steps']:>6.2f} {m['tool_calls']:>6.2f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    check_seed(args)
    check_world_seed(args)
    size = check_world_size(args.world_size, "--world-size")  # before: "world_size must be ..." (the keyword)
    env = SearchEnv(action_mode=args.mode, world_seed=args.world_seed, world_size=size, split=args.split)
    tasks = env.tasks.tasks(args.split)
    rows = {}
    for agent in (RandomAgent(seed=args.seed), OracleAgent()):
        results = [play_session_agent(env, agent, t.id, seed=args.seed + i)
                   for i, t in enumerate(tqdm(tasks, desc=agent.name, leave=False, disable=args.no_progress))]
        rows[agent.name] = summarise_predictions(results)
    print(f"world seed={args.world_seed} size={args.world_size}, {args.mode} mode, {args.split} split, {len(tasks)} tasks")
    print(format_table(rows))
    return 0
