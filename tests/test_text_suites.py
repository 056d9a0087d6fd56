"""Text-mode suites: registered, listed with hashes, in text mode, and played to 1.0 by the oracle."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.harness.evaluate import evaluate_suite, summarise_predictions
from searchgym.baselines.harness_actors import baseline_actor
from searchgym.registry import spec
from searchgym.suites import SUITES, Suite, get_suite, make_env, register_suite
from searchgym.text_suites import TEXT_SUITES, text_suite_ids

IDS = ("searchqa-text-v2", "team-text-v2", "group-text-v2")


def test_the_text_suites_are_registered_in_text_mode():
    assert text_suite_ids() == list(IDS) and set(IDS) <= set(SUITES)
    for suite_id in IDS:
        suite = get_suite(suite_id)
        assert suite.version == 2 and spec(suite.env_id).kwargs["action_mode"] == "text"
        assert suite.kwargs["tool_format"] == "hermes" and suite.world_size == "medium"
        assert (suite.dev_size, suite.test_size) == (100, 200)
    assert get_suite("team-text-v2").env_id == "TeamSearch-v0"
    assert get_suite("group-text-v2").kwargs["group_size"] == 4


def test_text_suites_have_their_own_hashes_distinct_from_the_candidate_suites():
    candidate = [s for s, suite in SUITES.items() if spec(suite.env_id).kwargs.get("action_mode") == "candidates"]
    assert candidate  # the candidate-mode suites of the same settings
    hashes = {s: get_suite(s).content_hash for s in (*IDS, *candidate)}
    assert len(set(hashes.values())) == len(hashes)
    assert all(len(h) == 64 for h in hashes.values())


def test_a_text_suite_id_cannot_be_redefined_silently():
    env, kwargs, _ = TEXT_SUITES["searchqa-text-v2"]
    with pytest.raises(ValueError, match="taken by a different definition"):
        register_suite(Suite("searchqa-text-v2", 1, env, {**kwargs, "max_steps": 3}))


def test_suites_command_lists_the_text_suites_with_hashes(capsys):
    assert main(["suites", "--json", *IDS]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == list(IDS)
    assert [r["hash"] for r in rows] == [get_suite(i).content_hash for i in IDS]
    assert all(r["tasks"]["test"] == 200 for r in rows)


def test_text_suite_envs_take_text_actions():
    env = make_env(get_suite("searchqa-text-v2"), "test")
    observation, _ = env.reset(seed=0)
    assert isinstance(observation, str) and "<tool_call>" in observation
    _, _, terminated, _, info = env.step("<answer>nobody</answer>")
    assert terminated and info["answer"] == "nobody"


@pytest.mark.parametrize("suite_id", IDS)
def test_oracle_scores_one_and_random_far_less_on_every_text_suite(suite_id):
    suite = get_suite(suite_id)
    oracle = summarise_predictions(evaluate_suite(suite, baseline_actor("oracle", suite, 0), "test", 0, limit=14))
    random = summarise_predictions(evaluate_suite(suite, baseline_actor("random", suite, 0), "test", 0, limit=14))
    assert oracle["all"]["success"] == 1.0 and oracle["all"]["tool_calls"] > 0
    assert random["all"]["success"] < 0.5
