"""Training speed before and after, side by side, and a check that the learning curve is the same.

An old and a new version of the package cannot share a process, so each run is a child process
on one checkout: ``--before REF`` (a detached ``git worktree`` made for the run, or an existing
folder) and this checkout. Runs alternate before/after seed by seed, so both meet the same load.
Each child trains ``Trainer`` (in-training dev evaluations included, harness evaluation not)
and reports env steps, wall and CPU seconds (of the whole run and of its Trainer construction:
imports of torch's optimiser and the world's build are a fixed cost), and its dev-success curve.

Printed: env steps per wall-second and per CPU-second of each side, their ratio (goal >= 2x;
both sides on one torch thread unless ``--before-threads``/``--after-threads`` say otherwise, and
then a warning: the ratio measures the threads too), and per seed both dev-success curves. The
curves match "within noise" when their heights (mean dev success over evaluations, averaged over
seeds) differ by at most 1.96 standard errors (see
``curve_verdict``). Batching episodes together (all of an iteration's, where one task's once were)
changes the order of the sampling draws, so the two curves are not identical; each is
deterministic for a seed.

    python benchmarks/bench_train.py --before main --seeds 0,1 --budget 2000 [--after REF]

``--floor`` trains once on this checkout (the main suite's env by default: ``--suite quick-v2``)
and prints the loop's CPU time per agent-step beside its floor: the tensor math alone (every
policy forward of the run, rollouts, update epochs and dev evaluations, replayed on the same
observation batches with every feature cache warm, backward passes included) and that math plus
the env's own steps and resets, and the loop's CPU in garbage collections and in dev evaluations.
Goal: the loop within 1.5x of (env + math) with the ``hash`` policy, within 2x with ``attn``
(the learned policy; ``FLOOR_GOALS``).

    python benchmarks/bench_train.py --floor [--suite quick-v2] [--policy hash|attn] [--estimator cw_round] \
        [--policy-kwargs '{"comparison_facts": true, "operand_sources": true}']
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: --floor's goal per policy: the loop's CPU over (env + tensor math) at most this
FLOOR_GOALS = {"hash": 1.5, "attn": 2.0}
REPO = HERE.parent


def child(args: argparse.Namespace) -> None:
    """Train once on checkout ``args.tree`` and print one JSON line."""
    sys.path.insert(0, str(HERE))
    from source_tree import use_tree

    use_tree(args.tree)
    import torch

    torch.set_num_threads(args.threads)
    from searchgym.agents.train import Trainer

    rows: list[dict] = []
    config = child_config(args, args.seed)
    cpu, wall = time.process_time(), time.perf_counter()
    trainer = Trainer(config, log=rows.append)
    setup_cpu, setup_wall = time.process_time() - cpu, time.perf_counter() - wall
    trainer.train(progress=False)
    result = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu, "setup_wall_s": setup_wall,
              "setup_cpu_s": setup_cpu,
              "env_steps": trainer.state.env_steps, "dev_tasks": len(trainer.dev_tasks),
              "curve": [(r["step"], r["dev_success"]) for r in rows if "dev_success" in r]}
    print("RESULT " + json.dumps(result))


def child_config(args: argparse.Namespace, seed: int):
    """The TrainConfig of one before/after run (its ValueError names a bad estimator or count)."""
    from searchgym.agents.train import TrainConfig

    return TrainConfig(env_id=args.env, estimator=args.estimator, budget=args.budget, seed=seed,
                       group_size=args.group_size, tasks_per_iteration=args.tasks, eval_every=args.eval_every,
                       eval_tasks=args.eval_tasks, device="cpu", env_kwargs={"world_size": args.size})


def check_child_args(args: argparse.Namespace, fail) -> None:
    """Every before/after setting checked here, before a checkout or a run (before: a bad --env,
    --size or --estimator was a traceback from the first child, after a worktree was made)."""
    from searchgym.registry import spec
    from searchgym.world.generate import resolve_size

    checks = (("argument --env: ", lambda: spec(args.env)),
              ("argument --env: ", lambda: check_candidate_env(args.env)),
              ("argument --size: ", lambda: resolve_size(int(args.size) if args.size.isdecimal() else args.size)),
              ("", lambda: child_config(args, args.seeds[0])))  # names the setting itself (estimator, ...)
    for flag, check in checks:
        try:
            check()
        except ValueError as exc:
            fail(f"{flag}{exc}")
    from suite_arg import checkout

    for flag, ref in (("--before", args.before), ("--after", args.after)):
        if ref is not None and Path(ref).is_dir():  # run as a checkout: it must be one (before: the child's
            try:  # usage and "argument --tree: ... is not a searchgym checkout", a flag never given)
                checkout(ref)
            except argparse.ArgumentTypeError as exc:
                fail(f"argument {flag}: {exc}")
            continue
        is_ref = ref is None or subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True, check=False).returncode == 0
        if not is_ref:
            fail(f"argument {flag}: {ref!r} is neither a folder nor a git ref of {REPO}")


def check_candidate_env(env_id: str) -> None:
    """Refuse an env that does not observe candidates, naming the ones that do (Trainer trains
    candidate envs; before: SearchQA-v0 was "observation 0 must be a dict" from each child)."""
    from types import SimpleNamespace

    from searchgym.registry import registered
    from searchgym.suites import observation_kind

    def kind(id_: str) -> str | None:  # the suites' own rule, on the env's registered kwargs alone
        return observation_kind(SimpleNamespace(env_id=id_, kwargs={}))

    if kind(env_id) != "candidates":
        accepted = ", ".join(s.id for s in registered() if kind(s.id) == "candidates")
        raise ValueError(f"{env_id!r} is not a candidate-mode env; accepted: {accepted}")


def floor_child(args: argparse.Namespace, fail) -> None:
    """Train once with the policy's forward passes and the env's steps recorded, then replay the
    forward passes alone; print the loop's cost per agent-step over its floor. ``fail``: how a bad
    setting (an unknown policy or estimator: a ValueError naming the accepted ones) is reported."""
    import torch
    from source_tree import tree_note  # with --tree: which checkout the header's figures are of

    torch.set_num_threads(1)
    from searchgym.agents.train import TrainConfig, Trainer
    from searchgym.suites import get_suite

    suite = get_suite(args.suite)
    families = suite.families_for("train")
    env_kwargs = {**suite.kwargs, "world_seed": suite.world_seed, "world_size": suite.world_size,
                  "families": list(families) if families is not None else None}
    try:
        config = TrainConfig(env_id=suite.env_id, estimator=args.estimator, policy=args.policy, budget=args.budget,
                             seed=0, group_size=args.group_size, tasks_per_iteration=args.tasks,
                             eval_every=args.eval_every, eval_tasks=args.eval_tasks, device="cpu",
                             env_kwargs=env_kwargs, policy_kwargs=args.policy_kwargs)
        trainer = Trainer(config, log=lambda row: None)
    except ValueError as exc:
        fail(str(exc))
    batches: list[tuple[object, list, bool]] = []
    env_cpu = [0.0]
    members = trainer.population.unique_members()
    for policy in members:
        forward = policy.forward

        def recorded(obs_batch, *rest, forward=forward, policy=policy, **kw):
            batches.append((policy, list(obs_batch), torch.is_grad_enabled()))
            return forward(obs_batch, *rest, **kw)

        policy.forward = recorded
    envs = trainer.env.envs if trainer.kind == "single" else trainer.envs
    for env in envs:
        for name in ("step", "reset"):
            method = getattr(env, name)

            def timed_call(*a, method=method, **kw):
                start = time.process_time()
                try:
                    return method(*a, **kw)
                finally:
                    env_cpu[0] += time.process_time() - start

            setattr(env, name, timed_call)
    gc_cpu, gc_callback = _time_gc()
    dev_cpu = [0.0]
    evaluate_dev = trainer.evaluate_dev

    def timed_dev():
        start = time.process_time()
        try:
            return evaluate_dev()
        finally:
            dev_cpu[0] += time.process_time() - start

    trainer.evaluate_dev = timed_dev
    cpu = time.process_time()
    trainer.train(progress=False)
    loop_cpu = time.process_time() - cpu
    gc.callbacks.remove(gc_callback)
    steps = trainer.state.env_steps
    for policy in members:
        del policy.__dict__["forward"]
    math_cpu = time.process_time()
    for policy, obs_batch, grad in batches:  # the same batches through the same member
        with torch.set_grad_enabled(grad):
            logits, values = policy(obs_batch)
            if grad:
                (torch.log_softmax(logits, -1).max(-1).values.sum() + values.sum()).backward()
    math_cpu = time.process_time() - math_cpu
    per = 1e6 / steps
    print(f"{suite.id} ({suite.env_id}), {args.estimator}, policy {args.policy} {json.dumps(args.policy_kwargs)}, budget {args.budget}, 1 torch thread: "
          f"{steps} agent-steps, {len(batches)} policy batches (mean {sum(len(b) for _, b, _ in batches) / len(batches):.1f} "
          f"observations){tree_note()}")
    print(f"training loop  {steps / loop_cpu:8.0f} agent-steps per CPU-second  {loop_cpu * per:8.0f} us cpu/agent-step")
    print(f"tensor math    {math_cpu * per:8.0f} us cpu/agent-step (the run's forward passes replayed, caches warm)")
    print(f"env steps      {env_cpu[0] * per:8.0f} us cpu/agent-step (steps and resets, rollouts and dev evaluations)")
    print(f"of the loop:   garbage collection {gc_cpu[0] * per:6.0f} us/agent-step ({gc_cpu[0] / loop_cpu:.0%}), "
          f"dev evaluations {dev_cpu[0] * per:6.0f} us/agent-step ({dev_cpu[0] / loop_cpu:.0%}, the step-0 point included)")
    floor, goal = math_cpu + env_cpu[0], FLOOR_GOALS.get(args.policy, FLOOR_GOALS["hash"])
    verdict = "met" if loop_cpu <= goal * floor else "NOT met"
    print(f"loop / math = {loop_cpu / math_cpu:.2f}x; loop / (env + math) = {loop_cpu / floor:.2f}x "
          f"(goal <= {goal:g}x: {verdict})")


def _time_gc() -> tuple[list[float], object]:
    """(a one-item list that sums the CPU time of every garbage collection from now on, the
    callback that does it: remove it from ``gc.callbacks`` to stop)."""
    total, started = [0.0], [0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            total[0] += time.process_time() - started[0]

    gc.callbacks.append(callback)
    return total, callback


def run_child(tree: Path, threads: int, seed: int, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--tree", str(tree), "--threads", str(threads),
               "--seed", str(seed), "--env", args.env, "--estimator", args.estimator, "--budget", str(args.budget),
               "--group-size", str(args.group_size), "--tasks", str(args.tasks), "--eval-every", str(args.eval_every),
               "--eval-tasks", str(args.eval_tasks), "--size", args.size]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if done.returncode != 0 or line is None:
        raise SystemExit(f"training on {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


def summary(label: str, runs: list[dict]) -> tuple[float, float, float, float]:
    """Rates of whole runs (Trainer construction included) and of the training loop alone."""
    steps = sum(r["env_steps"] for r in runs)
    wall, cpu = sum(r["wall_s"] for r in runs), sum(r["cpu_s"] for r in runs)
    setup_wall, setup_cpu = sum(r["setup_wall_s"] for r in runs), sum(r["setup_cpu_s"] for r in runs)
    loop_wall, loop_cpu = wall - setup_wall, cpu - setup_cpu
    print(f"{label:<7} run  {steps / wall:>7.1f} env steps/s wall {steps / cpu:>7.1f} /s cpu | training loop "
          f"{steps / loop_wall:>7.1f} /s wall {steps / loop_cpu:>7.1f} /s cpu  ({steps} steps; {wall:.1f} s wall, "
          f"{cpu:.1f} s cpu, of which start-up {setup_wall:.1f} s wall, {setup_cpu:.1f} s cpu)")
    return steps / wall, steps / cpu, steps / loop_wall, steps / loop_cpu


def main(argv: list[str] | None = None) -> None:
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from suite_arg import checkout, count, describe, json_object, natural, seed_list

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--before", default="main", help="git ref or checkout folder of the 'before' code (default main)")
    parser.add_argument("--after", default=None, help="git ref or checkout folder of the 'after' code (default: this checkout)")
    # the same on both sides by default (before: the before side took every core, the after side one,
    # and identical code printed a 2.6x "speed-up")
    parser.add_argument("--before-threads", type=count, default=1, help="torch threads of the before runs (default 1)")
    parser.add_argument("--after-threads", type=count, default=1, help="torch threads of the after runs (default 1)")
    parser.add_argument("--seeds", type=seed_list, default=[0, 1], help="comma-separated training seeds (default 0,1)")
    parser.add_argument("--env", default="TeamSearch-Generalists-Candidates-v0",
                        help="env id trained by the before/after runs (default TeamSearch-Generalists-Candidates-v0)")
    parser.add_argument("--estimator", default="grpo", help="advantage estimator (default grpo; --floor: cw_round "
                        "in the documented figures)")
    parser.add_argument("--budget", type=count, default=2000, help="env steps per run (default 2000)")
    parser.add_argument("--group-size", type=count, default=8, help="episodes per task group (default 8)")
    parser.add_argument("--tasks", type=count, default=8, help="tasks per iteration (default 8)")
    parser.add_argument("--eval-every", type=count, default=5, help="iterations between dev evaluations (default 5)")
    parser.add_argument("--eval-tasks", type=count, default=48, help="dev tasks per evaluation (default 48)")
    parser.add_argument("--size", default="small", help="world size (default small)")
    parser.add_argument("--floor", action="store_true",
                        help="one run on this checkout: the loop's cost per agent-step over its tensor math and env")
    parser.add_argument("--suite", default="quick-v2", help="--floor: the suite whose env is trained (default quick-v2)")
    parser.add_argument("--policy", default="hash", help="--floor: policy backbone (hash, attn, ...; default hash)")
    parser.add_argument("--policy-kwargs", default={}, type=json_object,
                        help='--floor: the policy\'s kwargs as JSON (make main: \'{"comparison_facts": true, '
                             '"operand_sources": true}\')')
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=checkout, help="--floor: measure another checkout (see source_tree.py)")
    parser.add_argument("--threads", type=count, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=natural, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return
    if args.floor:
        if args.tree:  # another checkout (before/after figures)
            sys.path.insert(0, str(HERE))
            from source_tree import use_tree

            use_tree(args.tree)
        from suite_arg import check_suite_arg

        check_suite_arg(parser, args.suite, "candidates")
        floor_child(args, parser.error)
        return
    check_child_args(args, parser.error)
    sys.path.insert(0, str(HERE))
    from source_tree import checkout, remove_checkout

    trees, made = {}, []
    for side, ref in (("before", args.before), ("after", args.after)):
        if ref is None:
            trees[side] = REPO
        elif Path(ref).is_dir():
            trees[side] = Path(ref)
        else:
            trees[side] = checkout(ref, REPO)
            made.append(trees[side])
    seeds = args.seeds
    print(f"{args.env}, {args.estimator}, budget {args.budget}, G={args.group_size}, {args.tasks} tasks/iteration, "
          f"world {args.size}; before: {args.before} ({args.before_threads} torch threads), after: "
          f"{args.after or 'this checkout'} ({args.after_threads} torch threads); seeds {seeds}, runs alternate "
          "before/after")
    if args.before_threads != args.after_threads:
        print(f"WARNING: the sides run on different torch thread counts ({args.before_threads} before, "
              f"{args.after_threads} after): the ratios below measure the threads too, not only the code", flush=True)
    before, after = [], []
    try:
        for seed in seeds:
            before.append(run_child(trees["before"], args.before_threads, seed, args))
            after.append(run_child(trees["after"], args.after_threads, seed, args))
    finally:
        for tree in made:
            remove_checkout(tree, REPO)
    b = summary("before", before)
    a = summary("after", after)
    print(f"speed-up, whole runs: {a[0] / b[0]:.2f}x env steps per wall-second, {a[1] / b[1]:.2f}x per CPU-second; "
          f"training loop: {a[2] / b[2]:.2f}x per wall-second, {a[3] / b[3]:.2f}x per CPU-second "
          + ("(goal >= 2x)" if args.before_threads == args.after_threads else "(NOT comparable: thread counts differ)"))
    print("learning curves (dev success at each evaluation):")
    means = {"before": [], "after": []}
    for seed, b, a in zip(seeds, before, after):
        for label, run in (("before", b), ("after", a)):
            means[label].append(sum(v for _, v in run["curve"]) / len(run["curve"]))
        print(f"  seed {seed}: before {[round(v, 3) for _, v in b['curve']]}\n"
              f"  {'':>{len(str(seed)) + 5}} after  {[round(v, 3) for _, v in a['curve']]}")
    print(curve_verdict(means["before"], means["after"], before[0]["dev_tasks"]))


def curve_verdict(before: list[float], after: list[float], dev_tasks: int) -> str:
    """Same curve within noise? Compares the mean over seeds of each run's mean dev success (its
    curve's height) with 1.96 standard errors of the difference: the seeds' spread, and never less
    than the binomial noise of ``dev_tasks`` greedy episodes per point."""
    n = len(before)
    mean_b, mean_a = sum(before) / n, sum(after) / n
    p = min(max((mean_b + mean_a) / 2, 1 / dev_tasks), 1 - 1 / dev_tasks)
    binomial = p * (1 - p) / dev_tasks

    def var(xs: list[float], mean: float) -> float:
        return max(sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0, binomial)

    band = 1.96 * math.sqrt((var(before, mean_b) + var(after, mean_a)) / n)
    verdict = "within noise" if abs(mean_a - mean_b) <= band else "OUTSIDE the noise band"
    return (f"curve height (mean dev success over evaluations and {n} seeds): before {mean_b:.3f}, "
            f"after {mean_a:.3f}, difference {mean_a - mean_b:+.3f}; noise band +-{band:.3f}: {verdict}")

if __name__ == "__main__":
    main()
