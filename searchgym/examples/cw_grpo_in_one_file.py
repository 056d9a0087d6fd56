"""CW-GRPO in one file: contribution-weighted GRPO on a searchgym candidate env, CleanRL style.

Per training task the policy makes a group of G attempts; GRPO gives every round of attempt i
A_i = (R_i - mean R) / (std R + eps). CW-GRPO (arXiv 2604.14267, its round-contribution
advantage: abstract and Figure 1; ``searchgym.agents.cw_round`` is the reference) keeps A_i
when A_i < 0, else the J non-final rounds that can reveal evidence (lookups, clock,
clarification) share J * A_i by w = softmax(round_gamma * c), c_k = u_k v_k the judge's
contribution of round k (``info["signals"]["contribution"]``: new gold evidence, consistent).
Versus GRPO: a success's credit moves to the rounds that found its evidence, its total unchanged.
As in the reference (the paper's script: gamma = 100, all rounds share) round_gamma = 1 and
calculator/post/wait rounds keep A_i. Loss: GRPO's PPO clip, mean over rounds then attempts.
Run: ``python -m searchgym.examples.cw_grpo_in_one_file --updates 40`` (shipped in the wheel).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import zlib
from functools import lru_cache
from typing import NamedTuple

import numpy as np

try:  # the light core (pip install searchgym) has no torch: say which line brings it, not a traceback
    import torch
    from torch import nn
except ModuleNotFoundError as missing:
    raise SystemExit(f"this example needs {missing.name}: pip install 'searchgym[train]'") from None

import searchgym


def option(default, help: str):
    """A field of :class:`Args` with its ``--help`` line."""
    return dataclasses.field(default=default, metadata={"help": help + " (default %(default)s)"})


@dataclasses.dataclass
class Args:
    env_id: str = option("SearchQA-Candidates-Easy-v0", "a single-agent candidate env")
    world_size: str = option("tiny", "tiny, small, medium, ... or an int scale")
    seed: int = option(0, "seed of the weights, the task draws and the episodes")
    updates: int = option(40, "policy updates")
    tasks_per_update: int = option(8, "train tasks drawn per update")
    group_size: int = option(8, "G attempts per task: the GRPO group")
    update_epochs: int = option(2, "passes over each batch")
    lr: float = option(1e-2, "Adam learning rate")
    clip_coef: float = option(0.2, "PPO clip: ratios outside [1 - c, 1 + c] give no gradient")
    round_gamma: float = option(1.0, "softmax temperature of the round weights")
    features: int = option(256, "hashed bag-of-words buckets")
    eval_tasks: int = option(0, "dev tasks played greedily at the end, 0 for all")


#: The least value of each number option, and whether it may equal it; floats must also be finite.
#: Why: a negative or NaN --lr was a ValueError traceback from Adam, a clip of 0 learns nothing.
LEAST = {"updates": (1, True), "tasks_per_update": (1, True), "group_size": (1, True), "update_epochs": (1, True),
         "features": (1, True), "eval_tasks": (0, True), "seed": (0, True), "lr": (0, False),
         "clip_coef": (0, False), "round_gamma": (0, True)}


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default,
                            help=f.metadata["help"])
    args = Args(**vars(parser.parse_args(argv)))
    if args.world_size.isdigit():  # an int scale (4..9000) as well as a preset name
        args.world_size = int(args.world_size)
    for name, (least, may_equal) in LEAST.items():
        value = getattr(args, name)
        if not math.isfinite(value) or value < least or (value == least and not may_equal):
            words = f"a finite number {'>=' if may_equal else '>'}" if isinstance(value, float) else "at least"
            parser.error(f"--{name.replace('_', '-')} must be {words} {least}, got {value}")
    return args


class Round(NamedTuple):
    features: torch.Tensor  # one row per admissible candidate
    choice: int  # the row chosen
    log_prob: float  # its log-probability when it was chosen (the "old" policy of the ratio)
    contribution: float  # c_k = u_k v_k, from info["signals"]["contribution"]
    evidence: bool  # the chosen tool can reveal gold evidence (so c_k can be 1)


EVIDENCE_KINDS = {"web_search", "knowledge_base", "current_time", "ask_for_clarification"}


def is_evidence_round(candidate: str) -> bool:
    """A round can earn c_k = 1 only if its tool can reveal gold evidence (a name we cannot read counts)."""
    name, paren, _ = candidate.partition("(")
    return not (paren and name.strip().isidentifier()) or name.strip() in EVIDENCE_KINDS


@lru_cache(maxsize=200_000)
def bag_of_words(text: str, size: int) -> torch.Tensor:
    """Hashed bag of words, L2-normalised; crc32 is stable across processes (hash() is salted)."""
    vec = torch.zeros(size)
    for word in re.findall(r"[a-z0-9_]+", text.lower()):
        vec[zlib.crc32(word.encode()) % size] += 1.0
    return vec / vec.norm().clamp(min=1.0)


class Scorer(nn.Module):
    """Scores each candidate against the observation text: MLP([obs, cand, obs * cand]) -> logit."""

    def __init__(self, size: int, hidden: int = 64) -> None:
        super().__init__()
        self.size = size
        self.mlp = nn.Sequential(nn.Linear(3 * size, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def featurize(self, obs: dict) -> tuple[torch.Tensor, np.ndarray]:
        """Features of the admissible candidates only (the mask's ones), and their indices."""
        legal = np.flatnonzero(obs["action_mask"])
        cands = torch.stack([bag_of_words(obs["candidates"][i], self.size) for i in legal])
        text = bag_of_words(obs["text"], self.size).expand(len(legal), -1)
        return torch.cat([text, cands, text * cands], dim=-1), legal

    def log_probs(self, feats: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(self.mlp(feats).squeeze(-1), dim=-1)


def play(env, policy: Scorer, task_id: str, seed: int, gen: torch.Generator | None) -> dict:
    """One attempt; sampled with ``gen``, greedy when it is None."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    steps, done, ret = [], False, 0.0
    while not done:
        feats, legal = policy.featurize(obs)
        with torch.no_grad():
            logp = policy.log_probs(feats)
        j = int(logp.argmax()) if gen is None else int(torch.multinomial(logp.exp(), 1, generator=gen))
        evidence = is_evidence_round(obs["candidates"][legal[j]])  # read before the step replaces obs
        obs, reward, terminated, truncated, info = env.step(int(legal[j]))
        done, ret = terminated or truncated, ret + float(reward)
        steps.append(Round(feats, j, float(logp[j]), float(info["signals"]["contribution"]), evidence))
    return {"steps": steps, "return": ret, "success": bool(info["success"])}


def grpo_advantages(returns: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """(R_i - mean R) / (std R + eps); zeros when every attempt scored the same."""
    if np.ptp(returns) <= 1e-12:
        return np.zeros_like(returns)
    return (returns - returns.mean()) / (returns.std(ddof=1) + eps)


def contribution_weighted(a_i: float, attempt: dict, gamma: float) -> np.ndarray:
    """CW-GRPO's per-round advantages of one attempt (the module docstring states the rule)."""
    adv = np.full(len(attempt["steps"]), a_i)
    shared = [k for k, r in enumerate(attempt["steps"][:-1]) if r.evidence]  # non-final evidence rounds
    if a_i >= 0 and shared:
        c = np.array([attempt["steps"][k].contribution for k in shared])
        w = np.exp(gamma * c - (gamma * c).max())
        adv[shared] = a_i * len(shared) * w / w.sum()
    return adv


def main() -> None:
    args = parse_args()
    torch.set_num_threads(1)  # tiny matrices: threads cost more than they save
    gen = torch.Generator().manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    try:  # an unknown id or world size: one line naming what is accepted (before: a traceback)
        env = searchgym.make(args.env_id, world_size=args.world_size)
    except ValueError as exc:
        raise SystemExit(f"cw_grpo_in_one_file: {exc}") from None
    if "candidates" not in getattr(env.observation_space, "spaces", {}):  # a text or a multi-agent env
        raise SystemExit(f"--env-id {args.env_id!r} is not a single-agent candidate env; "
                         "accepted: SearchQA-Candidates-v0, SearchQA-Candidates-Easy-v0")
    train_ids = [t.id for t in env.unwrapped.tasks.tasks("train")]
    if args.tasks_per_update > len(train_ids):  # drawn without replacement
        raise SystemExit(f"--tasks-per-update {args.tasks_per_update}: this world has {len(train_ids)} train tasks")
    with torch.random.fork_rng():  # the initial weights come from the seed, global state untouched
        torch.manual_seed(args.seed)
        policy = Scorer(args.features)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)

    for update in range(1, args.updates + 1):
        # Rollout: G attempts at each of a few train tasks, then the advantages per group.
        batch, successes, returns_seen, changed = [], [], [], []
        for task_id in rng.choice(train_ids, size=args.tasks_per_update, replace=False):
            seeds = rng.integers(2**31, size=args.group_size)
            group = [play(env, policy, str(task_id), int(seed), gen) for seed in seeds]
            returns = np.array([a["return"] for a in group])
            for a_i, attempt in zip(grpo_advantages(returns), group):
                adv = contribution_weighted(float(a_i), attempt, args.round_gamma)
                changed.append(float(np.abs(adv - a_i).max() > 1e-9))
                batch.append((attempt["steps"], torch.as_tensor(adv, dtype=torch.float32)))
            successes += [a["success"] for a in group]
            returns_seen += list(returns)

        # Update: PPO-clipped ratio, token mean within an attempt, then mean over attempts.
        for _ in range(args.update_epochs):
            losses = []
            for steps, adv in batch:
                new_logp = torch.stack([policy.log_probs(r.features)[r.choice] for r in steps])
                ratio = (new_logp - torch.tensor([r.log_prob for r in steps])).exp()
                clipped = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                losses.append(torch.max(-adv * ratio, -adv * clipped).mean())
            loss = torch.stack(losses).mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
        print(f"update {update}/{args.updates}: train success {np.mean(successes):.3f}, "
              f"mean return {np.mean(returns_seen):.3f}, loss {loss.item():.4f}, "
              f"attempts reweighted by CW {np.mean(changed):.3f}", flush=True)

    dev_env = searchgym.make(args.env_id, world_size=args.world_size, split="dev")
    dev_ids = [t.id for t in dev_env.unwrapped.tasks.tasks("dev")][: args.eval_tasks or None]
    wins = [play(dev_env, policy, task_id, i, None)["success"] for i, task_id in enumerate(dev_ids)]
    print(f"dev success {np.mean(wins):.3f} ({len(dev_ids)} dev tasks, greedy)")


if __name__ == "__main__":
    main()
