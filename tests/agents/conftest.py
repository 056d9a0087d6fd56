"""Shared builders for the agents tests: synthetic observations and trajectories (no env needed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
import torch
from searchgym.agents import Step, Trajectory

N_CANDIDATES = 6


def build_obs(
    text: str, candidates: Sequence[str], mask: Sequence[int] | None = None, n: int = N_CANDIDATES
) -> dict:
    """An observation in the env's candidate format, padded with "" (masked) to n entries."""
    cands = list(candidates) + [""] * (n - len(candidates))
    if mask is None:
        mask = [1] * len(candidates)
    full_mask = np.zeros(n, dtype=np.int8)
    full_mask[: len(mask)] = mask
    return {"text": text, "candidates": tuple(cands), "action_mask": full_mask}


def build_traj(
    rewards: Sequence[float],
    values: Sequence[float] | None = None,
    contributions: Sequence[float] | None = None,
    done: bool = True,
    bootstrap_value: float = 0.0,
    agent_id: str = "agent_0",
    kinds: Sequence[str] | None = None,
) -> Trajectory:
    """A trajectory with the given per-step rewards/values/contributions; only the last step may be done.
    ``kinds``: the tool each step calls (the chosen candidate is ``'<kind>("x")'``); default web_search."""
    T = len(rewards)
    values = values if values is not None else [0.0] * T
    contributions = contributions if contributions is not None else [0.0] * T
    kinds = kinds if kinds is not None else ["web_search"] * T
    observations = [build_obs("Q", [f'{kind}("x")']) for kind in kinds]
    steps = [
        Step(
            observations[t],
            0,
            0.0,
            float(values[t]),
            float(rewards[t]),
            done and t == T - 1,
            observations[t]["action_mask"],
            {"contribution": float(contributions[t])},
        )
        for t in range(T)
    ]
    return Trajectory(steps, agent_id=agent_id, bootstrap_value=bootstrap_value)


SYLLABLES = [
    "ka",
    "zo",
    "mi",
    "ru",
    "te",
    "lo",
    "vex",
    "qua",
    "dri",
    "pel",
    "nor",
    "sy",
    "bu",
    "fen",
    "gat",
    "hix",
]


def invented_name(rng: np.random.Generator, parts: int = 2) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def maker_task(rng: np.random.Generator, n_distractors: int = 3) -> tuple[dict, int]:
    """A one-step task: "Which company makes P?" with answers whose provenance names other products.

    Only the overlap between the question's product name and a candidate's provenance tells
    the correct answer apart. Returns (obs, index of the correct candidate).
    """
    product = invented_name(rng, 3)
    company = invented_name(rng)
    cands = [f'answer("{company}")  <- {product} is made by {company}. [web_search]']
    for _ in range(n_distractors):
        other_p, other_c = invented_name(rng, 3), invented_name(rng)
        cands.append(f'answer("{other_c}")  <- {other_p} is made by {other_c}. [web_search]')
    cands.append(f'web_search(query="{product}")')
    order = rng.permutation(len(cands))
    shuffled = [cands[i] for i in order]
    return build_obs(f"Question: Which company makes {product}?", shuffled), int(np.where(order == 0)[0][0])


@pytest.fixture(autouse=True)
def single_torch_thread():
    """These models are tiny: with 2 cores shared by other jobs, intra-op threads only oversubscribe
    (measured: tanh on a [64, 6, 64] tensor took 0.7-1.6 ms with 2 threads vs 0.05 ms with 1)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def make_obs() -> Callable[..., dict]:
    return build_obs


@pytest.fixture
def make_traj() -> Callable[..., Trajectory]:
    return build_traj


@pytest.fixture
def make_task() -> Callable[..., tuple[dict, int]]:
    return maker_task


@pytest.fixture(scope="session")
def good_model(tmp_path_factory):
    """The ``random:tiny`` model saved as a folder (config, weights, tokenizer): what the model-folder
    tests damage or doctor, a copy each."""
    pytest.importorskip("transformers")
    from searchgym.agents.llm_policy import load_model

    folder = tmp_path_factory.mktemp("models") / "good"
    model, tokenizer = load_model("random:tiny")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
