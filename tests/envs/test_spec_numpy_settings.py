"""NumPy settings given to ``searchgym.make`` reach the env's spec as plain Python values.

Before: Gymnasium kept ``world_seed=np.int64(3)`` in ``env.spec``, and ``env.spec.to_json()`` failed
with "Object of type int64 is not JSON serializable".
"""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

import searchgym
from searchgym.registry import plain_settings


@pytest.mark.parametrize("settings", [
    {"world_seed": np.int64(3)},
    {"max_steps": np.int64(5)},
    {"reward": {"step_cost": np.float32(0.02), "no_answer_score": np.int64(-1)},
     "families": [np.str_("bridge")]},
])
def test_a_spec_with_numpy_settings_serialises_and_makes_the_same_env(settings):
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny", **settings)
    written = json.loads(env.spec.to_json())
    assert {name: written["kwargs"][name] for name in settings} == settings  # the same values, as JSON
    again = gymnasium.make(gymnasium.envs.registration.EnvSpec.from_json(env.spec.to_json()))
    first, _ = env.reset(seed=4)
    second, _ = again.reset(seed=4)
    assert first["text"] == second["text"] and first["candidates"] == second["candidates"]
    assert gymnasium.make(env.spec).reset(seed=4)[0]["text"] == first["text"]


def test_plain_settings_converts_inside_dicts_lists_and_tuples_only():
    converted = plain_settings({"a": np.int64(1), "b": [np.float64(0.5), (np.bool_(True),)], "c": "x"})
    assert converted == {"a": 1, "b": [0.5, (True,)], "c": "x"}
    assert [type(v) for v in (converted["a"], converted["b"][0], converted["b"][1][0])] == [int, float, bool]
    array = np.arange(3)
    assert plain_settings({"vectors": array})["vectors"] is array  # not a setting to convert
