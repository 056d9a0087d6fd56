"""One writer per run folder: a run another live process holds is skipped, said so, then waited
for; a lock left by a killed process never blocks; two compares on one --out train each run once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness_helpers import SLEEP_ENV, TINY_QA

from searchgym.fileio import read_jsonl
from searchgym.folder_lock import FolderLock
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import RunSpec, execute_run, is_done, run_dir

HERE = Path(__file__).resolve().parent
HOLD = "import sys, time; from searchgym.folder_lock import FolderLock; l = FolderLock(sys.argv[1]); " \
       "assert l.acquire(); print('held', flush=True); time.sleep(float(sys.argv[2]))"


def hold(folder: Path, seconds: float) -> subprocess.Popen:
    """A process that holds the folder's lock for ``seconds`` (then exits, dropping it)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def fast(out: Path, seeds=(0,)) -> Comparison:
    return Comparison(TINY_QA, parse_methods("fast=harness_helpers:fast_learner"), list(seeds), 40, out, "cpu",
                      progress=False, reference="fast")


def test_a_held_lock_is_refused_and_a_killed_holder_leaves_no_lock(tmp_path) -> None:
    holder = hold(tmp_path, 60)
    try:
        lock = FolderLock(tmp_path)
        assert not lock.acquire() and lock.holder() == str(holder.pid)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    assert (tmp_path / ".lock").exists()  # the stale file stays ...
    lock = FolderLock(tmp_path)
    assert lock.acquire()  # ... and does not block
    assert lock.holder() == str(os.getpid())
    lock.release()


def test_a_run_held_by_another_process_is_busy_and_untouched(tmp_path) -> None:
    spec = fast(tmp_path).plan()[0]
    holder = hold(spec.run_dir, 60)
    try:
        outcome = execute_run(spec)
        assert outcome.status == "busy" and f"PID {holder.pid}" in outcome.error
        assert sorted(p.name for p in spec.run_dir.iterdir()) == [".lock"]  # nothing written
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    assert execute_run(spec).status == "done"


def test_compare_waits_for_a_held_run_then_does_it(tmp_path, capsys) -> None:
    spec: RunSpec = fast(tmp_path, seeds=(0, 1)).plan()[0]  # the first run the comparison reaches
    holder = hold(spec.run_dir, 4.0)  # exits after 4 s without finishing the run
    start = time.monotonic()
    result = run_comparison(fast(tmp_path, seeds=(0, 1)))
    holder.wait(timeout=30)
    assert time.monotonic() - start >= 1.0  # it waited for the holder
    assert sorted((o.seed, o.status) for o in result.outcomes) == [(0, "done"), (1, "done")]
    captured = capsys.readouterr()
    assert f"another live process (PID {holder.pid}) is writing" in captured.out + captured.err
    assert [r["attempt"] for r in read_jsonl(spec.run_dir / "metrics.jsonl")] == [1, 1, 1, 1]


def test_two_compares_on_one_out_train_each_run_once(tmp_path) -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[2]); from harness_helpers import TINY_QA; "
            "from searchgym.cli import main; sys.exit(main(['compare', '--suite', TINY_QA.id, '--methods', "
            "'fast=harness_helpers:fast_learner', '--seeds', '0,1,2', '--budget', '40', '--device', 'cpu', "
            "'--out', sys.argv[1], '--no-progress', '--reference', 'fast']))")
    env = {**os.environ, SLEEP_ENV: "0.3", "PYTHONPATH": str(HERE)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(HERE)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outputs]
    for seed in (0, 1, 2):
        folder = run_dir(tmp_path, "fast", seed)
        assert is_done(folder)
        rows = read_jsonl(folder / "metrics.jsonl")
        assert [(r["step"], r["attempt"]) for r in rows] == [(10, 1), (20, 1), (30, 1), (40, 1)], rows


def test_train_on_a_folder_another_process_writes_says_so(tmp_path, capsys) -> None:
    """Before: "damaged file: .../result.json: is missing from a finished run; delete .../DONE" (no DONE
    existed: the other process was still training)."""
    from searchgym.cli import main

    out = tmp_path / "run"
    holder = hold(out, 60)
    try:
        code = main(["train", "--method", "random", "--world-size", "tiny", "--test-size", "2", "--no-progress",
                     "--out", str(out)])
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2
    assert error == (f"searchgym train: error: another live process (PID {holder.pid}) is writing {out}; wait for "
                     "it to finish (then re-run to see its result), or use another --out")
