"""A killed ``searchgym compare`` takes its worker processes with it: a worker whose parent is gone
exits instead of finishing its run into the run folder (which a later command may have rebuilt)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from searchgym.harness.compare import exit_when_orphaned


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
        from searchgym.harness.compare import _init_worker

        def hold(path):
            with open(path, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(120)  # a run that would go on long after its comparison was killed

        if __name__ == "__main__":
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_init_worker, initargs=(1, os.getpid()))
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
