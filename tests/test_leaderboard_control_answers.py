"""A run's answers holding control characters are submitted with the scores ``evaluate`` gave them.

No submission may hold a control character, so ``submit`` replaces each. Before, each became a space,
which the scorer does not always read as it reads the character: a list written one item per line
became one item (the scorer splits items on a newline, never on a space), "Paris\\x00" became right
(the NUL is part of the word, a space is not) and "A and\\tB" (one item) became "A and B" (two)."""

from __future__ import annotations

import json

import pytest
from harness_helpers import evaluated_agent_module

from searchgym.action_types import MAX_ANSWER_CHARS
from searchgym.fileio import read_json, read_jsonl
from searchgym.leaderboard import build_submission
from searchgym.leaderboard_checks import verify_file
from searchgym.leaderboard_values import FORBIDDEN_CHARS, run_answer_text
from searchgym.scoring import score_answer
from searchgym.suites import Suite, get_suite, register_suite, tasks

#: the controls the sweep places: the ones answers hold (newline, CR, tab, NUL), one Python splits words on
#: (\x1f, \x85) and a bidirectional override (the others: test_each_character_..._has_a_stand_in_it_may)
CONTROLS = "\n\r\t\x00\x1f\x85\u202e"
SUITE = register_suite(Suite("test-lb-controls-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=8, description="tests: answers with control characters"))
#: a list's items one per line; another gold answer with a tab for its first space and controls around it
AGENT = '''
PLACES = ["\\x00{}", "{}\\x00", "{}", "x\\x1f{}", "{}\\u202e"]


class Controls:
    def __init__(self):
        self.episodes = 0

    def act(self, env, observation, info):
        task = env.unwrapped.task
        self.episodes += 1
        if task.answer_items:
            return "<answer>" + "\\n".join(item[0] for item in task.answer_items) + "</answer>"
        gold = task.answers[0].replace(" ", "\\t", 1)
        return "<answer>" + PLACES[self.episodes % len(PLACES)].format(gold) + "</answer>"


def factory():
    return Controls()
'''


def _test_tasks():
    """quick-v2's test tasks (entities and numbers) and searchqa-v2's list tasks (quick-v2 has none)."""
    listed = [t for t in tasks(get_suite("searchqa-v2"), "test") if t.answer_type == "list"]
    return tasks(get_suite("quick-v2"), "test") + listed


def _scored(task, answer: str) -> tuple:
    """What a task's score reads of an answer holding a newline: all but set F1 (a list's score) for
    another task, and all but the number read (a number task's score) for a list."""
    s = score_answer(task, answer)
    return (s.score, s.success, s.em, s.f1, s.set_f1 if task.answer_type == "list" else s.numeric)


def test_an_answer_scores_as_the_run_scored_it_with_a_control_in_any_position():
    for task in _test_tasks():
        gold = task.answers[0]
        one_per_line = "\n".join(item[0] for item in task.answer_items)
        for text in (gold, one_per_line) if task.answer_type == "list" else (gold, f"about {gold} thousand."):
            for control in CONTROLS:
                for i in range(len(text) + 1):
                    for answer in (text[:i] + control + text[i:], text[:i] + control + text[i + 1:]):
                        submitted = run_answer_text(answer, task.answer_type)
                        assert FORBIDDEN_CHARS.search(submitted) is None, repr(submitted)
                        if "\n" in answer:
                            assert _scored(task, submitted) == _scored(task, answer), (task.id, answer)
                        else:
                            assert score_answer(task, submitted) == score_answer(task, answer), (task.id, answer)


def test_a_list_written_one_item_per_line_keeps_its_items():
    task = next(t for t in _test_tasks() if t.answer_type == "list")
    answer = "\n".join(item[0] for item in task.answer_items)
    assert score_answer(task, answer).success
    assert score_answer(task, run_answer_text(answer, "list")).success  # before: one item, not right


def test_a_name_glued_to_a_nul_stays_wrong():
    task = next(t for t in _test_tasks() if t.answer_type == "entity")
    answer = task.answers[0] + "\x00"
    assert not score_answer(task, answer).success
    assert not score_answer(task, run_answer_text(answer, "entity")).success  # before: right


def test_each_character_a_submission_may_not_hold_has_a_stand_in_it_may():
    codes = [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    assert all(FORBIDDEN_CHARS.fullmatch(chr(code)) for code in codes)
    for answer_type in ("list", "entity", None):
        for code in codes:
            assert FORBIDDEN_CHARS.search(run_answer_text(chr(code), answer_type)) is None, (answer_type, code)
    assert run_answer_text("a\x00b\x01c\x7f\t\r\n", "entity") == "a\u2400b\u2401c\u2421\xa0\xa0\xa0"
    assert run_answer_text("a\nb", "list") == "a\xa0;b"


def test_a_long_list_answer_stays_within_the_length_a_submission_takes():
    task = next(t for t in _test_tasks() if t.answer_type == "list")
    lines = [item[0] for item in task.answer_items] * MAX_ANSWER_CHARS
    answer = "\n".join(lines)[:MAX_ANSWER_CHARS]
    submitted = run_answer_text(answer, "list")
    assert len(submitted) == len(answer) and FORBIDDEN_CHARS.search(submitted) is None
    assert (score_answer(task, submitted).score, score_answer(task, submitted).success) == (
        score_answer(task, answer).score, score_answer(task, answer).success)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return evaluated_agent_module(tmp_path_factory, "control_agent", AGENT, SUITE.id)


def test_the_submitted_and_verified_scores_are_the_runs(run, tmp_path):
    rows = read_jsonl(run / "predictions.jsonl")
    assert all(any(c in str(r["answer"]) for r in rows) for c in "\x00\t\n\x1f\u202e")
    assert any(r["success"] and "\n" in r["answer"] for r in rows)
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
