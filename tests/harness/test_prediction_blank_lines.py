"""A run's predictions.jsonl read back is bounded in lines, blank ones included. Before: blank lines
counted against no cap, so a file of millions of them (or one run of newlines as long as the byte
bound allowed, 12.8 GB where the run's size was unknown) was read through to its end."""

from __future__ import annotations

import json

import pytest

from searchgym.damaged import DamagedFile, JsonlRows
from searchgym.harness import run_reads
from searchgym.harness.finished_files import finished_predictions

ROW = {"task_id": "lookup-00001", "family": "lookup", "answer": "Paris", "steps": 1, "tool_calls": 0,
       "success": True, "f1": 1.0, "score": 1.0}


def _line(task: int) -> bytes:
    return json.dumps({**ROW, "task_id": f"lookup-{task:05d}"}).encode() + b"\n"


def test_the_shared_reader_stops_past_its_lines_blank_ones_counted(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\n" * 20 + b'{"step": 1}\n')
    lines = JsonlRows(path, 100, max_lines=10)
    assert list(lines) == [] and lines.past_lines
    unbounded = JsonlRows(path, 100)  # no line bound: every line is read, as before
    assert list(unbounded) == [{"step": 1}] and not unbounded.past_lines


def test_a_predictions_file_of_blank_lines_is_one_line_naming_it(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(_line(1) + b"\n" * 1_000_000 + _line(2))
    bound = run_reads.prediction_lines(100)  # a million newlines fit its byte bound (12.9 MB)
    with pytest.raises(DamagedFile) as caught:
        run_reads.prediction_rows(path, "fix it", 100)
    assert str(caught.value) == (f"{path}: holds more than {bound} lines (blank or unreadable ones among them), "
                                 "more than a run writes; fix it")


def test_the_bound_applies_where_the_run_does_not_say_how_many_rows(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(b"\n" * (run_reads.prediction_lines(run_reads.MAX_PREDICTION_ROWS) + 1))
    with pytest.raises(DamagedFile, match="lines"):
        run_reads.prediction_rows(path, "fix it", None)


def test_a_copy_with_a_blank_line_after_each_row_still_reads(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(b"".join(_line(task) + b"\n" for task in range(3)) + b"\n" * run_reads.PREDICTION_SPARE_LINES)
    assert [row["task_id"] for row in run_reads.prediction_rows(path, "fix it", 3).rows] == [
        "lookup-00000", "lookup-00001", "lookup-00002"]


def test_a_finished_run_says_how_to_redo_it(tmp_path):
    (tmp_path / "predictions.jsonl").write_bytes(_line(1) + b"\n" * 100)
    with pytest.raises(DamagedFile, match=r"predictions.jsonl: holds more than 12 lines .*; delete .*DONE"):
        finished_predictions(tmp_path, 1)
