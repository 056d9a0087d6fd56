"""Hot-path benchmark: env steps per second, search throughput per backend, team rounds per second.

Every figure is measured side by side in one run on this machine and printed as absolute rates
and ratios (these machines are shared and noisy: compare ratios, not absolute numbers across runs).

    python benchmarks/bench_env.py [--quick]   # --quick: a 20k-page corpus instead of 100k
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from searchgym.baselines import OracleAgent, RandomAgent  # noqa: E402
from searchgym.envs.search import SearchEnv  # noqa: E402


def env_steps_per_second(mode: str, agent_name: str, seconds: float = 3.0, size: str = "small") -> dict:
    """Steps/s of SearchEnv with a random (or oracle) agent; resets are included in the time."""
    env = SearchEnv(action_mode=mode, world_size=size, split="train")
    agent = RandomAgent(seed=0) if agent_name == "random" else OracleAgent()
    tasks = env.tasks.tasks("train")
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=episodes, options={"task_id": tasks[episodes % len(tasks)].id})
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(agent.act(env.session))
            steps += 1
            done = terminated or truncated
        episodes += 1
    elapsed = time.perf_counter() - start
    return {"mode": mode, "agent": agent_name, "steps_per_s": steps / elapsed, "episodes_per_s": episodes / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpus for the search part")
    args = parser.parse_args()

    print("== SearchEnv steps per second (world small; search cache warm after the first pass) ==")
    rows = [env_steps_per_second(m, a) for m, a in (("candidates", "random"), ("candidates", "oracle"),
                                                     ("text", "random"), ("text", "oracle"))]
    for r in rows:
        print(f"{r['mode']:<10} {r['agent']:<6} {r['steps_per_s']:>9.0f} steps/s  {r['episodes_per_s']:>8.1f} episodes/s")

    print("\n== web_search: bm25s vs rank_bm25 on the same corpus and queries ==")
    import bench_search

    bench_search.main(["--size", "large", "--dense-pages", "0"] if args.quick else [])

    try:
        import bench_team
    except ImportError:
        print("\n(bench_team.py not present: team rounds/s not measured)")
    else:
        print("\n== TeamSearchEnv rounds per second ==")
        bench_team.main([])


if __name__ == "__main__":
    main()
