"""Populations of K agents and how to deploy one policy from them.

Modes (`POPULATION_MODES`):
- "shared":       one policy, sampled K times (the CW-GRPO paper; policy_for(i) is always it);
- "separate":     K independent policies, each with its own encoder (the seed article);
- "shared_trunk": one encoder object shared by K policies with their own score/value heads.

Deployment: `best_member` (pick by a dev-split score), `MajorityVote` (greedy vote of the
members), `distill` (train one student on the members' averaged action distribution).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from searchgym.envs.config import MAX_SEED

from .config_checks import check_int
from .encoders import make_encoder, resolve_device
from .policy import (
    POLICY_KWARGS,
    SIZE_KWARGS,
    CandidatePolicy,
    batch_observations,
    check_policy_kwarg_types,
    make_policy,
)

POPULATION_MODES = ("shared", "separate", "shared_trunk")


class Population(nn.Module):
    """K agents' policies under one of POPULATION_MODES; `parameters()` lists shared ones once."""

    def __init__(self, mode: str, members: Sequence[CandidatePolicy], n_agents: int) -> None:
        super().__init__()
        if mode not in POPULATION_MODES:
            raise ValueError(f"unknown population mode {mode!r}; accepted: {list(POPULATION_MODES)}")
        n_agents = check_int("n_agents", n_agents, 1)  # before: None failed on '<', 2.0 and True were taken
        expected = 1 if mode == "shared" else n_agents
        if len(members) != expected:
            raise ValueError(
                f"mode {mode!r} with {n_agents} agents needs {expected} member policies; got {len(members)}"
            )
        if mode == "shared_trunk" and len({id(m.encoder) for m in members}) != 1:
            raise ValueError("mode 'shared_trunk' needs every member to hold the same encoder object")
        self.mode = mode
        self.n_agents = n_agents
        self.members = nn.ModuleList(members)

    @classmethod
    def build(
        cls,
        mode: str,
        n_agents: int,
        encoder: str = "hash",
        device: str | torch.device = "cpu",
        seed: int = 0,
        **kwargs: Any,
    ) -> Population:
        """Make the members with `make_policy(encoder, ...)`; member i is seeded with seed + i."""
        if mode not in POPULATION_MODES:
            raise ValueError(f"unknown population mode {mode!r}; accepted: {list(POPULATION_MODES)}")
        # Before: n_agents=None failed on '<', 2.0 passed in "shared" only; seed=-1 or 1.5 was taken
        # and 2**70 failed in torch ("Overflow when unpacking long long").
        n_agents = check_int("n_agents", n_agents, 1)
        extra = {"shared": 0, "separate": n_agents - 1, "shared_trunk": n_agents}[mode]  # largest seed + i
        seed = check_int("seed", seed, 0, MAX_SEED - extra, f"mode {mode!r} seeds a member with seed + {extra}"
                         if extra else "")
        if mode == "shared":
            return cls(mode, [make_policy(encoder, device=device, seed=seed, **kwargs)], n_agents)
        if mode == "separate":
            return cls(
                mode,
                [make_policy(encoder, device=device, seed=seed + i, **kwargs) for i in range(n_agents)],
                n_agents,
            )
        head_kwargs = {k: kwargs.pop(k) for k in POLICY_KWARGS if k in kwargs}
        for key in SIZE_KWARGS:  # the trunk's sizes (dim=, ...) go to make_encoder, past make_policy's check
            if key in kwargs:
                check_int(key, kwargs[key], 1, why="a size")
        check_policy_kwarg_types(encoder, kwargs)  # and its types (freeze="false" kept an hf trunk frozen)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            trunk = make_encoder(encoder, device=resolve_device(device), **kwargs)
        members = [
            make_policy(encoder, device=device, seed=seed + 1 + i, encoder=trunk, **head_kwargs)
            for i in range(n_agents)
        ]
        return cls(mode, members, n_agents)

    def policy_for(self, agent_index: int) -> CandidatePolicy:
        if isinstance(agent_index, bool) or not isinstance(agent_index, (int, np.integer)):  # before: 1.0 taken
            raise TypeError(f"agent_index must be an integer in 0..{self.n_agents - 1}; got {agent_index!r}")
        if not 0 <= agent_index < self.n_agents:
            raise IndexError(
                f"agent_index {agent_index} out of range: this population has {self.n_agents} agents"
            )
        return self.members[0] if self.mode == "shared" else self.members[agent_index]

    def unique_members(self) -> list[CandidatePolicy]:
        return list(self.members)

    @contextlib.contextmanager
    def sampling_temperature(self, temperature: float) -> Iterator[None]:
        """Every member samples and scores its actions at ``temperature`` inside the block (a
        trainer's rollouts and update with ``rollout_temperature``), at its own before and after."""
        members = self.unique_members()
        before = [member.temperature for member in members]
        for member in members:
            member.temperature = float(temperature)
        try:
            yield
        finally:
            for member, old in zip(members, before):
                member.temperature = old


def _members(source: Population | Sequence[CandidatePolicy]) -> list[CandidatePolicy]:
    members = source.unique_members() if isinstance(source, Population) else list(source)
    if not members:
        raise ValueError("need at least one member policy")
    return members


def best_member(
    population: Population | Sequence[CandidatePolicy], score_fn: Callable[[CandidatePolicy], float]
) -> tuple[int, CandidatePolicy, list[float]]:
    """(index, policy, scores) of the member with the best `score_fn` (dev success); ties -> lowest index."""
    members = _members(population)
    scores = [float(score_fn(m)) for m in members]
    best = int(np.argmax(scores))  # np.argmax returns the first maximum
    return best, members[best], scores


@torch.no_grad()
def ensemble_probs(members: Sequence[CandidatePolicy], obs_batch: Sequence[dict[str, Any]]) -> Tensor:
    """Mean over members of their action distributions [B, N] (on CPU); masked entries are 0."""
    probs = [torch.softmax(m(obs_batch)[0], dim=-1).float().cpu() for m in members]
    return torch.stack(probs).mean(0)


class MajorityVote:
    """Each member picks its greedy candidate; the most voted wins, ties -> the lowest index.

    Policy-like: `act(obs_batch, generator=None, greedy=True) -> (actions, log_probs, values)`
    where log_probs = log(vote share of the chosen candidate) and values = mean member value.
    Voting is always greedy; `generator` and `greedy` are accepted only for interface parity.
    """

    def __init__(self, population: Population | Sequence[CandidatePolicy]) -> None:
        self.members = _members(population)

    @torch.no_grad()
    def votes(self, obs_batch: Sequence[dict[str, Any]]) -> Tensor:
        _, _, mask = batch_observations(obs_batch)
        counts = torch.zeros(mask.shape, dtype=torch.long)
        for member in self.members:
            actions, _, _ = member.act(obs_batch, greedy=True)
            counts[torch.arange(len(obs_batch)), actions.cpu()] += 1
        return counts

    @torch.no_grad()
    def act(
        self,
        obs_batch: Sequence[dict[str, Any]],
        generator: torch.Generator | None = None,
        greedy: bool = True,
    ) -> tuple[Tensor, Tensor, Tensor]:
        counts = self.votes(obs_batch)
        actions = torch.from_numpy(np.argmax(counts.numpy(), axis=1))  # first maximum = lowest index
        share = counts[torch.arange(len(obs_batch)), actions].float() / len(self.members)
        values = torch.stack([m(obs_batch)[1].float().cpu() for m in self.members]).mean(0)
        return actions, share.log(), values

    __call__ = act


def greedy_agreement(
    student: CandidatePolicy,
    teacher: Population | Sequence[CandidatePolicy],
    obs_list: Sequence[dict[str, Any]],
) -> float:
    """Fraction of observations where the student's greedy action = argmax of the teacher ensemble."""
    with torch.no_grad():
        student_actions = student.act(obs_list, greedy=True)[0].cpu()
    teacher_actions = ensemble_probs(_members(teacher), obs_list).argmax(-1)
    return float((student_actions == teacher_actions).float().mean())


def distill(
    population: Population | Sequence[CandidatePolicy],
    obs_list: Sequence[dict[str, Any]],
    student: CandidatePolicy,
    epochs: int,
    lr: float = 1e-2,
    batch_size: int = 64,
    generator: torch.Generator | None = None,
) -> list[float]:
    """Train `student` to minimise KL(teacher || student) on `obs_list`; returns the mean KL per epoch.

    The teacher is the members' averaged action distribution (`ensemble_probs`); masked
    candidates have teacher probability 0 and contribute nothing. `generator` shuffles minibatches.
    """
    if epochs < 1 or not obs_list:
        raise ValueError(
            f"distill needs epochs >= 1 and a non-empty obs_list; got epochs={epochs}, {len(obs_list)} obs"
        )
    members = _members(population)
    teacher = [
        ensemble_probs(members, obs_list[i : i + batch_size]) for i in range(0, len(obs_list), batch_size)
    ]
    optimizer = torch.optim.Adam(student.parameters(), lr=lr)
    history: list[float] = []
    for _ in range(epochs):
        order = (
            torch.randperm(len(teacher), generator=generator)
            if generator is not None
            else torch.arange(len(teacher))
        )
        total = 0.0
        for chunk in order.tolist():
            obs = obs_list[chunk * batch_size : (chunk + 1) * batch_size]
            p_t = teacher[chunk].to(student.device)
            log_s, _ = student.distribution(student(obs)[0])
            kl_terms = torch.where(p_t > 0, p_t * (p_t.clamp_min(1e-38).log() - log_s), torch.zeros_like(p_t))
            loss = kl_terms.sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(obs)
        history.append(total / len(obs_list))
    return history
