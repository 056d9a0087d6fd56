"""benchmarks/endpoint_deadline.py leaves nothing in the temporary folder, on success and on failure
(before: every run left the ``evaluate_openai`` output folder from ``tempfile.mkdtemp`` in /tmp)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
ARGS = ["--deadlines", "0.2", "--repeats", "1"]


def run(tmp_path: Path, code: str) -> tuple[subprocess.CompletedProcess, Path]:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # the benchmarks import their helpers (suite_arg) as top-level modules, as when run from that folder
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": os.pathsep.join([str(BENCHMARKS), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    return result, scratch


def test_a_run_leaves_no_temporary_folder(tmp_path):
    code = f"import runpy, sys; sys.argv = [{str(BENCHMARKS / 'endpoint_deadline.py')!r}, *{ARGS!r}]; " \
           "runpy.run_path(sys.argv[0], run_name='__main__')"
    result, scratch = run(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert "evaluate_openai, 3 tasks" in result.stdout
    assert list(scratch.iterdir()) == []


def test_a_failed_run_leaves_no_temporary_folder(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        sys.argv = ["endpoint_deadline.py", *{ARGS!r}]
        import endpoint_deadline

        def fail(*args, out_dir, **kwargs):
            open(out_dir + "/partial.json", "w").close()
            raise RuntimeError("evaluation failed")

        endpoint_deadline.evaluate_openai = fail
        endpoint_deadline.main()
    """)
    result, scratch = run(tmp_path, code)
    assert result.returncode == 1 and "RuntimeError: evaluation failed" in result.stderr, result.stderr
    assert list(scratch.iterdir()) == []
