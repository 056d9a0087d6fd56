"""run_comparison(workers=2) from a script without `if __name__ == "__main__":` says so."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """\
import sys
from searchgym.harness.compare import Comparison, run_comparison

def main():
    result = run_comparison(Comparison(suite="quick-v2", methods="random", seeds=[0, 1], budget=0,
                                       out="out", device="cpu", workers=2, progress=False))
    print("FAILED:", [o.error for o in result.failed])
    print("RESUMABLE:", [o.resumable for o in result.failed])
"""


def _run(tmp_path, guarded: bool) -> subprocess.CompletedProcess:
    call = 'if __name__ == "__main__":\n    main()\n' if guarded else "main()\n"
    (tmp_path / "script.py").write_text(SCRIPT + call)
    return subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True,
                          check=False, timeout=180)


def test_a_script_without_the_main_guard_is_told_to_add_it(tmp_path):
    done = _run(tmp_path, guarded=False)
    assert done.returncode == 0, done.stderr
    failed = done.stdout.split("FAILED:", 1)[1]
    assert failed.count('put the call under `if __name__ == "__main__":`') == 2  # both runs
    assert "or use workers=1" in failed
    assert "RESUMABLE: [False, False]" in done.stdout  # a re-run of the same script fails the same way
    assert "re-run the same command" not in done.stdout + done.stderr  # a remedy that cannot help
    assert "bootstrapping phase" not in done.stderr  # the worker no longer starts a pool of its own


def test_a_guarded_script_runs_in_workers(tmp_path):
    done = _run(tmp_path, guarded=True)
    assert done.returncode == 0, done.stderr
    assert "FAILED: []" in done.stdout
    assert len(list((tmp_path / "out").glob("runs/random/seed*/DONE"))) == 2
