"""`searchgym report` and `load_results` on a comparison someone handed over: hostile files are one line
naming the file, never a world of any size, made-up scores, raw ESC sequences, unbounded reads or reads
through a link (the reviewer's items 2, 5, 8, 9 and 11)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from harness_helpers import TINY_QA, compare_args, compared_folder

import searchgym.suites as suites_module
from searchgym.cli import main
from searchgym.damaged import DamagedFile, DamagedFileWarning
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.report import DIAGNOSTICS, load_runs
from searchgym.suites import Suite

pytestmark = pytest.mark.timeout(300)
ARGS = compare_args("oracle,random")
ESC = "\033[2J\033[31mALL GOOD\033]0;owned\007"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS, "handed")


@pytest.fixture()
def out(compared, tmp_path, capsys):
    copy = tmp_path / "out"
    shutil.copytree(compared, copy)
    capsys.readouterr()
    return copy


def _report(out, capsys, *extra):
    rc = main(["report", "--out", str(out), *extra])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err.strip()


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _edit(path, change):
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


# ------------------------------------------------------------------ item 2: a world of any size
def test_a_handed_over_suite_definition_is_checked_before_any_world_is_made(tmp_path, capsys, monkeypatch):
    """Before: `report` built Suite(**config["suite"]) and hashed it, generating a world of world_size
    10**7 (1.5 GB and growing after 2 minutes); load_results did not check it either."""
    from searchgym.harness.results import load_results

    suite = Suite("test-handed-over-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                  dev_size=2, test_size=4, description="tests: a suite made in Python")
    out = tmp_path / "out"
    run_comparison(Comparison(suite=suite, methods=parse_methods("random"), seeds=[0], budget=0, out=out,
                              device="cpu", progress=False))
    config = out / "runs" / "random" / "seed0" / "config.json"
    _edit(config, lambda c: {**c, "suite_id": "my-suite", "suite": {**c["suite"], "id": "my-suite",
                                                                     "world_size": 10**7}})

    def no_world(*args, **kwargs):
        raise AssertionError("a world was generated from a handed-over definition")

    monkeypatch.setattr(suites_module, "shared_world", no_world)
    capsys.readouterr()
    rc, _, err = _report(out, capsys)
    assert rc == 2 and "\n" not in err, err
    assert err.startswith(f"searchgym report: damaged file: {config}: holds a suite definition searchgym cannot "
                          "read (world_size must be one of"), err
    assert err.endswith("report it with the searchgym version that made the runs (a suite that version defines)")
    # load_results reads such a run's rows as they are (another version's suite, unchecked), building no
    # world: before this review it refused the whole folder, with a remedy (re-run) that could not help
    frame = load_results(out)
    assert len(frame) > 0 and set(frame["suite_id"]) == {"my-suite"}


# ------------------------------------------------------------------ item 8: predictions no run writes
@pytest.mark.parametrize(("change", "said"), [
    (lambda r, i: {**r, "success": 7}, "prediction 1: its 'success' is 7, outside [0, 1]"),
    (lambda r, i: {**r, "f1": -3}, "prediction 1: its 'f1' is -3, outside [0, 1]"),
    (lambda r, i: {**r, "score": 1.5}, "prediction 1: its 'score' is 1.5, outside [0, 1]"),
    (lambda r, i: {**r, "task_id": f"made-up-{i}"}, "prediction 1: task 'made-up-0' is not among the 12 test tasks"),
    (lambda r, i: {**r, "family": "no-such-family"}, "prediction 1: gives task"),
])
def test_predictions_no_run_writes_are_one_line_naming_the_file(out, capsys, change, said):
    """Before: success 7 was reported as "7.000 [7.000, 7.000]", made-up task ids as 1.000 on the suite."""
    path = out / "runs" / "random" / "seed0" / "predictions.jsonl"
    _write_rows(path, [change(r, i) for i, r in enumerate(_rows(path))])
    rc, _, err = _report(out, capsys)
    assert rc == 2 and "\n" not in err and err.startswith(f"searchgym report: damaged file: {path}: "), err
    assert said in err, err


def test_predictions_of_some_tasks_only_are_refused_though_result_json_agrees(out, capsys):
    """Before: half the rows, with result.json's n halved, were reported as the run's score on the suite."""
    run = out / "runs" / "random" / "seed0"
    _write_rows(run / "predictions.jsonl", _rows(run / "predictions.jsonl")[:6])
    _edit(run / "result.json", lambda r: {**r, "test": {**r["test"], "all": {**r["test"]["all"], "n": 6}}})
    rc, _, err = _report(out, capsys)
    assert rc == 2 and "holds predictions of 6 of the 12 test tasks the run scored" in err, err


def test_a_run_made_with_limit_is_reported_on_its_first_tasks(out, capsys):
    """`evaluate --limit` scores the suite's first tasks: such a run is read (and a task after them refused)."""
    from searchgym.harness.results import load_results

    run = out / "runs" / "random" / "seed0"
    shutil.rmtree(run)
    assert main(["evaluate", "--agent", "random", "--suite", TINY_QA.id, "--limit", "3", "--name", "random",
                 "--out", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    rc, printed, err = _report(out, capsys)
    assert rc == 0, err
    assert "| random | 1 |" in printed
    frame = load_results(out)
    assert len(frame[(frame.kind == "prediction") & (frame.method == "random")]) == 3
    rows = _rows(run / "predictions.jsonl")
    last = [t for t in TINY_QA.tasks("test")][3]
    rows[-1] = {**rows[-1], "task_id": last.id, "family": last.family}
    _write_rows(run / "predictions.jsonl", rows)
    rc, _, err = _report(out, capsys)
    assert rc == 2 and f"task {last.id!r} is not among the 3 test tasks the run scored" in err, err


# ------------------------------------------------------------------ item 9: escape sequences
def test_an_error_line_with_escape_sequences_is_printed_and_written_escaped(out, capsys):
    """Before: the ESC sequences of a failed run's error.txt were printed raw and written into results.md."""
    run = out / "runs" / "random" / "seed0"
    (run / "DONE").unlink()
    (run / "error.txt").write_text(f"Traceback (most recent call last):\n  File x\nRuntimeError: {ESC}\n")
    rc, printed, err = _report(out, capsys)
    assert rc == 0, err
    results = (out / "results.md").read_text()
    for text in (printed, results):
        assert "\033" not in text and "\007" not in text
        assert "RuntimeError: \\x1b[2J\\x1b[31mALL GOOD\\x1b]0;owned\\x07" in text


def test_a_method_folder_named_with_escape_sequences_is_shown_escaped(out, capsys):
    label = "r\033[2Jx"
    shutil.move(out / "runs" / "random", out / "runs" / label)
    _edit(out / "runs" / label / "seed0" / "config.json", lambda c: {**c, "method": label})
    rc, printed, err = _report(out, capsys)
    assert rc == 0, err
    for text in (printed, (out / "results.md").read_text(), (out / "summary.csv").read_text()):
        assert "\033" not in text and "r\\x1b[2Jx" in text


def test_a_damaged_file_in_a_folder_named_with_escape_sequences_is_named_escaped(out, capsys):
    label = "r\033[2Jx"
    shutil.move(out / "runs" / "random", out / "runs" / label)
    rc, _, err = _report(out, capsys)  # its config.json records method random: a copy of another run's folder
    assert rc == 2 and "\033" not in err and "r\\x1b[2Jx/seed0/config.json" in err, err


# ------------------------------------------------------------------ item 5: bounded reads
def test_a_padded_result_json_is_refused_in_one_line(out, capsys):
    """Before: up to 256 MB were parsed (a 60 MB result.json of {} took 1.6 GB)."""
    path = out / "runs" / "random" / "seed0" / "result.json"
    _edit(path, lambda r: {**r, "pad": [{}] * 300_000})
    rc, _, err = _report(out, capsys)
    assert rc == 2 and "\n" not in err, err
    assert err.startswith(f"searchgym report: damaged file: {path}: holds more than 200000 JSON values"), err


def test_a_result_json_over_the_byte_cap_is_refused_unread(out, capsys, monkeypatch):
    monkeypatch.setattr("searchgym.harness.run_reads.MAX_RUN_JSON_BYTES", 3000)
    path = out / "runs" / "random" / "seed0" / "result.json"
    _edit(path, lambda r: {**r, "pad": "x" * 5000})
    rc, _, err = _report(out, capsys)
    assert rc == 2 and f"{path}: is " in err and "more than the 3000 such a file may hold" in err, err


def test_padded_metrics_lines_are_left_out_with_one_warning(out, capsys, monkeypatch):
    """Before: 20 appended lines of a million {} each (60 MB) took 1.5 GB, kept until the report was written."""
    monkeypatch.setattr("searchgym.harness.run_reads.MAX_METRICS_LINE", 10_000)
    path = out / "runs" / "random" / "seed0" / "metrics.jsonl"
    with open(path, "a") as handle:
        handle.writelines(json.dumps({"x": [{}] * 5000}) + "\n" for _ in range(3))
    with pytest.warns(DamagedFileWarning, match=r"metrics.jsonl: holds 3 lines longer than 10000 bytes, which no "
                                                r"run writes"):
        rc, _, err = _report(out, capsys)
    assert rc == 0, err


def test_metrics_past_the_value_cap_are_read_no_further(out, capsys, monkeypatch):
    monkeypatch.setattr("searchgym.harness.run_reads.MAX_METRICS_VALUES", 1000)
    path = out / "runs" / "random" / "seed0" / "metrics.jsonl"
    _write_rows(path, [{"step": i, "dev_success": 0.5, "x": list(range(30))} for i in range(100)])
    with pytest.warns(DamagedFileWarning, match=r"holds more than 1000 JSON values, more than a run writes; the "
                                                r"learning curves and training diagnostics use its first \d+ rows"):
        rc, _, err = _report(out, capsys)
    assert rc == 0, err
    from searchgym.harness.results import load_results

    with pytest.raises(DamagedFile, match="metrics.jsonl: holds more than 1000 JSON values"):
        load_results(out)


def test_the_report_keeps_only_the_metrics_fields_it_reads(out):
    path = out / "runs" / "random" / "seed0" / "metrics.jsonl"
    _write_rows(path, [{"step": 4, "dev_success": 0.5, "iteration": 1, DIAGNOSTICS[0][0]: 0.25, "pad": [{}] * 100}])
    (record,) = [r for r in load_runs(out, ["random"], [0]) if r.label == "random"]
    assert record.metrics == [{"step": 4, "dev_success": 0.5, "iteration": 1, DIAGNOSTICS[0][0]: 0.25}]


def test_a_prediction_row_of_many_values_is_refused(out, capsys):
    path = out / "runs" / "random" / "seed0" / "predictions.jsonl"
    rows = _rows(path)
    _write_rows(path, [{**rows[0], "pad": [{}] * 100}, *rows[1:]])
    rc, _, err = _report(out, capsys)
    assert rc == 2 and f"{path}: row 1 holds more than 64 JSON values" in err, err


def test_more_predictions_than_the_run_scored_are_read_no_further(out, capsys):
    """Before: every row was read and kept ("holds 62 readable predictions where result.json counts 12")."""
    path = out / "runs" / "random" / "seed0" / "predictions.jsonl"
    rows = _rows(path)
    _write_rows(path, rows + [{**rows[0], "task_id": f"extra-{i}"} for i in range(50)])
    rc, _, err = _report(out, capsys)
    assert rc == 2 and f"{path}: holds more than 12 predictions where the run scored 12 test tasks" in err, err


# ------------------------------------------------------------------ item 11: no reads through a link
@pytest.mark.parametrize("name", ["runs/random", "runs/random/seed0", "runs/random/seed0/config.json",
                                  "runs/random/seed0/result.json", "runs/random/seed0/predictions.jsonl",
                                  "runs/random/seed0/metrics.jsonl"])
def test_a_linked_run_folder_or_file_is_refused_unread(out, tmp_path, capsys, name):
    """Before: runs/random as a link to a folder elsewhere was reported silently; a predictions.jsonl
    link to another run's file was read as this run's (one to /etc/passwd was read, then "holds no
    predictions")."""
    from searchgym.harness.results import load_results

    path = out / name
    elsewhere = tmp_path / "elsewhere"
    if path.is_dir():
        shutil.move(path, elsewhere)
    else:
        if not path.exists():
            path.write_text('{"step": 0, "dev_success": 0.0}\n')
        shutil.move(path, elsewhere)
    path.symlink_to(elsewhere, target_is_directory=elsewhere.is_dir())
    rc, _, err = _report(out, capsys)
    assert rc == 2 and "\n" not in err, err
    assert err.startswith(f"searchgym report: damaged file: {path}: is a symbolic link, which searchgym does not "
                          "follow in a run folder it reads"), err
    with pytest.raises(DamagedFile, match="is a symbolic link, which searchgym does not follow"):
        load_results(out)


def test_an_unfinished_runs_linked_metrics_are_not_read_by_load_results(out, tmp_path):
    from searchgym.harness.results import load_results

    run = out / "runs" / "random" / "seed0"
    (run / "DONE").unlink()
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"step": 1, "secret": "yes"}\n')
    os.symlink(secret, run / "metrics.jsonl")
    with pytest.raises(DamagedFile, match="metrics.jsonl: is a symbolic link"):
        load_results(out)
