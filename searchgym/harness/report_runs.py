"""The runs a comparison's report shows no row for, named, with the first error of those that failed.

Every text here that comes from the comparison's folder (a method's folder name, a line of its
``error.txt``) is shown through :func:`run_reads.shown_text`: the folder may be someone else's, and
before, ESC sequences written into an ``error.txt`` (clear the screen, set the window title) were
printed raw by ``searchgym report`` and written into results.md.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile, open_regular
from searchgym.folder_lock import FolderLock
from searchgym.harness.run_reads import is_seed_folder, shown_text
from searchgym.harness.runner import DONE, run_dir

#: The end of an error.txt read for its error line (the last exception is written last).
ERROR_TAIL_BYTES = 64 * 1024


def run_error(folder: Path) -> str | None:
    """The exception line of a failed run's ``error.txt`` ("RuntimeError: ..."), at most 200 characters,
    its control characters escaped; None where there is none (or it cannot be read: a folder, a FIFO)."""
    if (folder / "error.txt").is_symlink():  # a run writes none: not ours to read into results.md
        return None
    try:
        with open_regular(folder / "error.txt") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - ERROR_TAIL_BYTES))
            lines = handle.read(ERROR_TAIL_BYTES).decode("utf-8", "replace").splitlines()
    except (OSError, DamagedFile):
        return None
    last = max((i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")),
               default=-1)
    said = next((line for line in lines[last + 1:] if line.strip() and not line[0].isspace()), "")
    said = shown_text(" ".join(said.split()))
    return (said[:197] + "..." if len(said) > 200 else said) or None


def running_pid(folder: Path) -> str | None:
    """The PID in a run folder's lock file while a live process holds that lock (it is writing the run), else
    None. Nothing is written: the file is opened to read and a shared lock tried without waiting. A writer
    that tries the lock in that instant finds the run busy: ``compare`` waits for it; a single ``train`` or
    ``evaluate`` into that very folder says it is busy, and a re-run goes on."""
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform
        return None
    try:
        fd = os.open(folder / FolderLock.NAME, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return shown_text(handle.read(32).decode("ascii", "replace").strip()) or "?"
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
    return None


def no_finished_run(out: Path, records: Sequence[Any], labels: Sequence[str], seeds: Sequence[int]) -> list[str]:
    """One line per method with no finished run: how many of its runs failed, and the first error.
    Why: such a method has no row in any table, and `searchgym report` named it nowhere."""
    done = {r.label for r in records}
    lines = []
    for label in (label for label in labels if label not in done):
        running, errors = [], []  # a running run's error.txt is an earlier attempt's
        for seed in seeds:
            if (pid := running_pid(run_dir(out, label, seed))) is not None:
                running.append(pid)
            elif (error := run_error(run_dir(out, label, seed))) is not None:
                errors.append(error)
        runs = f"{len(seeds)} run{'s' if len(seeds) != 1 else ''}"
        if running:  # before: "none of its 1 run finished (stopped or not run)" of a run being trained
            what = ("its run is still running" if len(seeds) == 1
                    else f"no run finished yet, {len(running)} of {runs} running")
            what += f" (PID {', '.join(dict.fromkeys(running))})" + (f", {len(errors)} failed" if errors else "")
        else:
            what = (("its run failed" if len(seeds) == 1 else f"all {runs} failed") if len(errors) == len(seeds)
                    else f"no run finished, {len(errors)} of {runs} failed" if errors
                    else f"none of its {runs} finished (stopped or not run)")
        lines.append(f"{shown_text(label)}: {what}" + (f"; first error: {errors[0]}" if errors else ""))
    return lines


def unfinished_sentence(records: Sequence[Any], labels: Sequence[str], seeds: Sequence[int]) -> str:
    """The runs no table shows, named. Why: "Finished runs: 2 of 4" alone left a method whose every
    run failed out of each table without a word of it in results.md."""
    done = {(r.label, r.seed) for r in records}
    missing = [f"{shown_text(label)}/seed{seed}" for label in labels for seed in seeds if (label, seed) not in done]
    if not missing:
        return ""
    more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
    return f" Not finished (failed, stopped or not run), so in no table: {', '.join(missing[:8])}{more}."


def finished_counts(out: Path) -> dict[str, int]:
    """Every method folder under ``out/runs`` -> how many finished runs it holds (``seed<N>`` with a regular
    ``DONE``), no link followed (a linked one is not this comparison's) and no file read. Why: ``report
    --methods random`` wrote "Finished runs: 1 of 1" beside two other finished methods, as if the folder held
    one run; an error lists the methods with a finished run, and stale curves are those of a method folder."""
    def finished(seed_dir: Path) -> bool:
        done = seed_dir / DONE
        return is_seed_folder(seed_dir) and not seed_dir.is_symlink() and done.is_file() and not done.is_symlink()

    runs = out / "runs"
    if runs.is_symlink() or not runs.is_dir():
        return {}
    return {p.name: sum(map(finished, p.iterdir())) for p in sorted(runs.iterdir())
            if p.is_dir() and not p.is_symlink()}


def remove_stale_curves(out: Path, written: Sequence[Path], methods: Collection[str]) -> list[Path]:
    """Remove the ``curves/<method>.png`` (``<method>@budget<N>.png``) of an earlier report that this one did
    not draw, for a method folder under ``runs/`` (``methods``: :func:`finished_counts`' keys; a file only a
    report writes; no link, nothing else); returns them. Why: ``report --methods random`` left
    ``curves/grpo.png`` beside a results.md with no grpo, as if it were this report's; ``searchgym report
    --out OUT`` draws it again from the runs."""
    curves = out / "curves"
    if curves.is_symlink() or not curves.is_dir():
        return []
    kept = {Path(p).name for p in written if Path(p).parent == curves}
    stale = [p for p in sorted(curves.glob("*.png")) if p.name not in kept and p.stem.partition("@")[0] in methods
             and p.is_file() and not p.is_symlink()]
    for path in stale:
        path.unlink()
    return stale
