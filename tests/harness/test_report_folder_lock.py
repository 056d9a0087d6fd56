"""Two reports writing one comparison folder take turns: the second waits for the first (said in one line),
and each writes summary.csv, its curves, then results.md, all under the folder's lock.

Before: ``report --out F --methods random,cw_grpo & report --out F --methods oracle,grpo`` could leave the
results.md of one beside the summary.csv and curves of the other. The other report is stood in for by the
test holding the folder's lock.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from harness_helpers import TINY_QA

from searchgym.folder_lock import FolderLock
from searchgym.harness import report_files
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.report import write_report

REPORT = ("summary.csv", "learning_curves.png", "results.md")


def test_a_report_waits_for_the_one_writing_its_folder_then_writes_results_md_last(tmp_path, monkeypatch) -> None:
    run_comparison(Comparison(TINY_QA, parse_methods("random,oracle"), [0], 0, tmp_path, "cpu", progress=False))
    for name in REPORT:
        (tmp_path / name).unlink()
    notices, waiting = [], threading.Event()
    monkeypatch.setattr(report_files, "_notice", lambda text: (notices.append(text), waiting.set()))
    replaced, real_replace = [], os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (replaced.append(Path(dst).name), real_replace(src, dst)))
    holder = FolderLock(tmp_path)  # the other report, writing the folder
    assert holder.acquire()
    thread = threading.Thread(target=write_report, args=(tmp_path, TINY_QA, ["random", "oracle"], [0]))
    thread.start()
    try:
        while not waiting.wait(0.05) and thread.is_alive():
            pass
        assert notices == [f"another process (PID {os.getpid()}) is writing the report in {tmp_path}; waiting for it "
                           "to finish"]
        assert replaced == [] and not any((tmp_path / name).exists() for name in REPORT)  # nothing, while it waits
    finally:
        holder.release()
        thread.join(timeout=300)
    assert replaced == ["summary.csv", "learning_curves.png", "results.md"]  # results.md, which names them, last
    assert all((tmp_path / name).is_file() for name in REPORT)


def test_the_report_lock_clears_a_killed_reports_temp_files(tmp_path):
    """A report killed (SIGKILL) during a write left its temp file at the comparison's top for good; the
    next report, holding the lock, removes it, and leaves every other file alone."""
    from searchgym.harness.report_files import report_lock

    left = tmp_path / ".summary.csv.ab12cd34.tmp"
    left.write_text("half")
    (tmp_path / "mine.tmp").write_text("a user's")
    with report_lock(tmp_path):
        assert not left.exists()
    assert (tmp_path / "mine.tmp").read_text() == "a user's"
