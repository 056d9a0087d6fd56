"""Same command, same seed, same machine: byte-identical predictions; and what the record says."""

from __future__ import annotations
from pathlib import Path

from searchgym.fileio import read_json, read_jsonl
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import run_dir

from baselines_helpers import SMALL_RUN, TINY_TEAM

METHODS = "cw_grpo,mappo,random"


def _compare(out: Path) -> None:
    result = run_comparison(Comparison(suite=TINY_TEAM, methods=parse_methods(METHODS), seeds=[0, 1], budget=40,
                                       out=out, device="cpu", workers=1, progress=False, options=dict(SMALL_RUN)))
    assert not result.failed, result.failed


def _timing(key: str) -> bool:
    return key == "time" or key.endswith(("_per_s", "_seconds")) or key.startswith("time/")


def test_the_same_comparison_twice_gives_byte_identical_predictions(tmp_path):
    _compare(tmp_path / "a")
    _compare(tmp_path / "b")
    for label in METHODS.split(","):
        for seed in (0, 1):
            a, b = run_dir(tmp_path / "a", label, seed), run_dir(tmp_path / "b", label, seed)
            assert (a / "predictions.jsonl").read_bytes() == (b / "predictions.jsonl").read_bytes(), (label, seed)
            rows_a, rows_b = read_jsonl(a / "metrics.jsonl"), read_jsonl(b / "metrics.jsonl")
            assert len(rows_a) == len(rows_b)
            for row_a, row_b in zip(rows_a, rows_b):  # every number but the clock's
                differ = {k for k in set(row_a) | set(row_b) if row_a.get(k) != row_b.get(k) and not _timing(k)}
                assert not differ, (label, seed, {k: (row_a.get(k), row_b.get(k)) for k in differ})


def test_the_run_record_says_what_decides_the_bits(tmp_path):
    _compare(tmp_path)
    config = read_json(run_dir(tmp_path, "cw_grpo", 0) / "config.json")
    compute = config["compute"]
    for key in ("cpu_model", "cpu_capability", "torch_threads", "torch", "numpy", "logical_cores"):
        assert key in compute and compute[key] not in (None, ""), key
    assert compute["torch_threads"] == config["threads"]  # what the run actually used
