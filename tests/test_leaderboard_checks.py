"""Every leaderboard check is in one module, and a verification looks the suite up once."""

from __future__ import annotations

from pathlib import Path

import searchgym.leaderboard_checks as checks
from searchgym import suites

ROOT = Path(__file__).resolve().parents[1]
SUBMISSION = ROOT / "leaderboard" / "submissions" / "quick-v2__random__seed0.json"


def test_verify_looks_the_suite_up_once_and_passes_it_through(monkeypatch) -> None:
    looked_up = []

    def counting_get_suite(suite_id):
        looked_up.append(suite_id)
        return suites.get_suite(suite_id)

    monkeypatch.setattr(checks, "get_suite", counting_get_suite)
    verdict = checks.verify_file(SUBMISSION)
    assert verdict.ok, verdict.reason
    assert looked_up == ["quick-v2"]


def test_the_checks_live_in_one_module() -> None:
    import searchgym.leaderboard as leaderboard

    source = Path(leaderboard.__file__).read_text()
    for check in ("def verify_file", "def check_content", "def rescore", "def read_limited", "def check_schema"):
        assert check in Path(checks.__file__).read_text() and check not in source


def test_a_value_too_long_says_its_length_and_the_limit() -> None:
    """Before: "schema violation at method/description: 'xxxx...", 300 characters of the value, cut
    before jsonschema's "is too long", so the line said neither what was wrong nor the limit."""
    import json

    import pytest

    submission = json.loads((ROOT / "leaderboard" / "submissions" / "group-text-v2__oracle__seed0.json").read_text())
    submission["method"]["description"] = "x" * 5000
    with pytest.raises(checks.SubmissionRejected) as caught:
        checks.check_schema(submission)
    assert str(caught.value) == ("schema violation at method/description: 5000 characters, where at most 2000 "
                                 "are accepted")
    submission["method"]["description"] = "fine"
    submission["predictions"][0]["answer"] = "word " * 2400
    with pytest.raises(checks.SubmissionRejected, match="predictions/0/answer: 12000 characters, where at most "
                                                        "10000 are accepted$"):
        checks.check_schema(submission)


def test_every_answer_an_env_records_is_one_submit_accepts() -> None:
    """Before: a 10,001-character answer ended the episode and was scored, and evaluate wrote it to
    predictions.jsonl, but the schema (answer maxLength 10000) refused it at submit."""
    import json

    import searchgym
    from searchgym.action_types import MAX_ANSWER_CHARS

    shipped = json.loads(checks.SCHEMA_PATH.read_text())
    assert shipped["properties"]["predictions"]["items"]["properties"]["answer"]["maxLength"] == MAX_ANSWER_CHARS
    submission = json.loads((ROOT / "leaderboard" / "submissions" / "group-text-v2__oracle__seed0.json").read_text())
    env = searchgym.make("SearchQA-v0", world_size="tiny", split="dev")
    env.reset(seed=0)
    _, _, terminated, _, info = env.step("<answer>" + "x" * MAX_ANSWER_CHARS + "</answer>")
    assert terminated and len(info["answer"]) == MAX_ANSWER_CHARS
    submission["predictions"][0]["answer"] = info["answer"]
    checks.check_schema(submission)
    for too_long in ("<answer>" + "x" * (MAX_ANSWER_CHARS + 1) + "</answer>",
                     {"name": "answer", "arguments": {"answer": "x" * (MAX_ANSWER_CHARS + 1)}}):
        env.reset(seed=0)
        obs, _, terminated, _, info = env.step(too_long)
        assert not terminated and info["answer"] is None and info["format_errors"] == 1
        assert obs.startswith(f"Error: Could not read your action: the answer is {MAX_ANSWER_CHARS + 1} characters "
                              f"long; at most {MAX_ANSWER_CHARS} are accepted (the leaderboard's limit")
