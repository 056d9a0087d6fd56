"""Methods as data: one :class:`MethodSpec` per learning method, and the one adapter that trains it.

Hyperparameters are set by name with ``--option NAME=VALUE`` (``searchgym compare`` and
``searchgym train``): a field of ``TrainConfig`` (``lr``, ``group_size``, ...), of its
``advantage`` / ``loss`` / ``calibration`` sections (``round_gamma``, ``eps_high``,
``batch_standardize``, ...) or of the trainer's own options (MAPPO's ``value_norm``, COMA's
``td_lambda``). A name found in two places must be written with its section
(``loss.entropy_coef``); an unknown name is an error that lists what is accepted, for every
method alike. The suite, seed, budget, device and policy come from the harness, never options.

The specs themselves are the one method table, :mod:`searchgym.method_table` (the LLM
trainer reads it too); this module turns a spec into a harness run.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Mapping
from typing import Any

from searchgym.extras import installed
from searchgym.harness.methods import load_callable
from searchgym.harness.option_types import check_option_type
from searchgym.method_table import ENV_STEP_LIMIT, METHOD_SPECS, MethodSpec, llm_spec
from searchgym.suites import capped_train_ids

#: TrainConfig fields that the harness sets from the suite and the command line, not options.
HARNESS_FIELDS = ("env_id", "env_kwargs", "policy", "budget", "seed", "device", "estimator", "method",
                  "init_checkpoint", "train_task_ids")
SECTIONS = ("advantage", "loss", "calibration", "sft")


# ------------------------------------------------------------------------------ --policy llm
def llm_methods() -> list[str]:
    """The methods ``--policy llm`` trains: the method table's records with no ``llm_unsupported``."""
    return [spec.name for spec in METHOD_SPECS.values() if not spec.llm_unsupported]


def llm_method_spec(name: str) -> MethodSpec:
    """:func:`~searchgym.method_table.llm_spec`, whose error for an unknown name lists only the methods
    ``--policy llm`` trains. Why: it listed every learning method, mappo and coma among them, which
    the LLM trainer then refused."""
    if name not in METHOD_SPECS:
        raise ValueError(f"unknown method {name!r} for --policy llm; accepted: {', '.join(llm_methods())}")
    return llm_spec(name)


# ------------------------------------------------------------------------------ options
def _fields(kind: type | None) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(kind)} if kind is not None else {}


def option_targets(trainer_cls: type | None) -> dict[str, list[str]]:
    """Every settable name -> the places it lives ("train", "advantage", "loss", "calibration", "method";
    ``trainer_cls`` None: the shared ones only)."""
    from searchgym.agents.train import TrainConfig

    base = TrainConfig()
    places: dict[str, list[str]] = {}
    for name in _fields(TrainConfig):
        if name not in HARNESS_FIELDS and name not in SECTIONS:
            places.setdefault(name, []).append("train")
    for section in SECTIONS:
        for name in _fields(type(getattr(base, section))):
            places.setdefault(name, []).append(section)
    for name in _fields(getattr(trainer_cls, "method_config_type", None)):
        places.setdefault(name, []).append("method")
    return places


def option_kinds(trainer_cls: type | None) -> dict[str, type | None]:
    """place -> the dataclass whose fields its options set (None: a trainer with no options of its own)."""
    from searchgym.agents.train import TrainConfig

    base = TrainConfig()
    return {"train": TrainConfig, "method": getattr(trainer_cls, "method_config_type", None),
            **{s: type(getattr(base, s)) for s in SECTIONS}}


def _annotations(trainer_cls: type | None) -> dict[str, dict[str, Any]]:
    """place -> {field: declared type}, so that a value of the wrong type is refused by name."""
    return {place: {name: f.type for name, f in _fields(kind).items()}
            for place, kind in option_kinds(trainer_cls).items()}


def resolve_options(spec: MethodSpec, options: Mapping[str, Any],
                    trainer_cls: type | None) -> dict[str, dict[str, Any]]:
    """``{place: {field: value}}`` from the spec's defaults overridden by ``options``, each name
    checked, and each value against its field's type (``trainer_cls`` None: a trainer with no options
    of its own)."""
    places = option_targets(trainer_cls)
    annotations = _annotations(trainer_cls)
    accepted = sorted(places) + sorted(f"{p}.{n}" for n, ps in places.items() for p in ps if p != "train")
    out: dict[str, dict[str, Any]] = {"train": {}, "method": {}, **{s: {} for s in SECTIONS}}
    given: dict[tuple[str, str], str] = {}  # (place, field) -> the option name that set it
    for name, value in {**spec.defaults, **options}.items():
        place, _, short = name.rpartition(".")
        if name in HARNESS_FIELDS:
            raise ValueError(f"option {name!r} is not a hyperparameter of {spec.name}: the suite, --seed, --budget, "
                             f"--device and --policy set it, and the estimator defines the method (register a "
                             f"MethodSpec for another one)")
        found = places.get(short, [])
        if place:
            if place not in found:
                raise ValueError(f"unknown option {name!r} for {spec.name}; accepted: {', '.join(accepted)}")
        elif len(found) > 1:
            raise ValueError(f"option {name!r} is ambiguous for {spec.name}: write one of "
                             f"{', '.join(f'{p}.{name}' for p in found)}")
        elif not found:
            raise ValueError(f"unknown option {name!r} for {spec.name}; accepted: {', '.join(accepted)}")
        else:
            place = found[0]
        if not (short == "norm_length" and value == ENV_STEP_LIMIT):  # the spec's "the env's step limit"
            check_option_type(name, value, annotations[place][short], spec.name)
        if name in options:  # two spellings of one field (eps_high and loss.eps_high): the last one won
            if (place, short) in given and given[place, short] != name:
                raise ValueError(f"options {given[place, short]!r} and {name!r} both set {place}.{short} of "
                                 f"{spec.name}; give it once")
            given[place, short] = name
        out[place][short] = value
    return out


def check_spec_defaults(spec: MethodSpec) -> None:
    """Each option ``spec.defaults`` sets is one its runs accept, of its field's type: checked when the
    spec is registered (``register_spec``). Why: a misspelt default (``lrr``) failed only when a
    comparison ran it. The trainer's module is imported only for a default that is not the shared trainer
    config's (its own options: MAPPO's ``centralised``), unless it is imported already; without torch
    (no run can train the spec) the run checks them, as before."""
    if not spec.defaults or not installed("torch"):
        return
    shared = option_targets(None)  # TrainConfig's options and its sections'
    module, _, attr = spec.trainer.partition(":")
    trainer_cls = getattr(sys.modules.get(module), attr, None)
    if trainer_cls is None and not all(_is_shared(name, shared) for name in spec.defaults):
        trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    try:
        resolve_options(spec, {}, trainer_cls)
    except ValueError as exc:
        raise ValueError(f"method {spec.name!r} defaults: {exc}") from None


def _is_shared(name: str, shared: Mapping[str, list[str]]) -> bool:
    place, _, short = name.rpartition(".")
    return place in shared.get(short, []) if place else short in shared


def build_config(spec: MethodSpec, ctx, trainer_cls: type):
    """The TrainConfig of a harness run: the suite's env (and its capped train split, where it caps one:
    :func:`~searchgym.suites.capped_train_ids`), the run's seed/budget/device, the spec, the options."""
    from searchgym.agents.train import TrainConfig

    resolved = resolve_options(spec, ctx.options, trainer_cls)
    resolved["loss"].setdefault("aggregation", spec.aggregation)
    if resolved["loss"].get("norm_length") == ENV_STEP_LIMIT:
        resolved["loss"]["norm_length"] = env_step_limit(ctx)
    suite = ctx.suite
    families = suite.families_for("train")
    env_kwargs = {**suite.kwargs, "world_seed": suite.world_seed, "world_size": suite.world_size,
                  "families": list(families) if families is not None else None, "difficulty": suite.difficulty}
    base = TrainConfig()
    sections = {s: _replace(getattr(base, s), resolved[s], f"{spec.name} {s}") for s in SECTIONS}
    train = dict(resolved["train"])
    value_head = train.pop("value_head", spec.value_head)
    try:
        return TrainConfig(env_id=suite.env_id, env_kwargs=env_kwargs, estimator=spec.estimator, policy=ctx.policy,
                           budget=ctx.budget, seed=ctx.seed, device=ctx.device, value_head=value_head,
                           method=resolved["method"], train_task_ids=capped_train_ids(suite), **sections, **train)
    except TypeError as exc:
        raise ValueError(f"bad options for {spec.name}: {exc}") from None


def _replace(section: Any, values: dict[str, Any], what: str) -> Any:
    try:
        return dataclasses.replace(section, **values)
    except TypeError as exc:
        raise ValueError(f"bad {what} option: {exc}") from None


def env_step_limit(ctx) -> int:
    """The most decisions one agent makes in an episode of the suite's env (``max_steps`` per agent)."""
    env = ctx.make_env("train")
    config = getattr(getattr(env, "unwrapped", env), "config", None)
    if config is None or not getattr(config, "max_steps", None):
        raise ValueError(f"cannot read the step limit of {type(env).__name__} (expected env.config.max_steps); "
                         "set --option norm_length=L")
    return int(config.max_steps)


# ------------------------------------------------------------------------------ the adapter
def train_spec(ctx, spec: MethodSpec):
    """Train ``spec`` under the harness's RunContext (resuming from its checkpoint dir); an Actor."""
    from searchgym.agents.policy_actor import PolicyActor
    from searchgym.harness.model_folder_record import policy_folders_record

    trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    config = build_config(spec, ctx, trainer_cls)
    # the folders its policy loads: evaluate --agent run finds a relative one from any folder
    ctx.records.update(policy_folders_record(config.policy, config.policy_kwargs))
    if config.init == "sft":  # the comparison's shared base of this (suite, seed, policy, sft settings)
        from searchgym.harness.sft import base_record, ensure_base

        meta = ensure_base(ctx, config.sft)
        config.init_checkpoint = meta["path"]
        ctx.records["base"] = base_record(meta)
    dev = [t.id for t in ctx.tasks("dev")]  # every method's curve is on the suite's own dev split
    # config.json may be lost or damaged: the checkpoint then checks every option (a registered trainer of
    # the older signature, (config, out_dir, log, dev_tasks), checks its seed, env and policy)
    strict = {"strict_resume": True} if "strict_resume" in inspect.signature(trainer_cls).parameters else {}
    trainer = trainer_cls(config, out_dir=ctx.checkpoint_dir, log=ctx.log, dev_tasks=dev, **strict)
    trainer.train(progress=ctx.progress)
    agents = list(trainer.env.possible_agents) if trainer.kind == "parallel" else None
    return PolicyActor(trainer.population, agents, decoding=config.decoding, seed=ctx.seed)


class SpecMethod:
    """The harness callable of a spec: ``method(ctx) -> Actor`` (what ``METHODS`` points at for it)."""

    trains = True

    def __init__(self, name: str) -> None:
        self.spec = METHOD_SPECS[name]

    def __call__(self, ctx):
        return train_spec(ctx, self.spec)

    def option_defaults(self) -> dict[str, Any]:
        """Each option's value where it is not given: at it, a run is the run without it (identity_reads)."""
        from searchgym.harness.option_defaults import spec_option_defaults

        trainer_cls = load_callable(self.spec.trainer, f"trainer of {self.spec.name}")
        return spec_option_defaults(self.spec, option_targets(trainer_cls), option_kinds(trainer_cls))


def __getattr__(name: str) -> SpecMethod:
    """``searchgym.harness.method_specs:<name>`` is the harness method of the spec ``name`` (the
    import path every run's config.json and leaderboard submission records)."""
    if name in METHOD_SPECS:
        return SpecMethod(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
