"""Cost per agent-step of the ``attn`` policy against ``hash`` (with and without its facts-about
context, and with `make main`'s comparison and operand features), side by side in one process.

Observations are real ones: the reader plays ``--tasks`` train tasks of the suite (a seeded
sample, so every family and late, long observations are in it; every acting
agent's observation is kept). For each policy and batch size (8: a rollout round; 128: an update
minibatch) it times a no-grad forward (rollouts) and a forward + backward of the log-probability
(updates) over the same observations, after one warm-up pass (token caches full, as in training,
where the update epochs see the rollout's observations again); the warm-up pass itself is the
"forward, cold" row (features and tokens computed for the first time, as for a new observation,
with the features' module-level memos emptied first). CPU time (``time.process_time``) is printed
beside wall time, with the ratios hash / hash without ``fact_context``, attn / hash and hash with
`make main`'s features / hash.

    OMP_NUM_THREADS=1 python benchmarks/bench_policy.py [--suite quick-v2] [--tasks 40] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from script_extras import require_extras
from suite_arg import count, describe, suite_of

#: the policy kwargs of `make main` (Makefile MAIN_OPTIONS): hash with the comparison and operand features
MAIN_KWARGS = {"comparison_facts": True, "operand_sources": True}


def observations(suite_id: str, n_tasks: int) -> list[dict]:
    from searchgym.agents.imitation import demonstrations
    from searchgym.baselines.reader import ReaderActor, ReaderPolicy

    from searchgym.suites import get_suite, make_env, tasks

    suite = get_suite(suite_id)
    train = tasks(suite, "train")
    picked = [train[i] for i in np.random.default_rng(0).permutation(len(train))[:n_tasks]]  # every family
    examples, _ = demonstrations(make_env(suite, "train"), ReaderActor(ReaderPolicy()), picked, seed=0)
    return examples.observations(range(len(examples)))


def clear_module_caches() -> None:
    """Empty the module-level memos the features share between policies (functools caches)."""
    import importlib

    for name in ("searchgym.agents.hop_features", "searchgym.agents.operand_features",
                 "searchgym.agents.comparison_features", "searchgym.agents.lexical_overlap",
                 "searchgym.baselines.reader_observation", "searchgym.baselines.reader_plan"):
        for value in vars(importlib.import_module(name)).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def time_policy(policy, obs: list[dict], batch: int, repeats: int) -> dict[str, float]:
    """Seconds (cpu, wall) per agent-step of a forward and of a forward + backward."""
    import torch

    obs = obs * -(-batch // len(obs))  # at least one full batch
    batches = [obs[i:i + batch] for i in range(0, len(obs) - batch + 1, batch)]
    out = {}
    clear_module_caches()  # the policies before this one filled them: each cold pass starts empty
    cpu, wall = time.process_time(), time.perf_counter()
    with torch.no_grad():
        for b in batches:  # warm-up: token and feature caches, allocator (timed: what a new observation costs)
            policy(b)
    seen = len(batches) * batch
    out["forward, cold"] = ((time.process_time() - cpu) / seen, (time.perf_counter() - wall) / seen)
    policy.zero_grad()  # one untimed backward, so that its first-call cost is not in the timed repeats
    policy.evaluate(batches[0], torch.zeros(batch, dtype=torch.long))[0].sum().backward()
    for kind in ("forward", "forward+backward"):
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(repeats):
            for b in batches:
                if kind == "forward":
                    with torch.no_grad():
                        policy(b)
                else:
                    policy.zero_grad()
                    log_p, _, _ = policy.evaluate(b, torch.zeros(len(b), dtype=torch.long))
                    log_p.sum().backward()
        steps = repeats * len(batches) * batch
        out[kind] = ((time.process_time() - cpu) / steps, (time.perf_counter() - wall) / steps)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2", type=suite_of("candidates"),
                        help="candidate-mode suite whose train tasks give the observations (default quick-v2)")
    parser.add_argument("--tasks", type=count, default=40,
                        help="train tasks the reader plays for observations (default 40)")
    parser.add_argument("--repeats", type=count, default=3, help="timed passes over the batches (default 3)")
    parser.add_argument("--threads", type=count, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    require_extras(__file__, ["torch"])
    import torch

    torch.set_num_threads(args.threads)
    from searchgym.agents.policy import make_policy

    obs = observations(args.suite, args.tasks)
    print(f"{len(obs)} observations from {args.tasks} train tasks of {args.suite}, {args.threads} thread(s); "
          "milliseconds per agent-step; 'hash -facts' is hash with fact_context=False (its earlier layout)")
    policies = {"hash": ("hash", {}), "hash -facts": ("hash", {"fact_context": False}), "attn": ("attn", {}),
                "hash main": ("hash", MAIN_KWARGS)}
    print(f"{'batch':>5} {'pass':<17} {'clock':<5}" + "".join(f" {name:>11}" for name in policies)
          + f" {'hash/-facts':>11} {'attn/hash':>9} {'main/hash':>9}")
    for batch in (8, 128):
        results = {label: time_policy(make_policy(name, seed=0, **kwargs), obs, batch, args.repeats)
                   for label, (name, kwargs) in policies.items()}
        for kind in ("forward, cold", "forward", "forward+backward"):
            for clock, at in (("cpu", 0), ("wall", 1)):
                ms = {label: 1e3 * results[label][kind][at] for label in policies}
                print(f"{batch:>5} {kind:<17} {clock:<5}" + "".join(f" {ms[label]:>11.3f}" for label in policies)
                      + f" {ms['hash'] / ms['hash -facts']:>11.2f} {ms['attn'] / ms['hash']:>9.1f}"
                      + f" {ms['hash main'] / ms['hash']:>9.2f}")

if __name__ == "__main__":
    main()
