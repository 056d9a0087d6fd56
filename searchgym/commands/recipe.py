"""``searchgym recipe tiny-lm``: a causal LM from scratch on a CPU, SFT on the reader, then RL.

Every stage writes into ``--out`` and is skipped when re-run (see
:mod:`searchgym.agents.tiny_lm_recipe`). Here the stages' figures become the results: each
method's gain over SFT per task with a 95% bootstrap interval over seeds and tasks
(:func:`searchgym.harness.stats.bootstrap_ci`), in ``results.json`` and ``RESULTS.md``.
``--smoke`` is the minutes-long version the test suite runs (a few tasks, a few steps).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from searchgym.commands import out_folder
from searchgym.extras import require_all_installed
from searchgym.fileio import atomic_write_json, atomic_write_text, check_folder_can_be_made, not_a_folder
from searchgym.harness.option_types import check_options

if TYPE_CHECKING:
    from searchgym.agents.tiny_lm_records import OtherCommandLine

RECIPES = ("tiny-lm",)
#: What the tiny-LM recipe imports: all three come with the llm extra.
NEEDS = ("torch", "transformers", "tokenizers")
#: a run of minutes: every stage, on a handful of tasks
SMOKE = {"sft_tasks": 16, "sft_epochs": 1.0, "choice_tasks": 6, "rl_iterations": 1, "group_size": 2, "tasks_per_iteration": 2,
         "test_tasks": 8, "eval_batch": 8, "max_new_tokens": 48, "seeds": (0, 1), "rollout": {"max_turns": 3}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recipe", choices=RECIPES, help="which recipe")
    parser.add_argument("--out", default="runs/tiny", type=out_folder, help="the run folder (a re-run skips finished stages)")
    smoke = ", ".join(f"{k}={json.dumps(list(v) if isinstance(v, tuple) else v)}" for k, v in SMOKE.items())
    parser.add_argument("--smoke", action="store_true", help=f"every stage on a few tasks (minutes; for "
                        f"tests): sets {smoke}; values given in --options take precedence".replace("%", "%%"))
    parser.add_argument("--options", default="{}",
                        help="JSON object of RecipeConfig fields, e.g. '{\"shape\": \"l4-w192\", \"seeds\": [0, 1, 2]}'; "
                             "every key with its default is listed below")
    parser.epilog = options_epilog()


def options_epilog() -> str:
    """The --options keys with their defaults, from RecipeConfig's source (the help said none of them);
    read without importing torch, which --help has no use for (before: about 2 s)."""
    from searchgym.commands.recipe_options_listing import options_listing

    return options_listing()


def run(args: argparse.Namespace) -> int:
    # every missing one in one line (before: torch's [train], then, once installed, transformers' [llm])
    require_all_installed(NEEDS, f"searchgym recipe {args.recipe}", extra="llm")
    from searchgym.agents.llm_prompt_room import check_recipe_prompt
    from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig
    from searchgym.harness.out_folders import RECIPE, check_out_folder

    out = Path(args.out)
    what = not_a_folder(out)  # before: a warning about a file inside it first; a broken link was "a file"
    if what is not None:
        raise ValueError(f"--out {out} is {what}, not a folder; give the recipe's folder (or a path not yet "
                         "made)")
    check_out_folder(out, RECIPE)  # before: its files went beside a comparison's runs/, which then never resumed
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
    check_options(RecipeConfig, options, "the recipe")  # "seeds": "abc" is refused by name, not by int()
    config = RecipeConfig(**{**(SMOKE if args.smoke else {}), **options})
    recipe = Recipe(config, args.out, other_command_lines=smoke_toggled(args.smoke, options))
    check_recipe_prompt(recipe)  # before the folder: rollout.max_episode_tokens leaves room after the opening prompt
    check_folder_can_be_made(out, "--out")
    with recipe.locked():  # one process per --out, its results written under the lock too (else: one line)
        raw = recipe.run()
        results = summarise(config, raw["sft_info"], raw["sft_eval"], raw["runs"], raw.get("sft_eval_free"),
                            raw.get("sft_choices"))
        results["stage_seconds"], results["wall_seconds"] = raw["stage_seconds"], raw["wall_seconds"]
        results["cpu_seconds"] = raw.get("cpu_seconds")
        atomic_write_json(Path(args.out) / "results.json", results)
        atomic_write_text(Path(args.out) / "RESULTS.md", results_markdown(results))
    print(f"tiny-lm recipe: SFT test success {results['sft']['success']:.3f} (replies parsed "
          f"{results['sft']['parse_rate']:.3f}); " + "; ".join(
              f"{m} gain {r['gain']:+.3f} [{r['gain_low']:+.3f}, {r['gain_high']:+.3f}]"
              for m, r in results["methods"].items()) + f"; files in {args.out}/ (RESULTS.md)")
    return 0


def smoke_toggled(smoke: bool, options: dict[str, Any]) -> list[OtherCommandLine]:
    """The same command line with ``--smoke`` added or left out, for a folder made that way to be refused
    naming the flag (:class:`~searchgym.agents.tiny_lm_records.OtherCommandLine`)."""
    from searchgym.agents.tiny_lm_recipe import RecipeConfig
    from searchgym.agents.tiny_lm_records import OtherCommandLine

    try:
        config = RecipeConfig(**{**({} if smoke else SMOKE), **options})
    except ValueError:  # options that only this command line's settings take: no other to name
        return []
    if smoke:
        return [OtherCommandLine("made without --smoke", "leave out --smoke to go on with it", asdict(config))]
    return [OtherCommandLine("made with --smoke", "add --smoke to go on with it", asdict(config))]


def summarise(config: Any, sft_info: dict, sft_eval: dict, runs: dict[str, list[dict]],
              sft_eval_free: dict | None = None, sft_choices: dict | None = None) -> dict[str, Any]:
    """SFT success, each method's per-seed success and its gain over SFT with a 95% interval."""
    from searchgym.harness.stats import bootstrap_ci

    base = np.asarray(sft_eval["per_task"], dtype=float)
    methods = {}
    for method, seeds in runs.items():
        gains = np.stack([np.asarray(r["per_task"], dtype=float) - base for r in seeds])
        interval = bootstrap_ci(gains, rng=0)
        methods[method] = {"seeds": [r["seed"] for r in seeds], "success": [r["success"] for r in seeds],
                           "parse_rate": [r["parse_rate"] for r in seeds], "gain": interval.mean,
                           "gain_low": interval.low, "gain_high": interval.high,
                           "rl_generate_tokens_per_s": float(np.mean([r["rl_generate_tokens_per_s"] for r in seeds])),
                           "rl_train_tokens_per_s": float(np.mean([r["rl_train_tokens_per_s"] or 0 for r in seeds])),
                           "rl_seconds": [r["rl_seconds"] for r in seeds]}
    paired = None
    if "grpo" in runs and "cw_grpo" in runs and [r["seed"] for r in runs["grpo"]] == [r["seed"] for r in runs["cw_grpo"]]:
        diff = np.stack([np.asarray(c["per_task"], float) - np.asarray(g["per_task"], float)
                         for c, g in zip(runs["cw_grpo"], runs["grpo"])])  # the same seed and tasks: paired
        interval = bootstrap_ci(diff, rng=0)
        paired = {"gain": interval.mean, "gain_low": interval.low, "gain_high": interval.high}
    free = None if sft_eval_free is None else {k: sft_eval_free[k] for k in ("success", "parse_rate", "tasks",
                                                                              "generate_tokens_per_s")}
    return {"suite": config.suite, "shape": config.shape, "parameters": sft_info["parameters"],
            "guided": bool(getattr(config, "guided", False)), "sft_free": free,
            "sft": {"success": sft_eval["success"], "parse_rate": sft_eval["parse_rate"],
                    "tasks": sft_eval["tasks"], "train_tokens_per_s": sft_info["sft_tokens_per_s"],
                    "generate_tokens_per_s": sft_eval["generate_tokens_per_s"], "steps": sft_info["sft_steps"],
                    "loss": sft_info["sft_loss"], "choices": sft_choices, "episodes": sft_info.get("kept"),
                    "played": sft_info.get("transcripts"), "worlds": sft_info.get("worlds", 1)},
            "methods": methods, "cw_grpo_minus_grpo": paired}


def results_markdown(results: dict[str, Any]) -> str:
    """The results section: SFT success, each method's gain with its interval, parse rates, speeds."""
    sft, free = results["sft"], results.get("sft_free")
    decoding = "guided decoding" if results.get("guided") else "free generation"
    lines = [f"## Tiny-LM recipe on {results['suite']} ({results['shape']}, {results['parameters']:,} parameters)", "",
             f"SFT only, {decoding}: test success {sft['success']:.3f} on {sft['tasks']} tasks; replies that parse "
             f"{sft['parse_rate']:.3f}; SFT training {sft['train_tokens_per_s']:.0f} tokens/s; greedy generation "
             f"{sft['generate_tokens_per_s']:.0f} tokens/s.", ""]
    if sft.get("episodes") is not None:
        lines += [f"SFT data: the reader solved {sft['episodes']:,} of {sft['played']:,} train tasks on "
                  f"{worlds_text(sft['worlds'])}; {sft['steps']:,} steps, last loss {sft['loss']:.2f}.", ""]
    choices = sft.get("choices")
    if choices and choices.get("transcripts"):
        kinds = {"act": "call or answer", "tool": "which tool", "arg": "a call's argument", "answer": "the answer"}
        shown = "; ".join(f"{label} {choices[k]:.3f} ({choices['counts'][k]})" for k, label in kinds.items()
                          if choices.get(k) is not None)
        lines += [f"The SFT model's choices, teacher-forced on the reader's solved episodes of {choices['tasks']} dev "
                  f"tasks (accuracy, number of choices): {shown}; every choice of an episode right: "
                  f"{choices['episodes']:.3f}.", ""]
    if free:
        lines += [f"The same SFT model with free generation: test success {free['success']:.3f}; replies that parse "
                  f"{free['parse_rate']:.3f}; {free['generate_tokens_per_s']:.0f} tokens/s.", ""]
    lines += [
             "| method | seeds | test success per seed | gain over SFT [95% CI] | replies parsed | "
             "RL generation tok/s | RL update, scored tok/s |", "|---|---|---|---|---|---|---|"]
    for method, m in results["methods"].items():
        lines.append(f"| {method} | {', '.join(map(str, m['seeds']))} | {', '.join(f'{s:.3f}' for s in m['success'])} "
                     f"| {m['gain']:+.3f} [{m['gain_low']:+.3f}, {m['gain_high']:+.3f}] | "
                     f"{min(m['parse_rate']):.3f}-{max(m['parse_rate']):.3f} | {m['rl_generate_tokens_per_s']:.0f} | "
                     f"{m['rl_train_tokens_per_s']:.0f} |")
    paired = results.get("cw_grpo_minus_grpo")
    if paired:
        lines += ["", f"CW-GRPO minus GRPO, paired by seed and task: {paired['gain']:+.3f} "
                      f"[{paired['gain_low']:+.3f}, {paired['gain_high']:+.3f}]."]
    lines += ["", time_text(results), ""]
    return "\n".join(lines)


def worlds_text(worlds: int) -> str:
    """The worlds SFT data was played on (before: "1 world(s) (the suite's and the next seeds')")."""
    if worlds == 1:
        return "1 world (the suite's)"
    others = "the next seed's" if worlds == 2 else f"the next {worlds - 1} seeds'"
    return f"{worlds} worlds (the suite's and {others})"


def time_text(results: dict[str, Any]) -> str:
    """Wall and CPU time and each stage's seconds; a stage whose seconds were lost (None: a damaged
    stage_seconds.json) is "unknown", and so are the totals (before: about 0 s, as if it took none)."""
    stage_seconds = results.get("stage_seconds", {})
    stages = ", ".join(f"{k} {'unknown' if v is None else f'{v:.0f} s'}" for k, v in stage_seconds.items())
    if any(v is None for v in stage_seconds.values()):
        return (f"Wall time and CPU time unknown ({stages}; a stage marked unknown was finished by an earlier run "
                "whose seconds are not in stage_seconds.json: it was damaged or deleted).")
    cpu = f", CPU time {results['cpu_seconds']:.0f} s" if results.get("cpu_seconds") is not None else ""
    return f"Wall time {results.get('wall_seconds', 0):.0f} s{cpu} ({stages})."
