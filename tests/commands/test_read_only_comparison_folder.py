"""A comparison folder the report cannot be written in: ``compare`` and ``report`` print the table, then one
line naming the report's file (not a temp file) and what to do, and exit 1; an --out where the runs cannot
be written is refused before any run, in one line.

Before: no table, only "Permission denied (<out>/.summary.csv.6kk4ixfe.tmp); check the permissions of that
path or choose another --out" (``report`` cannot take another --out: it is its input); and in an empty
read-only --out each run failed in turn before that line. Root writes into read-only folders, so as root
the commands run with every capability dropped (``setpriv``), as a user would; the in-process test stands
in for the OS's refusal where neither can be had.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

HARNESS_TESTS = Path(__file__).resolve().parents[1] / "harness"
COMPARE = ["compare", "--suite", TINY_QA.id, "--methods", "random", "--seeds", "1", "--budget", "0", "--device",
           "cpu", "--no-progress"]
AS_A_USER = ["setpriv", "--bounding-set", "-all", "--inh-caps", "-all", "--"] if os.geteuid() == 0 else []
needs_permissions = pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                                       reason="root writes into read-only folders; setpriv drops that")


def _as_a_user(argv: list[str]) -> subprocess.CompletedProcess:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import harness_helpers; from searchgym.cli import main; "
            "sys.exit(main(sys.argv[2:]))")
    return subprocess.run([*AS_A_USER, sys.executable, "-c", code, str(HARNESS_TESTS), *argv], capture_output=True,
                          text=True, timeout=600)


def _read_only(folder: Path, writable: bool = False) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200 if writable else path.stat().st_mode & ~0o222)


def _unsaved(command: str, out: Path) -> str:
    return (f"searchgym {command}: error: summary.csv could not be written in {out}: Permission "
            f"denied ({out / 'summary.csv'}); the table above is not saved: make {out} writable and run `searchgym "
            f"report --out {out}`, or run it on a writable copy of {out}")


@needs_permissions
def test_compare_and_report_in_a_read_only_folder_print_the_table_and_name_summary_csv(tmp_path) -> None:
    out = tmp_path / "cmp"
    assert main([*COMPARE, "--out", str(out)]) == 0
    before = (out / "results.md").read_bytes()
    _read_only(out)
    try:
        done = {command: _as_a_user(argv) for command, argv in
                (("compare", [*COMPARE, "--out", str(out)]), ("report", ["report", "--out", str(out)]))}
    finally:
        _read_only(out, writable=True)
    for command, ran in done.items():
        assert ran.returncode == 1, ran.stderr
        assert "| random | 1 |" in ran.stdout
        assert ran.stderr.strip().splitlines()[-1] == _unsaved(command, out)
    assert (out / "results.md").read_bytes() == before


@needs_permissions
def test_an_empty_read_only_out_is_refused_before_any_run(tmp_path) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    try:
        ran = _as_a_user([*COMPARE, "--out", str(out)])
    finally:
        out.chmod(0o755)
    assert ran.returncode == 2
    assert ran.stderr.strip() == (f"searchgym compare: error: --out {out} is not writable: no file can be made in "
                                  f"{out} (Permission denied); choose another --out")
    assert os.listdir(out) == []


def test_a_report_the_os_refuses_to_write_is_the_table_then_one_line(tmp_path, monkeypatch, capsys) -> None:
    """In process: every file made in the folder is refused as in a read-only folder (a temp file's name in
    the error, as ``mkstemp`` gives it), the lock file too."""
    out = tmp_path / "cmp"
    assert main([*COMPARE, "--out", str(out)]) == 0
    before, real_mkstemp, real_open = (out / "results.md").read_bytes(), tempfile.mkstemp, os.open

    def mkstemp(suffix=None, prefix=None, dir=None, text=False):
        if dir is not None and Path(dir) == out:
            raise PermissionError(errno.EACCES, "Permission denied", os.path.join(dir, f"{prefix}6kk4ixfe{suffix}"))
        return real_mkstemp(suffix, prefix, dir, text)

    def refuse_lock(path, flags, *args, **kwargs):
        if Path(path) == out / ".lock":
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "open", refuse_lock)
    capsys.readouterr()
    assert main([*COMPARE, "--out", str(out)]) == 1
    ran = capsys.readouterr()
    assert "| random | 1 |" in ran.out and ".tmp" not in ran.err
    assert ran.err.strip().splitlines()[-1] == _unsaved("compare", out)
    assert (out / "results.md").read_bytes() == before


def test_a_file_that_fails_after_others_names_them(tmp_path) -> None:
    """A curve or results.md that cannot be written after summary.csv was: the line names the file that
    failed and those written before it (it said "results.md and summary.csv" whatever failed)."""
    import errno as errnos

    from searchgym.harness.report_files import ReportNotWritten

    error = ReportNotWritten(tmp_path, tmp_path / "results.md", OSError(errnos.EACCES, "Permission denied"), None,
                             [tmp_path / "summary.csv", tmp_path / "learning_curves.png"])
    assert error.line().startswith(f"results.md could not be written in {tmp_path}: Permission denied "
                                   f"({tmp_path / 'results.md'}) (summary.csv, learning_curves.png already "
                                   "written: results.md still shows the previous report); the table above")
