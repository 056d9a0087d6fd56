"""The one table of learning methods, read by the candidate trainer (through the harness) and
by the LLM trainer (``searchgym train --policy llm``).

A :class:`MethodSpec` says what defines a method and nothing else: the trainer class, the
advantage estimator, the loss aggregation, whether a value head (or critic) is fitted, the
hyperparameters it sets differently from the shared defaults, and, when the LLM trainer cannot
train it, why. Everything else (rollouts, policy, optimiser, PPO clip, epochs, dev curve) is the
same for every method, so a comparison compares what the specs name.

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

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from searchgym.extras import require
from searchgym.named_registry import IMPORT_PATH, NamedRegistry

#: A default that is resolved when the run starts: the env's step limit per agent (Dr.GRPO's L).
ENV_STEP_LIMIT = "env_step_limit"
#: The groupings a spec's ``group_by`` default may name that the LLM trainer reads.
LLM_GROUPINGS = ("auto", "role")


@dataclass(frozen=True)
class MethodSpec:
    """Everything that defines one learning method (see the module docstring)."""

    name: str
    trainer: str  # "module:Class", a Trainer (sub)class taking (config, out_dir, log, dev_tasks)
    #: A registered estimator (``agents/advantages.py``), the trainer config's ``estimator``: what the
    #: shared ``Trainer.update`` computes, and what every checkpoint of the method records.
    estimator: str
    aggregation: str
    value_head: bool  # fits the policy's value head or a critic
    defaults: Mapping[str, Any] = field(default_factory=dict)  # option name -> value
    summary: str = ""
    paper: str = ""
    #: Why the LLM trainer (``--policy llm``) cannot train this method; "" when it can.
    llm_unsupported: str = ""
    #: What the advantage is when the trainer computes it in its own ``update`` instead of with
    #: ``estimator``; "" when ``estimator`` is it. Why two names: COMA's record said "gae" alone, which its
    #: update never computes; the "gae" stays, as its checkpoints record it and resume compares every field.
    advantage: str = ""

    @property
    def computes(self) -> str:
        """The advantage the method's update computes: what tables and progress bars name."""
        return self.advantage or self.estimator

    def __post_init__(self) -> None:
        _check_field_types(self)
        if self.value_head and not self.llm_unsupported:
            raise ValueError(f"method {self.name!r} fits a value head: the LLM trainer has none, so say so in "
                             "llm_unsupported")
        if not self.llm_unsupported and self.defaults.get("group_by", "auto") not in LLM_GROUPINGS:
            raise ValueError(f"method {self.name!r}: the LLM trainer groups by {', '.join(LLM_GROUPINGS)}, not "
                             f"{self.defaults['group_by']!r}; say why in llm_unsupported")


TRAINER = "searchgym.agents.train:Trainer"
MAPPO = "searchgym.baselines.mappo:MAPPOTrainer"
COMA = "searchgym.baselines.coma:COMATrainer"
#: COMA's advantage (``baselines/coma.py``): the TD(lambda) return G_t (lambda = 1 by default: the
#: Monte-Carlo return) minus the counterfactual baseline sum_u' pi(u') Q(s, (u_-a, u')).
TD_LAMBDA_COUNTERFACTUAL = "td_lambda_counterfactual"
INFO_GAIN = "searchgym.agents.info_gain_trainer:InfoGainTrainer"
_PPO = {"loss.eps_low": 0.2, "loss.eps_high": 0.2, "loss.dual_clip": None, "loss.entropy_coef": 0.01}
_CRITIC = "it fits a value head or a critic, and the LLM trainer has no value model"

METHOD_SPECS: NamedRegistry[MethodSpec] = NamedRegistry("method")


def _check_field_types(spec: MethodSpec) -> None:
    """Each field's type, so a wrong one fails here: ``value_head="no"`` read as true, and
    ``trainer=object`` failed in a later comparison with "has no attribute 'partition'"."""
    if not isinstance(spec.name, str):
        raise TypeError(f"a method's name must be a str, got {spec.name!r}")
    if not (isinstance(spec.trainer, str) and IMPORT_PATH.match(spec.trainer)):
        error = ValueError if isinstance(spec.trainer, str) else TypeError
        raise error(f"method {spec.name!r}: trainer must be an import path 'package.module:Class' (a str), "
                    f"got {spec.trainer!r}")
    if not isinstance(spec.value_head, bool):
        raise TypeError(f"method {spec.name!r}: value_head must be True or False, got {spec.value_head!r}")
    if not isinstance(spec.defaults, Mapping):
        raise TypeError(f"method {spec.name!r}: defaults must be a dict of option name -> value, got {spec.defaults!r}")
    for field_name in ("estimator", "aggregation", "summary", "paper", "llm_unsupported", "advantage"):
        if not isinstance(getattr(spec, field_name), str):
            raise TypeError(f"method {spec.name!r}: {field_name} must be a str, got {getattr(spec, field_name)!r}")


def check_learning_parts(spec: MethodSpec) -> None:
    """The estimator and aggregation a spec names are registered, and an estimator that reads values
    has a value head. It imports the training package (a higher layer, by name), so only a user's
    registration pays for it."""
    advantages = require("searchgym.agents.advantages", f"method {spec.name!r}")
    aggregation = require("searchgym.agents.aggregation", f"method {spec.name!r}")
    estimators, aggregations = advantages.ADVANTAGE_ESTIMATORS, aggregation.AGGREGATIONS
    if spec.estimator not in estimators:
        raise ValueError(f"method {spec.name!r}: unknown estimator {spec.estimator!r}; registered: "
                         f"{', '.join(estimators.names)} (register_estimator adds one)")
    if spec.aggregation not in aggregations:
        raise ValueError(f"method {spec.name!r}: unknown aggregation {spec.aggregation!r}; accepted: "
                         f"{', '.join(aggregations.names)}")
    if estimators[spec.estimator].needs_values and not spec.value_head:
        raise ValueError(f"method {spec.name!r}: estimator {spec.estimator!r} reads values, so value_head must be True")
    module = spec.trainer.partition(":")[0]
    try:
        found = importlib.util.find_spec(module) is not None  # finds it without running it
    except ModuleNotFoundError:  # a parent package is missing
        found = False
    if not found:
        raise ValueError(f"method {spec.name!r}: the trainer's module {module!r} is not found; trainer must be "
                         "'package.module:Class' of an importable module")


def register_spec(spec: MethodSpec, replace: bool = False) -> MethodSpec:
    """Add ``spec`` to the table: ``--methods NAME`` and ``train --method NAME`` reach it. A taken
    name is an error unless ``replace``, and a baseline's name always is (``--methods random`` runs
    the baseline, so the spec was never reached); what the spec names is checked now, not when a
    comparison first runs it: its estimator, aggregation and trainer, and each option its ``defaults`` set."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_spec takes a MethodSpec, got {type(spec).__name__}")
    # By name, when used: the harness (a higher layer) imports this table, as NamedRegistry.load does.
    baselines = importlib.import_module("searchgym.harness.methods").BASELINE_METHODS
    if spec.name in baselines:
        raise ValueError(f"method {spec.name!r} is the name of a baseline ({', '.join(baselines.names)}), "
                         "which --methods would run instead; choose another name")
    check_learning_parts(spec)
    importlib.import_module("searchgym.harness.method_specs").check_spec_defaults(spec)
    return METHOD_SPECS.add(spec.name, spec, replace=replace)


def llm_spec(name: str) -> MethodSpec:
    """The spec of ``name`` if the LLM trainer trains it; else an error naming the reason."""
    spec = METHOD_SPECS.get(name)
    if spec.llm_unsupported:
        accepted = ", ".join(s.name for s in METHOD_SPECS.values() if not s.llm_unsupported)
        raise ValueError(f"the LLM trainer (--policy llm) cannot train method {name!r}: {spec.llm_unsupported}; "
                         f"it trains {accepted}")
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
               paper="arXiv 2103.01955", llm_unsupported=_CRITIC),
    MethodSpec("ippo", MAPPO, "gae", "token-mean", True,
               defaults={**_PPO, "update_epochs": 5, "centralised": False, "loss.value_coef": 1.0},
               summary="MAPPO with decentralised critics: the policy's value head on each agent's observation",
               paper="arXiv 2011.09533", llm_unsupported=_CRITIC),
    MethodSpec("coma", COMA, "gae", "token-mean", True, defaults={**_PPO},
               summary="TD(lambda) return minus a counterfactual baseline from a centralised per-candidate Q critic",
               paper="arXiv 1705.08926", llm_unsupported=_CRITIC, advantage=TD_LAMBDA_COUNTERFACTUAL),
    MethodSpec("mt_ppo", TRAINER, "mt_ppo", "token-mean", True,
               summary="PPO/GAE on per-round process rewards from the judge (retrieval, consistency, search cost)",
               paper="arXiv 2604.14267 (its MT-PPO baseline)", llm_unsupported=_CRITIC),
    MethodSpec("gigpo", TRAINER, "gigpo", "seq-mean-token-mean", False,
               summary="GRPO's episode advantage plus a step advantage within identical anchor states",
               paper="arXiv 2505.10978",
               llm_unsupported="its anchor states are the observation texts of each step, which the LLM rollout "
                               "does not keep (every LLM step would share one anchor)"),
    MethodSpec("info_gain", INFO_GAIN, "info_gain", "seq-mean-token-mean", False,
               summary="turn rewards = increase of the policy's probability on a correct answer (IGPO-style)",
               paper="arXiv 2510.14967",
               llm_unsupported="its turn rewards are the policy's probability of a correct answer, which only "
                               "its own trainer (InfoGainTrainer, candidate policies) computes"),
    # Role-aware grouping, explicit (team suites): each agent is compared with itself across the task's G
    # episodes. ``--option group_by=team`` on grpo / cw_grpo pools every agent into one group instead.
    MethodSpec("grpo_role", TRAINER, "grpo", "seq-mean-token-mean", False, defaults={"group_by": "role"},
               summary="GRPO whose groups are one role's trajectories across a task's episodes (team suites)",
               paper="arXiv 2402.03300"),
    MethodSpec("cw_grpo_role", TRAINER, "cw_round", "seq-mean-token-mean", False, defaults={"group_by": "role"},
               summary="CW-GRPO whose groups are one role's trajectories across a task's episodes (team suites)",
               paper="arXiv 2604.14267"),
):
    METHOD_SPECS.add(_spec.name, _spec)  # checked by the tests, not here: that would import torch with the table
