"""A resumed run's ``train_seconds`` counts its earlier attempts (up to each one's last logged row).
Before: only the last attempt's (7.6 s for a run that trained 12.5 s in one go), so results.md's
"train s" understated every resumed run."""

from __future__ import annotations

import json

import pytest
from harness_helpers import CRASH_ENV, SLEEP_ENV, TINY_QA

from searchgym.fileio import read_jsonl
from searchgym.harness.methods import MethodRef
from searchgym.harness.metrics_rows import attempts_summary
from searchgym.harness.runner import RunSpec, execute_run


def test_train_seconds_count_every_attempt(tmp_path, monkeypatch):
    spec = RunSpec(TINY_QA, MethodRef("fast", "harness_helpers:fast_learner"), 0, 8, tmp_path, "cpu")
    monkeypatch.setenv(SLEEP_ENV, "0.3")
    monkeypatch.setenv(CRASH_ENV, "0:raise")  # the second chunk raises, after the first one's row
    with pytest.raises(RuntimeError, match="simulated crash"):
        execute_run(spec)
    first = max(row["time"] for row in read_jsonl(spec.run_dir / "metrics.jsonl"))
    assert first >= 0.3
    monkeypatch.delenv(CRASH_ENV)
    monkeypatch.setenv(SLEEP_ENV, "0")
    assert execute_run(spec).status == "done"
    result = json.loads((spec.run_dir / "result.json").read_text())
    assert result["attempt"] == 2 and result["train_seconds"] >= first


def test_earlier_attempts_are_each_counted_once_and_damage_is_skipped(tmp_path):
    metrics = tmp_path / "metrics.jsonl"
    rows = [{"attempt": 1, "time": 1.0}, {"attempt": 1, "time": 2.5}, {"attempt": 2, "time": 4.0},
            {"attempt": 3, "time": 9.0}, {"attempt": True, "time": 5.0}, {"attempt": 2, "time": "x"},
            {"attempt": 2, "time": float("nan")}, {"time": 7.0}]
    metrics.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert attempts_summary(metrics, 3) == (8, 6.5)  # every row counted; attempts 1 and 2, not the current one
    assert attempts_summary(tmp_path / "missing.jsonl", 2) == (0, 0.0)
