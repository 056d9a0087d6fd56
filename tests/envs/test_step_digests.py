"""Every observation, reward, flag, info and state of whole seeded episodes is what it was when
the fixture was recorded (before the hot path's history memo and shared candidate texts): a
speed change that alters a single candidate, mask or info fails here, naming the first step.

Why digests: a recorded trajectory of every observation and info is megabytes; a SHA-256 per
step is a few kilobytes and still says which case, episode and step first differs. Regenerate
the fixture only for a change that is meant to change what agents see:

    python tests/envs/test_step_digests.py   # writes tests/envs/fixtures/step_digests.json
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "step_digests.json"
EPISODES = 12


def canon(value: Any) -> Any:
    """A JSON value that equals another's exactly when the env outputs are equal (Actions with
    their provenance, arrays with their dtype, floats by repr)."""
    from searchgym.action_types import Action

    if isinstance(value, Action):
        return ["Action", value.kind, value.tool, canon(value.arguments), value.text, value.provenance]
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), canon(value.tolist())]
    if isinstance(value, dict):
        return {"dict": sorted([repr(k), canon(v)] for k, v in value.items())}
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [canon(v) for v in value]]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, float):
        return ["float", repr(value)]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return [type(value).__name__, canon(vars(value))]
    raise TypeError(f"no canonical form for {type(value).__name__}")


def digest(*parts: Any) -> str:
    text = json.dumps(canon(list(parts)), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _single(env, seed: int) -> list[str]:
    from searchgym.baselines import RandomAgent

    agent = RandomAgent(seed=seed)  # a candidate index, or in text mode a random candidate written out
    obs, info = env.reset(seed=seed)
    steps = [digest(obs, info)]
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.choose_action(env.session))
        steps.append(digest(obs, reward, terminated, truncated, info))
        done = terminated or truncated
    return steps


def _parallel(env, seed: int) -> list[str]:
    from searchgym.baselines.team_random import TeamRandom

    team = TeamRandom(seed=seed)
    obs, infos = env.reset(seed=seed)
    steps = [digest(obs, infos, env.state())]
    while env.agents:
        obs, rewards, terms, truncs, infos = env.step(team.choose_actions(env))
        steps.append(digest(obs, rewards, terms, truncs, infos, env.state()))
    return steps


def cases() -> dict[str, tuple[Callable[[], Any], Callable]]:
    """name -> (build the env, play one seeded episode and return its step digests)."""
    from searchgym.envs.group import GroupSearchEnv
    from searchgym.envs.search import SearchEnv
    from searchgym.envs.team import TeamSearchEnv
    from searchgym.suites import get_suite, make_env

    def suite_env():
        env = make_env(get_suite("quick-v2"), "train", action_mode="candidates", observation_data=True)
        return getattr(env, "unwrapped", env)

    small = {"world_size": "small"}
    return {
        "search_candidates": (lambda: SearchEnv(action_mode="candidates", **small), _single),
        "search_text": (lambda: SearchEnv(action_mode="text", **small), _single),
        "quick_v2_team": (suite_env, _parallel),
        "team_roles": (lambda: TeamSearchEnv(roles="roles", action_mode="candidates", **small), _parallel),
        "team_generalists_3": (lambda: TeamSearchEnv(roles="generalists", team_size=3, action_mode="candidates",
                                                     observation_data=True, **small), _parallel),
        "group_4": (lambda: GroupSearchEnv(group_size=4, action_mode="candidates", **small), _parallel),
    }


def record_case(name: str) -> list[list[str]]:
    make, play = cases()[name]
    env = make()
    return [play(env, seed) for seed in range(EPISODES)]


RECORDED = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_episodes_step_for_step_as_recorded(name):
    played = record_case(name)
    for episode, (now, then) in enumerate(zip(played, RECORDED[name], strict=True)):
        first = next((i for i, (a, b) in enumerate(zip(now, then)) if a != b), None)
        assert first is None and len(now) == len(then), \
            f"{name}: episode {episode} differs from the recording at step {first if first is not None else len(then)}"


def test_every_case_is_recorded_and_long_enough_to_matter():
    assert sorted(RECORDED) == sorted(cases())
    assert all(sum(len(e) for e in episodes) >= 40 for episodes in RECORDED.values())


def test_a_digest_sees_a_provenance_a_mask_dtype_and_a_float_bit():
    from searchgym.action_types import Action

    call = Action.call("web_search", query="Vexa")
    assert digest(call) != digest(call.with_provenance("name from the question"))
    assert digest(np.zeros(3, np.int8)) != digest(np.zeros(3, np.int64))
    assert digest(0.1 + 0.2) != digest(0.3)
    assert digest({"a": (1,)}) != digest({"a": [1]})

if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps({name: record_case(name) for name in cases()}, indent=0) + "\n")
    print(f"wrote {FIXTURE}")
