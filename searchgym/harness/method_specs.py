"""Methods as data: one :class:`MethodSpec` per learning method, and the one adapter that trains it.

A spec says what defines a method and nothing else: the trainer class, the advantage
estimator, the loss aggregation, whether a value head (or critic) is fitted, and the
hyperparameters it sets differently from the shared defaults. Everything else (rollouts,
policy, optimiser, PPO clip, entropy bonus, epochs, dev curve on the suite's dev split) is the
same for every method, so a comparison compares what the specs name.

Hyperparameters are set by name with ``--option NAME=VALUE`` (``searchgym compare`` and
``searchgym train``): a field of ``TrainConfig`` (``lr``, ``group_size``, ...), of its
``advantage`` / ``loss`` / ``calibration`` sections (``round_gamma``, ``eps_high``,
``batch_standardize``, ...) or of the trainer's own options (MAPPO's ``value_norm``, COMA's
``td_lambda``). A name found in two places must be written with its section
(``loss.entropy_coef``); an unknown name is an error that lists what is accepted, for every
method alike. The suite, seed, budget, device and policy come from the harness, never options.

**cw_grpo**, stated once: CW-GRPO's round-contribution estimator (arXiv 2604.14267): the GRPO
group advantage A_i = (R_i - mean R) / (std R + eps) and, for A_i >= 0, the J non-final rounds
that can reveal gold evidence (lookups, clock, clarification; ``cw_rounds=all``: every non-final
round) share J A_i by w = softmax(round_gamma * c) over the judge's contributions c_k = u_k v_k
(new gold evidence and consistent reasoning), every other round keeps A_i; failures keep A_i on
every round (``searchgym.agents.cw_round`` compares this with the paper). round_gamma = 1, the
same loss as GRPO (PPO clip 0.2, seq-mean-token-mean), so cw_grpo and grpo differ only in the
estimator. No method has a KL term to a reference by default (``loss.kl_coef=0``); a run from a
base sets it to hold the policy near the base.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from searchgym.harness.methods import METHODS, load_callable

#: TrainConfig fields that the harness sets from the suite and the command line, not options.
HARNESS_FIELDS = ("env_id", "env_kwargs", "policy", "budget", "seed", "device", "estimator", "method",
                  "init_checkpoint")
SECTIONS = ("advantage", "loss", "calibration", "sft")
#: A default that is resolved when the run starts: the env's step limit per agent (Dr.GRPO's L).
ENV_STEP_LIMIT = "env_step_limit"


@dataclass(frozen=True)
class MethodSpec:
    """Everything that defines one learning method (see the module docstring)."""

    name: str
    trainer: str  # "module:Class", a Trainer (sub)class taking (config, out_dir, log, dev_tasks)
    estimator: str
    aggregation: str
    value_head: bool  # fits the policy's value head or a critic
    defaults: Mapping[str, Any] = field(default_factory=dict)  # option name -> value
    summary: str = ""
    paper: str = ""


TRAINER = "searchgym.agents.train:Trainer"
MAPPO = "searchgym.baselines.mappo:MAPPOTrainer"
COMA = "searchgym.baselines.coma:COMATrainer"
INFO_GAIN = "searchgym.agents.info_gain_trainer:InfoGainTrainer"
_PPO = {"loss.eps_low": 0.2, "loss.eps_high": 0.2, "loss.dual_clip": None, "loss.entropy_coef": 0.01}

METHOD_SPECS: dict[str, MethodSpec] = {}


def register_spec(spec: MethodSpec) -> MethodSpec:
    if spec.name in METHOD_SPECS and METHOD_SPECS[spec.name] != spec:
        raise ValueError(f"method spec {spec.name!r} is already registered with another definition")
    METHOD_SPECS[spec.name] = spec
    METHODS[spec.name] = f"{__name__}:{spec.name}"  # ``--methods NAME`` reaches it
    return spec


for _spec in (
    MethodSpec("cw_grpo", TRAINER, "cw_round", "seq-mean-token-mean", False,
               summary="GRPO whose positive advantages are redistributed over rounds by the judge's contributions",
               paper="arXiv 2604.14267"),
    MethodSpec("grpo", TRAINER, "grpo", "seq-mean-token-mean", False,
               summary="group-relative advantages (R - mean) / std, one per trajectory", paper="arXiv 2402.03300"),
    MethodSpec("dr_grpo", TRAINER, "dr_grpo", "seq-mean-token-sum-norm", False,
               defaults={"loss.norm_length": ENV_STEP_LIMIT},
               summary="GRPO without the std division and with a constant-length loss normaliser",
               paper="arXiv 2503.20783"),
    MethodSpec("mappo", MAPPO, "gae", "token-mean", True, defaults={**_PPO, "update_epochs": 5},
               summary="shared actor, centralised critic on state(), GAE, value normalisation",
               paper="arXiv 2103.01955"),
    MethodSpec("ippo", MAPPO, "gae", "token-mean", True,
               defaults={**_PPO, "update_epochs": 5, "centralised": False, "loss.value_coef": 1.0},
               summary="MAPPO with decentralised critics: the policy's value head on each agent's observation",
               paper="arXiv 2011.09533"),
    MethodSpec("coma", COMA, "gae", "token-mean", True, defaults={**_PPO},
               summary="counterfactual baseline from a centralised per-candidate Q critic",
               paper="arXiv 1705.08926"),
    MethodSpec("mt_ppo", TRAINER, "mt_ppo", "token-mean", True,
               summary="PPO/GAE on per-round process rewards from the judge (retrieval, consistency, search cost)",
               paper="arXiv 2604.14267 (its MT-PPO baseline)"),
    MethodSpec("gigpo", TRAINER, "gigpo", "seq-mean-token-mean", False,
               summary="GRPO's episode advantage plus a step advantage within identical anchor states",
               paper="arXiv 2505.10978"),
    MethodSpec("info_gain", INFO_GAIN, "info_gain", "seq-mean-token-mean", False,
               summary="turn rewards = increase of the policy's probability on a correct answer (IGPO-style)",
               paper="arXiv 2510.14967"),
    # Role-aware grouping, explicit (team suites): each agent is compared with itself across the task's G
    # episodes. ``--option group_by=team`` on grpo / cw_grpo pools every agent into one group instead.
    MethodSpec("grpo_role", TRAINER, "grpo", "seq-mean-token-mean", False, defaults={"group_by": "role"},
               summary="GRPO whose groups are one role's trajectories across a task's episodes (team suites)",
               paper="arXiv 2402.03300"),
    MethodSpec("cw_grpo_role", TRAINER, "cw_round", "seq-mean-token-mean", False, defaults={"group_by": "role"},
               summary="CW-GRPO whose groups are one role's trajectories across a task's episodes (team suites)",
               paper="arXiv 2604.14267"),
):
    register_spec(_spec)


# ------------------------------------------------------------------------------ options
def _fields(kind: type | None) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(kind)} if kind is not None else {}


def option_targets(trainer_cls: type) -> dict[str, list[str]]:
    """Every settable name -> the places it lives ("train", "advantage", "loss", "calibration", "method")."""
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


def resolve_options(spec: MethodSpec, options: Mapping[str, Any], trainer_cls: type) -> dict[str, dict[str, Any]]:
    """``{place: {field: value}}`` from the spec's defaults overridden by ``options``, each name checked."""
    places = option_targets(trainer_cls)
    accepted = sorted(places) + sorted(f"{p}.{n}" for n, ps in places.items() for p in ps if p != "train")
    out: dict[str, dict[str, Any]] = {"train": {}, "method": {}, **{s: {} for s in SECTIONS}}
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
        out[place][short] = value
    return out


def build_config(spec: MethodSpec, ctx, trainer_cls: type):
    """The TrainConfig of a harness run: the suite's env, the run's seed/budget/device, the spec, the options."""
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
                           method=resolved["method"], **sections, **train)
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
    from searchgym.agents.train import PolicyActor

    trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    config = build_config(spec, ctx, trainer_cls)
    if config.init == "sft":  # the comparison's shared base of this (suite, seed, policy, sft settings)
        from searchgym.harness.sft import base_record, ensure_base

        meta = ensure_base(ctx, config.sft)
        config.init_checkpoint = meta["path"]
        ctx.records["base"] = base_record(meta)
    dev = [t.id for t in ctx.tasks("dev")]  # every method's curve is on the suite's own dev split
    trainer = trainer_cls(config, out_dir=ctx.checkpoint_dir, log=ctx.log, dev_tasks=dev)
    trainer.train(progress=ctx.progress)
    agents = list(trainer.env.possible_agents) if trainer.kind == "parallel" else None
    return PolicyActor(trainer.population, agents, decoding=config.decoding, seed=ctx.seed)


class SpecMethod:
    """The harness callable of a spec: ``method(ctx) -> Actor`` (what ``METHODS`` points at)."""

    trains = True

    def __init__(self, name: str) -> None:
        self.spec = METHOD_SPECS[name]

    def __call__(self, ctx):
        return train_spec(ctx, self.spec)


def __getattr__(name: str) -> SpecMethod:
    """``searchgym.harness.method_specs:<name>`` is the harness method of the spec ``name``."""
    if name in METHOD_SPECS:
        return SpecMethod(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
