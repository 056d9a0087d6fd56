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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from searchgym.named_registry import NamedRegistry

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


def register_spec(spec: MethodSpec) -> MethodSpec:
    """Add ``spec`` to the table: ``--methods NAME`` and ``train --method NAME`` reach it."""
    return METHOD_SPECS.add(spec.name, spec)


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
    register_spec(_spec)
