"""``searchgym train``: train one method on one env, with the harness's records.

The run folder gets what a comparison run gets (``config.json``, ``metrics.jsonl`` with dev
success during training, a resumable checkpoint, ``predictions.jsonl`` on the test split, then
``DONE``): run the same command again after an interruption and it resumes. ``--policy llm``
trains a causal LM that writes its own tool calls (``--model PATH_OR_ID``, text-mode env).

A bare ``searchgym train`` (no options) trains nothing: it prints what it would do and the
defaults, and how to start (``--start`` runs with every default). Any other command checks its
settings first and prints the plan only for settings that can run (a bad one is one error line).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from types import SimpleNamespace

from searchgym.commands import (
    MAX_SEED,
    check_at_least,
    check_at_most,
    check_world_seed,
    check_world_size,
    out_folder,
)
from searchgym.commands.compare import MAX_BUDGET, parse_options, require_extras
from searchgym.damaged import DamagedFile
from searchgym.devices import resolve_device
from searchgym.extras import require_installed
from searchgym.fileio import atomic_write_text, check_folder_can_be_made, read_json
from searchgym.harness.finished_files import finished_json
from searchgym.harness.loggers import LOGGERS, check_logger_installed
from searchgym.harness.method_specs import llm_method_spec
from searchgym.harness.methods import BASELINE_METHODS, METHODS, load_method, resolve_method
from searchgym.harness.preflight import BUILT_IN_POLICIES, check_comparison, check_policy
from searchgym.harness.run_reads import is_seed_folder
from searchgym.harness.runner import RunSpec, execute_run, run_dir
from searchgym.registry import registered_setting
from searchgym.registry import spec as env_spec
from searchgym.suites import Suite, tasks
from searchgym.world import FAMILIES
from searchgym.world.generate import size_from_text


#: The env ``train`` plays where ``--env`` is not given; ``--policy llm`` plays a text env.
DEFAULT_ENV = "SearchQA-Candidates-Easy-v0"
LLM_DEFAULT_ENV = "SearchQA-v0"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--start", action="store_true", help="start even with no other option (all defaults)")
    parser.add_argument("--method", default="cw_grpo", help=f"{', '.join(METHODS)}, or an import path "
                        "module:callable (--policy llm: the methods whose record in searchgym.method_table allows it)")
    parser.add_argument("--env", default=None, help=f"an env id (searchgym list; default {DEFAULT_ENV}, with --policy "
                        f"llm {LLM_DEFAULT_ENV}: the model writes its actions as text)")
    parser.add_argument("--budget", type=int, default=20_000, help=f"training env steps (0..{MAX_BUDGET})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run's generators")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--out", default="runs/train", type=out_folder, help="run folder (resumes if it holds an unfinished run)")
    parser.add_argument("--policy", default="hash", help="hash, attn, minilm, hf or llm")
    parser.add_argument("--model", default=None,
                        help="HF model path or id (hf and llm policies); default for --policy llm: random:tiny, "
                             "a tiny randomly initialised model that checks the pipeline (its scores mean nothing)")
    parser.add_argument("--world-seed", type=int, default=0, help="which fictional world")
    parser.add_argument("--world-size", default="small",
                        help="tiny, small, medium, large, xl or an int scale in 4..9000 (default small)")
    parser.add_argument("--families", default=None, help="comma-separated task families (default: all)")
    parser.add_argument("--difficulty", default=None, choices=["easy", "hard"],
                        help="only easy or hard tasks (default: both)")
    parser.add_argument("--test-size", type=int, default=200, help="test tasks of the ad-hoc suite")
    parser.add_argument("--options", default="{}", action=_Once,
                        help="JSON object of method options (e.g. '{\"lr\": 0.001}')")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="method option, as compare takes it (repeatable; beside --options)")
    parser.add_argument("--logger", choices=LOGGERS, default="none",
                        help="also send metrics.jsonl rows to TensorBoard (<out>/tensorboard) or W&B")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


class _Once(argparse.Action):
    """``--options`` given twice is refused. Why: the second JSON object replaced the first whole, so
    ``--options '{"lr": 0.1}' --options '{"group_size": 4}'`` trained with the default lr, silently."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.options_given = getattr(namespace, "options_given", 0) + 1  # train_options refuses 2
        setattr(namespace, self.dest, values)


#: Methods that train nothing (``sft`` fits a base instead: its own line in the plan).
NO_TRAINING = tuple(name for name in BASELINE_METHODS if name != "sft")


def describe_plan(args: argparse.Namespace, suite: Suite | None = None, model: str | None = None,
                  guided: bool = False) -> str:
    """What ``train`` with these arguments does, in words; the world and split sizes from ``suite``
    when given (``--policy llm`` takes them from ``--options`` too: the plan said "up to 200 tasks"
    for ``{"test_size": 3}``); ``model``: the model the policy loads (before: ``--policy llm`` without
    ``--model`` trained random:tiny, and the plan did not say so); ``guided``: the LLM's replies are
    decoded guided (before: the plan read the same with and without it, which decides whether a model
    trained with guided SFT writes readable actions)."""
    env = f"{args.env} in text mode (the model writes its tool calls)" if args.policy == "llm" else args.env
    seed, size, families, difficulty, test_size, dev_size = (
        (args.world_seed, args.world_size, args.families, args.difficulty, args.test_size, None) if suite is None
        else (suite.world_seed, suite.world_size, suite.families and ",".join(suite.families), suite.difficulty,
              suite.test_size, suite.dev_size))
    return (f"searchgym train: {args.method or 'cw_grpo'} on {env} (world seed {seed}, size {size}, "
            f"families {families or 'as the env sets them'}, difficulty {difficulty or 'as the env sets it'}), "
            f"{_training(args)}, seed {args.seed}, policy {args.policy}{_policy_details(model, guided)}, "
            f"device {args.device}; "
            f"then the test split (up to {test_size} tasks) and the dev split ({_dev_tasks(dev_size)}). "
            f"Files (resumable) in {args.out}/.")


def _dev_tasks(dev_size: int | None) -> str:
    """How much of the dev split the run scores after training, as every run does (before: the plan named the
    test split alone, and an LLM run spent most of its minutes on the 100 dev tasks it did not mention)."""
    return "all of it" if dev_size is None else f"up to {dev_size} tasks"


def _policy_details(model: str | None, guided: bool) -> str:
    """What follows the policy's name in the plan: its model, and guided decoding when it is set."""
    details = ([f"model {model}"] if model else []) + (["guided decoding"] if guided else [])
    return f" ({', '.join(details)})" if details else ""


def _training(args: argparse.Namespace) -> str:
    """What the run trains. Why: the plan said "20000 training env steps" for sft and the baselines,
    which spend no env-step budget."""
    if args.method == "sft":
        return "a supervised base fitted to demonstrations (the reader's by default; --budget is not spent)"
    if args.method in NO_TRAINING:
        return "no training (a baseline)"
    return f"{args.budget} training env steps"


def _print_defaults() -> None:
    parser = argparse.ArgumentParser(prog="searchgym train")
    add_arguments(parser)
    defaults = parser.parse_args([])
    defaults.env = DEFAULT_ENV
    print(describe_plan(defaults))
    print("\nNothing started: a bare `searchgym train` only shows the plan. Defaults:")
    for action in parser._actions:
        if action.option_strings and action.dest not in ("help", "start"):
            print(f"  {action.option_strings[-1]:<14} {getattr(defaults, action.dest)!s:<28} {action.help or ''}")
    print("\nStart it with `searchgym train --start`, or give any option, e.g. "
          "`searchgym train --budget 5000 --out runs/train5k`.")


def check_settings(args: argparse.Namespace) -> None:
    """The settings that need no world, no training and no folder, checked before the plan is printed.
    Why: the plan came first, then the error; an unknown env id or a negative --seed also left a run
    folder behind, which then refused the corrected command ("holds a different run")."""
    env_spec(args.env)  # an unknown id: one error listing the registered ids
    check_at_least((("--budget", args.budget, 0, "training env steps"), ("--seed", args.seed, 0, "the run's seed"),
                    ("--test-size", args.test_size, 1, "test tasks")))
    check_at_most((("--seed", args.seed, MAX_SEED, "the run's seed"), ("--budget", args.budget, MAX_BUDGET,
                                                                      "training env steps")))
    check_world_seed(args)
    check_world_size(args.world_size, "--world-size")  # a preset or an int scale in 4..9000 (before: any int, and
    # --world-size 99999 generated a world no env loads until it was killed)
    unknown = [f for f in families_of(args) or () if f not in FAMILIES]
    if unknown:
        raise ValueError(f"--families: unknown task family {', '.join(map(repr, unknown))}; accepted: "
                         f"{', '.join(FAMILIES)} (comma-separated)")
    resolve_device(args.device)  # "unknown device 'gpu'; accepted: auto, cpu, cuda or cuda:N"


#: The policies ``--model`` gives a model folder to (``hf`` as its ``model_name_or_path``).
MODEL_POLICIES = ("hf", "llm")


def check_model_flag(model: str | None, policy: str) -> None:
    """``--model`` only with a policy that loads a model. Why: ``--policy attn --model foo`` was refused
    naming ``policy_kwargs {'model_name_or_path': 'foo'}``, an option the user never gave. A user's own
    policy is left to its options check: it may take ``model_name_or_path``."""
    if model is None or policy in MODEL_POLICIES or policy not in BUILT_IN_POLICIES:
        return
    folder = " (its MiniLM folder is policy_kwargs model_path)" if policy == "minilm" else ""
    raise ValueError(f"--model is for --policy hf or llm (a model folder); --policy {policy} takes no "
                     f"model{folder}")


def check_tasks(suite: Suite) -> None:
    """Each split holds a task, checked before the run folder is made. Why: `--families lookup
    --difficulty hard` (no hard lookups) failed in the run and left a folder holding only a .lock."""
    for split in ("train", "dev", "test"):
        try:
            tasks(suite, split)
        except ValueError as exc:
            raise ValueError(f"{exc}; choose other --families or --difficulty") from None


def _is_comparison(folder: Path) -> bool:
    """A ``compare --out`` folder: not a run's, with a report, or a ``runs/<label>/seed<N>`` run on a
    suite (a ``train`` run's is ``train-<env>``: one ``train --out runs/x/seed0`` makes no comparison)."""
    if (folder / "config.json").exists() or not (folder / "runs").is_dir():
        return False
    return (any((folder / name).exists() for name in ("summary.csv", "results.md"))
            or any(is_seed_folder(p) and _suite_run(p / "config.json") for p in (folder / "runs").glob("*/seed*")))


def _suite_run(config: Path) -> bool:
    """Whether ``config`` is a run's config.json on a named suite (not a ``train`` run's ad-hoc one)."""
    try:
        suite_id = read_json(config, expect=dict).get("suite_id")
    except (OSError, ValueError):  # missing, unreadable or damaged: no evidence of a comparison
        return False
    return isinstance(suite_id, str) and not suite_id.startswith("train-")


def check_out_in_comparison(out: str | os.PathLike, label: str, seed: int) -> None:
    """Refuse an ``--out`` inside a comparison's folder unless it is the run's own ``runs/<label>/seed<N>``
    (its method label, its --seed); the comparison's folder itself is refused by the runner. Why:
    ``report`` and ``load_results`` read a comparison's runs there alone, so a run trained into
    ``runs/<new label>`` was left out of both without a word, and one at another run's
    ``<label>/seed<N>`` was refused by the report as a copy of that run, after it had trained."""
    path = Path(os.path.abspath(out))
    for folder in path.parents:
        if _is_comparison(folder):
            break
    else:
        return
    own = run_dir(folder, label, seed)
    if path == own:
        return
    raise ValueError(f"--out {out} is inside the comparison {folder}, whose report and load_results read only "
                     f"its runs/<label>/seed<N> folders: give --out {own} (this run's method {label} and --seed "
                     f"{seed}), or a folder outside {folder}")


def families_of(args: argparse.Namespace) -> tuple[str, ...] | None:
    if args.families is not None and not args.families.strip():  # before: '' meant every family, silently
        raise ValueError("--families is empty; give a comma list of task families, or leave it out for every family")
    return tuple(f.strip() for f in args.families.split(",")) if args.families else None


def json_options(text: str) -> dict:
    """``--options`` as a dict (``compare``'s ``parse_options`` reads repeated KEY=VALUE instead)."""
    try:
        options = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--options must be a JSON object: {exc.msg} (or give --option KEY=VALUE)") from None
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object, e.g. '{\"lr\": 0.001}'")
    return options


def _no_repeated_keys(pairs: list) -> dict:
    """Why: JSON keeps the last of two equal keys, so '{"lr": 0.1, "lr": 0.01}' ran with 0.01 silently."""
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"--options names {', '.join(map(repr, repeated))} twice; give each option once")
    return dict(pairs)


def train_options(args: argparse.Namespace) -> dict:
    """``--options`` (JSON) and ``--option KEY=VALUE`` (repeatable) as one dict; an option in both is
    refused. Why: the docs set hyperparameters with ``--option NAME=VALUE`` for train as for compare,
    and ``train --option lr=0.1`` was read as ``--options lr=0.1`` (an abbreviation), "not JSON"."""
    if getattr(args, "options_given", 0) > 1:
        raise ValueError("--options is given twice (the second replaced the first); give one JSON object, "
                         "or repeat --option KEY=VALUE")
    options = args.options if isinstance(args.options, dict) else json_options(args.options)
    pairs = parse_options(getattr(args, "option", None))
    both = sorted(set(options) & set(pairs))
    if both:
        raise ValueError(f"option {both[0]!r} is given by both --options and --option; give it once")
    return {**options, **pairs}


def run(args: argparse.Namespace) -> int:
    if not args.start and getattr(args, "command_line", None) == ["train"]:
        _print_defaults()
        return 0
    if getattr(args, "env", None) is None:  # an LLM writes text: the default candidate env is not one it plays
        args.env = LLM_DEFAULT_ENV if args.policy == "llm" else DEFAULT_ENV
    check_settings(args)
    check_logger_installed(args.logger)  # before: found by the run, after the plan and its folder (config.json, .lock)
    args.options = train_options(args)  # both paths read the merged dict
    check_policy(args.policy, also=("llm",))
    check_model_flag(args.model, args.policy)
    if args.policy == "llm":
        llm_method_spec(args.method or "cw_grpo")  # unknown, or one the LLM trainer cannot train: one error line
        require_installed("torch", "searchgym train")
        require_installed("transformers", "searchgym train --policy llm")
        from searchgym.commands.train_llm import check_opening_prompt, llm_run_spec, train_from_args

        spec = llm_run_spec(args)  # its own checks (the options, the model, the world size)
        check_tasks(spec.suite)
        check_opening_prompt(spec)  # max_episode_tokens leaves room for a turn after the opening prompt
        check_out_in_comparison(args.out, spec.method.label, spec.seed)
        check_folder_can_be_made(args.out, "--out")
        llm_config = spec.options["llm_config"]
        print(describe_plan(args, spec.suite, llm_config["model"], llm_config["rollout"]["guided"]), flush=True)
        return int(train_from_args(args, spec) or 0)
    require_extras("searchgym train", [resolve_method(args.method)], args.policy, plots=False)
    options = dict(args.options)
    if args.model:
        options.setdefault("policy_kwargs", {})["model_name_or_path"] = args.model
    suite = Suite(id=f"train-{args.env}", version=0, env_id=args.env, world_seed=args.world_seed,
                  world_size=size_from_text(args.world_size), families=families_of(args),
                  difficulty=args.difficulty or registered_setting(args.env, "difficulty"),  # an -Easy- id's own
                  test_size=args.test_size, description="ad-hoc suite of `searchgym train`")
    method = resolve_method(args.method)
    load_method(method)  # a user's path that cannot be imported, or no method, before the run's folder is made
    # as `compare` does: a bad option or policy is one error before the run folder is made (a folder
    # made first would hold "a different run" from the corrected command's, and refuse it); a baseline's
    # options are checked too (it needs no torch for that)
    check_comparison(SimpleNamespace(suite=suite, methods=[method], seeds=[args.seed], budget=args.budget,
                                     policy=args.policy, options=options))
    check_tasks(suite)
    check_out_in_comparison(args.out, method.label, args.seed)
    check_folder_can_be_made(args.out, "--out")  # before: the OS's bare line, naming no flag
    print(describe_plan(args, suite, args.model), flush=True)
    spec = RunSpec(suite=suite, method=method, seed=args.seed, budget=args.budget, out=Path(args.out),
                   device=args.device, policy=args.policy, progress=not args.no_progress, options=options,
                   folder=Path(args.out), logger=args.logger)
    try:
        outcome = execute_run(spec)
    except Exception as exc:
        if not _raised_in_users_method(exc, method.path):
            raise
        # a user's method that raised: one line and error.txt, as compare reports it (before: a traceback)
        error_file = Path(spec.run_dir) / "error.txt"
        atomic_write_text(error_file, "".join(traceback.format_exception(exc)))
        print(f"searchgym train: error: method {method.label!r} raised {type(exc).__name__}: {exc}; its traceback "
              f"is in {error_file}", file=sys.stderr)
        return 1
    if outcome.status == "busy":  # before: "damaged file: .../result.json: is missing from a finished run"
        raise ValueError(f"{outcome.error}; wait for it to finish (then re-run to see its result), or use another --out")
    path = Path(outcome.run_dir) / "result.json"
    result = finished_json(Path(outcome.run_dir), "result.json")  # damaged or missing: delete DONE, re-run
    try:
        test = {key: float(result["test"]["all"][key]) for key in ("success", "f1")}
    except (KeyError, TypeError, ValueError):
        raise DamagedFile(path, "has no test.all success and f1",
                          f"delete {Path(outcome.run_dir) / 'DONE'} and re-run the same command") from None
    n = result["test"]["all"].get("n")  # before: the plan's --test-size was all it said, 100000 on a 26-task split
    on = f" on {n} test tasks" if isinstance(n, int) and not isinstance(n, bool) else ""
    print(f"{args.method} on {args.env}: test success {test['success']:.3f}{on}, F1 {test['f1']:.3f} "
          f"({outcome.status}; files in {outcome.run_dir})")
    return 0



def _raised_in_users_method(exc: BaseException, path: str) -> bool:
    """Whether ``exc`` came through the code of the user's method ``module:callable`` (not the harness's
    own refusals, which keep their one-line usage errors)."""
    if path.startswith("searchgym.") or isinstance(exc, OSError | DamagedFile):  # a full disk: the CLI's own line
        return False
    module = sys.modules.get(path.partition(":")[0])
    source = getattr(module, "__file__", None)
    return source is not None and any(frame.filename == source for frame in traceback.extract_tb(exc.__traceback__))
