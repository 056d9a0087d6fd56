"""Gymnasium vector envs over every single-agent id: async gives exactly what sync gives, and the
one async setting that cannot be correct for text spaces (shared memory) is refused by name.

Each run takes the same seeds and the same actions in both modes and compares observations,
rewards, flags and infos at every step, through a truncation (``max_steps=2``) and the autoreset
after it. Async starts processes, so runs are 2 envs and a few steps.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import searchgym
from searchgym.envs.spaces import SHARED_MEMORY_ERROR, SearchText

SINGLE_IDS = [s.id for s in searchgym.registered() if s.kind == "single"]
NUMERIC_IDS = [i for i in SINGLE_IDS if "Numeric" in i]
TEXT_SPACE_IDS = [i for i in SINGLE_IDS if i not in NUMERIC_IDS]
ENV_KWARGS = {"world_size": "tiny", "max_steps": 2}
TEXT_ACTIONS = ('<tool_call>{"name": "web_search", "arguments": {"query": "founded"}}</tool_call>',
                "not a tool call", "<answer>Paris</answer>")


def assert_same(sync: Any, other: Any, where: str = "") -> None:
    """Equal vector-env outputs: arrays element by element (object arrays too), containers item by item."""
    if isinstance(sync, dict):
        assert isinstance(other, dict) and sync.keys() == other.keys(), where
        for key in sync:
            assert_same(sync[key], other[key], f"{where}/{key}")
    elif isinstance(sync, np.ndarray):
        assert isinstance(other, np.ndarray) and sync.shape == other.shape and sync.dtype == other.dtype, where
        if sync.dtype == object:
            for i, (a, b) in enumerate(zip(sync.ravel(), other.ravel(), strict=True)):
                assert_same(a, b, f"{where}[{i}]")
        else:
            assert np.array_equal(sync, other), where
    elif isinstance(sync, list | tuple):
        assert type(sync) is type(other) and len(sync) == len(other), where
        for i, (a, b) in enumerate(zip(sync, other, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert type(sync) is type(other) and sync == other, f"{where}: {sync!r} != {other!r}"


def _actions(env_id: str, steps: int, num_envs: int) -> list[Any]:
    """The same actions for both modes: tool calls, a malformed line and an answer in text mode;
    candidate indices (legal or not: both modes must agree on the penalty too) otherwise."""
    if env_id in TEXT_SPACE_IDS and "Candidates" not in env_id:
        return [tuple(TEXT_ACTIONS[(t + e) % len(TEXT_ACTIONS)] for e in range(num_envs)) for t in range(steps)]
    rng = np.random.default_rng(7)
    return [rng.integers(0, 6, size=num_envs) for _ in range(steps)]


def _run(env_id: str, mode: str, vector_kwargs: dict[str, Any], steps: int = 4, num_envs: int = 2,
         **kwargs: Any) -> list[tuple]:
    env = gymnasium.make_vec(f"searchgym/{env_id}", num_envs=num_envs, vectorization_mode=mode,
                             vector_kwargs=vector_kwargs, **{**ENV_KWARGS, **kwargs})
    try:
        outputs = [env.reset(seed=list(range(11, 11 + num_envs)))]
        for action in _actions(env_id, steps, num_envs):
            outputs.append(env.step(action))
        return outputs
    finally:
        env.close()


@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_async_without_shared_memory_equals_sync_on_every_id(env_id):
    sync = _run(env_id, "sync", {})
    asynchronous = _run(env_id, "async", {"shared_memory": False})
    assert_same(sync, asynchronous)
    first_obs = sync[0][0]
    text = first_obs if isinstance(first_obs, tuple) else first_obs.get("text") if isinstance(first_obs, dict) else None
    if text is not None:  # the bug this guards against: every text a run of tabs
        assert all(t.strip("\t") == t for t in text)


@pytest.mark.parametrize("env_id", NUMERIC_IDS)
def test_numeric_ids_take_async_with_its_default_shared_memory(env_id):
    assert_same(_run(env_id, "sync", {}), _run(env_id, "async", {}))


@pytest.mark.parametrize("env_id", TEXT_SPACE_IDS)
@pytest.mark.parametrize("vector_kwargs", [{}, {"shared_memory": True}, {"shared_memory": True, "copy": False}])
def test_async_with_shared_memory_over_text_is_refused_naming_what_works(env_id, vector_kwargs):
    with pytest.raises(ValueError) as caught:
        gymnasium.make_vec(f"searchgym/{env_id}", num_envs=2, vectorization_mode="async",
                           vector_kwargs=vector_kwargs, **ENV_KWARGS)
    assert str(caught.value) == SHARED_MEMORY_ERROR
    assert "vector_kwargs={'shared_memory': False}" in SHARED_MEMORY_ERROR


@pytest.mark.parametrize(("env_id", "vector_kwargs"), [
    ("SearchQA-v0", {"autoreset_mode": AutoresetMode.SAME_STEP}),
    ("SearchQA-Candidates-v0", {"autoreset_mode": AutoresetMode.SAME_STEP}),
    ("SearchQA-Tags-v0", {"autoreset_mode": AutoresetMode.DISABLED}),
    ("SearchQA-Candidates-Easy-v0", {"autoreset_mode": AutoresetMode.DISABLED}),
    ("SearchQA-Candidates-v0", {"copy": False}),
    ("SearchQA-Numeric-v0", {"autoreset_mode": AutoresetMode.SAME_STEP}),
    ("SearchQA-Numeric-Easy-v0", {"copy": False, "shared_memory": True}),
])
def test_vector_kwargs_a_user_passes_keep_async_equal_to_sync(env_id, vector_kwargs):
    steps = 2 if vector_kwargs.get("autoreset_mode") is AutoresetMode.DISABLED else 4  # disabled: no reset after done
    sync_kwargs = {k: v for k, v in vector_kwargs.items() if k != "shared_memory"}
    async_kwargs = {"shared_memory": False, **vector_kwargs} if env_id in TEXT_SPACE_IDS else vector_kwargs
    assert_same(_run(env_id, "sync", sync_kwargs, steps), _run(env_id, "async", async_kwargs, steps))


def test_async_in_spawned_processes_equals_sync():
    """A worker that imports searchgym afresh (spawn) builds the same world and gives the same steps."""
    vector_kwargs = {"shared_memory": False, "context": "spawn"}
    assert_same(_run("SearchQA-Candidates-v0", "sync", {}, steps=3),
                _run("SearchQA-Candidates-v0", "async", vector_kwargs, steps=3))


def test_three_envs_and_a_different_max_candidates_stay_equal():
    kwargs = {"max_candidates": 5}
    assert_same(_run("SearchQA-Candidates-v0", "sync", {}, 3, 3, **kwargs),
                _run("SearchQA-Candidates-v0", "async", {"shared_memory": False}, 3, 3, **kwargs))


def test_text_spaces_equal_plain_text_spaces_and_sync_batches_them():
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    text = env.observation_space["text"]
    assert isinstance(text, SearchText)
    assert text == gymnasium.spaces.Text(text.max_length, min_length=0, charset=text.characters)
    vector = gymnasium.make_vec("searchgym/SearchQA-v0", num_envs=2, vectorization_mode="sync", world_size="tiny")
    observations, _ = vector.reset(seed=0)
    assert isinstance(observations, tuple) and all(o.startswith("Answer the question") for o in observations)
    vector.close()


def test_the_vector_entry_point_mode_is_refused_by_gymnasium():
    with pytest.raises(gymnasium.error.Error, match="vector entry point"):
        gymnasium.make_vec("searchgym/SearchQA-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           world_size="tiny")
