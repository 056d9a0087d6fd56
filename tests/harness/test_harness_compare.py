"""Comparisons: the run folder layout, resume after a crash, a killed worker and Ctrl-C."""

from __future__ import annotations

import csv

import pytest
from harness_helpers import CRASH_ENV, SLEEP_ENV, TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.fileio import read_json, read_jsonl
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import run_dir

METHODS = "random,oracle,fast=harness_helpers:fast_learner"


def comparison(out, workers=1, budget=40, seeds=(0, 1), methods=METHODS):
    return Comparison(suite=TINY_QA, methods=parse_methods(methods), seeds=list(seeds), budget=budget, out=out,
                      device="cpu", workers=workers, progress=False, reference="fast")


def done_mtimes(out):
    return {p.relative_to(out).as_posix(): p.stat().st_mtime_ns
            for p in sorted(out.glob("runs/*/seed*/DONE")) + sorted(out.glob("runs/*/seed*/predictions.jsonl"))}


def test_a_crashed_run_is_resumed_and_finished_runs_are_not_redone(tmp_path, monkeypatch):
    monkeypatch.setenv(CRASH_ENV, "1:raise")
    first = run_comparison(comparison(tmp_path))
    assert [(o.label, o.seed) for o in first.failed] == [("fast", 1)]
    assert "simulated crash" in first.failed[0].error
    crashed = run_dir(tmp_path, "fast", 1)
    assert not (crashed / "DONE").exists() and "simulated crash" in (crashed / "error.txt").read_text()
    assert [r["step"] for r in read_jsonl(crashed / "metrics.jsonl")] == [10]
    before = done_mtimes(tmp_path)
    assert len(before) == 10  # 5 finished runs x (DONE, predictions)

    monkeypatch.delenv(CRASH_ENV)
    second = run_comparison(comparison(tmp_path))
    assert sorted((o.label, o.seed, o.status) for o in second.outcomes) == [
        ("fast", 0, "skipped"), ("fast", 1, "done"), ("oracle", 0, "skipped"), ("oracle", 1, "skipped"),
        ("random", 0, "skipped"), ("random", 1, "skipped")]
    after = done_mtimes(tmp_path)
    assert {k: after[k] for k in before} == before  # nothing finished was rewritten
    rows = read_jsonl(crashed / "metrics.jsonl")
    # resumed from the checkpoint at step 10: the second attempt starts at 20, not 10
    assert [(r["step"], r["attempt"]) for r in rows] == [(10, 1), (20, 2), (30, 2), (40, 2)]
    assert read_json(crashed / "config.json")["attempt"] == 2
    assert not second.failed


def test_outputs_of_a_comparison(tmp_path):
    result = run_comparison(comparison(tmp_path))
    assert not result.failed
    folder = run_dir(tmp_path, "fast", 0)
    config = read_json(folder / "config.json")
    assert config["suite_id"] == "test-tiny-qa-v0" and config["suite_hash"] == TINY_QA.content_hash
    assert config["method"] == "fast" and config["method_path"] == "harness_helpers:fast_learner"
    assert config["seed"] == 0 and config["budget"] == 40 and config["training_budget"] == 40
    assert config["device"] == "cpu" and config["device_name"]
    assert config["packages"]["numpy"] != "not installed" and "searchgym" in config["packages"]
    assert config["git"]["revision"] and config["python"].count(".") == 2
    assert read_json(run_dir(tmp_path, "oracle", 0) / "config.json")["training_budget"] == 0
    predictions = read_jsonl(folder / "predictions.jsonl")
    assert len(predictions) == 12 == len({p["task_id"] for p in predictions})
    assert set(predictions[0]) == {"task_id", "family", "answer", "steps", "tool_calls", "success", "f1", "score"}
    assert all(p["success"] for p in predictions)  # fast_learner acts as the oracle
    metrics = read_jsonl(folder / "metrics.jsonl")
    assert [r["dev_success"] for r in metrics] == [0.375, 0.5, 0.625, 0.75]
    assert all("time" in r and r["attempt"] == 1 for r in metrics)

    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    families = sorted({p["family"] for p in predictions})
    assert len(rows) == 3 * (len(families) + 1) * 3  # methods x (families + all) x (2 seeds + aggregate)
    oracle_all = next(r for r in rows if r["method"] == "oracle" and r["family"] == "all" and r["aggregate"] == "True")
    assert float(oracle_all["success"]) == 1.0 and float(oracle_all["success_low"]) == 1.0
    random_all = next(r for r in rows if r["method"] == "random" and r["family"] == "all" and r["aggregate"] == "True")
    assert float(random_all["success_low"]) <= float(random_all["success"]) <= float(random_all["success_high"])

    md = (tmp_path / "results.md").read_text()
    assert "## Significance: fast against each other method" in md and "| oracle (privileged) | +0.000 | 1.0000 |" in md
    assert "| oracle (privileged) | 2 |" in md and "oracle (privileged) reads the task's gold evidence chain" in md
    assert "| random | 2 |" in md and "learning_curves.png" in md
    for png in (tmp_path / "learning_curves.png", tmp_path / "curves" / "fast.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.report.table.startswith("| method | seeds | all |")


def test_a_killed_worker_loses_no_finished_run(tmp_path, monkeypatch):
    monkeypatch.setenv(CRASH_ENV, "0:exit")
    monkeypatch.setenv(SLEEP_ENV, "0.3")
    first = run_comparison(comparison(tmp_path, workers=2))
    assert ("fast", 0) in {(o.label, o.seed) for o in first.failed}
    assert any("worker process died" in (o.error or "") for o in first.failed)
    before = done_mtimes(tmp_path)
    monkeypatch.delenv(CRASH_ENV)
    monkeypatch.setenv(SLEEP_ENV, "0")
    second = run_comparison(comparison(tmp_path, workers=2))
    assert not second.failed
    assert len(list(tmp_path.glob("runs/*/seed*/DONE"))) == 6
    after = done_mtimes(tmp_path)
    assert {k: after[k] for k in before} == before
    skipped = {(o.label, o.seed) for o in second.outcomes if o.status == "skipped"}
    assert len(skipped) == len(before) // 2
    rows = read_jsonl(run_dir(tmp_path, "fast", 0) / "metrics.jsonl")
    assert [(r["step"], r["attempt"]) for r in rows] == [(10, 1), (20, 2), (30, 2), (40, 2)]


def test_ctrl_c_keeps_finished_runs_and_the_same_command_resumes(tmp_path):
    seen = []

    def interrupt_after_two(outcome):
        seen.append(outcome)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_comparison(comparison(tmp_path), on_outcome=interrupt_after_two)
    assert not (tmp_path / "summary.csv").exists()
    before = done_mtimes(tmp_path)
    assert len(before) == 4
    result = run_comparison(comparison(tmp_path))
    assert sum(o.status == "skipped" for o in result.outcomes) == 2
    assert sum(o.status == "done" for o in result.outcomes) == 4
    after = done_mtimes(tmp_path)
    assert {k: after[k] for k in before} == before


def test_a_folder_of_another_comparison_is_not_reused(tmp_path):
    # a learner: a baseline's budget is no part of its run (it trains nothing; tests/harness/test_baseline_budget.py)
    learner = "fast=harness_helpers:fast_learner"
    run_comparison(comparison(tmp_path, methods=learner, seeds=(0,)))
    with pytest.raises(ValueError, match="holds a different run.*budget: 40 there, 80 now"):
        run_comparison(comparison(tmp_path, methods=learner, seeds=(0,), budget=80))


def test_unknown_or_unimportable_methods_fail_before_any_run(tmp_path):
    with pytest.raises(ValueError, match="unknown method 'nope'; built-in methods: random, reader, oracle, sft, cw_grpo"):
        comparison(tmp_path, methods="random,nope")
    with pytest.raises(ValueError, match="cannot be imported"):
        run_comparison(comparison(tmp_path, methods="random,no_such_pkg_xyz.mod:method"))
    with pytest.raises(ValueError, match="must accept one argument, a RunContext"):
        run_comparison(comparison(tmp_path, methods="harness_helpers:not_a_method"))
    assert not (tmp_path / "runs").exists()


def test_bad_comparison_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="budget must be a non-negative int"):
        comparison(tmp_path, budget=-1)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        comparison(tmp_path, workers=0)
    with pytest.raises(ValueError, match="unknown device 'tpu'; accepted: auto, cpu, cuda"):
        run_comparison(Comparison(suite=TINY_QA, methods=parse_methods("random"), seeds=[0], budget=0,
                                  out=tmp_path, device="tpu", progress=False))
    with pytest.raises(ValueError, match="seeds must be non-negative ints"):
        comparison(tmp_path, seeds=(-1,))
    # a count, as --seeds takes one (before: "'int' object is not iterable")
    with pytest.raises(TypeError, match=r"seeds is a list of seeds, got the int 2; for 2 seeds from 0 give "
                                        r"seeds=list\(range\(2\)\)"):
        Comparison(suite=TINY_QA, methods=parse_methods("random"), seeds=2, budget=0, out=tmp_path, device="cpu")


def test_a_folder_made_with_another_version_of_a_feature_set_is_not_reused(tmp_path, monkeypatch):
    import searchgym.policy_format as formats

    options = {"policy_kwargs": {"comparison_facts": True}}  # a user's method takes them (oracle refuses options)
    methods = parse_methods("fast=harness_helpers:fast_learner")
    run_comparison(Comparison(suite=TINY_QA, methods=methods, seeds=(0,), budget=40, out=tmp_path, options=options))
    assert read_json(tmp_path / "runs" / "fast" / "seed0" / "config.json")["feature_versions"] == {
        "comparison_facts": formats.FEATURE_VERSIONS["comparison_facts"]}
    monkeypatch.setitem(formats.FEATURE_VERSIONS, "comparison_facts", 99)
    with pytest.raises(ValueError, match="holds a different run.*feature_versions"):
        run_comparison(Comparison(suite=TINY_QA, methods=methods, seeds=(0,), budget=40, out=tmp_path,
                                  options=options))


def test_a_different_run_names_the_option_key_and_the_suite_field_that_changed(tmp_path):
    # before: the whole options dict twice (3,162 characters for one LLM option), and a changed world
    # size only as "suite_hash: '4894...' there, '08a1...' now"
    import json
    from dataclasses import replace

    from searchgym.harness.methods import METHODS, MethodRef
    from searchgym.harness.runner import RunSpec, check_identity

    first = RunSpec(TINY_QA, MethodRef("cw_grpo", METHODS["cw_grpo"]), 0, 40, tmp_path, "cpu",
                    options={"llm": {"max_new_tokens": 32, "temperature": 1.0}, "group_size": 4})
    first.run_dir.mkdir(parents=True)
    (first.run_dir / "config.json").write_text(json.dumps({**first.identity(), "suite": TINY_QA.definition()}))
    changed = replace(first, options={"llm": {"max_new_tokens": 16, "temperature": 1.0}, "group_size": 4})
    with pytest.raises(ValueError) as caught:
        check_identity(changed)
    assert "(options.llm.max_new_tokens: 32 there, 16 now); use another --out" in str(caught.value)
    other_world = replace(first, suite=replace(TINY_QA, test_size=TINY_QA.test_size + 1))
    with pytest.raises(ValueError, match=r"suite\.test_size: \d+ there, \d+ now") as caught:
        check_identity(other_world)
    assert "suite_hash" not in str(caught.value)
