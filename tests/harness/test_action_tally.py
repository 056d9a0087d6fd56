"""An evaluated agent most of whose test actions the env could not take is warned about (one line, kept in
result.json["actions"]), as an endpoint whose replies mostly were no readable action is. Before: an agent
returning a candidate index out of range at every step scored 0 with 12 steps and no word why."""

from __future__ import annotations

import json

from harness_helpers import TINY_QA, first_candidate_factory

from searchgym.cli import main
from searchgym.harness.action_tally import ActionTally, stored_warning
from searchgym.harness.evaluate import evaluate_suite


def _evaluate(out, index: int) -> list[str]:
    return ["evaluate", "--suite", TINY_QA.id, "--agent", "harness_helpers:first_candidate_factory",
            "--agent-option", f"index={index}", "--limit", "3", "--out", str(out), "--no-progress"]


def test_an_agent_whose_actions_are_out_of_range_is_warned_about_and_shown_again(tmp_path, capsys):
    out = tmp_path / "bad"
    assert main(_evaluate(out, 10**9)) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("WARNING:")]
    actions = json.loads((out / "result.json").read_text())["actions"]
    assert actions["taken"] > 0 and actions["unusable"] == actions["taken"]
    assert warnings == [f"WARNING: {actions['warning']}"]
    assert f"{actions['taken']} of {actions['taken']} test actions (100%) were not actions the env" in warnings[0]
    assert main(_evaluate(out, 10**9)) == 0  # the finished run shown again says it again
    assert f"WARNING: {actions['warning']}" in capsys.readouterr().err


def test_an_agent_whose_actions_are_taken_gets_no_warning_nor_key(tmp_path, capsys):
    out = tmp_path / "good"
    assert main(_evaluate(out, 0)) == 0
    assert "WARNING" not in capsys.readouterr().err
    assert "actions" not in json.loads((out / "result.json").read_text())


def test_the_tally_counts_every_step_and_those_the_env_could_not_take():
    tally = ActionTally()
    predictions = evaluate_suite(TINY_QA, first_candidate_factory(10**9), "test", limit=2, tally=tally)
    assert tally.actions == sum(p.steps for p in predictions) == tally.unusable
    half = ActionTally()
    for info in ({"step": 4, "format_errors": 1, "invalid_actions": 1}, {"step": 2, "format_errors": True}):
        half.add(info)
    assert (half.actions, half.unusable, half.warning()) == (6, 2, None)  # a bool is no count
    assert half.record() == {}


def test_an_llm_runs_reply_warning_is_the_one_said():
    warned = {"actions": {"warning": "most actions"}}
    assert stored_warning(warned) == "most actions"
    assert stored_warning({**warned, "llm_replies": {"warning": "most replies"}}) is None
    assert stored_warning({"actions": ["not a record"]}) is None
