"""load_results / load_summary (pandas), and the env-step progress of runs in worker processes."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from harness_helpers import TINY_QA

from searchgym.damaged import DamagedFile
from searchgym.harness import load_results, load_summary
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.progress import StepProgress, last_logged_step
from searchgym.harness.runner import RunSpec
from searchgym.harness.worker_pool import run_in_pool


def _compare(out, methods="random,fast=harness_helpers:fast_learner", seeds=(0, 1)):
    return run_comparison(Comparison(suite=TINY_QA, methods=parse_methods(methods), seeds=list(seeds), budget=40,
                                     out=out, device="cpu", progress=False, reference="fast"))


def test_load_results_has_every_metrics_row_and_prediction(tmp_path) -> None:
    _compare(tmp_path)
    df = load_results(tmp_path)
    assert list(df.columns[:6]) == ["kind", "method", "seed", "suite_id", "run_dir", "done"]
    metrics = df[df.kind == "metrics"]
    assert sorted(metrics.method.unique()) == ["fast"]  # random logs nothing
    assert metrics.groupby("seed").step.apply(list).to_dict() == {0: [10, 20, 30, 40], 1: [10, 20, 30, 40]}
    assert metrics.dev_success.dtype == float and metrics.dev_success.notna().all()
    predictions = df[df.kind == "prediction"]
    assert len(predictions) == 2 * 2 * TINY_QA.test_size  # methods x seeds x test tasks
    assert set(predictions.columns) >= {"task_id", "family", "success", "f1"}
    assert predictions.groupby("method").success.mean()["fast"] == 1.0  # fast_learner returns the oracle
    assert df.seed.dtype == pd.Int64Dtype() and df.done.all()
    one_run = load_results(tmp_path / "runs" / "fast" / "seed0")  # a single run folder works too
    assert set(one_run.run_dir) == {str(tmp_path / "runs" / "fast" / "seed0")}


def test_summary_csv_columns_have_one_type_each(tmp_path) -> None:
    _compare(tmp_path)
    summary = load_summary(tmp_path)
    assert summary["aggregate"].dtype == bool and summary.seed.dtype == pd.Int64Dtype()
    assert summary.success.dtype == float and summary.n.dtype == pd.Int64Dtype()
    aggregate = summary[summary["aggregate"]]
    assert aggregate.seed.isna().all() and (aggregate.seeds == 2).all()
    assert summary[~summary["aggregate"]].seed.notna().all()
    plain = pd.read_csv(tmp_path / "summary.csv")  # no dtype hints: still numbers and bools, not strings
    assert plain["aggregate"].dtype == bool and plain.seed.dtype == float and plain.success.dtype == float


def test_load_results_reports_a_folder_without_runs(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no run folders"):
        load_results(tmp_path)
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        load_results(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no summary.csv"):
        load_summary(tmp_path)


def test_last_logged_step_skips_a_cut_line(tmp_path) -> None:
    path = tmp_path / "metrics.jsonl"
    assert last_logged_step(path) == 0
    path.write_text(json.dumps({"step": 10}) + "\n" + json.dumps({"step": 20, "loss": 1}) + "\n" + '{"step": 3')
    assert last_logged_step(path) == 20


def test_step_progress_moves_while_workers_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SEARCHGYM_TEST_SLEEP", "0.6")
    specs = [RunSpec(TINY_QA, parse_methods("fast=harness_helpers:fast_learner")[0], seed, 40, tmp_path,
                     device="cpu") for seed in (0, 1)]
    progress = StepProgress(40, [s.run_dir for s in specs])
    seen: list[int] = []
    finished: list[str] = []

    def record(outcome):
        finished.append(outcome.status)
        progress.finish(outcome.run_dir)

    run_in_pool(specs, 2, 1, record, tick=lambda: seen.append(progress.poll()), tick_seconds=0.2)
    assert finished == ["done", "done"] and progress.done == progress.total == 80
    partial = [s for s in seen if 0 < s < 80]
    assert partial, f"no partial progress seen while the runs worked: {seen}"
    assert seen == sorted(seen)  # never goes back


def test_results_md_says_the_curves_are_dev_success(tmp_path) -> None:
    _compare(tmp_path, seeds=(0,))
    text = (tmp_path / "results.md").read_text()
    assert "Dev success during training (the tables above are test success)" in text
    assert "(random, reader, oracle) are flat lines at their dev success" in text


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("compared") / "out"
    _compare(out, seeds=(0,))
    return out


def _damage(path, how):
    if how == "folder":
        path.unlink()
        path.mkdir()
    else:
        path.write_bytes(how(path.read_bytes()))


@pytest.mark.parametrize(("name", "how", "what"), [
    ("runs/random/seed0/predictions.jsonl", lambda b: b[:len(b) // 2], "holds 6 readable predictions where "),
    ("runs/random/seed0/predictions.jsonl", "folder", "is a folder, not a regular file"),
    ("runs/fast/seed0/config.json", lambda b: b.replace(b'"seed": 0', b'"seed": "x"'), "holds seed 'x', not"),
    ("summary.csv", lambda b: b[:len(b) // 2], "is cut short"),
    ("summary.csv", lambda b: b"", "is cut short"),
    ("summary.csv", lambda b: b"\xff" + b, "is not UTF-8 text"),
    ("summary.csv", lambda b: b.replace(b"\n", b",1\n", 2).replace(b",1\n", b"\n", 1),  # a field more on line 2
     "line 2 has 17 fields where the header has 16"),
    ("summary.csv", lambda b: b.replace(b"random,all,False,0", b"random,all,maybe,0"),
     "holds a value of the wrong type"),
    ("summary.csv", "folder", "is a folder, not a regular file"),
])
def test_a_damaged_file_is_one_error_naming_it(compared, tmp_path, name, how, what) -> None:
    """Before: a finished run's predictions cut in half (or a folder in their place) loaded as 6 rows
    (or none) with no word; a summary.csv cut short loaded as fewer rows, other damage was a pandas or
    codec traceback, and a folder in its place was "no summary.csv"."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    _damage(out / name, how)
    load = load_summary if name == "summary.csv" else load_results
    with pytest.raises(DamagedFile) as caught:
        load(out)
    assert str(caught.value).startswith(f"{out / name}: {what}") and "\n" not in str(caught.value)


@pytest.mark.parametrize("step", ["Infinity", "-Infinity", "NaN", "1" * 5000])
def test_last_logged_step_skips_a_row_whose_step_is_no_finite_number(tmp_path, step) -> None:
    """Before: Infinity was an OverflowError, NaN and 5000 digits a ValueError naming no file: tracebacks."""
    path = tmp_path / "metrics.jsonl"
    path.write_text(json.dumps({"step": 20}) + "\n" + f'{{"iteration": 1, "step": {step}}}\n')
    assert last_logged_step(path) == 20


def test_compare_resumes_a_run_whose_last_row_has_an_infinite_step(tmp_path) -> None:
    _compare(tmp_path, methods="fast=harness_helpers:fast_learner", seeds=(0,))
    run = tmp_path / "runs" / "fast" / "seed0"
    (run / "DONE").unlink()
    with open(run / "metrics.jsonl", "a") as f:
        f.write('{"iteration": 1, "step": Infinity}\n')
    result = _compare(tmp_path, methods="fast=harness_helpers:fast_learner", seeds=(0,))
    assert [o.status for o in result.outcomes] == ["done"] and (run / "DONE").is_file()
