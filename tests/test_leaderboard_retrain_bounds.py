"""``leaderboard retrain`` runs only what the board shows, within stated limits: a run block whose
budget, seed or policy differs from the board's fields, or whose sizes exceed the limits, is
refused naming the field, the value and the limit, before any folder is made."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.harness.method_specs import HARNESS_FIELDS
from searchgym.harness.methods import METHODS, load_callable, spends_budget, trains
from searchgym.leaderboard_checks import SubmissionRejected
from searchgym.leaderboard_retrain import (
    MAX_EVAL_EPISODES,
    MAX_OPTION_NUMBER,
    MAX_RETRAIN_BUDGET,
    OPTION_LIMITS,
    POSITIVE_OPTIONS,
    check_run_bounds,
    retrain,
    run_spec,
)

BOARD = Path(__file__).resolve().parents[1] / "leaderboard" / "submissions"
COMMITTED = sorted(BOARD.glob("*.json"))
#: A trained run's submission (grpo, seed 0, from the retired quick-v1 board; its suite block and metrics
#: re-scored for quick-v2, which has the same tasks, so it verifies): the
#: bounds are checked on its run block, which no suite lookup reads.
TRAINED = Path(__file__).resolve().parent / "fixtures" / "trained_submission.json"


def _submission(**run_changes) -> dict:
    submission = json.loads(TRAINED.read_text())
    submission["run"].update(run_changes)
    return submission


def _refused(submission: dict, message: str) -> None:
    with pytest.raises(SubmissionRejected) as caught:
        check_run_bounds(submission)
    assert str(caught.value) == message


def test_the_committed_submissions_are_all_within_bounds(tmp_path):
    runnable = 0
    for path in [*COMMITTED, TRAINED]:
        submission = json.loads(path.read_text())
        check_run_bounds(submission)
        if submission["run"]["method_path"] in METHODS.values():
            spec = run_spec(submission, tmp_path / path.stem)
            method = load_callable(spec.method.path)
            if spends_budget(method):  # the board shows the env steps its retrain would spend
                assert submission["training_budget"] == spec.budget, path.name
            elif not trains(method):
                assert submission["training_budget"] == 0, path.name
            assert spec.budget <= MAX_RETRAIN_BUDGET, path.name
            assert spec.seed == submission["method"]["seed"], path.name
            runnable += 1
    assert runnable >= 3  # quick-v2's oracle and random, and the trained run


@pytest.mark.parametrize("budget", [0, 1, 19_999, 20_001, 40_000, MAX_RETRAIN_BUDGET, 10**17, 999999999999999999])
def test_a_run_budget_other_than_the_boards_is_refused(budget):
    _refused(_submission(budget=budget), f"run.budget ({budget}) differs from training_budget (20000), which the "
                                         "board shows; a retrain runs only what the board shows")


@pytest.mark.parametrize("budget", [MAX_RETRAIN_BUDGET + 1, 10**17, 999999999999999999, -1, 2.5, "20000", None, True])
@pytest.mark.parametrize("where", ["both", "board only"])
def test_a_budget_the_board_shows_is_still_bounded(budget, where):
    submission = _submission()
    submission["training_budget"] = budget
    if where == "both":
        submission["run"]["budget"] = budget
    else:
        del submission["run"]["budget"]
    _refused(submission, f"run.budget ({budget!r}) is outside the retrain limit: an int in 0..{MAX_RETRAIN_BUDGET} "
                         "env steps")


def test_a_method_that_does_not_train_shows_budget_0_and_its_run_budget_is_still_bounded():
    oracle = json.loads((BOARD / "quick-v2__oracle__seed0.json").read_text())
    assert oracle["training_budget"] == 0 and oracle["run"]["budget"] == 0
    check_run_bounds(oracle)
    oracle["run"]["budget"] = 10**17
    _refused(oracle, f"run.budget ({10**17}) is outside the retrain limit: an int in 0..{MAX_RETRAIN_BUDGET} env steps")


@pytest.mark.parametrize(("field", "value", "board_field", "board_value"), [
    ("seed", 1, "method.seed", 0), ("seed", 10**17, "method.seed", 0),
    ("policy", "minilm", "method.policy", "hash"), ("policy", "HASH", "method.policy", "hash"),
])
def test_a_seed_or_policy_other_than_the_boards_is_refused(field, value, board_field, board_value):
    _refused(_submission(**{field: value}), f"run.{field} ({value!r}) differs from {board_field} ({board_value!r}), "
                                            "which the board shows; a retrain runs only what the board shows")


def _option_cases() -> list[tuple[str, object, object]]:
    """(name, options, bad value) for every limited name: above its limit, negative, a float, a string,
    a bool; top level, dotted, nested under a section and inside an agent's options."""
    cases = []
    for name, limit in OPTION_LIMITS.items():
        for bad in (limit + 1, 10**17, -1, float(limit), str(limit), True):
            cases.append((name, {name: bad}, bad))
        cases.append((name, {f"loss.{name}": limit + 1}, limit + 1))
        cases.append((name, {"policy_kwargs": {name: limit + 1}}, limit + 1))
        cases.append((name, {"agent": "openai", "agent_options": {name: [1, limit + 1]}}, limit + 1))
    return cases


@pytest.mark.parametrize(("name", "options", "bad"), _option_cases())
def test_every_size_like_option_is_bounded_at_any_depth(name, options, bad):
    low, limit = int(name in POSITIVE_OPTIONS), OPTION_LIMITS[name]
    with pytest.raises(SubmissionRejected) as caught:
        check_run_bounds(_submission(options=options))
    message = str(caught.value)
    assert message.startswith("run.options.") and f"({bad!r}) is outside the retrain limit for {name}: " \
        f"an int in {low}..{limit}" in message


@pytest.mark.parametrize("name", POSITIVE_OPTIONS)
@pytest.mark.parametrize("value", [0, -1, -(10**6)])
def test_counts_and_intervals_start_at_1(name, value):
    limit = OPTION_LIMITS.get(name, MAX_OPTION_NUMBER)
    _refused(_submission(options={name: value}), f"run.options.{name} ({value}) is outside the retrain limit for "
                                                 f"{name}: an int in 1..{limit}")


@pytest.mark.parametrize(("options", "episodes"), [
    # quick-v2 has 60 dev tasks; budget 20,000; iterations <= 20,000 / (group_size * tasks_per_iteration)
    ({"group_size": 1, "tasks_per_iteration": 1, "eval_every": 1}, (20_000 + 1) * 60),
    ({"group_size": 1, "tasks_per_iteration": 1, "eval_every": 5}, (4_000 + 1) * 60),
    ({"group_size": 2, "tasks_per_iteration": 2, "eval_every": 1, "eval_tasks": 1000}, (5_000 + 1) * 1000),
    ({"tasks_per_iteration": 1, "eval_every": 1, "eval_tasks": 1000}, (2_500 + 1) * 1000),
])
def test_the_learning_curve_cannot_make_a_retrain_unbounded(options, episodes):
    values = {"group_size": 8, "tasks_per_iteration": 8, "eval_every": 5, "eval_tasks": 60, **options}
    shown = ", ".join(f"{k}={values[k]}" for k in ("group_size", "tasks_per_iteration", "eval_every", "eval_tasks"))
    _refused(_submission(options=options), f"run.options ({shown}) with run.budget 20000 could play up to {episodes} "
                                           f"dev episodes for the learning curve; the retrain limit is "
                                           f"{MAX_EVAL_EPISODES}")


@pytest.mark.parametrize("options", [
    {"group_size": 1, "tasks_per_iteration": 1, "eval_every": 1000},  # 21 curve points of 60 episodes
    {"group_size": 1, "tasks_per_iteration": 1, "eval_every": 1, "eval_tasks": 9},  # 20,001 x 9 = 180,009
    {},  # the defaults: 313 iterations, 63 points of 60 episodes
])
def test_a_curve_within_the_limit_is_accepted(options):
    check_run_bounds(_submission(options=options))


@pytest.mark.parametrize(("options", "path"), [
    ({"group_size": 9}, None), ({"tasks_per_iteration": 64, "group_size": 64}, None),
    ({"loss.value_epochs": 16, "hidden": 4096}, None), ({"minibatch_size": None}, None),
    ({"lr": 1e-8, "loss.entropy_coef": 0.0, "eval_every": 1}, None),
    ({"agent": "random", "agent_options": {}}, None),
])
def test_options_within_the_limits_are_accepted(options, path):
    check_run_bounds(_submission(options=options))


@pytest.mark.parametrize(("options", "path", "value"), [
    ({"loss.entropy_coef": 10**7}, "run.options.loss.entropy_coef", 10**7),
    ({"lr": 1e300}, "run.options.lr", 1e300),
    ({"lr": -1e7}, "run.options.lr", -1e7),
    ({"coma.target_update_every": 2**63}, "run.options.coma.target_update_every", 2**63),
    ({"agent_options": {"anything": [0, 10**12]}}, "run.options.agent_options.anything[1]", 10**12),
])
def test_any_other_number_in_the_options_is_bounded(options, path, value):
    _refused(_submission(options=options), f"{path} ({value!r}) is outside the retrain limit for an option: "
                                           f"at most {MAX_OPTION_NUMBER} in size")


@pytest.mark.parametrize("name", [*HARNESS_FIELDS, "train.budget", "loss.seed"])
def test_options_may_not_set_what_the_harness_sets(name):
    _refused(_submission(options={name: 1}), f"run.options sets {name}, which the harness sets from the board's "
                                             "fields; options may not")


def test_retrain_refuses_a_huge_verified_submission_before_making_a_folder(tmp_path, capsys):
    submission = _submission(budget=10**17)
    submission["training_budget"] = 10**17
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(submission))
    with pytest.raises(SubmissionRejected, match=re.escape(f"run.budget (100000000000000000) is outside the retrain "
                                                           f"limit: an int in 0..{MAX_RETRAIN_BUDGET} env steps")):
        retrain(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    sized = copy.deepcopy(_submission(options={"group_size": 10**6}))
    path.write_text(json.dumps(sized))
    assert main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "out2")]) != 0
    assert capsys.readouterr().out == (f"CANNOT RETRAIN {path}: run.options.group_size (1000000) is outside the "
                                       "retrain limit for group_size: an int in 1..64\n")
    assert not (tmp_path / "out2").exists()


def test_the_supervised_base_shows_its_demonstrations_and_its_run_budget_is_not_compared():
    sft = json.loads((BOARD / "quick-v2__sft__seed0.json").read_text())
    assert sft["training_budget"] != sft["run"]["budget"]  # its demonstrations' agent-steps, not --budget
    check_run_bounds(sft)
    sft["run"]["budget"] = MAX_RETRAIN_BUDGET + 1  # still bounded
    _refused(sft, f"run.budget ({MAX_RETRAIN_BUDGET + 1}) is outside the retrain limit: an int in "
                  f"0..{MAX_RETRAIN_BUDGET} env steps")
