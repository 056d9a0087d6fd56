"""``searchgym train --policy llm``: the LLM trainer as one harness run on an ad-hoc suite."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from searchgym.fileio import read_json
from searchgym.harness.llm_method import WORLD_KEYS, config_from_args, option_getter
from searchgym.harness.methods import MethodRef
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.suites import Suite

#: The harness method a ``train --policy llm`` run records (and resumes with).
HARNESS_METHOD = "searchgym.harness.llm_method:harness_method"


def train_from_args(args: Any) -> int:
    """``searchgym train --policy llm``: a harness run (config.json, metrics.jsonl, a resumable
    checkpoint under checkpoint/, predictions.jsonl and result.json on the test split, DONE).

    Reads ``args.method`` (a method of :mod:`searchgym.method_table` that the LLM trainer
    supports: cw_grpo, grpo, dr_grpo, grpo_role, cw_grpo_role; another is an error naming why),
    ``env`` (an env id; run in text mode),
    ``budget`` (env steps: every assistant turn of every agent), ``seed``, ``device``, ``out``
    (the run folder; rerun to resume), ``model`` (path, hub id, or random:tiny /
    random:qwen2-0.5b), and any key of OPTIONAL_ARGS as an attribute or in ``args.options`` (JSON).
    """
    config, get = config_from_args(args), option_getter(args)
    world = {k: config.env_kwargs.pop(k) for k in WORLD_KEYS if k in config.env_kwargs}
    suite = Suite(id=f"train-llm-{config.env_id}", version=0, env_id=config.env_id, env_kwargs=config.env_kwargs,
                  world_seed=int(world.get("world_seed", 0)), world_size=world.get("world_size", "small"),
                  families=world.get("families"), difficulty=world.get("difficulty"), dev_size=get("dev_size"),
                  test_size=get("test_size"), description="ad-hoc suite of `searchgym train --policy llm`")
    out = Path(getattr(args, "out", None) or "runs/train")
    spec = RunSpec(suite=suite, method=MethodRef(f"llm-{config.method}", HARNESS_METHOD),
                   seed=config.seed, budget=config.budget, out=out, device=config.device, policy="llm",
                   progress=not get("no_progress"), options={"llm_config": asdict(config)}, folder=out)
    outcome = execute_run(spec)
    test = read_json(Path(outcome.run_dir) / "result.json")["test"]["all"]
    print(f"llm {config.method} on {config.env_id} ({config.model}): test success {test['success']:.3f}, "
          f"F1 {test['f1']:.3f} ({outcome.status}; files in {outcome.run_dir})")
    return 0
