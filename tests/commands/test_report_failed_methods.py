"""``searchgym report`` without ``--methods`` names a method none of whose runs finished, with its first
error. Before: such a method was left out of results.md and the printed table without a word (only
finished runs were looked at, so it was not even counted among the runs that had not finished)."""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import CRASH_ENV, TINY_QA

from searchgym.cli import main
from searchgym.harness.report import run_error

ARGS = ["compare", "--suite", TINY_QA.id, "--methods", "random,bad=harness_helpers:fast_learner", "--seeds", "2",
        "--budget", "8", "--device", "cpu", "--no-progress"]
LINE = "bad: all 2 runs failed; first error: RuntimeError: simulated crash"


@pytest.fixture(scope="module")
def failed(tmp_path_factory):
    """A comparison whose method "bad" failed at both seeds (random finished both)."""
    out = tmp_path_factory.mktemp("failed") / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CRASH_ENV, "0:raise")
        assert main([*ARGS, "--seeds", "0,", "--out", str(out)]) == 1
        patch.setenv(CRASH_ENV, "1:raise")
        assert main([*ARGS, "--seeds", "1,", "--out", str(out)]) == 1
    assert not any((out / "runs" / "bad").glob("seed*/DONE"))
    return out


def test_report_names_a_method_whose_every_run_failed(failed, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    shutil.copytree(failed, out)
    (out / "results.md").unlink()
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"no finished run, so no row above:\n  {LINE}" in printed
    assert "2 of 4 (method, seed) runs have not finished; they are left out" in printed
    text = (out / "results.md").read_text()
    assert f"No finished run, so no row in any table:\n\n- {LINE}\n" in text
    assert "Finished runs: 2 of 4. Not finished (failed, stopped or not run), so in no table: bad/seed0, bad/seed1." in text


def test_compare_writes_the_same_lines(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(CRASH_ENV, "0:raise")
    out = tmp_path / "out"
    assert main([*ARGS, "--seeds", "0,", "--out", str(out)]) == 1
    assert "- bad: its run failed; first error: RuntimeError: simulated crash\n" in (out / "results.md").read_text()


def test_no_finished_run_at_all_says_which_failed(failed, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    shutil.copytree(failed, out)
    shutil.rmtree(out / "runs" / "random")
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "holds no finished run" in err and "(2 failed; the first, bad/seed0: RuntimeError: simulated crash)" in err
    assert "\n" not in err


def test_a_stopped_method_is_named_too(failed, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    shutil.copytree(failed, out)
    for error in (out / "runs" / "bad").glob("seed*/error.txt"):
        error.unlink()
    assert main(["report", "--out", str(out)]) == 0
    assert "bad: none of its 2 runs finished (stopped or not run)" in capsys.readouterr().out


def test_the_error_line_is_the_last_exception_of_error_txt(tmp_path) -> None:
    (tmp_path / "error.txt").write_text("Traceback (most recent call last):\n  File \"x\", line 1\nKeyError: 'a'\n\n"
                                        "During handling of the above exception, another exception occurred:\n\n"
                                        "Traceback (most recent call last):\n  File \"y\", line 2\n    boom()\n"
                                        f"ValueError: {'x' * 300}\nsecond line\n")
    assert run_error(tmp_path) == "ValueError: " + "x" * 185 + "..."
    (tmp_path / "error.txt").unlink()
    (tmp_path / "error.txt").mkdir()  # no file to read: no error line, and no traceback
    assert run_error(tmp_path) is None
