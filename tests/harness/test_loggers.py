"""Experiment logging: TensorBoard and W&B get every metrics.jsonl number under the same name."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.fileio import read_jsonl
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.loggers import make_logger, scalars
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import run_dir


def _comparison(out, logger: str) -> Comparison:
    return Comparison(suite=TINY_QA, methods=parse_methods("fast=harness_helpers:fast_learner"), seeds=[0],
                      budget=40, out=out, device="cpu", progress=False, reference="fast", logger=logger)


def _event_scalars(folder) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(folder))
    accumulator.Reload()
    return {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


def test_scalars_keep_numbers_and_drop_text_nested_and_nan() -> None:
    row = {"step": 3, "dev_success": 0.5, "ok": True, "note": "x", "nested": {"a": 1}, "bad": float("nan")}
    assert scalars(row) == {"step": 3.0, "dev_success": 0.5, "ok": 1.0}


def test_tensorboard_logs_every_metric_under_its_jsonl_name(tmp_path) -> None:
    result = run_comparison(_comparison(tmp_path, "tensorboard"))
    assert not result.failed
    folder = run_dir(tmp_path, "fast", 0)
    rows = read_jsonl(folder / "metrics.jsonl")
    logged = _event_scalars(folder / "tensorboard")
    expected = set().union(*(scalars(r) for r in rows))
    assert set(logged) == expected == {"step", "dev_success", "loss", "time", "attempt"}
    assert logged["dev_success"] == [(r["step"], pytest.approx(r["dev_success"])) for r in rows]
    assert [s for s, _ in logged["loss"]] == [10, 20, 30, 40]


def test_wandb_offline_run_holds_the_metrics(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    result = run_comparison(_comparison(tmp_path, "wandb"))
    assert not result.failed
    folder = run_dir(tmp_path, "fast", 0)
    offline = list((folder / "wandb").glob("offline-run-*"))
    assert len(offline) == 1, list((folder / "wandb").iterdir())
    (run_file,) = offline[0].glob("*.wandb")
    assert run_file.stat().st_size > 0
    summary = run_file.read_bytes()
    for name in ("dev_success", "loss", "step"):
        assert name.encode() in summary


def test_an_unknown_logger_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ValueError, match="unknown logger .*; accepted: none, tensorboard, wandb"):
        make_logger("mlflow", tmp_path, "x")


def test_wandb_without_a_login_logs_offline_and_says_so(tmp_path, monkeypatch, capsys) -> None:
    """Before: with no API key and no WANDB_MODE, wandb.init raised "No API key configured": a
    traceback in `train`, and every run of `compare` failed with a remedy (re-run) that could not help."""
    pytest.importorskip("wandb")
    for name in ("WANDB_MODE", "WANDB_API_KEY", "WANDB_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.netrc, so no `wandb login`
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    result = run_comparison(_comparison(tmp_path, "wandb"))
    assert not result.failed
    assert len(list((run_dir(tmp_path, "fast", 0) / "wandb").glob("offline-run-*"))) == 1
    assert "W&B: no login (WANDB_API_KEY, `wandb login`), so" in capsys.readouterr().err
