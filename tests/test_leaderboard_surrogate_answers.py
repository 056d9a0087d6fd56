"""A run's answers holding lone surrogates are submitted with the scores ``evaluate`` gave them.
predictions.jsonl writes such a surrogate as its escape text (``\\ud800``); before, submit scored that
text, whose letters and digits changed scores: "\\ud800" glued before "1953" hid the number evaluate
matched, so a run's right answers were wrong on the board."""

from __future__ import annotations

import json

import pytest
from harness_helpers import evaluated_agent_module

from searchgym.fileio import read_json, read_jsonl
from searchgym.leaderboard import build_submission
from searchgym.leaderboard_checks import verify_file
from searchgym.leaderboard_values import SURROGATE_STAND_IN, run_answer_text
from searchgym.scoring import score_answer
from searchgym.suites import Suite, register_suite, tasks

SUITE = register_suite(Suite("test-lb-surrogates-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=8, description="tests: answers with lone surrogates"))
#: the gold answer with lone surrogates around and inside it, a different placement per task
AGENT = '''
PLACES = ["\\ud800{}", "{}\\udfff", "{}\\ud800", "\\udc00{} \\ud83d", "{}"]


class Surrogates:
    def __init__(self):
        self.episodes = 0

    def act(self, env, observation, info):
        gold = env.unwrapped.task.answers[0]
        self.episodes += 1
        return "<answer>" + PLACES[self.episodes % len(PLACES)].format(gold) + "</answer>"


def factory():
    return Surrogates()
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return evaluated_agent_module(tmp_path_factory, "surrogate_agent", AGENT, SUITE.id)


def test_the_submitted_and_verified_scores_are_the_runs(run, tmp_path):
    rows = read_jsonl(run / "predictions.jsonl")
    assert any("\\ud800" in str(r["answer"]) for r in rows)  # written as escape text
    assert any(r["success"] for r in rows) and not all(r["success"] for r in rows)
    submission = build_submission(run)
    by_id = {t.id: t for t in tasks(SUITE, "test")}
    for row, submitted in zip(rows, submission["predictions"], strict=True):
        score = score_answer(by_id[row["task_id"]], submitted["answer"])
        assert (score.success, score.f1) == (row["success"], row["f1"]), (row["answer"], submitted["answer"])
    result = read_json(run / "result.json")["test"]["all"]
    assert submission["metrics"]["success"] == pytest.approx(result["success"])
    assert submission["metrics"]["f1"] == pytest.approx(result["f1"])
    path = tmp_path / "s.json"
    path.write_text(json.dumps(submission))
    verdict = verify_file(path)
    assert verdict.ok, verdict.reason


def test_a_surrogate_and_its_escape_text_read_as_the_stand_in():
    assert run_answer_text("\ud8001953 x\\udfff") == SURROGATE_STAND_IN + "1953 x" + SURROGATE_STAND_IN
    assert run_answer_text("a\x00b\\u0041\\uD800") == "a\u2400b\\u0041\\uD800"  # not what evaluate writes: kept
    for task in tasks(SUITE, "test"):
        gold = task.answers[0]
        for placed in ("\ud800{}", "{}\ud800", "{}\ud800x", "1\ud800{}", "\ud800 {};\ud800"):
            answer = placed.format(gold)
            assert score_answer(task, run_answer_text(answer)) == score_answer(task, answer), answer
