"""`leaderboard retrain` compares the board's ``training_budget`` with what the re-run spent. Before,
a random (or reader, oracle) submission edited to claim 5000 env steps re-ran to the same answers and
was recorded MATCHES, so the board showed "5000, re-trained" for a run that trained nothing."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, read_retrained, write_submission
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-retrain-budget-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: retrain budget"))


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    out = tmp_path_factory.mktemp("retrain-budget")
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 100, out / "cmp", "cpu", progress=False))
    return write_submission(build_submission(out / "cmp" / "runs" / "random" / "seed0"),
                            folder=out / "board" / "submissions")


def test_an_edited_training_budget_differs(submission, tmp_path, capsys) -> None:
    edited = json.loads(submission.read_text())
    assert edited["training_budget"] == 0
    edited["training_budget"] = 5000
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited))
    code = main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "re"), "--record", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("DIFFERS (training_budget (5000) differs from the re-run's (0))")
    assert next(iter(read_retrained(tmp_path).values()))["matches"] is False


def test_the_unedited_submission_matches(submission, tmp_path, capsys) -> None:
    assert main(["leaderboard", "retrain", str(submission), "--out", str(tmp_path / "re")]) == 0
    assert capsys.readouterr().out.startswith("MATCHES")
