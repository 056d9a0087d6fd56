"""A finished run of a comparison whose result.json or config.json is damaged or gone: the line's
remedy works. Before: a damaged result.json said "delete it and re-run the same command", and the
re-run then stopped at "error: [Errno 2] No such file or directory: '.../result.json'" (DONE still
marked the run finished)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from harness_helpers import TINY_QA, compare_args, compared_folder

from searchgym.cli import main
from searchgym.damaged import DamagedFileWarning

ARGS = compare_args("random,oracle")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS)


@pytest.mark.parametrize(("name", "damage", "what"), [
    ("result.json", b'{"cut', "is not valid JSON"),
    ("result.json", None, "is missing from a finished run"),
    ("config.json", None, "is missing from a finished run"),
])
def test_the_remedy_of_a_damaged_finished_file_redoes_the_run(finished, tmp_path, capsys, name, damage, what):
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    run = out / "runs" / "random" / "seed0"
    if damage is None:
        (run / name).unlink()
    else:
        (run / name).write_bytes(damage)
    capsys.readouterr()
    assert main([*ARGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym compare: damaged file: {run / name}: {what}"
                   + (err.split(what, 1)[1].split(";")[0] if damage else "")
                   + f"; delete {run / 'DONE'} and re-run the command that made the run (compare, train or "
                   "evaluate) to evaluate it again")
    (run / "DONE").unlink()  # what the line says to do
    assert main([*ARGS, "--out", str(out)]) == 0
    assert "runs: 1 done now, 1 already finished, 0 failed" in capsys.readouterr().out
    assert (run / name).is_file()


@pytest.mark.parametrize("cut", ["mid_line", "line_boundary"])
def test_a_finished_run_whose_predictions_were_cut_short_is_one_line_not_a_smaller_score(finished, tmp_path, capsys,
                                                                                          cut):
    """Before: predictions.jsonl cut to its first lines (a partial copy) was reported on the tasks
    it still held (e.g. 33 of 160), with no word of the cut; now one line names the file."""
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    run = out / "runs" / "random" / "seed0"
    path = run / "predictions.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    kept = b"".join(lines[:3]) + (lines[3][:20] if cut == "mid_line" else b"")
    path.write_bytes(kept)
    capsys.readouterr()
    assert main([*ARGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym compare: damaged file: {path}: holds 3 readable predictions where result.json counts "
                   f"{len(lines)} (cut short or damaged); delete {run / 'DONE'} and re-run the command that made "
                   "the run (compare, train or evaluate) to evaluate it again")
    (run / "DONE").unlink()
    assert main([*ARGS, "--out", str(out)]) == 0
    assert path.read_bytes() == b"".join(lines)


def test_a_finished_runs_metrics_cut_at_a_line_boundary_is_a_one_line_warning(tmp_path):
    """Before: metrics.jsonl cut to its first rows (a partial copy) drew the curves and diagnostics from
    what was left, with no word of the loss (nothing recorded how many rows to expect); now result.json
    counts them and the report says the file holds fewer, in one line, and is still written."""
    out = tmp_path / "out"
    args = ["compare", "--suite", TINY_QA.id, "--methods", "fast=harness_helpers:fast_learner", "--seeds", "1",
            "--budget", "40", "--device", "cpu", "--no-progress", "--out", str(out)]
    assert main(args) == 0
    run = out / "runs" / "fast" / "seed0"
    path = run / "metrics.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 2 and json.loads((run / "result.json").read_text())["metrics_rows"] == len(lines)
    path.write_bytes(b"".join(lines[:1]))
    said = (f"{path}: holds 1 readable rows where result.json counts {len(lines)} (cut short or damaged); "
            "the learning curves and training diagnostics use the rows left")
    with pytest.warns(DamagedFileWarning, match=re.escape(said)):
        assert main(args) == 0
    assert (out / "results.md").is_file()
