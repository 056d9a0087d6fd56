"""SIGTERM while any command writes a file stops it as Ctrl-C does: the half-written temp file is
removed, the one line says it was stopped, and the status is 143.

Before: only train, compare and recipe turned SIGTERM into an exception; `searchgym report` (or any
command storing a world in the cache) died of the signal mid-write, which left its temp file
(``.summary.csv.z6wyrzrp.tmp``, a world's 11 MB ``.part``) in the folder for good."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.fileio import _TEMP_NAME

ROOT = Path(__file__).resolve().parents[2]
#: Runs ``searchgym ARGS`` with SIGTERM sent to itself at the first call of ``os.STEP`` (mid-write).
_TERMINATED_AT = """
import os, signal, sys
from searchgym.cli import main
from searchgym.world import disk_cache
disk_cache.MIN_CACHED_SCALE = 0  # a tiny world goes through the cache too
step, real = sys.argv[1], getattr(os, sys.argv[1])
def terminated(*args):
    setattr(os, step, real)
    os.kill(os.getpid(), signal.SIGTERM)
    return real(*args)
setattr(os, step, terminated)
sys.exit(main(sys.argv[2:]))
"""


def _terminated_at(step: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    paths = os.pathsep.join([str(ROOT / "tests" / "harness"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", _TERMINATED_AT, step, *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": paths, **(env or {})})


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args("random"), "sigterm_report")


def test_sigterm_during_a_reports_write_removes_its_temp_file(compared):
    before = (compared / "summary.csv").read_bytes()
    done = _terminated_at("fsync", ["report", "--out", str(compared)])
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "stopped by SIGTERM"
    assert [name for name in os.listdir(compared) if _TEMP_NAME.match(name)] == []
    assert (compared / "summary.csv").read_bytes() == before


def test_sigterm_while_a_world_is_stored_removes_its_part_file(tmp_path):
    done = _terminated_at("replace", ["world", "stats", "--size", "tiny"], {"SEARCHGYM_WORLD_CACHE": str(tmp_path)})
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip() == "stopped by SIGTERM"
    assert [name for name in os.listdir(tmp_path) if name.endswith(".part")] == []
