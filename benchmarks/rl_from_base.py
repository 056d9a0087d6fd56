"""RL from a base policy: does it add to the base or erode it? GRPO and CW-GRPO, with and
without the KL term to the base, on the harness's own test evaluation.

A stand-in base until ``--option init=sft`` exists: the hash policy cloned from the oracle team
on the suite's train tasks (the states come from the oracle mixed with uniform actions, p =
``--follow``; every label is the oracle's action), a few epochs of cross-entropy. Step 1 writes
it to ``OUT/base.pt``; step 2 runs ``searchgym compare`` with the methods of this module
(each loads the base into its trainer before the first update, so the KL reference is the base;
``base`` trains nothing and is the base itself):

    PYTHONPATH=. .venv/bin/python benchmarks/rl_from_base.py --out runs/from_base --budget 4000 \\
        --methods base,grpo,cw_grpo,cw_all=cw_grpo[cw_rounds=all],grpo_kl=grpo[loss.kl_coef=0.05]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

BASE_ENV = "SEARCHGYM_BASE_WEIGHTS"


def clone_oracle(suite_id: str, n_tasks: int, follow: float, epochs: int, seed: int, out: Path) -> dict[str, float]:
    """Behaviour-clone the oracle team into a shared hash population; save its weights to ``out``."""
    from searchgym.agents.population import Population
    from searchgym.baselines.team_oracle import TeamOracle
    from searchgym.fileio import atomic_torch_save
    from searchgym.suites import get_suite, make_env

    env = make_env(get_suite(suite_id), "train")
    rng = np.random.default_rng(seed)
    train = [t.id for t in env.unwrapped.tasks.tasks("train")]
    observations, labels = [], []
    for t, index in enumerate(rng.choice(len(train), size=min(n_tasks, len(train)), replace=False)):
        obs, _ = env.reset(seed=seed * 1_000_003 + t, options={"task_id": train[index]})
        oracle = TeamOracle()
        while env.agents:
            planned = oracle.choose_actions(env)
            actions = {}
            for agent in env.agents:
                mask = np.flatnonzero(np.asarray(obs[agent]["action_mask"]))
                teacher = int(planned.get(agent, mask[0]))
                observations.append(obs[agent])
                labels.append(teacher)
                actions[agent] = teacher if rng.random() < follow else int(rng.choice(mask))
            obs, *_ = env.step(actions)
    population = Population.build("shared", len(env.possible_agents), encoder="hash", seed=seed)
    policy = population.policy_for(0)
    optimizer = torch.optim.Adam(population.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(seed)
    target = torch.tensor(labels)
    for _ in range(epochs):
        for rows in torch.randperm(len(labels), generator=generator).split(256):
            logits, _ = policy([observations[i] for i in rows.tolist()])
            loss = torch.nn.functional.cross_entropy(logits, target[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        logits, _ = policy(observations[:2000])
        accuracy = float((logits.argmax(-1) == target[:2000]).float().mean())
    atomic_torch_save(out, population.state_dict())
    return {"states": len(labels), "train_accuracy": accuracy}


def _from_base(ctx, name: str):
    """Train spec ``name`` from the base weights (``$SEARCHGYM_BASE_WEIGHTS``); budget 0: the base."""
    from searchgym.agents.policy_actor import PolicyActor
    from searchgym.harness.method_specs import build_config
    from searchgym.method_table import METHOD_SPECS
    from searchgym.harness.methods import load_callable

    spec = METHOD_SPECS[name]
    trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    config = build_config(spec, ctx, trainer_cls)
    trainer = trainer_cls(config, out_dir=ctx.checkpoint_dir, log=ctx.log, dev_tasks=[t.id for t in ctx.tasks("dev")])
    if trainer.state.iteration == 0:  # a resumed run already holds its weights (and its reference)
        trainer.population.load_state_dict(torch.load(os.environ[BASE_ENV], weights_only=True))
    trainer.train(progress=False)
    return PolicyActor(trainer.population, list(trainer.env.possible_agents), decoding=config.decoding, seed=ctx.seed)


def base(ctx):
    ctx.budget = 0
    return _from_base(ctx, "grpo")


def grpo(ctx):
    return _from_base(ctx, "grpo")


def cw_grpo(ctx):
    return _from_base(ctx, "cw_grpo")


def main() -> None:
    # here: compare imports this file as benchmarks.rl_from_base
    from suite_arg import describe, new_folder, suite_id

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2", type=suite_id)
    parser.add_argument("--out", required=True, type=new_folder)
    parser.add_argument("--base-tasks", type=int, default=300)
    parser.add_argument("--follow", type=float, default=0.7)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--workers", default="1")
    parser.add_argument("--methods", default="base,grpo,cw_grpo")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    weights = out / "base.pt"
    if not weights.exists():
        print("base:", clone_oracle(args.suite, args.base_tasks, args.follow, args.epochs, 0, weights), flush=True)
    methods = []
    for entry in args.methods.split(","):
        label, _, rest = entry.partition("=")
        name, bracket, options = (rest or label).partition("[")
        methods.append(f"{label}=benchmarks.rl_from_base:{name}{bracket}{options}")
    command = [sys.executable, "-m", "searchgym.cli", "compare", "--suite", args.suite, "--methods", ",".join(methods),
               "--seeds", args.seeds, "--budget", str(args.budget), "--device", "cpu", "--workers", args.workers,
               "--out", str(out / "compare"), "--reference", "base", "--no-progress"]
    env = {**os.environ, BASE_ENV: str(weights.resolve()), "PYTHONPATH": os.getcwd()}
    subprocess.run(command, check=True, env=env)


if __name__ == "__main__":
    main()
