"""What a comparison's worker checks as it starts: that it did not re-run its script, and that it has its
parent's tools.

``run_comparison(workers=2)`` starts its workers with "spawn": each imports the caller's main
module again before it takes a run. A script that calls ``run_comparison`` at import time (no
``if __name__ == "__main__":``) then starts a comparison inside every worker, which multiprocessing
refuses ("An attempt has been made to start a new process before the current process has finished
its bootstrapping phase"); the pool broke and every run was reported as "a worker process died;
re-run the same command to resume", a remedy that cannot help. Such a worker now exits with
:data:`MAIN_RERUN_EXIT` instead, and the parent reports :data:`MAIN_RERUN` for its runs.

A worker imports searchgym, the top level of the script, the plugins (``SEARCHGYM_PLUGINS``) and its
run's method: a tool the parent registered elsewhere (under the main guard, or in a module the script
imports there) was not in the worker, whose envs played without it, unsaid (its runs recorded under
another suite hash). Each run now checks the worker's tools against its parent's first
(:func:`run_in_worker`).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence

from searchgym.harness.methods import load_method
from searchgym.harness.recorded_registrations import tool_records, tools_lacking
from searchgym.harness.runner import RunOutcome, RunSpec, execute_run_safely
from searchgym.plugins import LOAD_PLUGIN

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


def lacking_tools_line(lacking: Sequence[str]) -> str:
    """Why a worker refuses its runs: the tools (``name (module.Class)``) its parent registered and it lacks."""
    many = len(lacking) > 1
    return (f"tool{'s' if many else ''} {', '.join(lacking)} {'are' if many else 'is'} registered in the parent "
            "process only: a worker process imports only searchgym, the top level of the script, the plugin "
            f"modules and its run's method; register {'them' if many else 'it'} in a module passed as a plugin "
            f"({LOAD_PLUGIN}), or use workers=1")


#: Why this worker could not import the plugin modules ``$SEARCHGYM_PLUGINS`` names (empty: it could).
_plugin_failure: list[str] = []


def note_plugin_failure(reason: str) -> None:
    """Keep why the worker's plugins did not import, for each of its runs to report (the pool's initializer
    calls it; an initializer that raised broke the pool: "a worker process died", said to be resumable)."""
    _plugin_failure[:] = [reason]


def run_in_worker(spec: RunSpec, parent_tools: Sequence[str]) -> RunOutcome:
    """``execute_run_safely(spec)`` in a worker that registers every tool of ``parent_tools`` (the parent's
    :func:`~searchgym.harness.recorded_registrations.tool_records`) once the run's method is loaded (its
    module may register tools, as it did in the parent); else a failed run that is not resumable, naming
    them, before its folder is touched; likewise in a worker whose plugin modules did not import."""
    if _plugin_failure:
        line = f"{_plugin_failure[0]} (in a worker process of the comparison, which imports the modules it names)"
        return RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed", error=line, resumable=False,
                          advice=line)
    try:
        load_method(spec.method)
    except Exception:  # noqa: BLE001 - the run reports it, as it did before this check
        return execute_run_safely(spec)
    lacking = tools_lacking(parent_tools, tool_records())
    if lacking:
        line = lacking_tools_line(lacking)
        return RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed", error=line, resumable=False,
                          advice=line)
    return execute_run_safely(spec)
