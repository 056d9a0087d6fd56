"""Supervised warm start: train a candidate policy to imitate a demonstrator's choices.

Why: RL on language models starts from a model that can already search; the policies here start
from nothing and RL alone leaves them at word-overlap level. A demonstrator (the reader, or the
oracle) plays train tasks; every acting agent's (observation, chosen candidate) is an example;
the policy is fitted by cross-entropy (behaviour cloning). Optional DAgger rounds let the learner
play and the demonstrator label the states the learner reaches, so the policy also learns to
recover from its own mistakes.

A demonstrator is any harness-style actor: ``act(env, observation(s), info(s))`` -> an index (one
agent) or ``{agent: index}`` (parallel envs), with an optional ``reset()``; it must be able to
label a state it did not choose (the reader reads the observation alone; the oracle re-reads
the env every round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .config_checks import MAX_LOOP, check_counts, check_rate
from .policy import CandidatePolicy

DEMONSTRATORS = ("reader", "oracle")


#: The largest SFT minibatch: far above the default 64; 10**9 asked for the whole set in one batch.
MAX_BATCH = 65_536


@dataclass
class SFTConfig:
    """Settings of the supervised base (``--option sft_tasks=300`` ...; prefixed so that no name
    clashes with an RL method's option such as ``lr``)."""

    sft_demonstrator: str = "reader"  # "reader" or "oracle"
    sft_tasks: int = 1000  # train tasks the demonstrator plays, at most the split's (sets the base's skill)
    sft_epochs: int = 16
    sft_lr: float = 3e-3
    sft_batch_size: int = 64
    sft_dagger_rounds: int = 0  # rounds of: the learner plays sft_dagger_tasks tasks, the demonstrator labels, refit
    sft_dagger_tasks: int = 100

    def __post_init__(self) -> None:
        if self.sft_demonstrator not in DEMONSTRATORS:
            raise ValueError(f"unknown sft_demonstrator {self.sft_demonstrator!r}; accepted: {', '.join(DEMONSTRATORS)}")
        check_counts(self, (("sft_tasks", 1), ("sft_epochs", 1, MAX_LOOP), ("sft_batch_size", 1, MAX_BATCH),
                            ("sft_dagger_rounds", 0, MAX_LOOP), ("sft_dagger_tasks", 0)))
        check_rate("sft_lr", self.sft_lr)


@dataclass
class Examples:
    """Demonstrated decisions as plain lists (saved with torch.save and read back weights_only)."""

    text: list[str]
    candidates: list[list[str]]
    mask: list[list[int]]
    action: list[int]
    family: list[str]

    @classmethod
    def empty(cls) -> Examples:
        return cls([], [], [], [], [])

    def __len__(self) -> int:
        return len(self.action)

    def add(self, observation: dict, action: int, family: str) -> None:
        mask = [int(m) for m in np.asarray(observation["action_mask"]).reshape(-1)]
        if not 0 <= int(action) < len(mask) or not mask[int(action)]:
            raise ValueError(f"the demonstrator chose candidate {action}, which is not admissible (mask {mask})")
        last = max(i for i, m in enumerate(mask) if m) + 1  # the padding after the last admissible one is dropped
        self.text.append(str(observation["text"]))
        self.candidates.append([str(c) for c in observation["candidates"][:last]])
        self.mask.append(mask[:last])
        self.action.append(int(action))
        self.family.append(str(family))

    def extend(self, other: Examples) -> None:
        for name in ("text", "candidates", "mask", "action", "family"):
            getattr(self, name).extend(getattr(other, name))

    def observations(self, rows: Sequence[int]) -> list[dict]:
        return [{"text": self.text[i], "candidates": tuple(self.candidates[i]),
                 "action_mask": np.asarray(self.mask[i], dtype=np.int8)} for i in rows]

    def as_dict(self) -> dict[str, list]:
        return {"text": self.text, "candidates": self.candidates, "mask": self.mask, "action": self.action,
                "family": self.family}


def demonstration_order(n_train: int, seed: int) -> np.ndarray:
    """The order in which a seed's base demonstrates the train tasks (indices into the split): its
    first ``sft_tasks`` are shown, the DAgger rounds take the next ones. One function, so that RL
    can leave out exactly what the base was shown (``TrainConfig.rl_fresh_tasks``)."""
    return np.random.default_rng([seed, 7]).permutation(n_train)


def shown_to_base(n_train: int, seed: int, config: SFTConfig) -> set[int]:
    """Indices of the train tasks a base built with ``config`` for ``seed`` saw: demonstrated, or
    played in a DAgger round."""
    seen = config.sft_tasks + config.sft_dagger_rounds * config.sft_dagger_tasks
    return {int(i) for i in demonstration_order(n_train, seed)[:seen]}


def not_shown_to_base(task_ids: Sequence[str], seed: int, config: SFTConfig) -> list[str]:
    """The train tasks (the split, in order) that the base of ``seed`` was not shown: where RL
    trains with ``rl_fresh_tasks``."""
    shown = shown_to_base(len(task_ids), seed, config)
    fresh = [task for i, task in enumerate(task_ids) if i not in shown]
    if not fresh:  # before: named only sft_tasks, also where the DAgger rounds' tasks took the rest
        dagger = config.sft_dagger_rounds * config.sft_dagger_tasks
        if not dagger:
            shown_by, lower = f"sft_tasks={config.sft_tasks}", "sft_tasks"
        else:
            shown_by = (f"sft_tasks={config.sft_tasks} demonstrated and sft_dagger_rounds={config.sft_dagger_rounds}"
                        f" x sft_dagger_tasks={config.sft_dagger_tasks} played in DAgger rounds")
            lower = "sft_tasks" if config.sft_tasks >= len(task_ids) else "sft_dagger_tasks, sft_dagger_rounds or sft_tasks"
        raise ValueError(f"rl_fresh_tasks=true: the base was shown every train task ({shown_by}, "
                         f"{len(task_ids)} in the split); lower {lower} to leave some for RL")
    return fresh


def _reset(actor: Any, seed: int) -> None:
    reset = getattr(actor, "reset", None)
    if callable(reset):
        try:
            reset(seed=seed)
        except TypeError:
            reset()


def play(env: Any, demonstrator: Any, task_id: str, seed: int, family: str, learner: Any = None) -> tuple[Examples, bool]:
    """One episode on ``task_id``: every acting agent's (observation, demonstrator's choice), and
    whether it succeeded. ``learner`` (an actor) chooses the actions when given (DAgger)."""
    out = Examples.empty()
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    for actor in (demonstrator, learner):
        if actor is not None:
            _reset(actor, seed)
    parallel = isinstance(observation, dict) and "action_mask" not in observation
    for _ in range(10_000):
        labels = demonstrator.act(env, observation, info)
        actions = learner.act(env, observation, info) if learner is not None else labels
        if parallel:
            live = [a for a in env.agents if a in labels]
            for agent in live:
                out.add(observation[agent], int(labels[agent]), family)
            observation, _, _, _, info = env.step({a: int(actions[a]) for a in live})
            if not env.agents:
                return out, any(bool(i.get("success", False)) for i in info.values())
        else:
            out.add(observation, int(labels), family)
            observation, _, terminated, truncated, info = env.step(int(actions))
            if terminated or truncated:
                return out, bool(info.get("success", False))
    raise RuntimeError(f"task {task_id}: the episode did not end within 10000 steps")


def demonstrations(env: Any, demonstrator: Any, tasks: Sequence[Any], seed: int, learner: Any = None,
                   on_task: Callable[[int], None] | None = None) -> tuple[Examples, float]:
    """Examples from one episode per task (``tasks``: objects with ``.id`` and ``.family``) and the
    success rate of whoever acted; episode i is reset with seed ``seed + i``. ``on_task(done)``
    runs after each episode (the build's progress; it changes nothing played)."""
    examples, wins = Examples.empty(), 0
    for i, task in enumerate(tasks):
        found, ok = play(env, demonstrator, task.id, seed + i, task.family, learner)
        examples.extend(found)
        wins += ok
        if on_task is not None:
            on_task(i + 1)
    return examples, wins / max(1, len(tasks))


def cross_entropy(policy: CandidatePolicy, examples: Examples, rows: Sequence[int]) -> torch.Tensor:
    """Mean -log pi(demonstrated action | observation) over ``rows``."""
    logits, _ = policy(examples.observations(rows))
    actions = torch.tensor([examples.action[i] for i in rows], device=logits.device)
    return -torch.log_softmax(logits, -1).gather(-1, actions.view(-1, 1)).mean()


def fit_epoch(policy: CandidatePolicy, optimizer: torch.optim.Optimizer, examples: Examples, batch_size: int,
              generator: torch.Generator, max_grad_norm: float = 1.0) -> float:
    """One epoch of minibatch cross-entropy in an order drawn from ``generator``; the mean loss."""
    order = torch.randperm(len(examples), generator=generator).tolist()
    total = 0.0
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        loss = cross_entropy(policy, examples, rows)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
        optimizer.step()
        total += float(loss.detach()) * len(rows)
    return total / max(1, len(order))


@torch.no_grad()
def agreement(policy: CandidatePolicy, examples: Examples, batch_size: int = 128) -> dict[str, float]:
    """Share of decisions where the policy's argmax is the demonstrator's choice: overall ("all")
    and per task family."""
    if not len(examples):
        raise ValueError("no examples to measure agreement on")
    hits = np.zeros(len(examples), dtype=bool)
    for start in range(0, len(examples), batch_size):
        rows = list(range(start, min(start + batch_size, len(examples))))
        logits, _ = policy(examples.observations(rows))
        hits[rows] = logits.argmax(-1).cpu().numpy() == np.array([examples.action[i] for i in rows])
    out = {"all": float(hits.mean())}
    families = np.array(examples.family)
    for family in sorted(set(examples.family)):
        out[family] = float(hits[families == family].mean())
    return out


@torch.no_grad()
def confidence(policy: CandidatePolicy, examples: Examples, batch_size: int = 128,
               unlikely: float = 0.05) -> dict[str, float]:
    """How sure the policy is of its choices on the demonstrator's decisions.

    Why: on-policy RL only learns from actions it samples. ``entropy`` is the mean entropy of the
    policy's choice (nats); ``p_demonstrated`` the mean probability it gives the demonstrator's
    action; ``errors_unlikely`` the share of its disagreements (argmax != demonstrated) where the
    demonstrated action gets less than ``unlikely``, errors that sampling rarely undoes (0 when it
    never disagrees)."""
    if not len(examples):
        raise ValueError("no examples to measure confidence on")
    entropy, p_demo, wrong = [], [], []
    for start in range(0, len(examples), batch_size):
        rows = list(range(start, min(start + batch_size, len(examples))))
        log_probs, ent = policy.distribution(policy(examples.observations(rows))[0])
        demo = torch.as_tensor([examples.action[i] for i in rows], device=log_probs.device)
        p = log_probs.gather(-1, demo.unsqueeze(-1)).squeeze(-1).exp()
        entropy.append(ent.cpu())
        p_demo.append(p.cpu())
        wrong.append(p[log_probs.argmax(-1) != demo].cpu())
    misses = torch.cat(wrong)
    return {"entropy": float(torch.cat(entropy).mean()), "p_demonstrated": float(torch.cat(p_demo).mean()),
            "errors_unlikely": float((misses < unlikely).float().mean()) if len(misses) else 0.0}


def imitate(policy: CandidatePolicy, examples: Examples, config: SFTConfig, generator: torch.Generator,
            on_epoch: Callable[[int, float], None] | None = None, optimizer: torch.optim.Optimizer | None = None,
            start_epoch: int = 0) -> list[float]:
    """``config.sft_epochs`` epochs of behaviour cloning from ``start_epoch`` on; the loss per epoch.
    ``on_epoch(epoch, loss)`` runs after each (the caller's checkpoint)."""
    optimizer = optimizer or torch.optim.Adam(policy.parameters(), lr=config.sft_lr)
    losses = []
    for epoch in range(start_epoch, config.sft_epochs):
        losses.append(fit_epoch(policy, optimizer, examples, config.sft_batch_size, generator))
        if on_epoch is not None:
            on_epoch(epoch + 1, losses[-1])
    return losses
