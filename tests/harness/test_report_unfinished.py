"""results.md names the runs its tables leave out, and says so when no method trained. Before,
"Finished runs: 2 of 4" was all: a method whose every run failed was in no table and not named, and
a comparison of baselines showed the training diagnostics as a header with no rows."""

from __future__ import annotations

from harness_helpers import CRASH_ENV, TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.report import RunRecord, diagnostics_table


def test_failed_runs_are_named_in_results_md(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(CRASH_ENV, "0:raise")  # the only seed of "bad" fails
    methods = parse_methods("random,bad=harness_helpers:fast_learner")
    result = run_comparison(Comparison(TINY_QA, methods, [0], 8, tmp_path, "cpu", progress=False))
    assert [(o.label, o.seed) for o in result.failed] == [("bad", 0)]
    text = (tmp_path / "results.md").read_text()
    assert "Finished runs: 1 of 2. Not finished (failed, stopped or not run), so in no table: bad/seed0." in text
    assert "| bad |" not in text
    assert "No finished run logged training iterations (no method here trained)." in text
    assert "| method | trajectories whose advantage differs" not in text


def test_a_learner_keeps_its_diagnostics_table() -> None:
    rows = [{"iteration": 1, "groups/zero_variance_fraction": 0.5}]
    assert diagnostics_table([RunRecord("grpo", 0, {}, {}, [], rows)]).startswith("| method |")
