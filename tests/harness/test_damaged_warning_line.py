"""A damaged file that resume sets aside is one line at the CLI, in the parent and in worker processes.
Before: Python's warning form, the code's file and line number and then a line of source code
(``attempt = check_identity(spec) + 1``) under the line that names the file."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from searchgym.damaged import DamagedFileWarning, warnings_on_one_line

HARNESS_TESTS = Path(__file__).parent

SCRIPT = """
import sys
import harness_helpers
from searchgym.cli import main
sys.exit(main(["compare", "--suite", harness_helpers.TINY_QA.id, "--methods", "fast=harness_helpers:fast_learner",
               "--seeds", "0,1", "--budget", "8", "--device", "cpu", "--no-progress", "--workers", {workers!r},
               "--out", {out!r}]))
"""


def test_the_formatter_changes_only_damaged_file_warnings(monkeypatch) -> None:
    monkeypatch.setattr(warnings, "formatwarning", warnings.formatwarning)
    warnings_on_one_line()
    warnings_on_one_line()  # twice: still one wrapper
    assert warnings.formatwarning("f.json: is empty; redoing it", DamagedFileWarning, "x.py", 3, "a = 1") == (
        "warning: f.json: is empty; redoing it\n")
    assert "x.py:3: UserWarning: other" in warnings.formatwarning("other", UserWarning, "x.py", 3, "a = 1")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_damaged_config_of_an_unfinished_run_is_one_warning_line(tmp_path, workers) -> None:
    out = tmp_path / "out"
    for seed in (0, 1):
        run = out / "runs" / "fast" / f"seed{seed}"
        run.mkdir(parents=True)
        (run / "config.json").write_text("garbage{")
    script = SCRIPT.format(workers=workers, out=str(out))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HARNESS_TESTS), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, check=False,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if "config.json" in line or "check_identity" in line]
    assert sorted(lines) == [
        f"warning: {out / 'runs' / 'fast' / f'seed{seed}' / 'config.json'}: is not valid JSON (Expecting value at "
        "line 1 column 1); writing it again and resuming the run" for seed in (0, 1)]
