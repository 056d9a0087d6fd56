"""Mention look-ups by world size: ``World.mentions.find`` over pages, and a candidate step with new
seeds (the look-up runs on every result text an episode sees first), CPU time beside wall time.

Why: the finder indexes names by their first token, and a token such as "the" begins a share of
all names that grows with the world (64 in ``medium``, 354 in ``large``, 5,944 in ``xl``). The
scan compared every "the" in a text with each of them; it now looks names up by their first two
tokens. ``--tree`` measures another checkout the same way (the code before, say), so the two
print side by side:

    python benchmarks/bench_mentions.py [--sizes medium,large,xl] [--pages 3000] [--episodes 200] [--tree DIR]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite_arg import checkout, count, describe, natural  # (no searchgym import: --tree comes first)


def timed(run):
    """``run()``, with its CPU and wall seconds, after a full garbage collection (as every benchmark's
    rows: a collection owed by the world's generation would otherwise land in the row)."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    value = run()
    return value, time.process_time() - cpu, time.perf_counter() - wall


def size_row(size: str, pages: int, episodes: int) -> str:
    from searchgym.baselines import RandomAgent
    from timing import NEW_SEED_OFFSET, recurring_episodes, single_agent_runner

    from searchgym.envs.search import SearchEnv
    from searchgym.world import World

    world = World.generate(0, size)
    finder = world.mentions
    texts = [p.text for p in world.pages[:pages]]
    found, cpu, wall = timed(lambda: sum(len(finder.find(t)) for t in texts))
    line = (f"{size:<7} {len(world.pages):>8} pages; 'the' begins {len(finder._by_first.get('the', ())):>5} names; "
            f"find: {1e6 * cpu / len(texts):8.1f} us cpu/page ({1e6 * wall / len(texts):8.1f} wall), "
            f"{found} mentions in {len(texts)} pages")
    if episodes:
        env = SearchEnv(action_mode="candidates", world=world, split="train")
        played = recurring_episodes([t.id for t in env.tasks.tasks("train")], episodes)
        single_agent_runner(env, lambda: RandomAgent(seed=0), played)()  # the tasks' first pass
        fresh = [(task, seed + NEW_SEED_OFFSET) for task, seed in played]
        steps, cpu, wall = timed(single_agent_runner(env, lambda: RandomAgent(seed=0), fresh))
        line += f"; candidate step, new seeds: {1e6 * cpu / steps:7.1f} us cpu ({1e6 * wall / steps:7.1f} wall)"
    return line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--sizes", default="medium,large,xl",
                        help="world presets or integer scales, comma list (default %(default)s)")
    parser.add_argument("--pages", type=count, default=3000, help="pages the find row reads (default 3000)")
    parser.add_argument("--episodes", type=natural, default=200, help="random-agent episodes per step row (0: no step row)")
    parser.add_argument("--tree", type=checkout, default=None,
                        help="measure another checkout of searchgym (see source_tree.py)")
    args = parser.parse_args(argv)
    if args.tree:
        from source_tree import use_tree

        use_tree(args.tree)
    import searchgym
    from searchgym.world.generate import resolve_size  # in every checkout --tree may name

    sizes = [int(size) if size.strip().isdecimal() else size.strip() for size in args.sizes.split(",")]
    for size in sizes:  # checked once the checkout is in place (before: 'nope' was a traceback mid-run)
        try:
            resolve_size(size)
        except ValueError as exc:
            parser.error(f"argument --sizes: {exc}")
    print(f"searchgym from {Path(searchgym.__file__).parent.parent}")
    for size in sizes:
        print(size_row(size, args.pages, args.episodes), flush=True)


if __name__ == "__main__":
    main()
