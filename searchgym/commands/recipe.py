"""``searchgym recipe tiny-lm``: a causal LM from scratch on a CPU, SFT on the reader, then RL.

Every stage writes into ``--out`` and is skipped when re-run (see
:mod:`searchgym.agents.tiny_lm_recipe`); the results land in ``results.json`` and ``RESULTS.md``.
``--smoke`` is the minutes-long version the test suite runs (a few tasks, a few steps).
"""

from __future__ import annotations

import argparse
import json

RECIPES = ("tiny-lm",)
#: a run of minutes: every stage, on a handful of tasks
SMOKE = {"sft_tasks": 16, "sft_epochs": 1.0, "rl_iterations": 1, "group_size": 2, "tasks_per_iteration": 2,
         "test_tasks": 8, "eval_batch": 8, "max_new_tokens": 24, "seeds": (0, 1), "rollout": {"max_turns": 3}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recipe", choices=RECIPES, help="which recipe")
    parser.add_argument("--out", default="runs/tiny", help="the run folder (a re-run skips finished stages)")
    parser.add_argument("--smoke", action="store_true", help="every stage on a few tasks (minutes; for tests)")
    parser.add_argument("--options", default="{}",
                        help="JSON object of RecipeConfig fields, e.g. '{\"shape\": \"l4-w192\", \"seeds\": [0, 1, 2]}'")


def run(args: argparse.Namespace) -> int:
    from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--options is not JSON ({exc.msg}); give an object, e.g. '{{\"shape\": \"l2-w128\"}}'") from exc
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object of RecipeConfig fields")  # noqa: TRY004
    known = set(RecipeConfig.__dataclass_fields__)
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown recipe option(s) {unknown}; accepted: {', '.join(sorted(known))}")
    config = RecipeConfig(**{**(SMOKE if args.smoke else {}), **options})
    results = Recipe(config, args.out).run()
    print(f"tiny-lm recipe: SFT test success {results['sft']['success']:.3f} (replies parsed "
          f"{results['sft']['parse_rate']:.3f}); " + "; ".join(
              f"{m} gain {r['gain']:+.3f} [{r['gain_low']:+.3f}, {r['gain_high']:+.3f}]"
              for m, r in results["methods"].items()) + f"; files in {args.out}/ (RESULTS.md)")
    return 0
