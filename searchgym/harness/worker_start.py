"""Telling a comparison's worker that re-ran its script from one that died.

``run_comparison(workers=2)`` starts its workers with "spawn": each imports the caller's main
module again before it takes a run. A script that calls ``run_comparison`` at import time (no
``if __name__ == "__main__":``) then starts a comparison inside every worker, which multiprocessing
refuses ("An attempt has been made to start a new process before the current process has finished
its bootstrapping phase"); the pool broke and every run was reported as "a worker process died;
re-run the same command to resume", a remedy that cannot help. Such a worker now exits with
:data:`MAIN_RERUN_EXIT` instead, and the parent reports :data:`MAIN_RERUN` for its runs.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence

#: A worker's exit status when it re-ran the script that called run_comparison (sysexits' EX_CONFIG).
MAIN_RERUN_EXIT = 78

#: Why a pool's runs failed when one of its workers died (killed, out of memory): resume redoes them.
WORKER_DIED = "a worker process died; re-run the same command to resume"
MAIN_RERUN = ("each worker process re-ran the script that called run_comparison while starting, so none could "
              "take a run: put the call under `if __name__ == \"__main__\":` (worker processes import the "
              "script again), or use workers=1")


def exit_if_starting_worker() -> None:
    """In a worker still importing its parent's main module (multiprocessing's bootstrapping phase),
    exit with :data:`MAIN_RERUN_EXIT` before any of the comparison's work is done a second time."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SystemExit(MAIN_RERUN_EXIT)


def reran_main(processes: Sequence, grace: float = 10.0) -> bool:
    """Whether one of a broken pool's ``processes`` exited with :data:`MAIN_RERUN_EXIT` (waits up to
    ``grace`` seconds for those not yet reaped: the pool's own thread ends them; 2 s were too few for a
    worker's exit on a loaded machine, which then read as a worker that died)."""
    deadline = time.monotonic() + grace
    for process in processes:
        if process.exitcode is None:
            process.join(timeout=max(deadline - time.monotonic(), 0.0))
    return any(process.exitcode == MAIN_RERUN_EXIT for process in processes)
