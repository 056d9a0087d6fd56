"""A killed ``searchgym compare`` takes its worker processes with it: a worker whose parent is gone
exits instead of finishing its run into the run folder (which a later command may have rebuilt)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from searchgym.harness.worker_pool import exit_when_orphaned


def test_the_watch_exits_only_once_the_parent_is_gone():
    calls = []
    exit_when_orphaned(os.getppid(), interval=0.0, exit=calls.append, rounds=3)
    assert calls == []  # our parent is alive: three checks, no exit
    exit_when_orphaned(os.getppid() + 1_000_000, interval=0.0, exit=calls.append, rounds=3)
    assert calls == [1]  # a parent that is not ours any more: exit with status 1, at once


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by init) counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_workers_of_a_killed_pool_exit(tmp_path):
    pid_file = tmp_path / "worker.pid"
    script = textwrap.dedent(f"""
        import multiprocessing, os, time
        from concurrent.futures import ProcessPoolExecutor
        from searchgym.harness.worker_pool import init_worker

        def hold(path):
            with open(path, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(120)  # a run that would go on long after its comparison was killed

        if __name__ == "__main__":
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=init_worker, initargs=(1, os.getpid()))
            pool.submit(hold, {str(pid_file)!r})
            while not os.path.exists({str(pid_file)!r}):
                time.sleep(0.05)
            os._exit(0)  # the comparison dies without cleaning up (as under SIGKILL or SIGTERM)
    """)
    (tmp_path / "pool.py").write_text(script)
    subprocess.run([sys.executable, str(tmp_path / "pool.py")], check=True, timeout=120, cwd=tmp_path)
    worker = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker), f"worker {worker} outlived its killed comparison"


def test_ctrl_c_stops_the_workers_and_starts_no_queued_run(tmp_path):
    """Before: on Ctrl-C each worker survived its KeyboardInterrupt (the pool takes it as a task's
    error) and took the run already in the pool's call queue, so compare printed "interrupted" and
    then trained that run to its end (18.9 s later in a reviewer's run)."""
    import signal

    out = tmp_path / "cmp"
    command = [sys.executable, "-m", "searchgym.cli", "compare", "--suite", "quick-v2", "--methods", "cw_grpo,grpo",
               "--seeds", "3", "--budget", "100000", "--workers", "2", "--no-progress", "--out", str(out),
               "--option", "tasks_per_iteration=2", "--option", "group_size=2", "--option", "eval_every=50"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "OMP_NUM_THREADS": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    metrics = [out / "runs" / "cw_grpo" / f"seed{s}" / "metrics.jsonl" for s in (0, 1)]
    deadline = time.monotonic() + 240
    while not all(m.exists() and m.stat().st_size for m in metrics) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert process.poll() is None, process.communicate()[1][-2000:]
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole process group
    sent = time.monotonic()
    _, err = process.communicate(timeout=120)
    assert time.monotonic() - sent < 30 and process.returncode == 130, err[-2000:]
    assert "interrupted; re-run the same command to resume" in err
    assert "leaked semaphore" not in err, err[-2000:]  # before: tqdm's lock in each terminated worker
    started = sorted(str(p.parent.relative_to(out)) for p in out.glob("runs/*/seed*/config.json"))
    assert started == ["runs/cw_grpo/seed0", "runs/cw_grpo/seed1"], started  # no queued run was begun
