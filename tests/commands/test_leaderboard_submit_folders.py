"""`searchgym leaderboard submit` given the comparison's folder instead of one run's."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-submit-folders-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: submit folders"))


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("submit-folders") / "cmp"
    run_comparison(Comparison(SUITE, parse_methods("random,oracle"), [0], 0, out, "cpu", progress=False))
    return out


@pytest.mark.parametrize("folder, runs", [("", ["oracle", "random"]), ("runs", ["oracle", "random"]),
                                          ("runs/oracle", ["oracle"])])
def test_a_folder_of_finished_runs_names_them(comparison, tmp_path, capsys, folder, runs) -> None:
    """Before: "is not a finished run folder (no DONE marker); finish it with the same command
    first", which sent the user to re-run a comparison that had finished."""
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(comparison / folder), "--dir", str(board)]) == 2
    err = capsys.readouterr().err
    assert "holds finished runs but is not one; submit one run folder: " in err and "finish it" not in err
    assert all(str(comparison / "runs" / m / "seed0") in err for m in runs)
    assert not board.exists()
    assert main(["leaderboard", "submit", str(comparison / "runs" / runs[0] / "seed0"), "--dir", str(board)]) == 0


def test_a_copy_of_a_submission_under_another_file_name_is_one_row(comparison, tmp_path, capsys) -> None:
    """Before: build verified both files and the board showed the oracle's row twice."""
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(comparison / "runs" / "oracle" / "seed0"), "--dir", str(board)]) == 0
    files = board / "submissions"
    original = next(files.glob("*.json"))
    (files / "a-copy.json").write_bytes(original.read_bytes())
    capsys.readouterr()
    assert main(["leaderboard", "build", "--dir", str(board)]) == 1
    out = capsys.readouterr().out
    assert f"REJECTED {files / 'a-copy.json'}: the same row as {original.name}" in out
    assert "1 verified submission(s) of 2" in out
    rows = [line for line in (board / "README.md").read_text().splitlines() if line.startswith("| 1 ")]
    assert len(rows) == 1 and "| 2 " not in (board / "README.md").read_text()


def test_a_train_run_is_sent_to_compare_not_called_damaged(tmp_path, capsys) -> None:
    """Before: "damaged file: .../config.json: names suite 'train-...', which this searchgym does not know;
    submit it with the searchgym version that ran it" (no version could: the suite is made by `train`)."""
    run = tmp_path / "run"
    assert main(["train", "--method", "random", "--world-size", "tiny", "--test-size", "3", "--no-progress",
                 "--out", str(run)]) == 0
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(run), "--dir", str(board)]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith(f"searchgym leaderboard: error: {run} is a `searchgym train` run on an ad-hoc suite "
                            "(train-SearchQA-Candidates-Easy-v0); the leaderboard ranks the frozen suites only")
    assert "damaged" not in error and not board.exists()


@pytest.mark.parametrize(("out", "said"), [("subs/", "ends in '/', a folder; give the file to write"),
                                           (None, "is empty; give the file to write")])
def test_an_out_that_names_no_file_is_refused(comparison, tmp_path, monkeypatch, capsys, out, said) -> None:
    """Before: ``--out subs/`` wrote the submission as a file named ``subs``, and ``--out ''`` tried the
    current folder ("Is a directory")."""
    monkeypatch.chdir(tmp_path)
    run = str(comparison / "runs" / "random" / "seed0")
    with pytest.raises(SystemExit) as stop:
        main(["leaderboard", "submit", run, "--out", f"{tmp_path / out}/" if out else ""])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --out: " in err and said in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
