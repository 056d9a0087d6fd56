"""Writing a comparison's report files: one report at a time per folder, ``results.md`` last, and a
folder they cannot be written in said in one line that names the report's file.

Why: two reports writing one folder at once (``report --methods a,b`` beside ``report --methods c,d``)
could leave the results.md of one beside the summary.csv and curves of the other; and in a read-only
folder ``compare`` and ``report`` printed no table, only the OS's error naming a temp file
(``.summary.csv.6kk4ixfe.tmp``) and a remedy (another --out) that ``report`` cannot take.

The files are written in the order ``summary.csv``, the curves, ``results.md`` (which names the
others), under the folder's :class:`~searchgym.folder_lock.FolderLock`: a reader never finds a results.md
newer than the summary.csv beside it, and once a report has written its results.md, every file of it is
that report's. (Each file is replaced atomically; a reader that reads both while a report is written may
still read an older results.md beside a newer summary.csv.)
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from searchgym.fileio import remove_stale_temp_files
from searchgym.folder_lock import FolderLock


class ReportNotWritten(OSError):
    """The report was made (``report``: its :class:`~searchgym.harness.report.ReportPaths`, with its table)
    but ``path``, one of its files, could not be written in ``out``. ``outcomes``: the comparison's runs,
    where ``run_comparison`` made the report."""

    def __init__(self, out: Path, path: Path, error: OSError, report: Any, written: Sequence[Path] = ()) -> None:
        super().__init__(error.errno, error.strerror or str(error), os.fspath(path))
        self.out, self.path, self.report, self.written = out, path, report, tuple(written)
        self.outcomes: list[Any] | None = None

    def line(self) -> str:
        """One line: which file could not be written where, why, which were written before it, and how to
        write the report once that is fixed (results.md is written last: the report it holds is whole)."""
        full = self.errno in (errno.ENOSPC, errno.EDQUOT)
        remedy = "free some space" if full else f"make {self.out} writable"
        done = (f" ({', '.join(p.name for p in self.written)} already written: results.md still shows the "
                "previous report)") if self.written else ""
        return (f"{self.path.name} could not be written in {self.out}: {self.strerror} ({self.path}){done}; "
                f"the table above is not saved: {remedy} and run `searchgym report --out {self.out}`, or run it "
                f"on a writable copy of {self.out}")


def _notice(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextmanager
def report_lock(out: Path, notice: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``out``'s lock while a report's files are written; another process's report is waited for, said in
    one line. Where the lock file cannot be opened (a read-only folder) none is held: no report can be written
    there, and the report's first write fails, naming its file. Held, it removes the temp files a killed
    report left in ``out`` (only reports write files at its top, and only under this lock)."""
    lock = FolderLock(out)
    try:
        if not lock.acquire():
            (notice or _notice)(f"another process (PID {lock.holder()}) is writing the report in {out}; waiting "
                                "for it to finish")
            lock.acquire(wait=True)
        remove_stale_temp_files(out)
    except OSError:
        pass
    try:
        yield
    finally:
        lock.release()


def write_in_order(out: Path, writes: Sequence[tuple[Path, Callable[[], object]]], report: Any) -> None:
    """Each ``(path, write)`` in turn, under :func:`report_lock`; an ``OSError`` is :class:`ReportNotWritten`
    naming ``path`` (before: the temp file an atomic write had tried to make)."""
    with report_lock(out):
        for done, (path, write) in enumerate(writes):
            try:
                write()
            except OSError as exc:
                raise ReportNotWritten(out, path, exc, report, [p for p, _ in writes[:done]]) from exc
