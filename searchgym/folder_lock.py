"""One writer per folder: an advisory ``flock`` on ``folder/.lock`` (run folders, a comparison's
report, the tiny-LM recipe). Why a module of its own: the rest of :mod:`searchgym.fileio` writes
files; this decides who may write a folder."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import Any

from searchgym.fileio import LOCK_NAME, open_in_place


class FolderLock:
    """One writer per folder: an advisory ``fcntl.flock`` on ``folder/.lock``.

    The kernel holds the lock for the open file, so it dies with its holder: a process killed
    with SIGKILL leaves the file behind but not the lock, and a stale file never blocks (unlike
    a PID file). The holder's PID is written into the file only to name it in messages. Where
    ``fcntl`` does not exist (Windows) the lock always succeeds.
    """

    NAME = LOCK_NAME

    def __init__(self, folder: str | os.PathLike) -> None:
        self.path = Path(folder) / self.NAME
        self._file: Any = None

    def acquire(self, wait: bool = False) -> bool:
        """Take the lock (blocking until free when ``wait``); False if another process holds it."""
        try:
            import fcntl
        except ImportError:  # no advisory locks on this platform
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Before: open(path, "a+"), which followed a link there and truncated its target below
        handle = os.fdopen(open_in_place(self.path, os.O_RDWR), "r+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            handle.close()
            return False
        except BaseException:
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle
        return True

    def holds_current_file(self) -> bool:
        """Whether the held lock is on the file now at ``path``. Why: a holder that removed the lock file
        (a run whose method could not be built leaves nothing behind) left its waiters locking a deleted
        file, beside a process that makes a new one."""
        if self._file is None:
            return True  # no advisory locks on this platform (or none held): nothing to compare
        try:
            return os.path.samestat(os.fstat(self._file.fileno()), os.stat(self.path, follow_symlinks=False))
        except OSError:
            return False

    def holder(self) -> str:
        """The PID the holder wrote (for messages), or "?" when unknown."""
        try:
            return self.path.read_text(encoding="utf-8").strip() or "?"
        except OSError:
            return "?"

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the flock
            self._file = None

    def __enter__(self) -> FolderLock:
        self.acquire(wait=True)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()
