"""Crash-exact resume: a run killed with SIGKILL right after a checkpoint, or right after a
metrics row and before its checkpoint, resumes to exactly the metrics rows of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from searchgym.damaged import DamagedFileWarning
from searchgym.fileio import read_jsonl
from searchgym.harness.methods import METHODS, MethodRef
from searchgym.harness.runner import RunSpec, execute_run, is_done
from searchgym.suites import Suite, register_suite

SUITE_ARGS = ("test-crash-resume-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 3})
SUITE_KW = {"world_size": "tiny", "dev_size": 1, "test_size": 2}
SUITE = register_suite(Suite(*SUITE_ARGS, **SUITE_KW))
OPTIONS = {"group_size": 2, "tasks_per_iteration": 2, "eval_every": 2, "eval_tasks": 1}
BUDGET = 60

KILLER = textwrap.dedent(f"""
    import os, signal, sys
    from pathlib import Path
    from searchgym.agents import train
    from searchgym.harness.methods import METHODS, MethodRef
    from searchgym.harness.runner import RunSpec, execute_run
    from searchgym.suites import Suite, register_suite

    mode, at, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    suite = register_suite(Suite(*{SUITE_ARGS!r}, **{SUITE_KW!r}))
    save, log = train.Trainer.save, train.Trainer._log

    def save_then_die(self):
        save(self)
        if mode == "after-checkpoint" and self.state.iteration == at:
            os.kill(os.getpid(), signal.SIGKILL)

    def log_then_die(self, row):
        log(self, row)
        if mode == "after-row" and row.get("iteration") == at:
            os.kill(os.getpid(), signal.SIGKILL)

    train.Trainer.save, train.Trainer._log = save_then_die, log_then_die
    execute_run(RunSpec(suite, MethodRef("cw_grpo", METHODS["cw_grpo"]), 0, {BUDGET}, out, "cpu",
                        options={OPTIONS!r}))
""")


def spec(out: Path) -> RunSpec:
    return RunSpec(SUITE, MethodRef("cw_grpo", METHODS["cw_grpo"]), 0, BUDGET, out, "cpu", options=dict(OPTIONS))


def rows(run: RunSpec) -> list[tuple]:
    return [(r["iteration"], r["step"], r.get("train_success"), r.get("dev_success"))
            for r in read_jsonl(run.run_dir / "metrics.jsonl")]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> list[tuple]:
    run = spec(tmp_path_factory.mktemp("whole"))
    execute_run(run)
    return rows(run)


@pytest.mark.parametrize("mode", ["after-checkpoint", "after-row"])
def test_a_run_killed_at_the_checkpoint_resumes_with_exactly_its_rows(tmp_path, uninterrupted, mode) -> None:
    assert len(uninterrupted) >= 4, uninterrupted  # iteration 0 and at least three more
    run = spec(tmp_path)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    killed = subprocess.run([sys.executable, "-c", KILLER, mode, "2", str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert not is_done(run.run_dir)
    before = rows(run)
    assert before == uninterrupted[: len(before)] and before[-1][0] == 2  # killed at iteration 2
    execute_run(run)  # the same command again: resume
    assert rows(run) == uninterrupted
    attempts = [r["attempt"] for r in read_jsonl(run.run_dir / "metrics.jsonl")]
    assert attempts == sorted(attempts) and attempts[-1] == 2


@pytest.mark.parametrize("iteration", [3, 10**17])
def test_a_metrics_row_past_the_checkpoint_is_warned_about_and_drops_no_row(tmp_path, uninterrupted,
                                                                           iteration) -> None:
    """Before: the resumed run wrote no row up to the highest iteration in the file, so one row of
    iteration 10**17 dropped every row of the run, silently."""
    run = spec(tmp_path)
    run.run_dir.mkdir(parents=True)
    (run.run_dir / "metrics.jsonl").write_text(f'{{"iteration": {iteration}, "step": 0}}\n')  # no checkpoint
    with pytest.warns(DamagedFileWarning, match=r"metrics.jsonl: holds rows past iteration 0, where the"):
        execute_run(run)
    assert rows(run)[1:] == uninterrupted


def test_a_resumed_run_removes_the_temp_files_a_killed_write_left(tmp_path, uninterrupted) -> None:
    # before: a SIGKILL during a checkpoint's write left .checkpoint.pt.<random>.tmp for good
    run = spec(tmp_path)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    killed = subprocess.run([sys.executable, "-c", KILLER, "after-checkpoint", "2", str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    left = [run.run_dir / "checkpoint" / ".checkpoint.pt.k1ll3d_x.tmp", run.run_dir / ".metrics.jsonl.a8bc9d0e.tmp"]
    for path in left:
        path.write_bytes(b"\0" * 4096)
    kept = run.run_dir / "checkpoint" / "notes.tmp"  # not a name an atomic write gives: not ours to delete
    kept.write_text("mine")
    execute_run(run)
    assert is_done(run.run_dir) and rows(run) == uninterrupted
    assert not any(path.exists() for path in left) and kept.read_text() == "mine"
