"""Env keyword errors say what is accepted; a string family is a one-element list; index errors."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.envs.search import SearchEnv


def test_a_misspelled_kwarg_lists_the_accepted_names() -> None:
    with pytest.raises(TypeError, match=r"unknown keyword argument\(s\) 'max_step'; accepted: .*max_steps"):
        searchgym.make("SearchQA-v0", max_step=3)
    with pytest.raises(TypeError, match=r"'group_sise'.*accepted: .*group_size"):
        searchgym.make("GroupSearch-v0", group_sise=2)
    with pytest.raises(TypeError, match=r"'max_step'.*accepted"):
        searchgym.make("SearchQA-Numeric-v0", max_step=3)  # through the wrapper's factory too


def test_a_string_family_is_one_family() -> None:
    env = SearchEnv(action_mode="candidates", families="bridge")
    assert env.tasks.families == ["bridge"]
    assert {t.family for t in env.tasks.tasks()} == {"bridge"}
    with pytest.raises(ValueError, match="unknown task families \\['brige'\\]; accepted: .*bridge"):
        SearchEnv(families="brige")


def test_out_of_range_and_masked_indices_are_told_apart() -> None:
    env = SearchEnv(action_mode="candidates", max_candidates=48)
    env.reset(seed=0)
    admissible = len(env.session.candidates)
    assert admissible < 48
    env.step(admissible)
    assert "is masked" in env.session.transcript[-1][1]
    for index in (48, -1):
        env.step(index)
        assert "out of range: the action space is 0..47" in env.session.transcript[-1][1]


@pytest.mark.parametrize("env_id", [s.id for s in searchgym.registered() if s.kind == "parallel"])
def test_gymnasium_make_of_a_multi_agent_id_says_how_to_make_it(env_id) -> None:
    """Before: gymnasium.error.NameNotFound "Environment `GroupSearch` doesn't exist in namespace
    searchgym. Did you mean: `SearchQA`?", for an id that `searchgym list` prints."""
    import gymnasium

    message = rf"{env_id} is a multi-agent PettingZoo env, not a Gymnasium env: make it with searchgym\.make\('{env_id}'\)"
    with pytest.raises(ValueError, match=message):
        gymnasium.make(f"searchgym/{env_id}", world_size="tiny")
    with pytest.raises(ValueError, match=message):
        gymnasium.make_vec(f"searchgym/{env_id}", num_envs=2, vectorization_mode="sync")
    assert type(searchgym.make(f"searchgym/{env_id}", world_size="tiny")).__name__.endswith(("Env", "Parallel"))
