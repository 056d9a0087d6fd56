"""Keyword errors of the wrapped and multi-agent ids name the id and what it accepts; a render mode
the envs lack is an error Stable-Baselines3's ``make_vec_env`` knows to retry without."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest

import searchgym
from searchgym.envs.config import RenderModeError

TINY = {"world_size": "tiny"}
WRAPPER_KWARGS = ("base_id", "question_dim", "transcript_dim", "candidate_dim")
NUMERIC_IDS = [s.id for s in searchgym.registered() if "Numeric" in s.id]
PARALLEL_IDS = [s.id for s in searchgym.registered() if s.kind == "parallel"]


@pytest.mark.parametrize("env_id", NUMERIC_IDS)
def test_a_numeric_id_names_itself_and_its_own_keywords(env_id) -> None:
    """Before: "SearchQA-Candidates-v0 got unknown keyword argument(s) 'foo'; accepted: config, ..."
    (another id, and question_dim, transcript_dim, candidate_dim were not in the list)."""
    with pytest.raises(TypeError) as refused:
        searchgym.make(env_id, foo=1, **TINY)
    message = str(refused.value)
    assert message.startswith(f"{env_id} got unknown keyword argument(s) 'foo'; accepted: "), message
    accepted = message.split("accepted: ", 1)[1].split(", ")
    assert [*WRAPPER_KWARGS, "config"] == [n for n in accepted if n in (*WRAPPER_KWARGS, "config")]
    assert "max_candidates" in accepted and "\n" not in message
    env = searchgym.make(env_id, question_dim=8, **TINY)  # every name listed is taken
    assert env is not None


def test_gymnasium_make_of_a_numeric_id_lists_the_wrappers_keywords_too() -> None:
    with pytest.raises(TypeError, match=r"make_numeric \(over SearchQA-Candidates-v0\) got unknown keyword "
                                        r"argument\(s\) 'foo'; accepted: base_id, question_dim, transcript_dim, "
                                        r"candidate_dim, config, .*searchgym/SearchQA-Numeric-v0"):
        gymnasium.make("searchgym/SearchQA-Numeric-v0", foo=1)


def test_a_numeric_id_over_another_base_checks_against_that_base() -> None:
    with pytest.raises(TypeError, match="'group_size'; accepted: base_id, .*max_rounds"):
        searchgym.make("GroupSearch-Numeric-v0", base_id="TeamSearch-Candidates-v0", group_size=2, **TINY)


@pytest.mark.parametrize("env_id", PARALLEL_IDS)
@pytest.mark.parametrize("keyword", ["max_episode_steps", "disable_env_checker"])
def test_a_multi_agent_id_names_itself_for_gymnasiums_keywords(env_id, keyword) -> None:
    """Before: "GroupSearchEnv got unknown ..." (the class; the id the user typed was not named)."""
    with pytest.raises(TypeError, match=rf"^{re.escape(env_id)} got unknown keyword argument\(s\) '{keyword}'; "
                                        r"accepted: .*max_candidates"):
        searchgym.make(env_id, **{keyword: 4}, **TINY)


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "SearchQA-Numeric-v0", "GroupSearch-v0"])
def test_an_unsupported_render_mode_is_a_value_error_and_a_type_error(env_id) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium warns about the mode before the env refuses it
        for catch in (ValueError, TypeError):
            with pytest.raises(catch, match="render_mode must be None, 'ansi' or 'human', got 'rgb_array'"):
                searchgym.make(env_id, render_mode="rgb_array", **TINY)
    with pytest.raises(RenderModeError, match="got int 5"):
        searchgym.make("SearchQA-v0", render_mode=5, **TINY)


def test_stable_baselines3_make_vec_env_makes_the_numeric_ids() -> None:
    """SB3's make_vec_env asks for render_mode="rgb_array" and retries without it on a TypeError only.
    Before: ValueError "render_mode must be None, 'ansi' or 'human', got 'rgb_array'"."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    masks = pytest.importorskip("sb3_contrib.common.maskable.utils")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        envs = env_util.make_vec_env("searchgym/SearchQA-Numeric-Easy-v0", n_envs=2, env_kwargs=TINY, seed=0)
    try:
        obs = envs.reset()
        mask = masks.get_action_masks(envs)
        assert obs.shape == (2, envs.observation_space.shape[0]) and mask.shape == (2, 48) and mask[:, 0].all()
        _, rewards, _, _ = envs.step(np.zeros(2, dtype=np.int64))
        assert np.isfinite(rewards).all()
    finally:
        envs.close()


def test_the_numeric_factory_still_passes_gymnasiums_keywords_on() -> None:
    from searchgym.wrappers.numeric import make_numeric

    env = make_numeric(max_episode_steps=3, **TINY)
    assert env.env.spec.max_episode_steps == 3
