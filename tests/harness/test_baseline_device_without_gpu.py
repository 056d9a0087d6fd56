"""A run whose method trains nothing plays on the CPU where ``cuda`` was asked for and no GPU is visible.

Before: Ray gives a baseline's task no GPU and hides every GPU from it (``CUDA_VISIBLE_DEVICES=""``), so
``compare --executor ray --device cuda`` failed each baseline run with "torch sees no CUDA GPU", a failure
marked resumable that no re-run could fix. A learning run asked to use ``cuda`` without one still fails."""

from __future__ import annotations

import pytest
import torch
from harness_helpers import TINY_QA

from searchgym.fileio import read_json
from searchgym.harness.methods import parse_methods
from searchgym.harness.provenance import run_device
from searchgym.harness.runner import RunSpec, execute_run


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def spec(tmp_path, method: str) -> RunSpec:
    return RunSpec(TINY_QA, parse_methods(method)[0], 0, 40, tmp_path, device="cuda")


def test_a_baseline_asked_for_cuda_without_a_gpu_plays_on_the_cpu(tmp_path, no_gpu):
    baseline = spec(tmp_path, "random")
    outcome = execute_run(baseline)
    assert outcome.status == "done", outcome.error
    assert read_json(baseline.run_dir / "config.json")["device"] == "cpu"


def test_a_learning_run_asked_for_cuda_without_a_gpu_is_still_refused(tmp_path, no_gpu):
    with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
        execute_run(spec(tmp_path, "fast=harness_helpers:fast_learner"))


def test_run_device_keeps_every_other_answer_of_resolve_device(no_gpu):
    assert run_device("cpu", trains=False) == "cpu" and run_device("auto", trains=True) == "cpu"
    assert run_device("cuda:1", trains=False) == "cpu"
    with pytest.raises(ValueError, match="unknown device"):
        run_device("tpu", trains=False)
