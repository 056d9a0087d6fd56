"""Recorded episodes replay identically: observations, rewards, flags and infos, step by step.

Why: the env's hot path is memoised (candidates derived once per round, judgements shared, text
built once per step). This test pins what an agent sees to a recorded fixture, so a speed-up
cannot change an observation, a candidate's text or its order, a reward or an info entry.

The fixture holds, per episode, one digest per step and agent of (observation, reward,
terminated, truncated, info, and for a team the env's ``state()``), over every env kind and mode
on the tiny world, candidate mode on the small one, and the main suite's train env; the first
step that differs is reported with the part that differs. When the candidates' content is changed on purpose, re-record it and commit it:

    .venv/bin/python tests/envs/test_observation_identity.py --record
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from searchgym.action_types import Action
from searchgym.baselines import RandomAgent
from searchgym.baselines.team_random import TeamRandom
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv
from searchgym.suites import get_suite, make_env

FIXTURE = Path(__file__).parent / "fixtures" / "recorded_episodes.json.gz"
SEEDS = tuple(range(6))
MODES = (("candidates", "hermes"), ("text", "hermes"), ("text", "tags"))
KINDS = ("single", "group", "team_roles", "team_generalists")
SMALL_SEEDS = (3, 4, 5, 6)  # the benchmarks' world: candidate mode only (bigger results, more rounds)


def canon(value: Any) -> Any:
    """A JSON value that equals another's exactly when the env outputs are equal: Actions with
    their provenance, arrays with their dtype, floats by repr, tuples apart from lists."""
    if isinstance(value, Action):
        return ["Action", value.kind, value.tool, canon(value.arguments), value.text, value.provenance]
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), canon(value.tolist())]
    if isinstance(value, dict):
        return {"dict": sorted([repr(k), canon(v)] for k, v in value.items())}
    if isinstance(value, list | tuple):
        return [type(value).__name__, [canon(v) for v in value]]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return ["float", repr(value)]
    if value is None or isinstance(value, bool | int | str):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return [type(value).__name__, canon(vars(value))]
    raise TypeError(f"no canonical form for {type(value).__name__}")


def _digest(value: Any) -> str:
    blob = json.dumps(canon(value), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _parts(obs: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> dict[str, str]:
    """One digest per part, so a mismatch says what changed."""
    if isinstance(obs, str):
        obs = {"text": obs}
    parts = {key: _digest(obs[key]) for key in sorted(obs)}
    parts["reward"] = _digest(float(reward))
    parts["flags"] = _digest([bool(terminated), bool(truncated)])
    parts["info"] = _digest({k: v for k, v in info.items() if k != "candidates"})
    if "candidates" in info:
        parts["info.candidates"] = _digest(info["candidates"])
    return parts


def _single_episode(size: str, mode: str, fmt: str, seed: int) -> list[dict]:
    env = SearchEnv(action_mode=mode, tool_format=fmt, world_size=size)
    agent = RandomAgent(seed=seed)
    obs, info = env.reset(seed=seed)
    steps = [_parts(obs, 0.0, False, False, info)]
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.choose_action(env.session))
        steps.append(_parts(obs, reward, terminated, truncated, info))
        done = terminated or truncated
    return steps


def _parallel_episode(env: Any, seed: int) -> list[dict]:
    """Per step and agent its parts, and the env's global ``state()`` (what centralised critics read)."""
    team = TeamRandom(seed=seed)
    obs, infos = env.reset(seed=seed)
    steps = [{a: _parts(obs[a], 0.0, False, False, infos[a]) | {"state": _digest(env.state())} for a in obs}]
    while env.agents:
        obs, rewards, terms, truncs, infos = env.step(team.choose_actions(env))
        state = _digest(env.state())
        steps.append({a: _parts(obs[a], rewards[a], terms[a], truncs[a], infos[a]) | {"state": state} for a in obs})
    return steps


def record_episode(kind: str, size: str, mode: str, fmt: str, seed: int) -> list:
    """Digests of one seeded episode of a random agent (or team) on world ``size`` (seed 0), or on
    the main suite's train env (``quick_v2_team``)."""
    if kind == "single":
        return _single_episode(size, mode, fmt, seed)
    common = {"action_mode": mode, "tool_format": fmt, "world_size": size}
    if kind == "quick_v2_team":
        env = make_env(get_suite("quick-v2"), "train", action_mode=mode, observation_data=True)
        env = getattr(env, "unwrapped", env)
    elif kind == "group":
        env = GroupSearchEnv(group_size=3, **common)
    elif kind == "team_generalists_3":
        env = TeamSearchEnv(roles="generalists", team_size=3, observation_data=True, **common)
    else:
        env = TeamSearchEnv(roles="roles" if kind == "team_roles" else "generalists", **common)
    return _parallel_episode(env, seed)


def episode_keys() -> list[tuple[str, str, str, str, int]]:
    tiny = [(kind, "tiny", mode, fmt, seed) for kind in KINDS for mode, fmt in MODES for seed in SEEDS]
    small = [(kind, "small", "candidates", "hermes", seed) for kind in (*KINDS, "team_generalists_3")
             for seed in SMALL_SEEDS]
    return tiny + small + [("quick_v2_team", "medium", "candidates", "hermes", seed) for seed in SEEDS]


def record_all() -> dict[str, list]:
    return {"/".join(map(str, key)): record_episode(*key) for key in episode_keys()}


def _first_difference(expected: list, actual: list) -> str | None:
    for i, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            if "text" in want or "reward" in want:  # single agent
                keys = [k for k in want if want[k] != got.get(k)]
                return f"step {i}: {keys} differ"
            for agent in want:
                keys = [k for k in want[agent] if want[agent][k] != got.get(agent, {}).get(k)]
                if keys:
                    return f"step {i}, agent {agent}: {keys} differ"
            return f"step {i}: agents differ ({sorted(want)} vs {sorted(got)})"
    if len(expected) != len(actual):
        return f"episode length {len(actual)} steps, recorded {len(expected)}"
    return None


@pytest.fixture(scope="module")
def recorded() -> dict[str, list]:
    if not FIXTURE.exists():
        pytest.fail(f"missing fixture {FIXTURE}; record it: python {Path(__file__).name} --record")
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))


def test_fixture_covers_every_env_kind_mode_and_seed(recorded):
    assert sorted(recorded) == sorted("/".join(map(str, key)) for key in episode_keys())
    lengths = [len(steps) for steps in recorded.values()]
    assert min(lengths) >= 2 and sum(lengths) > 3 * len(lengths)  # episodes that act, not just reset


@pytest.mark.parametrize("key", episode_keys(), ids=lambda key: "/".join(map(str, key)))
def test_recorded_episode_replays_identically(recorded, key):
    expected = recorded["/".join(map(str, key))]
    difference = _first_difference(expected, record_episode(*key))
    assert difference is None, f"{'/'.join(map(str, key))}: {difference} (re-record only if intended)"


def test_a_changed_candidate_text_is_caught(recorded):
    """The check itself: a different candidate text at one step is reported as a difference."""
    key = ("single", "tiny", "candidates", "hermes", 0)
    actual = record_episode(*key)
    actual[1] = {**actual[1], "candidates": _digest(["something else"])}
    assert "candidates" in (_first_difference(recorded["/".join(map(str, key))], actual) or "")


def test_a_digest_sees_a_provenance_a_mask_dtype_and_a_float_bit():
    call = Action.call("web_search", query="Vexa")
    assert _digest(call) != _digest(call.with_provenance("name from the question"))
    assert _digest(np.zeros(3, np.int8)) != _digest(np.zeros(3, np.int64))
    assert _digest(0.1 + 0.2) != _digest(0.3)
    assert _digest({"a": (1,)}) != _digest({"a": [1]})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Re-record the observation-identity fixture.")
    parser.add_argument("--record", action="store_true", help=f"write {FIXTURE.name}")
    if parser.parse_args().record:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        episodes = record_all()
        FIXTURE.write_bytes(gzip.compress(json.dumps(episodes, sort_keys=True).encode(), mtime=0))
        print(f"recorded {len(episodes)} episodes, {sum(map(len, episodes.values()))} steps -> {FIXTURE}")
