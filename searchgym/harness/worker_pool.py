"""A comparison's runs in worker processes: a "spawn" pool, each worker limited to its threads, watching
its parent, importing the plugins; a dead worker or Ctrl-C reported per run and resumable.

Why "spawn": no worker inherits a half-initialised torch or thread pool. Why here: the pool's
start, watch and stop are one concern, apart from planning and reporting (:mod:`.compare`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from searchgym.damaged import warnings_on_one_line
from searchgym.harness.recorded_registrations import tool_records
from searchgym.harness.runner import RunOutcome, RunSpec
from searchgym.harness.worker_start import MAIN_RERUN, WORKER_DIED, note_plugin_failure, reran_main, run_in_worker
from searchgym.plugins import PluginError, environment_plugins, import_plugins


def init_worker(threads: int, parent_pid: int | None = None) -> None:
    """Per-worker thread limits (set before the method imports torch), a watch on the parent (a worker
    whose comparison was killed exits instead of finishing its run into the folder), and the modules of
    ``$SEARCHGYM_PLUGINS``: a "spawn" worker runs only the top level of the caller's script, so other
    registrations (``--plugin``, under ``if __name__ == "__main__":``) were in the parent only."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)
    warnings_on_one_line()  # a damaged file a worker sets aside is one line, as in the parent
    # tqdm's default lock (bm25s's index bars take it) is a named semaphore, which a worker terminated
    # on Ctrl-C never unlinks: "There appear to be 2 leaked semaphore objects" at exit. A thread lock
    # does (the pool's workers print no bars).
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())
    if parent_pid is not None:
        threading.Thread(target=exit_when_orphaned, args=(parent_pid,), daemon=True, name="parent-watch").start()
    try:
        import_plugins(environment_plugins())
    except PluginError as exc:  # each run says so (before: the pool broke, "a worker process died", resumable)
        note_plugin_failure(str(exc))


def exit_when_orphaned(parent_pid: int, interval: float = 1.0, exit: Callable[[int], Any] = os._exit,
                       rounds: int | None = None) -> None:
    """Exit (status 1) once this process's parent is no longer ``parent_pid``: killing
    ``searchgym compare`` (SIGTERM, SIGKILL, or Ctrl-C, after which the pool stops waiting) then
    stops its workers too, within ``interval`` seconds. The run they held is left unfinished and
    resumes when the same command runs again (results are written atomically). ``rounds`` bounds
    the checks (tests)."""
    checked = 0
    while rounds is None or checked < rounds:
        if os.getppid() != parent_pid:
            exit(1)
            return
        checked += 1
        time.sleep(interval)



def run_in_pool(todo: Sequence[RunSpec], workers: int, threads: int, record: Callable[[RunOutcome], None],
                 tick: Callable[[], None] = lambda: None, tick_seconds: float = 1.0) -> None:
    """Runs in worker processes; ``tick`` is called every ``tick_seconds`` while they work."""
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=context,
                               initializer=init_worker, initargs=(threads, os.getpid()))
    futures = {pool.submit(run_in_worker, spec, tool_records()): spec for spec in todo}
    started = list((getattr(pool, "_processes", None) or {}).values())  # "spawn" starts them all at once
    died: list[str] = []  # why the pool broke, found out once
    pending = set(futures)
    try:
        while pending:
            finished, pending = wait(pending, timeout=tick_seconds, return_when=FIRST_COMPLETED)
            tick()
            for future in finished:
                if not died and not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
                    died.append(MAIN_RERUN if reran_main(started) else WORKER_DIED)
                record_future(future, futures[future], record, died[0] if died else WORKER_DIED)
    except BaseException:
        workers_now = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        stop_workers(workers_now)
        raise
    pool.shutdown(wait=True)


def stop_workers(processes: list, grace: float = 5.0) -> None:
    """Terminate the pool's workers (SIGTERM; each run resumes from its last checkpoint). Why: on
    Ctrl-C a worker survives its KeyboardInterrupt (the pool catches it as a task's error) and takes
    the run already in the pool's call queue, which ``cancel_futures`` cannot cancel, so compare
    started a new run after saying "interrupted" and waited for it to finish."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(timeout=max(deadline - time.monotonic(), 0.0))


def record_future(future, spec: RunSpec, record: Callable[[RunOutcome], None],
                   died: str = WORKER_DIED) -> None:
    try:
        outcome = future.result()
    except BrokenProcessPool:  # a script without the main guard fails the same way again: not resumable
        outcome = RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed", error=died,
                             resumable=died != MAIN_RERUN, advice=MAIN_RERUN if died == MAIN_RERUN else None)
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
        outcome = RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed",
                             error=f"{type(exc).__name__}: {exc}")
    record(outcome)
