"""``searchgym train --policy llm``: the LLM trainer as one harness run on an ad-hoc suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from searchgym.agents.llm_run_checks import check_llm_run
from searchgym.agents.train_split import config_record
from searchgym.damaged import DamagedFile
from searchgym.envs.config import BOUNDS
from searchgym.harness.finished_files import finished_json
from searchgym.harness.llm_method import WORLD_KEYS, config_from_args, option_getter
from searchgym.harness.methods import MethodRef
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.registry import ENV_IDS, registered_setting
from searchgym.registry import spec as env_spec
from searchgym.suites import NUMERIC_ENTRY_POINTS, Suite
from searchgym.world.generate import resolve_size

#: The harness method a ``train --policy llm`` run records (and resumes with).
HARNESS_METHOD = "searchgym.harness.llm_method:harness_method"


def llm_run_spec(args: Any) -> RunSpec:
    """The run ``train_from_args`` executes, its settings checked before any folder is made. Why:
    a world size, families or difficulty that leave no task failed inside the run, after its folder
    was written (the corrected command was then refused as "a different run")."""
    config, get = config_from_args(args), option_getter(args)
    check_text_env(config.env_id, get("env_kwargs"))  # before: a candidate id played in text mode, silently
    check_llm_run(config)  # group_by 'role' without a team, vLLM for a random: preset or not installed
    world = {k: config.env_kwargs.pop(k) for k in WORLD_KEYS if k in config.env_kwargs}
    check_world_seed_option(world.get("world_seed", 0))
    # an -Easy- id made text (env_kwargs action_mode 'text') plays its easy tasks, as `train` without
    # --policy llm does; before: None overrode the id's "easy" in training and in dev/test alike
    difficulty = world.get("difficulty") or registered_setting(config.env_id, "difficulty")
    suite = Suite(id=f"train-llm-{config.env_id}", version=0, env_id=config.env_id, env_kwargs=config.env_kwargs,
                  world_seed=int(world.get("world_seed", 0)), world_size=world.get("world_size", "small"),
                  families=world.get("families"), difficulty=difficulty, dev_size=get("dev_size"),
                  test_size=get("test_size"), description="ad-hoc suite of `searchgym train --policy llm`")
    if not isinstance(get("no_progress"), bool):
        raise ValueError(f"no_progress must be true or false; got {get('no_progress')!r}")  # noqa: TRY004
    resolve_size(suite.world_size)  # "unknown world size 'huge'; accepted: ..." (train's check_tasks: a task each)
    out = Path(getattr(args, "out", None) or "runs/train")
    return RunSpec(suite=suite, method=MethodRef(f"llm-{config.method}", HARNESS_METHOD), seed=config.seed,
                   budget=config.budget, out=out, device=config.device, policy="llm",
                   progress=not get("no_progress"), options={"llm_config": config_record(config)}, folder=out,
                   logger=getattr(args, "logger", None) or "none")


def check_text_env(env_id: str, env_kwargs: Any) -> None:
    """An env the LLM can write its actions in: a text env id (or one that ``env_kwargs`` action_mode
    'text' makes text, as compare takes it), and no other ``action_mode`` in that option. Why: a
    candidate or numeric id was trained in text mode without a word (its config.json recorded the
    candidate id with action_mode text), where `compare` refuses such a suite."""
    entry = env_spec(env_id)
    given = json.loads(env_kwargs) if isinstance(env_kwargs, str) else env_kwargs or {}  # checked: an object
    mode = given.get("action_mode")  # "text" given: the id played in text mode on purpose, as compare allows
    difficulty = registered_setting(env_id, "difficulty")
    same = f"; add --difficulty {difficulty} for the tasks {env_id} plays" if difficulty else ""
    if mode not in (None, "text"):
        problem = f"env_kwargs action_mode {mode!r} (--options): an LLM writes its actions as text; leave it out"
        same = ""
    elif entry.entry_point in NUMERIC_ENTRY_POINTS:
        problem = f"--env {env_id} is a numeric env (feature vectors; an action is a candidate's index)"
    elif mode is None and entry.kwargs.get("action_mode", "text") != "text":
        problem = f"--env {env_id} is in {entry.kwargs['action_mode']!r} mode (an action is a candidate's index)"
    else:
        return
    texts = [s.id for s in ENV_IDS.values() if s.kind == entry.kind and s.entry_point not in NUMERIC_ENTRY_POINTS
             and s.kwargs.get("action_mode") == "text"]
    raise ValueError(f"{problem}; --policy llm trains on a text env id: {', '.join(texts)}{same}")


def check_world_seed_option(value: Any) -> None:
    """The ``world_seed`` option named with what it accepts. Why: -5 failed in the suite's task check,
    whose advice was "choose other --families or --difficulty"; 2.5 was taken as 2."""
    low, high = BOUNDS["world_seed"]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"world_seed (--options) must be an integer in {low}..{high} (a world seed); got {value!r}")


def check_opening_prompt(spec: RunSpec) -> None:
    """``max_episode_tokens`` leaves room for a turn after the longest opening prompt of the run's
    tasks, with the model's tokenizer (:mod:`searchgym.agents.llm_prompt_room`), before any folder is
    made. Why: it was found when the first episode opened, after config.json and checkpoint/ were written."""
    from searchgym.agents.llm_prompt_room import check_train_prompt
    from searchgym.agents.llm_train import LLMTrainConfig

    check_train_prompt(LLMTrainConfig.from_dict(dict(spec.options["llm_config"])), spec.suite)


def train_from_args(args: Any, spec: RunSpec | None = None) -> int:
    """``searchgym train --policy llm``: a harness run (config.json, metrics.jsonl, a resumable
    checkpoint under checkpoint/, predictions.jsonl and result.json on the test split, DONE).

    Reads ``args.method`` (a method of :mod:`searchgym.method_table` that the LLM trainer
    supports: cw_grpo, grpo, dr_grpo, grpo_role, cw_grpo_role; another is an error naming why),
    ``env`` (an env id; run in text mode),
    ``budget`` (env steps: every assistant turn of every agent), ``seed``, ``device``, ``out``
    (the run folder; rerun to resume), ``model`` (path, hub id, or random:tiny /
    random:qwen2-0.5b), ``logger``, and any key of OPTIONAL_ARGS as an attribute or in
    ``args.options`` (JSON). ``spec``: :func:`llm_run_spec`'s, when the caller has checked it (and
    :func:`check_opening_prompt`) already.
    """
    if spec is None:
        spec = llm_run_spec(args)
        check_opening_prompt(spec)
    config = spec.options["llm_config"]
    outcome = execute_run(spec)
    if outcome.status == "busy":  # before: "[Errno 2] No such file or directory: '.../result.json'"
        raise ValueError(f"{outcome.error}; wait for it to finish (then re-run to see its result), or use another --out")
    run_dir = Path(outcome.run_dir)
    result = finished_json(run_dir, "result.json")  # damaged or missing: one line naming it
    try:
        scores = {key: float(result["test"]["all"][key]) for key in ("success", "f1")}
    except (KeyError, TypeError, ValueError):
        raise DamagedFile(run_dir / "result.json", "has no test.all success and f1",
                          f"delete {run_dir / 'DONE'} and re-run the same command") from None
    print(f"llm {config['method']} on {config['env_id']} ({config['model']}): test success {scores['success']:.3f}, "
          f"F1 {scores['f1']:.3f} ({outcome.status}; files in {outcome.run_dir})")
    return 0
