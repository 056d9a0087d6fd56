"""results.md gives each (method, budget) its own row where a method's runs differ in budget.

Before: `searchgym report` over a comparison whose seeds were run with different ``--budget`` pooled
a method's runs into one row (one mean and interval over both budgets), and results.md said only that
budgets differ. Now such a method has a row per budget, ``<method>@budget<N>``, in results.md,
summary.csv and the curves; a comparison whose methods each ran one budget is written as before."""

from __future__ import annotations

import csv
import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

FAST = "fast=harness_helpers:fast_learner"


def compare(out, seeds: str, budget: int) -> None:
    assert main(["compare", "--suite", TINY_QA.id, "--methods", f"{FAST},random", "--seeds", seeds, "--budget",
                 str(budget), "--device", "cpu", "--no-progress", "--out", str(out)]) == 0


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """fast's seed 0 trained on 8 env steps, its seed 1 on 16 (added later with another --budget)."""
    out = tmp_path_factory.mktemp("budgets") / "out"
    compare(out, "0,", 8)
    compare(out, "1,", 16)  # `compare --seeds 1,`: seed 1 alone; the report reads both seeds
    return out


def _table_rows(text: str, heading: str) -> list[str]:
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| method")]


def test_a_method_whose_runs_differ_in_budget_has_a_row_per_budget(mixed, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(mixed, out)
    assert main(["report", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    text = (out / "results.md").read_text()
    for heading in ("## Success", "## F1"):
        rows = _table_rows(text, heading)
        methods = [row.split(" | ")[0].removeprefix("| ") for row in rows]
        seeds = [row.split(" | ")[1] for row in rows]
        assert methods == ["fast@budget8", "fast@budget16", "random"], heading
        assert seeds == ["1", "1", "2"]  # random trains nothing: its runs of either budget are one row
    assert "| fast |" not in text and "| fast@budget8 |" in printed
    assert "a method whose runs differ in budget has a row per budget (<method>@budget<N>)" in text
    assert "![fast@budget16](curves/fast@budget16.png)" in text and (out / "curves" / "fast@budget8.png").is_file()
    runs = text.split("## Runs", 1)[1]
    assert "| fast@budget8 | 0 |" in runs and "| fast@budget16 | 1 |" in runs
    with open(out / "summary.csv", newline="") as handle:
        pooled = {(r["method"], r["seeds"]) for r in csv.DictReader(handle) if r["aggregate"] == "True"}
    assert pooled == {("fast@budget8", "1"), ("fast@budget16", "1"), ("random", "2")}


def test_one_budget_per_method_is_written_as_before(mixed, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(mixed, out)
    shutil.rmtree(out / "runs" / "fast" / "seed1")  # fast's runs now share one budget
    assert main(["report", "--out", str(out)]) == 0
    text = (out / "results.md").read_text()
    assert "@budget" not in text and "@budget" not in (out / "summary.csv").read_text()
    assert "training budget 8 env steps (methods that train)" in text
    assert [row.split(" | ")[0] for row in _table_rows(text, "## Success")] == ["| fast", "| random"]


def _record(label: str, seed: int, **config):
    from searchgym.harness.report import RunRecord

    return RunRecord(label, seed, config, {}, [])


def test_only_the_budget_a_run_trained_on_splits_it():
    from searchgym.harness.report_budgets import split_by_budget

    records = [_record("sft", 0, trains=True, budget=8, training_budget=311),  # sft fits demonstrations
               _record("sft", 1, trains=True, budget=16, training_budget=297),
               _record("random", 0, trains=False, budget=8, training_budget=0),
               _record("random", 1, trains=False, budget=16, training_budget=0),
               _record("g", 0, trains=True, budget=16, training_budget=16),
               _record("g", 1, trains=True, budget=8, training_budget=8)]
    found, labels, splits = split_by_budget(records, ["sft", "g", "random"])
    assert labels == ["sft", "g@budget8", "g@budget16", "random"]
    assert splits == {"g": ["g@budget8", "g@budget16"]}
    assert [(r.label, r.seed) for r in found] == [("sft", 0), ("sft", 1), ("g@budget8", 1), ("g@budget16", 0),
                                                  ("random", 0), ("random", 1)]
    same = [r for r in records if r.label != "g"]
    assert split_by_budget(same, ["sft", "random"]) == (same, ["sft", "random"], {})
