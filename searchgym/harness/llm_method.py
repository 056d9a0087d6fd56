"""The LLM trainer as a harness method
(``searchgym compare --methods llm=searchgym.harness.llm_method:harness_method``) and ``searchgym train --policy llm`` (:mod:`searchgym.commands.train_llm`) reach
:class:`~searchgym.agents.llm_train.LLMTrainer` through here. The method (``--method``) is a
record of the one method table, :mod:`searchgym.method_table`, that the LLM trainer supports."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from searchgym.agents.advantages import AdvantageConfig
from searchgym.agents.llm_losses import LLMLossConfig
from searchgym.agents.llm_policy import PRESETS
from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer
from searchgym.agents.model_source import check_model_source
from searchgym.harness.llm_reply_tally import ReplyTallyActor
from searchgym.harness.method_specs import llm_method_spec
from searchgym.harness.model_folder_record import base_model_record
from searchgym.suites import capped_train_ids, observation_kind
from searchgym.world import FAMILIES
from searchgym.world.generate import size_from_text

#: attributes of ``args`` (or keys of its ``options`` JSON) that train_from_args reads, with defaults
OPTIONAL_ARGS: dict[str, Any] = {
    "group_size": 4, "tasks_per_iteration": 2, "lr": 1e-6, "update_epochs": 1, "mini_batch_size": None,
    "micro_batch_size": 4, "temperature": 1.0, "top_p": 1.0, "max_turns": 12, "max_new_tokens": 256,
    "max_episode_tokens": 4096, "aggregation": None, "group_by": None, "eps_low": 0.2, "eps_high": 0.28, "dual_clip": None,
    "kl_coef": 0.0, "entropy_coef": 0.0, "round_gamma": 1.0, "eval_every": 5, "eval_tasks": 16,
    "save_every": 1, "team_mode": "shared", "dtype": "auto", "gradient_checkpointing": False,
    "generation_backend": "transformers", "shared_prefix": False, "vllm_gpu_memory": 0.35, "guided": False,
    "env_kwargs": None, "world_size": None, "world_seed": 0,
    "families": None, "difficulty": None, "dev_size": 100, "test_size": 200, "no_progress": False,
}
WORLD_KEYS = ("world_seed", "world_size", "families", "difficulty")
#: What a run trains where the options name no ``model`` / ``method``.
DEFAULT_MODEL = "random:tiny"
DEFAULT_METHOD = "cw_grpo"


def option_getter(args: Any) -> Callable[[str], Any]:
    """Reads an OPTIONAL_ARGS key from ``args.options`` (a JSON object or dict), else ``args``, else the default."""
    options = getattr(args, "options", None) or {}
    if isinstance(options, str):
        options = json.loads(options)
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object, e.g. '{\"group_size\": 8}'")  # noqa: TRY004
    unknown = sorted(set(options) - set(OPTIONAL_ARGS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for --policy llm; accepted: {', '.join(sorted(OPTIONAL_ARGS))}")
    return lambda name: options[name] if name in options else getattr(args, name, OPTIONAL_ARGS[name])


def _env_kwargs(value: Any) -> dict[str, Any]:
    """The ``env_kwargs`` option: a JSON object, or its text (before: "Expecting value: line 1 column 1")."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"env_kwargs must be a JSON object of env settings: {exc.msg}") from None
    if not isinstance(value, dict | None):
        raise ValueError(f"env_kwargs must be a JSON object of env settings, e.g. {{\"max_steps\": 8}}; got {value!r}")  # noqa: TRY004
    return value or {}


def _check_world_keys(env_kwargs: dict[str, Any]) -> None:
    """families and difficulty named when unknown (before: "'int' object is not iterable", or a suite
    with "no train tasks" for a misspelt family)."""
    families = env_kwargs.get("families")
    if families is not None:
        if not isinstance(families, list | tuple) or not all(isinstance(f, str) for f in families):
            raise ValueError(f"families must be a list of task family names (or a comma string); got {families!r}")
        unknown = [f for f in families if f not in FAMILIES]
        if unknown or not families:
            said = f"unknown task family {', '.join(map(repr, unknown))}" if unknown else "names no family"
            raise ValueError(f"families: {said}; accepted: {', '.join(FAMILIES)} (null: every family)")
    if env_kwargs.get("difficulty") not in (None, "easy", "hard"):
        raise ValueError(f"difficulty must be 'easy', 'hard' or null (both); got {env_kwargs['difficulty']!r}")


def config_from_args(args: Any) -> LLMTrainConfig:
    """An LLMTrainConfig from an argparse namespace (see :func:`train_from_args`)."""
    get = option_getter(args)
    env_kwargs = {**_env_kwargs(get("env_kwargs")), "action_mode": "text"}  # the LLM writes its actions
    for key in WORLD_KEYS:
        value = get(key)
        if value is not None:
            if key == "families" and isinstance(value, str):
                value = [f.strip() for f in value.split(",") if f.strip()]
            if key == "world_size":
                value = size_from_text(value)
            env_kwargs[key] = value
    _check_world_keys(env_kwargs)
    rollout = RolloutConfig(max_turns=get("max_turns"), max_new_tokens=get("max_new_tokens"),
                            max_episode_tokens=get("max_episode_tokens"), guided=get("guided"))
    method = getattr(args, "method", None) or DEFAULT_METHOD
    spec = llm_method_spec(method)  # an unknown method, or one the LLM trainer cannot train, is an error naming why
    loss = LLMLossConfig(eps_low=get("eps_low"), eps_high=get("eps_high"), dual_clip=get("dual_clip"),
                         aggregation=get("aggregation") or spec.aggregation, kl_coef=get("kl_coef"),
                         entropy_coef=get("entropy_coef"), norm_length=rollout.max_episode_tokens)
    model = getattr(args, "model", None)
    if model is not None and not str(model).strip():  # an unset $MODEL: it trained random:tiny and looked like a run
        raise ValueError("--model is empty; give a model folder, a cached Hugging Face id or a preset "
                         f"({', '.join('random:' + p for p in PRESETS)}), or leave --model out for random:tiny")
    model = model or DEFAULT_MODEL
    check_model_source(model, presets=tuple(PRESETS))  # before any run folder: not on disk is one line, not a stale folder
    return LLMTrainConfig(model=model, env_id=getattr(args, "env", None)
                          or "SearchQA-v0", env_kwargs=env_kwargs, method=method, group_by=get("group_by"),
                          team_mode=get("team_mode"),
                          group_size=get("group_size"), tasks_per_iteration=get("tasks_per_iteration"),
                          budget=int(getattr(args, "budget", 1000)), lr=get("lr"), update_epochs=get("update_epochs"),
                          mini_batch_size=get("mini_batch_size"), micro_batch_size=get("micro_batch_size"),
                          temperature=get("temperature"), top_p=get("top_p"), rollout=rollout, loss=loss,
                          advantage=AdvantageConfig(round_gamma=get("round_gamma")), eval_every=get("eval_every"),
                          eval_tasks=get("eval_tasks"), save_every=get("save_every"),
                          seed=int(getattr(args, "seed", 0)), device=getattr(args, "device", "auto") or "auto",
                          dtype=get("dtype"), gradient_checkpointing=get("gradient_checkpointing"),
                          generation_backend=get("generation_backend"), shared_prefix=get("shared_prefix"),
                          vllm_gpu_memory=get("vllm_gpu_memory"))


def suite_config(suite: Any, options: dict[str, Any]) -> LLMTrainConfig:
    """The LLMTrainConfig of a harness run on ``suite`` with ``options`` (before the run's budget, seed
    and device): what :func:`harness_method` trains and compare's preflight checks before any folder."""
    options = dict(options)
    if "llm_config" in options:
        config = LLMTrainConfig.from_dict(dict(options["llm_config"]))
    else:
        named = {k: options.pop(k) for k in ("model", "method") if k in options}
        config = config_from_args(SimpleNamespace(**named, options=options))
    env_kwargs = {**suite.kwargs, "world_seed": suite.world_seed, "world_size": suite.world_size,
                  "families": list(suite.families_for("train")) if suite.families_for("train") else None,
                  "difficulty": suite.difficulty}
    if observation_kind(suite) != "text":
        raise ValueError(f"suite {suite.id!r} is not in text mode: an LLM writes its actions (use a text suite, "
                         "e.g. env SearchQA-v0 or env_kwargs action_mode='text')")
    config.env_id, config.env_kwargs = suite.env_id, env_kwargs
    config.train_task_ids = capped_train_ids(suite)  # a suite that caps its train split trains on that alone
    return config


def harness_method(ctx: Any) -> Any:
    """A harness method (``searchgym compare --methods llm=searchgym.harness.llm_method:harness_method``):
    trains under the RunContext (checkpoints in ``ctx.checkpoint_dir``, rows through ``ctx.log``,
    resumed after an interruption) and returns a greedy :class:`LLMActor` (a :class:`ReplyTallyActor`: it
    warns at the run's end when most test replies did not parse). ``ctx.options``: an
    ``llm_config`` dict (LLMTrainConfig fields), or flat OPTIONAL_ARGS keys plus ``model``/``method``."""
    config = suite_config(ctx.suite, ctx.options)
    config.budget, config.seed, config.device = int(ctx.budget), int(ctx.seed), str(ctx.device)
    ctx.records.update(base_model_record(config.model))  # its folder: evaluate finds a relative --model anywhere
    # trains on the suite's train families; the dev curve is on the suite's own dev split
    trainer = LLMTrainer(config, out_dir=ctx.checkpoint_dir, log=ctx.log, dev_tasks=[t.id for t in ctx.tasks("dev")],
                         strict_resume=True)  # config.json may be lost: the checkpoint checks every option
    trainer.train(progress=ctx.progress)
    policies = trainer.members[0] if trainer.kind == "single" else trainer.policies
    return ReplyTallyActor(policies, config.rollout, seed=config.seed, model=config.model)


def llm_option_defaults() -> dict[str, Any]:
    """Each option of :func:`harness_method` -> the value its run takes when the option is not given
    (``OPTIONAL_ARGS``, the model, the method): at it, a run is the run without it (identity_reads)."""
    return {**OPTIONAL_ARGS, "model": DEFAULT_MODEL, "method": DEFAULT_METHOD}


harness_method.option_defaults = llm_option_defaults  # type: ignore[attr-defined]
