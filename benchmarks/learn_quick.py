"""Does every learning method learn? Dev success at start and end, with random and oracle.

    .venv/bin/python benchmarks/learn_quick.py   # cw_grpo, grpo, dr_grpo, mappo, ippo, coma; quick-v2, 20k steps
    .venv/bin/python benchmarks/learn_quick.py --methods mappo,coma --budget 10000 --seeds 0,1

The default runs those six; the harness's other learning methods (sft, mt_ppo, gigpo, info_gain,
grpo_role, cw_grpo_role) run when ``--methods`` names them.

Each (method, seed) runs in its own process (``--workers`` at a time, one torch thread each)
through the harness protocol (``METHODS[name](ctx)``, exactly what ``searchgym compare`` calls).
"start" is the untrained policy (the method run with budget 0), "end" the trained one; both
are greedy success on the suite's dev split via ``ctx.evaluate`` (the same tasks and episode
seeds as random and oracle). Also printed: the train wall time, and from the method's logged
rows the mean fraction of zero-variance groups and the last policy entropy (the two numbers
that say why a group-relative method is or is not learning).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

LEARNERS = ("cw_grpo", "grpo", "dr_grpo", "mappo", "ippo", "coma")


def _context(suite_id: str, seed: int, budget: int, run_dir: Path, rows: list[dict]):
    from searchgym.harness.methods import RunContext
    from searchgym.suites import get_suite

    return RunContext(suite=get_suite(suite_id), seed=seed, budget=budget, device="cpu", run_dir=run_dir,
                      log=rows.append, progress=False, threads=1)


def run_one(method: str, suite_id: str, seed: int, budget: int, root: str) -> dict:
    """Start and end dev success of one learning method (in a worker process)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    import numpy as np
    import torch

    from searchgym.harness.methods import load_method

    torch.set_num_threads(1)
    factory = load_method(method)
    start_rows: list[dict] = []
    ctx0 = _context(suite_id, seed, 0, Path(root) / f"{method}-{seed}-start", start_rows)
    start = ctx0.evaluate(factory(ctx0), "dev")["success"]
    rows: list[dict] = []
    ctx = _context(suite_id, seed, budget, Path(root) / f"{method}-{seed}", rows)
    began, cpu = time.perf_counter(), time.process_time()  # CPU time beside wall: the machine may be shared
    actor = factory(ctx)
    train_s, train_cpu = time.perf_counter() - began, time.process_time() - cpu
    end = ctx.evaluate(actor, "dev")["success"]
    zero_var = [r["groups/zero_variance_fraction"] for r in rows if "groups/zero_variance_fraction" in r]
    entropy = [r["loss/entropy"] for r in rows if "loss/entropy" in r]
    steps = max((r.get("step", 0) for r in rows), default=0)
    return {"method": method, "seed": seed, "start": start, "end": end, "train_s": train_s, "train_cpu": train_cpu,
            "steps": steps,
            "zero_var": float(np.mean(zero_var)) if zero_var else float("nan"),
            "entropy": entropy[-1] if entropy else float("nan")}


def bounds(suite_id: str, seeds: list[int]) -> dict[str, float]:
    from searchgym.harness.methods import oracle_method, random_method

    out = {}
    for name, method in (("random", random_method), ("oracle", oracle_method)):
        scores = []
        for seed in seeds:
            ctx = _context(suite_id, seed, 0, Path(tempfile.gettempdir()), [])
            scores.append(ctx.evaluate(method(ctx), "dev")["success"])
        out[name] = sum(scores) / len(scores)
    return out


def main(argv: list[str] | None = None) -> int:
    from script_extras import require_extras
    from suite_arg import count, describe, names, seed_list, suite_of

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2", type=suite_of("candidates"),
                        help="candidate-mode suite trained and evaluated (default quick-v2)")
    parser.add_argument("--methods", type=names, default=list(LEARNERS),
                        help=f"comma list of harness methods (default {','.join(LEARNERS)})")
    parser.add_argument("--budget", type=count, default=20_000, help="env steps per run (default 20000)")
    parser.add_argument("--seeds", type=seed_list, default=[0], help="comma-separated seeds (default 0)")
    parser.add_argument("--workers", type=count, default=2, help="runs at a time, one process each (default 2)")
    args = parser.parse_args(argv)
    require_extras(__file__, ["torch"])  # before: each worker's traceback, from the pool
    methods, seeds = args.methods, args.seeds
    from searchgym.harness.methods import load_method

    for method in methods:  # here, not in a worker: an unknown name was a traceback from the pool
        try:
            load_method(method)
        except ValueError as exc:
            parser.error(f"argument --methods: {exc}")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="learn_quick-") as root:
        jobs = [(m, args.suite, s, args.budget, root) for s in seeds for m in methods]
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=args.workers, mp_context=context) as pool:
            futures = [pool.submit(run_one, *job) for job in jobs]
            results = []
            for future in futures:
                result = future.result()
                results.append(result)
                print(f"  done {result['method']} seed {result['seed']}: {result['start']:.3f} -> "
                      f"{result['end']:.3f} in {result['train_s']:.0f}s ({result['train_cpu']:.0f} CPU-s)", flush=True)
    ref = bounds(args.suite, seeds)
    print(f"\nsuite {args.suite}, budget {args.budget} env steps, seeds {seeds}, dev split "
          f"(random {ref['random']:.3f}, oracle {ref['oracle']:.3f})")
    print(f"{'method':<9} {'seed':>4} {'start':>6} {'end':>6} {'train s':>8} {'cpu s':>6} {'steps':>6} {'zero-var':>8} "
          f"{'entropy':>8}")
    for r in results:
        print(f"{r['method']:<9} {r['seed']:>4} {r['start']:>6.3f} {r['end']:>6.3f} {r['train_s']:>8.0f} "
              f"{r['train_cpu']:>6.0f} {r['steps']:>6} {r['zero_var']:>8.2f} {r['entropy']:>8.2f}")
    if len(seeds) > 1:
        for method in methods:
            mine = [r for r in results if r["method"] == method]
            mean = {k: sum(r[k] for r in mine) / len(mine) for k in ("start", "end", "train_s", "train_cpu")}
            print(f"{method:<9} {'mean':>4} {mean['start']:>6.3f} {mean['end']:>6.3f} {mean['train_s']:>8.0f} "
                  f"{mean['train_cpu']:>6.0f}")
    for name in ("random", "oracle"):
        print(f"{name:<9} {'':>4} {ref[name]:>6.3f} {ref[name]:>6.3f} {0:>8} {0:>6} {0:>6}")
    print(f"total wall time {time.perf_counter() - began:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
