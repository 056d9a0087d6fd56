"""Undo the files of a run attempt that failed before it left anything to resume or read.

Why: a method that could not be built (its factory raised, it returned no Actor, its ``act`` raised)
left ``config.json`` and ``.lock`` in a new folder, and the corrected command (another agent, other
options) was then refused there as "a different run". An attempt is undone only when its folder held
no run before it (new, empty, or an earlier failure's ``error.txt``), and only what the attempt made
is removed: ``config.json``, the logger folders, an empty ``checkpoint``, its lock file, and the
folder itself if the attempt made it. Anything else it wrote is work a re-run resumes, or a record
of what it played (a log row, a checkpoint, an endpoint's transcripts), and the folder is kept whole.
An ``act`` that raised mid-way undoes the attempt too: an agent's predictions are written only once both
splits are played, so nothing of its play could be resumed, and a re-run plays every task again.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from searchgym.fileio import LOCK_NAME
from searchgym.folder_lock import FolderLock

#: What a new folder may hold and still count as holding no run: an earlier failed attempt's record.
EARLIER_FAILURE = frozenset({"error.txt"})
#: What the harness makes before the method has done any work (the checkpoint folder only while empty).
MADE_BEFORE_WORK = frozenset({"config.json", "tensorboard", "wandb", "checkpoint"})


@dataclass(frozen=True)
class FolderBefore:
    """A run folder as it was before this attempt took its lock."""

    folder: Path
    existed: bool
    lock_existed: bool

    @classmethod
    def of(cls, folder: Path) -> FolderBefore:
        return cls(folder, os.path.lexists(folder), os.path.lexists(folder / LOCK_NAME))


def take_lock(lock: FolderLock, wait: bool) -> FolderBefore | None:
    """``lock`` acquired on its folder's lock file as it is now, and the folder as it was just before; None
    where another process holds it. Why the check: a holder that removed the lock file with its unplayed
    attempt left its waiters locking a deleted file, beside a process that makes a new one."""
    while True:
        before = FolderBefore.of(lock.path.parent)
        if not lock.acquire(wait):
            return None
        if lock.holds_current_file():
            return before
        lock.release()


def run_entries(folder: Path) -> frozenset[str]:
    """The names in ``folder``, its lock file aside (none when it does not exist)."""
    try:
        return frozenset(n for n in os.listdir(folder) if n != LOCK_NAME)
    except OSError:
        return frozenset()


def remove_unplayed_attempt(before: FolderBefore, held: frozenset[str]) -> bool:
    """Remove what this attempt made in ``before.folder`` when it left nothing to resume (``held``: the
    folder's entries when the attempt took its lock); whether it did. Called under the folder's lock."""
    folder = before.folder
    if held - EARLIER_FAILURE:  # the folder held a run (or the user's files): never touched
        return False
    made = run_entries(folder) - held
    if made - MADE_BEFORE_WORK or ("checkpoint" in made and _holds_work(folder / "checkpoint")):
        return False  # a log row, a checkpoint, transcripts, predictions: kept for a re-run
    try:
        for name in made:
            path = folder / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        if not before.lock_existed:
            (folder / LOCK_NAME).unlink(missing_ok=True)
        if not before.existed and not os.listdir(folder):
            folder.rmdir()
    except OSError:
        return False  # what could not be removed stays: as before, a re-run of the same command resumes
    return True


def _holds_work(checkpoint: Path) -> bool:
    """Whether the checkpoint folder this attempt made holds anything (or is not a plain folder)."""
    if checkpoint.is_symlink() or not checkpoint.is_dir():
        return True
    return any(True for _ in checkpoint.iterdir())
