"""A random (or reader, oracle) submission edited to claim 5000 env steps of training. Before, it
re-ran to the same answers and was recorded MATCHES, so the board showed "5000, re-trained" for a run
that trained nothing; ``retrain`` then compared the budget with what the re-run spent. Now verify
refuses it first: a method that does not train shows a budget of 0."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, read_retrained, write_submission
from searchgym.leaderboard_checks import verify_file
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-retrain-budget-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: retrain budget"))


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    out = tmp_path_factory.mktemp("retrain-budget")
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 100, out / "cmp", "cpu", progress=False))
    return write_submission(build_submission(out / "cmp" / "runs" / "random" / "seed0"),
                            folder=out / "board" / "submissions")


def test_an_edited_training_budget_of_a_method_that_does_not_train_is_refused(submission, tmp_path, capsys) -> None:
    """Before: verify took any budget on a random row (the board showed it), and only a re-training told."""
    edited = json.loads(submission.read_text())
    assert edited["training_budget"] == 0
    edited["training_budget"] = 5000
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited))
    assert verify_file(path).reason.startswith("training_budget (5000) is not 0, where the run's method "
                                               "(searchgym.harness.methods:random_method) does not train")
    code = main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "re"), "--record", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith(f"CANNOT RETRAIN {path}: ") and "training_budget (5000) is not 0" in out
    assert read_retrained(tmp_path) == {}  # nothing re-ran, nothing recorded


def test_the_unedited_submission_matches(submission, tmp_path, capsys) -> None:
    assert main(["leaderboard", "retrain", str(submission), "--out", str(tmp_path / "re")]) == 0
    assert capsys.readouterr().out.startswith("MATCHES")
