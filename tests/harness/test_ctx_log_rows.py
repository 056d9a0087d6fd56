"""``ctx.log`` refuses a row the curves cannot read, naming the key, its value and what is accepted.

Before: a ``step`` below the previous row's and a ``dev_success`` of 2.0 were written as they came
(and drawn), and a value JSON cannot hold failed with "object is not JSON serialisable", naming no key."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from searchgym.cli import main
from searchgym.harness.methods import MethodRef
from searchgym.harness.metrics_rows import RowCheck
from searchgym.harness.runner import RunSpec, execute_run_safely
from searchgym.suites import Suite, register_suite

TRAIN = ["train", "--budget", "0", "--world-size", "tiny", "--test-size", "3", "--no-progress"]
SUITE = register_suite(Suite("test-ctx-log-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=2, test_size=3, description="tests: ctx.log's checks"))
STEP_BACK = ("ctx.log: 'step' is 5, below the 10 of this run's previous row; env steps consumed only grow (a row "
             "may repeat the previous step, never go back)")
SUCCESS = "ctx.log: 'dev_success' is {}; it is the success rate on the dev split, a number in [0, 1]"


def _logging(*rows):
    """A user's method that logs ``rows``, then plays at random."""
    def method(ctx):
        from searchgym.harness.methods import random_method

        for row in rows:
            ctx.log(row)
        return random_method(ctx)
    return method


step_back_method = _logging({"step": 10, "dev_success": 0.5}, {"step": 5, "dev_success": 0.6})
success_above_one_method = _logging({"step": 10, "dev_success": 2.0})
object_value_method = _logging({"step": 10, "loss": 0.1, "weights": object()})
good_method = _logging({"step": 0, "dev_success": 0.0}, {"step": 10, "dev_success": 0.5},
                       {"step": 10, "dev_success": np.float32(0.75), "loss": float("nan"), "shape": np.arange(2)})


@pytest.mark.parametrize(("name", "said"), [
    ("step_back_method", f"raised ValueError: {STEP_BACK}"),
    ("success_above_one_method", f"raised ValueError: {SUCCESS.format('2.0')}"),
    ("object_value_method", "raised TypeError: ctx.log: 'weights' holds <object object at "),
])
def test_train_reports_a_refused_row_as_the_methods_failure_in_one_line(tmp_path, capsys, name, said) -> None:
    out = tmp_path / "run"
    assert main([*TRAIN, "--method", f"test_ctx_log_rows:{name}", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"searchgym train: error: method 'test_ctx_log_rows.{name}' {said}")
    assert (out / "error.txt").is_file() and not (out / "DONE").exists()
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()] if (
        out / "metrics.jsonl").exists() else []
    assert [r["step"] for r in rows] == ([10] if name == "step_back_method" else [])  # the refused row is not written


def test_a_comparison_records_the_refusal_as_a_failed_run(tmp_path) -> None:
    spec = RunSpec(SUITE, MethodRef("mine", "test_ctx_log_rows:step_back_method"), 0, 0, tmp_path, "cpu",
                   progress=False)
    outcome = execute_run_safely(spec)
    assert outcome.status == "failed" and outcome.error == f"ValueError: {STEP_BACK}"


def test_rows_the_curves_read_are_written(tmp_path) -> None:
    spec = RunSpec(SUITE, MethodRef("mine", "test_ctx_log_rows:good_method"), 0, 0, tmp_path, "cpu", progress=False)
    assert execute_run_safely(spec).status == "done"
    rows = [json.loads(line) for line in (spec.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [(r["step"], r["dev_success"]) for r in rows] == [(0, 0.0), (10, 0.5), (10, 0.75)]
    assert rows[-1]["shape"] == [0, 1] and math.isnan(rows[-1]["loss"])


@pytest.mark.parametrize("value", [2.0, -0.1, float("nan"), float("inf"), True, "0.5", None, [0.5]])
def test_dev_success_outside_0_1_or_not_a_number_is_refused(value) -> None:
    with pytest.raises(ValueError) as caught:
        RowCheck()({"step": 1, "dev_success": value})
    assert str(caught.value) == SUCCESS.format(repr(value))


@pytest.mark.parametrize("value", [-1, float("nan"), float("-inf"), False, "10", None])
def test_a_step_that_is_not_a_count_is_refused(value) -> None:
    with pytest.raises(ValueError) as caught:
        RowCheck()({"step": value})
    assert str(caught.value) == (f"ctx.log: 'step' is {value!r}; it is the env steps consumed so far, a number >= 0")


def test_a_step_may_repeat_never_go_back_and_a_refused_row_changes_nothing() -> None:
    check = RowCheck()
    for step in (0, 10, 10, np.int64(12), 12.5):
        check({"step": step})
    with pytest.raises(ValueError, match=r"'step' is 12, below the 12.5 of this run's previous row"):
        check({"step": 12})
    check({"iteration": 3, "loss": 1.0})  # a row without a step is not compared
    with pytest.raises(ValueError, match="'dev_success' is 1.5"):
        check({"step": 20, "dev_success": 1.5})
    check({"step": 13})  # the refused row's step 20 was not kept


def test_a_value_json_cannot_hold_names_its_key_and_what_is_accepted() -> None:
    with pytest.raises(TypeError) as caught:
        RowCheck()({"step": 1, "policy": {"head": object}})
    assert str(caught.value).startswith("ctx.log: 'policy' holds {'head': <class 'object'>}, which JSON cannot hold "
                                        "(type is not JSON serialisable); a row holds JSON values: numbers, strings")
    with pytest.raises(TypeError, match=r"ctx.log: key 3 is an int; a row's keys are strings"):
        RowCheck()({3: 0.5})
    with pytest.raises(TypeError, match="ctx.log takes a dict, got list"):
        RowCheck()([("step", 1)])
