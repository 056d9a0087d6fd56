"""`searchgym leaderboard retrain --record`: a re-run that could not run records nothing. Before, a
typo in --device or an --out that held a file or another run was printed as "DIFFERS (the re-run
failed: ...) 0/N answers equal" and, with --record, overwrote a MATCHES record: the board then
marked a reproducible submission "re-trained: differs"."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, read_retrained, write_submission
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-retrain-fail-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: failed retrains"))


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    out = tmp_path_factory.mktemp("retrain-fail")
    run_comparison(Comparison(SUITE, parse_methods("random,oracle"), [0], 0, out / "cmp", "cpu", progress=False))
    folder = out / "board"
    for method in ("random", "oracle"):
        write_submission(build_submission(out / "cmp" / "runs" / method / "seed0"), folder=folder / "submissions")
    return folder


def _retrain(board, name: str, *extra: str) -> int:
    path = next((board / "submissions").glob(f"*__{name}__*.json"))
    return main(["leaderboard", "retrain", str(path), "--record", "--dir", str(board), *extra])


def test_a_failed_rerun_does_not_overwrite_a_matching_record(board, tmp_path, capsys) -> None:
    assert _retrain(board, "random", "--out", str(tmp_path / "r1")) == 0
    before = json.dumps(read_retrained(board), sort_keys=True)
    assert '"matches": true' in before
    capsys.readouterr()

    assert _retrain(board, "random", "--device", "tpu", "--out", str(tmp_path / "r2")) == 2
    captured = capsys.readouterr()
    assert "unknown device 'tpu'; accepted: auto, cpu, cuda or cuda:N" in captured.err and "DIFFERS" not in captured.out
    assert not (tmp_path / "r2").exists()

    (tmp_path / "afile").write_text("x")  # a file as --out: refused before any re-run
    assert _retrain(board, "random", "--out", str(tmp_path / "afile")) == 2
    assert f"--out {tmp_path / 'afile'} is a file, not a folder" in capsys.readouterr().err
    (tmp_path / "r3").mkdir()
    (tmp_path / "r3" / "run").write_text("x")  # a file where the re-run's folder goes: the re-run fails
    assert _retrain(board, "random", "--out", str(tmp_path / "r3")) == 1
    out = capsys.readouterr().out
    assert out.startswith("CANNOT RETRAIN") and "re-run failed" in out and "nothing recorded" in out

    assert _retrain(board, "oracle", "--out", str(tmp_path / "r1")) == 2  # r1/run holds the random run
    assert "already holds a finished run" in capsys.readouterr().err
    assert json.dumps(read_retrained(board), sort_keys=True) == before  # the MATCHES record stands, oracle has none


def test_a_finished_run_in_out_is_refused_not_called_a_match(board, tmp_path, capsys) -> None:
    """Before: retraining into an --out that already held the same submission's finished run skipped
    the run (it was DONE) and printed MATCHES without training anything."""
    assert _retrain(board, "random", "--out", str(tmp_path / "r")) == 0
    capsys.readouterr()
    assert _retrain(board, "random", "--out", str(tmp_path / "r")) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym leaderboard: error: --out {tmp_path / 'r'} already holds a finished run "
                   f"({tmp_path / 'r' / 'run'}); re-training there would re-use it instead of training again: "
                   "give a new or empty folder")


def test_an_evaluate_submission_is_refused_as_having_nothing_to_retrain(tmp_path, capsys) -> None:
    """Before: 'the recorded method 'searchgym.harness.methods:agent_method' is not one of searchgym's
    own methods (...); re-train it by hand', for a submission of `searchgym evaluate --agent random`."""
    run = tmp_path / "eval"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "random", "--device", "cpu", "--no-progress",
                 "--out", str(run)]) == 0
    board = tmp_path / "board"
    path = write_submission(build_submission(run), folder=board / "submissions")
    capsys.readouterr()
    assert main(["leaderboard", "retrain", str(path), "--dir", str(board)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"CANNOT RETRAIN {path}: it was made by `searchgym evaluate`, which trains nothing")
    assert "by hand" not in out


def test_run_settings_compare_refuses_are_refused_before_anything_runs(tmp_path, capsys) -> None:
    """Before: a submission of `random` whose run recorded options={"lr": "abc"} (which compare refuses for
    random) was re-run, and reported MATCHES."""
    out = tmp_path / "cmp"
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, out, "cpu", progress=False))
    run = out / "runs" / "random" / "seed0"
    config = json.loads((run / "config.json").read_text())
    config["options"] = {"lr": "abc"}
    (run / "config.json").write_text(json.dumps(config))
    board = tmp_path / "board"
    path = write_submission(build_submission(run), folder=board / "submissions")
    capsys.readouterr()
    assert main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "r")]) == 1
    printed = capsys.readouterr().out.strip()
    assert printed == (f"CANNOT RETRAIN {path}: the submission's run settings would not run: method 'random': "
                       "unknown option 'lr' for random; random takes no options")
    assert not (tmp_path / "r").exists()
