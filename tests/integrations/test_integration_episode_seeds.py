"""GEM's and OpenEnv's ``reset`` take the seeds searchgym's own envs take (any non-negative int) and
refuse the others with the envs' own message. Before: both refused a seed above 2**63-1, which
the core envs play (the harness derives episode seeds by arithmetic and passes that bound), each
with a message of its own."""

from __future__ import annotations

import numpy as np
import pytest

import searchgym

SUITE, SPLIT = "searchqa-text-v2", "dev"
LARGE_SEEDS = [2**63, 10**30]
BAD_SEEDS = [-1, "a", 1.5, True, [1]]


def _core_refusal(seed: object) -> str:
    """What searchgym's own text env says of ``seed`` at reset."""
    with pytest.raises(ValueError) as refused:
        searchgym.make("SearchQA-v0", world_size="tiny").reset(seed=seed)
    return str(refused.value)


@pytest.mark.parametrize("seed", LARGE_SEEDS)
def test_gem_reset_plays_a_seed_above_2_to_the_63(seed) -> None:
    pytest.importorskip("gem")
    from searchgym.integrations.gem import SearchgymGemEnv

    env = SearchgymGemEnv(SUITE, SPLIT)
    observation, _ = env.reset(seed=seed)
    chosen = env.task_id
    assert env.reset(seed=seed)[0] == observation and env.task_id == chosen  # the same episode again
    assert env.reset(seed=np.uint64(2**63))[0] == env.reset(seed=2**63)[0]  # a NumPy integer is the same seed


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_gem_reset_refuses_a_bad_seed_as_the_core_env_does(seed) -> None:
    pytest.importorskip("gem")
    from searchgym.integrations.gem import SearchgymGemEnv

    with pytest.raises(ValueError) as refused:
        SearchgymGemEnv(SUITE, SPLIT).reset(seed=seed)
    assert str(refused.value) == _core_refusal(seed)


@pytest.mark.parametrize("seed", LARGE_SEEDS)
def test_openenv_reset_plays_a_seed_above_2_to_the_63(seed) -> None:
    pytest.importorskip("openenv.core")
    from searchgym.integrations.openenv import SearchgymEnvironment

    env = SearchgymEnvironment(SUITE, SPLIT)
    first = env.reset(seed=seed)
    assert env.reset(seed=seed).task_id == first.task_id and first.text == env.reset(seed=seed).text
    env.close()


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_openenv_reset_refuses_a_bad_seed_as_the_core_env_does(seed) -> None:
    pytest.importorskip("openenv.core")
    from searchgym.integrations.openenv import SearchgymEnvironment

    with pytest.raises(ValueError) as refused:
        SearchgymEnvironment(SUITE, SPLIT).reset(seed=seed)
    assert refused.value.status_code == 422 and refused.value.detail == _core_refusal(seed)


def test_openenv_plays_a_large_seed_over_the_websocket() -> None:
    pytest.importorskip("openenv.core")
    import json

    from fastapi.testclient import TestClient

    from searchgym.integrations.openenv import create_searchgym_app

    client = TestClient(create_searchgym_app(SUITE, SPLIT))
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 10**29}}))
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "observation", reply
