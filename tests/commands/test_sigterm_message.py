"""SIGTERM on ``searchgym train`` (and ``compare``) says, in one line on stderr, that the run was stopped
and that the same command resumes it, and exits 143, as Ctrl-C says so and exits 130. Before: the
process died of the signal with no word (exit -15), though a re-run resumes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from searchgym.cli import TERMINATED_STATUS, main

ROOT = Path(__file__).resolve().parents[2]
SAID = "stopped by SIGTERM; re-run the same command to resume (finished work is kept)"
TRAIN = ["train", "--method", "harness_helpers:fast_learner", "--world-size", "tiny", "--test-size", "2",
         "--budget", "8", "--device", "cpu", "--no-progress"]


def _command(argv: list[str], sleep: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "harness"), os.environ.get("PYTHONPATH", "")]),
           "SEARCHGYM_TEST_SLEEP": sleep}
    return subprocess.Popen([sys.executable, "-m", "searchgym.cli", *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _terminate_once(process: subprocess.Popen, metrics: Path, timeout: float = 60.0) -> tuple[str, str]:
    """SIGTERM once the run has logged a row (it is training), then its output."""
    deadline = time.monotonic() + timeout
    while not (metrics.is_file() and metrics.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the run ended or never logged a row: {process.communicate()}")
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    return process.communicate(timeout=timeout)


def test_sigterm_on_train_is_one_line_and_the_same_command_resumes(tmp_path) -> None:
    out = tmp_path / "run"
    process = _command([*TRAIN, "--out", str(out)], sleep="0.5")
    _, err = _terminate_once(process, out / "metrics.jsonl")
    assert process.returncode == TERMINATED_STATUS == 143
    assert err.strip() == SAID
    assert not (out / "DONE").exists() and not (out / "error.txt").exists()  # stopped, not failed
    again = _command([*TRAIN, "--out", str(out)], sleep="0")
    printed, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert "(done; files in" in printed and (out / "DONE").exists()
    attempts = {json.loads(line)["attempt"] for line in (out / "metrics.jsonl").read_text().splitlines()}
    assert attempts == {1, 2}  # resumed from the first attempt's checkpoint


def test_sigterm_on_compare_is_the_same_line(tmp_path) -> None:
    out = tmp_path / "out"
    process = _command(["compare", "--suite", "quick-v2", "--methods", "slow=harness_helpers:fast_learner",
                        "--budget", "8", "--device", "cpu", "--no-progress", "--out", str(out)], sleep="0.5")
    _, err = _terminate_once(process, out / "runs" / "slow" / "seed0" / "metrics.jsonl")
    assert process.returncode == 143 and err.strip() == SAID
    assert not (out / "runs" / "slow" / "seed0" / "error.txt").exists()


def test_the_handler_is_put_back_after_the_command(monkeypatch, capsys) -> None:
    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr("searchgym.commands.suites.run", lambda args: 0)
    monkeypatch.setattr("searchgym.commands.train.run", lambda args: 0)
    assert main(["suites"]) == 0 and main(["train", "--start"]) == 0
    assert signal.getsignal(signal.SIGTERM) == before
