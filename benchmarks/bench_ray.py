"""Ray, measured side by side in one run: start-up overhead, a small comparison on the local
executor and on Ray, and trainer rollout throughput in process and at 1 and 2 rollout workers.

Wall time (time.perf_counter) and the driver's CPU time (time.process_time) are printed side by
side; the figures to read are the ratios (these machines are shared and noisy).

    python benchmarks/bench_ray.py [--cpus 2] [--seeds 2] [--budget 300] [--iterations 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("bench-ray-small-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 8},
                             world_size="small", dev_size=16, test_size=32,
                             description="benchmarks: the ray executor, single agent, small world"))
LEARNER = {"group_size": 4, "tasks_per_iteration": 4, "eval_tasks": 8, "eval_every": 4}


class Clock:
    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def startup(cpus: int) -> Clock:
    import ray

    with Clock() as clock:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        ray.get(ray.remote(lambda: None).remote())
    ray.shutdown()
    return clock


def comparison(out: Path, executor: str, workers: int, seeds: int, budget: int) -> Clock:
    comp = Comparison(suite=SUITE, methods=parse_methods("random,oracle,cw_grpo"), seeds=list(range(seeds)),
                      budget=budget, out=out, device="cpu", workers=workers, progress=False, options=LEARNER,
                      executor=executor)
    with Clock() as clock:
        result = run_comparison(comp)  # the ray executor starts (and stops) its own local cluster here
    assert not result.failed, result.failed
    return clock


def predictions(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.glob("runs/*/seed*/predictions.jsonl"))}


def rollout_rate(workers: int, iterations: int) -> tuple[float, Clock, float]:
    """Env steps/s of Trainer.collect over ``iterations`` (after a warm-up call), and the update's
    share of collect + update time."""
    import torch

    from searchgym.agents.rollout_workers import close_workers, collect_in_process
    from searchgym.agents.train import TrainConfig, Trainer

    config = TrainConfig(env_id=SUITE.env_id, env_kwargs={"world_size": "small", "max_steps": 8}, group_size=4,
                         tasks_per_iteration=8, device="cpu", seed=0, rollout_workers=workers)
    trainer = Trainer(config, log=lambda row: None)
    ids = trainer.train_tasks[:8]

    def collect(seed):
        return collect_in_process(trainer, ids, seed) if workers == 0 else trainer.collect(ids, seed)

    torch.set_num_threads(1)  # as in each rollout worker: compare the same one-thread policy
    collect(0)  # warm-up: actors, envs and search indexes built
    pool = getattr(trainer, "_rollout_pool", None)
    workers_cpu = pool.cpu_seconds() if pool is not None else 0.0
    steps, batches = 0, []
    with Clock() as clock:
        for i in range(1, iterations + 1):
            groups, stats = collect(i)
            steps += stats.env_steps
            batches.append(groups)
    clock.workers_cpu = pool.cpu_seconds() - workers_cpu if pool is not None else 0.0
    clock.steps = steps
    close_workers(trainer)
    with Clock() as update:  # the learner's share, which workers do not shorten
        for groups in batches:
            trainer.update(groups)
    return steps / clock.wall, clock, update.wall / (update.wall + clock.wall)


def main() -> None:
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from script_extras import require_extras
    from suite_arg import count, describe

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--cpus", type=count, default=2, help="CPUs of the local Ray cluster and workers (default 2)")
    parser.add_argument("--seeds", type=count, default=2, help="seeds of the small comparison (default 2)")
    parser.add_argument("--budget", type=count, default=300, help="env steps per cw_grpo run (default 300)")
    parser.add_argument("--iterations", type=count, default=3,
                        help="rollout iterations timed per worker count (default 3)")
    args = parser.parse_args()
    require_extras(__file__, ["ray", "torch"])
    import ray

    tmp = Path(tempfile.mkdtemp(prefix="bench_ray_"))
    try:
        up = startup(args.cpus)
        print(f"ray start-up (init + one empty task, {args.cpus} CPUs): wall {up.wall:.2f}s cpu {up.cpu:.2f}s")
        runs = 3 * args.seeds
        local1 = comparison(tmp / "local1", "local", 1, args.seeds, args.budget)
        local2 = comparison(tmp / "local2", "local", args.cpus, args.seeds, args.budget)
        on_ray = comparison(tmp / "ray", "ray", args.cpus, args.seeds, args.budget)
        same = predictions(tmp / "local1") == predictions(tmp / "ray") == predictions(tmp / "local2")
        print(f"comparison random,oracle,cw_grpo x {args.seeds} seeds ({runs} runs, budget {args.budget}) "
              f"on {SUITE.id}; predictions identical across executors: {same}")
        for name, clock in (("local, 1 worker", local1), (f"local, {args.cpus} workers", local2),
                            (f"ray, {args.cpus} CPUs (incl. start-up)", on_ray)):
            print(f"  {name:32s} wall {clock.wall:7.2f}s  driver cpu {clock.cpu:6.2f}s  "
                  f"wall / local-1 {clock.wall / local1.wall:.2f}")
        print(f"  ray wall / local {args.cpus}-worker wall: {on_ray.wall / local2.wall:.2f}; "
              f"ray wall less start-up / local {args.cpus}-worker wall: {(on_ray.wall - up.wall) / local2.wall:.2f}")
        rates, shares, cpu_per_step = {}, {}, {}
        for workers in (0, 1, 2):
            rate, clock, shares[workers] = rollout_rate(workers, args.iterations)
            rates[workers] = rate
            cpu_per_step[workers] = (clock.cpu + clock.workers_cpu) / clock.steps
            print(f"rollouts, {'in process' if workers == 0 else f'{workers} rollout worker(s)':20s} "
                  f"{rate:8.1f} env steps/s  (wall {clock.wall:.2f}s, driver cpu {clock.cpu:.2f}s, "
                  f"workers cpu {clock.workers_cpu:.2f}s, cpu per step {1000 * cpu_per_step[workers]:.2f} ms)")
        print(f"  throughput ratios: 1 worker / in process {rates[1] / rates[0]:.2f}; "
              f"2 workers / 1 worker {rates[2] / rates[1]:.2f}; 2 workers / in process {rates[2] / rates[0]:.2f}")
        print(f"  cpu per env step (contention does not inflate it): 1 worker / in process "
              f"{cpu_per_step[1] / cpu_per_step[0]:.2f}; 2 workers / in process {cpu_per_step[2] / cpu_per_step[0]:.2f}")
        share = shares[0]
        print(f"  update share of an in-process iteration: {share:.3f}; Amdahl bound of the iteration speed-up "
              "with N workers on N free cores: " + ", ".join(f"N={n}: {1 / (share + (1 - share) / n):.1f}x"
                                                             for n in (2, 4, 8, 16)))
    finally:
        if ray.is_initialized():
            ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
