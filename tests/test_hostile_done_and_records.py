"""Leftover hostile-file reads: a run folder's DONE marker that is a link, the board's retrained.json and the
tiny-LM recipe's records (an RL run's metrics.jsonl, its JSON records). Each is one line naming the file,
read neither through a link nor without bound.

Before: a linked DONE was followed (a link to any file marked an unfinished run finished, and a comparison
skipped it); retrained.json was read through a link, up to 256 MB and any number of values; the recipe's
metrics.jsonl was read through a link and whatever its size, its records up to 256 MB."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.damaged import LINKED_READ, DamagedFile, DamagedFileWarning
from searchgym.harness.runner import is_done
from searchgym.leaderboard import read_retrained
from searchgym.leaderboard_checks import SubmissionRejected

pytestmark = pytest.mark.timeout(300)
FAST = "harness_helpers:fast_learner"


def _last_line(err: str) -> str:
    assert "Traceback" not in err
    return err.replace("\r", "\n").strip().splitlines()[-1]


# ------------------------------------------------------------------------------------------- DONE
def test_a_linked_done_marker_is_refused_unread(tmp_path):
    run, outside = tmp_path / "run", tmp_path / "outside"
    run.mkdir()
    outside.write_text("finished\n")
    assert not is_done(run)
    (run / "DONE").symlink_to(outside)
    with pytest.raises(DamagedFile) as caught:
        is_done(run)
    assert str(caught.value).startswith(f"{run / 'DONE'}: {LINKED_READ}; ") and "\n" not in str(caught.value)
    (run / "DONE").unlink()
    (run / "DONE").write_text("finished\n")
    assert is_done(run)


def _compare(out):
    return main(["compare", "--suite", TINY_QA.id, "--methods", f"fast={FAST}", "--budget", "8", "--out", str(out),
                 "--device", "cpu", "--no-progress"])


def test_a_comparison_resumes_normally_and_refuses_a_linked_done_in_one_line(tmp_path, capsys):
    out = tmp_path / "c"
    assert _compare(out) == 0
    run = out / "runs" / "fast" / "seed0"
    finished = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert _compare(out) == 0  # resumed: the finished run is skipped, untouched
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == finished
    capsys.readouterr()
    outside = tmp_path / "elsewhere_DONE"
    shutil.move(run / "DONE", outside)
    (run / "DONE").symlink_to(outside)
    assert _compare(out) == 2
    assert _last_line(capsys.readouterr().err) == (f"searchgym compare: damaged file: {run / 'DONE'}: {LINKED_READ}; "
                                                    "replace the link with a copy of what it points to (if that is "
                                                    "this run's), or remove it")
    assert outside.read_text().startswith("finished")
    (run / "DONE").unlink()
    shutil.copy(outside, run / "DONE")  # the remedy: a copy of what it pointed to
    assert _compare(out) == 0


def test_a_linked_done_in_a_train_folder_is_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    train = ["train", "--method", FAST, "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--test-size", "4",
             "--budget", "8", "--out", str(out), "--no-progress"]
    assert main(train) == 0
    (out / "DONE").unlink()
    (out / "DONE").symlink_to(out / "config.json")  # a file that is there: before, the run counted as finished
    capsys.readouterr()
    assert main(train) == 2
    said = _last_line(capsys.readouterr().err)
    assert said.startswith(f"searchgym train: damaged file: {out / 'DONE'}: {LINKED_READ}; "), said


# ---------------------------------------------------------------------------------- retrained.json
RECORD = {"file": "x.json", "matches": True, "same_answers": 3, "tasks": 3, "submitted_success": 1.0,
          "retrained_success": 1.0, "date": "2024-01-01T00:00:00+00:00"}


def test_a_linked_retrained_json_is_refused_unread(tmp_path):
    board, outside = tmp_path / "board", tmp_path / "records.json"
    board.mkdir()
    outside.write_text(json.dumps({"a" * 64: RECORD}))
    (board / "retrained.json").symlink_to(outside)
    with pytest.raises(SubmissionRejected) as caught:
        read_retrained(board)
    said = str(caught.value)
    assert said.startswith(f"{board / 'retrained.json'}: is a symbolic link, which the board never follows") and \
        "\n" not in said
    (board / "retrained.json").unlink()
    shutil.copy(outside, board / "retrained.json")
    assert set(read_retrained(board)) == {"a" * 64}


def test_a_padded_or_huge_retrained_json_is_one_line(tmp_path):
    path = tmp_path / "retrained.json"
    path.write_text(json.dumps({"a" * 64: {**RECORD, "pad": [0] * 400_000}}))  # 1.2 MB, 400,000 values
    with pytest.raises(SubmissionRejected, match=r"retrained.json: holds more than 300000 JSON values.*; fix it"):
        read_retrained(tmp_path)
    path.write_text(json.dumps({"a" * 64: {**RECORD, "note": "x" * (9 * 1024 * 1024)}}))
    with pytest.raises(SubmissionRejected, match=r"retrained.json: is \d+ bytes, more than the 8388608"):
        read_retrained(tmp_path)


def test_the_board_is_built_beside_a_linked_retrained_json(tmp_path):
    from searchgym.leaderboard import build

    board, outside = tmp_path / "board", tmp_path / "records.json"
    (board / "submissions").mkdir(parents=True)
    outside.write_text(json.dumps({"a" * 64: RECORD}))
    (board / "retrained.json").symlink_to(outside)
    with pytest.warns(DamagedFileWarning, match="is a symbolic link.*every row self-reported"):
        build(board)


# ---------------------------------------------------------------------------- the tiny-LM recipe
def _rows(n: int) -> str:
    return "".join(json.dumps({"iteration": i, "train_success": 0.5, "seconds": 1.0}) + "\n" for i in range(1, n + 1))


def test_the_recipe_rows_are_read_as_before(tmp_path):
    from searchgym.agents.tiny_lm_records import logged_rows

    path = tmp_path / "metrics.jsonl"
    path.write_text(_rows(3) + "not json\n" + "{\"iteration\": 2")  # a cut last line: skipped
    rows, missing, damaged = logged_rows(path, 4)
    assert [r["iteration"] for r in rows] == [1, 2, 3] and missing == [4] and damaged == ""
    assert logged_rows(tmp_path / "none.jsonl", 2)[1] == [1, 2]


def test_linked_recipe_rows_are_refused_unread(tmp_path):
    from searchgym.agents.tiny_lm_records import logged_rows

    outside = tmp_path / "outside.jsonl"
    outside.write_text(_rows(2))
    folder = tmp_path / "rl" / "grpo-s0"
    folder.mkdir(parents=True)
    (folder / "metrics.jsonl").symlink_to(outside)
    with pytest.raises(DamagedFile) as caught:
        logged_rows(folder / "metrics.jsonl", 2)
    assert str(caught.value) == (f"{folder / 'metrics.jsonl'}: {LINKED_READ}; delete {folder} and re-run the same "
                                 "command to redo this RL run")


def test_oversized_recipe_rows_are_one_line(tmp_path, monkeypatch):
    from searchgym.agents import tiny_lm_records
    from searchgym.agents.tiny_lm_records import logged_rows

    path = tmp_path / "metrics.jsonl"
    with open(path, "wb") as handle:  # a sparse file of 2 GB: before, read line by line, all of it
        handle.truncate(2 * 1024**3)
    with pytest.raises(DamagedFile, match=r"metrics.jsonl: is 2147483648 bytes, more than the 1073741824"):
        logged_rows(path, 2)
    path.write_text(json.dumps({"iteration": 1, "train_success": 0.5, "pad": [0] * 5000}) + "\n")
    monkeypatch.setattr(tiny_lm_records, "MAX_ROWS_VALUES", 1000)
    with pytest.raises(DamagedFile, match=r"metrics.jsonl: holds more than 1000 JSON values"):
        logged_rows(path, 1)


def test_the_recipe_records_are_bounded_and_never_followed(tmp_path):
    from searchgym.agents.tiny_lm_records import read_seconds, read_stage

    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"sft": [1.0, 1.0]}))
    (tmp_path / "stage_seconds.json").symlink_to(outside)
    with pytest.warns(DamagedFileWarning, match=re.escape(f"stage_seconds.json: {LINKED_READ}")):
        assert read_seconds(tmp_path / "stage_seconds.json") == {}
    padded = tmp_path / "eval.json"
    padded.write_text(json.dumps({"success": 0.5, "pad": [{}] * 300_000}))  # 1.2 MB
    with pytest.raises(DamagedFile, match=r"eval.json: holds more than 200000 JSON values"):
        read_stage(padded, {})
    os.truncate(padded, 64 * 1024 * 1024)  # before: read whole, up to 256 MB
    with pytest.raises(DamagedFile, match=r"eval.json: is 67108864 bytes, more than the 4194304"):
        read_stage(padded, {})
