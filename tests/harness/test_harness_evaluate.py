"""Evaluation loops: single-agent on a tiny suite; parallel answers (team and majority vote)."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA, FakeParallelEnv, WaitActor

from searchgym.harness.evaluate import (
    episode_seed,
    evaluate_suite,
    majority_vote,
    play_parallel,
    summarise_predictions,
    team_answer,
)
from searchgym.baselines.harness_actors import baseline_actor
from searchgym.suites import tasks


def test_oracle_solves_every_test_task_and_predictions_are_rescored():
    predictions = evaluate_suite(TINY_QA, baseline_actor("oracle", TINY_QA, 0), "test", seed=0)
    assert [p.task_id for p in predictions] == [t.id for t in tasks(TINY_QA, "test")]
    assert all(p.success and p.f1 == 1.0 and p.answer for p in predictions)
    assert all(p.steps == p.tool_calls + 1 for p in predictions)  # tool calls, then the answer
    table = summarise_predictions(predictions)
    assert list(table)[-1] == "all" and table["all"]["n"] == 12 and table["all"]["success"] == 1.0


def test_random_is_reproducible_and_weak():
    first = evaluate_suite(TINY_QA, baseline_actor("random", TINY_QA, 3), "test", seed=3)
    again = evaluate_suite(TINY_QA, baseline_actor("random", TINY_QA, 3), "test", seed=3)
    assert first == again
    assert summarise_predictions(first)["all"]["success"] < 0.5
    assert episode_seed(3, 4) == 300_013


def test_majority_vote_normalises_and_breaks_ties_by_agent_order():
    assert majority_vote(["Paris", "the paris", "Rome"]) == "Paris"
    assert majority_vote(["Rome", "Paris", "Paris.", "rome"]) == "Rome"  # 2-2 tie: the first given
    assert majority_vote([None, None, "Oslo"]) == "Oslo"  # members without an answer do not vote
    assert majority_vote([None, None]) is None


def test_team_answer_is_the_submitted_one():
    order = ["lead", "searcher"]
    assert team_answer({"lead": {"answer": None}, "searcher": {"answer": "X"}}, order) == "X"
    assert team_answer({"lead": {"answer": "A", "team_answer": "T"}, "searcher": {}}, order) == "T"
    assert team_answer({"lead": {"answer": None}}, order) is None


def test_parallel_episode_reads_the_last_info_of_agents_that_left_early():
    env = FakeParallelEnv(answers=["Rome", "Paris", "paris"], rounds=[1, 2, 3], tool_calls=[0, 2, 3])
    actor = WaitActor()
    answer, rounds, tool_calls = play_parallel(env, actor, "t1", seed=0, rule="majority")
    assert (answer, rounds, tool_calls, actor.resets) == ("Paris", 3, 5, 1)
    answer, _, _ = play_parallel(FakeParallelEnv(["A", None], [2, 1]), actor, "t1", 0, "team")
    assert answer == "A"


def test_an_actor_that_skips_a_live_agent_is_an_error():
    class Lazy:
        def act(self, env, observations, infos):
            return {}

    with pytest.raises(ValueError, match="no action for live agents"):
        play_parallel(FakeParallelEnv(["A"], [1]), Lazy(), "t1", 0, "team")
