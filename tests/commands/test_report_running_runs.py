"""``searchgym report`` while a run is being written (its folder's lock held by a live process) says it is
running, with that process's PID; and a run that finished after a failed attempt keeps no error.txt.

Before: a run ``compare`` was training was "none of its 1 run finished (stopped or not run)"; with no run
finished, "re-run it to finish its runs"; and a failed attempt's error.txt stayed beside DONE once a
resumed attempt finished the run.
"""

from __future__ import annotations

import os

from harness_helpers import CRASH_ENV, TINY_QA

from searchgym.cli import main
from searchgym.folder_lock import FolderLock
from searchgym.harness.runner import is_done, run_dir

COMPARE = ["compare", "--suite", TINY_QA.id, "--seeds", "1", "--budget", "8", "--device", "cpu", "--no-progress"]


def test_a_run_being_written_is_named_running_with_its_pid(tmp_path, capsys) -> None:
    assert main([*COMPARE, "--methods", "random", "--out", str(tmp_path)]) == 0
    lock = FolderLock(run_dir(tmp_path, "fast", 0))  # as compare holds it while it trains the run
    assert lock.acquire()
    try:
        capsys.readouterr()
        assert main(["report", "--out", str(tmp_path)]) == 0
    finally:
        lock.release()
    printed = capsys.readouterr().out
    assert f"no finished run, so no row above:\n  fast: its run is still running (PID {os.getpid()})\n" in printed
    assert "stopped or not run" not in printed
    assert main(["report", "--out", str(tmp_path)]) == 0  # the lock dropped: as before
    assert "fast: none of its 1 run finished (stopped or not run)" in capsys.readouterr().out


def test_no_finished_run_but_one_running_says_to_report_once_it_has_finished(tmp_path, capsys) -> None:
    lock = FolderLock(run_dir(tmp_path, "fast", 0))
    assert lock.acquire()
    try:
        assert main(["report", "--out", str(tmp_path)]) == 2
    finally:
        lock.release()
    assert capsys.readouterr().err.strip() == (
        f"searchgym report: error: {tmp_path / 'runs'} holds no finished run yet: 1 running (the first, fast/seed0, "
        f"in PID {os.getpid()}); report again once they have finished")


def test_a_run_finished_after_a_failed_attempt_keeps_no_error_txt(tmp_path, monkeypatch) -> None:
    argv = [*COMPARE, "--methods", "fast=harness_helpers:fast_learner", "--reference", "fast", "--out", str(tmp_path)]
    monkeypatch.setenv(CRASH_ENV, "0:raise")
    assert main(argv) == 1
    folder = run_dir(tmp_path, "fast", 0)
    assert (folder / "error.txt").is_file()
    monkeypatch.delenv(CRASH_ENV)
    assert main(argv) == 0
    assert is_done(folder) and not (folder / "error.txt").exists()
