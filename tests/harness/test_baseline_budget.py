"""A method that trains nothing (random, reader, oracle) is the same run at any budget.

Before: after ``compare --budget 2000``, ``compare --methods random --budget 20000`` on the same --out
said "runs/random/seed0 holds a different run (budget: 2000 there, 20000 now)". A baseline reused
across budgets gets no ``random@budget<N>`` row, and ``report`` no "the learning runs' budgets differ" line
(results.md says no method trains). sft fits a base on demonstrations, not on the budget (its base has no
budget in its key), so its runs are the same at any budget too; an option the base reads still tells them apart.
"""

from __future__ import annotations

import json
import shutil

import pytest
from harness_helpers import TINY_QA, compare_args, compared_folder

from searchgym.cli import main
from searchgym.harness.methods import BASELINE_METHODS, resolve_method
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args("random,oracle", budget=5), "baseline_budget")


def test_a_baseline_run_is_reused_at_another_budget(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    capsys.readouterr()
    assert main([*compare_args("random", budget=0), "--out", str(out)]) == 0  # before: 1, "a different run"
    assert "runs: 0 done now, 1 already finished, 0 failed" in capsys.readouterr().out


def test_a_baseline_reused_across_budgets_gets_one_row_and_no_budget_split(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    assert main([*compare_args("random", seeds=2, budget=0), "--out", str(out)]) == 0  # seed0 kept, seed1 run
    budgets = {json.loads((out / "runs" / "random" / f"seed{s}" / "config.json").read_text())["budget"] for s in (0, 1)}
    assert budgets == {5, 0}
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--methods", "random"]) == 0
    printed = capsys.readouterr().out
    results = (out / "results.md").read_text()
    assert "| random | 2 |" in printed and "@budget" not in printed + results
    assert "the learning runs' budgets differ" not in printed  # there are none
    assert "(each run's config.json records its own); no method here trains, so none applies" in results


def test_the_report_of_baseline_runs_of_two_budgets_splits_nothing(compared, tmp_path, capsys):
    """As a reused run leaves them (written here directly): before, "the learning runs' budgets differ (0, 5)
    ... a method whose runs differ in budget has a row per budget" was printed, of runs that train nothing."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    shutil.copytree(out / "runs" / "random" / "seed0", out / "runs" / "random" / "seed1")
    config_path = out / "runs" / "random" / "seed1" / "config.json"
    config_path.write_text(json.dumps({**json.loads(config_path.read_text()), "seed": 1, "budget": 0}))
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--methods", "random,oracle"]) == 0
    printed, results = capsys.readouterr().out, (out / "results.md").read_text()
    assert "| random | 2 |" in printed and "@budget" not in printed + results
    assert "the learning runs' budgets differ" not in printed  # there are none
    assert "(each run's config.json records its own); no method here trains, so none applies" in results


def test_sft_is_the_same_run_at_another_budget(compared, tmp_path):
    """A finished sft run of another budget is the same run (before: "budget: 5 there, 0 now"), one of
    another sft setting is not."""
    out = tmp_path / "out"
    shutil.copytree(compared / "runs" / "random" / "seed0", out / "runs" / "sft" / "seed0")
    config_path = out / "runs" / "sft" / "seed0" / "config.json"
    config = json.loads(config_path.read_text())
    config.update(method="sft", method_path=BASELINE_METHODS["sft"], trains=True, training_budget=12)
    config_path.write_text(json.dumps(config))
    for budget in (5, 0):
        assert check_identity(RunSpec(TINY_QA, resolve_method("sft"), 0, budget, out)) >= 0
    with pytest.raises(DifferentRun, match="options.sft_tasks: absent there, 4 now"):
        check_identity(RunSpec(TINY_QA, resolve_method("sft"), 0, 0, out, options={"sft_tasks": 4}))
