"""A deep copy or a pickle of an env mid-episode keeps what replaying its episode does not rebuild:
the spec ``gymnasium.make`` set, the spaces' generators, and what "human" mode has printed."""

from __future__ import annotations

import contextlib
import copy
import io
import pickle

import gymnasium
import pytest

import searchgym

TINY = {"world_size": "tiny"}
SINGLE_IDS = [s.id for s in searchgym.registered() if s.kind == "single"]
PARALLEL_IDS = [s.id for s in searchgym.registered() if s.kind == "parallel"]
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda env: pickle.loads(pickle.dumps(env))}


def _first_action(env):
    space = env.action_space
    return 0 if isinstance(space, gymnasium.spaces.Discrete) else "<search>Kawous</search>"


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_a_copy_keeps_the_spec_gymnasium_make_set(env_id, how) -> None:
    """Before: the copy's spec was None, so gymnasium.make(copy.spec) failed."""
    env = searchgym.make(env_id, max_episode_steps=5, **TINY)
    env.reset(seed=3)
    env.step(_first_action(env))
    twin = COPIES[how](env)
    assert twin.unwrapped.spec is not None and twin.unwrapped.spec.id == f"searchgym/{env_id}"
    assert twin.spec.id == env.spec.id and twin.spec.max_episode_steps == 5
    again = gymnasium.make(twin.spec)
    assert again.spec.id == env.spec.id


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_a_copy_samples_the_same_actions_as_the_original(env_id, how) -> None:
    """Before: the copy's spaces were new, unseeded ones."""
    env = searchgym.make(env_id, **TINY)
    env.reset(seed=3)
    env.action_space.seed(0)
    env.observation_space.seed(1)
    twin = COPIES[how](env)
    assert twin.unwrapped.action_space is not env.unwrapped.action_space  # each env owns its spaces
    assert [repr(env.action_space.sample()) for _ in range(3)] == [repr(twin.action_space.sample()) for _ in range(3)]
    assert repr(env.observation_space.sample()) == repr(twin.observation_space.sample())


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("env_id", PARALLEL_IDS)
def test_a_parallel_copy_samples_the_same_actions_as_the_original(env_id, how) -> None:
    env = searchgym.make(env_id, **TINY)
    env.reset(seed=3)
    agent = env.possible_agents[0]
    env.action_space(agent).seed(0)
    twin = COPIES[how](env)
    assert twin.action_space(agent) is not env.action_space(agent)
    assert twin.action_space(agent) is twin.action_space(agent)  # one space object per agent, as PettingZoo expects
    assert [repr(env.action_space(agent).sample()) for _ in range(3)] == \
        [repr(twin.action_space(agent).sample()) for _ in range(3)]


def _printed(call) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call()
    return out.getvalue()


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "SearchQA-v0", "GroupSearch-Candidates-v0",
                                    "TeamSearch-v0"])
def test_a_copy_of_a_human_env_prints_only_the_new_lines(env_id, how) -> None:
    """Before: the copy's first step printed the whole episode again."""
    env = searchgym.make(env_id, render_mode="human", **TINY)
    if env_id.startswith("SearchQA"):
        def act(e):
            return lambda: e.step(_first_action(e))
    else:
        def act(e):
            return lambda: e.step({a: 0 if "Candidates" in env_id else "<wait/>" for a in e.agents})
    _printed(lambda: env.reset(seed=0))
    _printed(act(env))
    twin = None

    def make_twin():
        nonlocal twin
        twin = COPIES[how](env)

    assert _printed(make_twin) == ""
    theirs, ours = _printed(act(env)), _printed(act(twin))
    assert ours == theirs and theirs
