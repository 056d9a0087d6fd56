"""``load_results`` reads each run's config.json and DONE once, for its metrics and its prediction rows
alike. Before: each was read twice, once per kind of row."""

from __future__ import annotations

import pytest
from harness_helpers import compare_args, compared_folder, count_calls

import searchgym.harness.finished_files as finished_files
import searchgym.harness.results as results
from searchgym.harness import load_results

pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    methods = "fast=harness_helpers:fast_learner"  # a run with metrics rows and predictions
    return compared_folder(tmp_path_factory, compare_args(methods, seeds=2, budget=8), "load_results_reads_once")


def test_each_config_json_and_done_is_read_once(compared, monkeypatch):
    (compared / "runs" / "fast" / "seed1" / "DONE").unlink()  # an unfinished run: read by results itself
    reads = count_calls(monkeypatch, "run_json", finished_files, results)
    done = count_calls(monkeypatch, "is_done", results)
    frame = load_results(compared)
    runs = [compared / "runs" / "fast" / f"seed{s}" for s in (0, 1)]
    assert {path: n for path, n in reads.items() if path.name == "config.json"} == {r / "config.json": 1 for r in runs}
    assert done == {r: 1 for r in runs}
    assert sorted(set(zip(frame.run_dir, frame.kind, frame.done))) == [
        (str(runs[0]), "metrics", True), (str(runs[0]), "prediction", True),
        (str(runs[1]), "metrics", False), (str(runs[1]), "prediction", False)]  # the rows, as before
